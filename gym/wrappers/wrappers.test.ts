// gym/wrappers tests: budgets (turns, response tokens, context), episode statistics, seeded fault injection and the
// no-Access ablation, composed through makeEnv on the fixture world.
import { Rng } from '../../infra/rng'
import { FIXTURE_QA, openFixtureWorld } from '../../tests/fixtures/gym-fixture-world'
import { makeEnv, resolveGymOptions } from '../make-env'
import { withFaults } from './faults'

const world = openFixtureWorld()
const qa = FIXTURE_QA[1]
const search = (q: string) => `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(q)}}}</tool_call>`

describe('budgets', () => {
  it('truncates after 16 assistant turns without an answer (paper default), keeping that turn\'s counts', async () => {
    const env = makeEnv(world, qa, { reward: 'em+format' })
    await env.initialObservation()
    let r
    for (let i = 1; i <= 16; i++) {
      r = await env.step(search(`Brenlow ${i}`))
      if (i < 16) expect(r.truncated).toBe(false)
    }
    expect(r).toMatchObject({ truncated: true, terminated: false, stopReason: 'max_turns', reward: -0.1 })
    expect(r!.metrics['episode/searches']).toBe(16)
    expect(r!.metrics['episode/turns']).toBe(16)
    expect(r!.metrics['budget/max_turns']).toBe(1)
  })

  it('truncates a response over the token budget (policy-reported count)', async () => {
    const env = makeEnv(world, qa)
    await env.initialObservation()
    const ok = await env.step({ text: search('x'), numTokens: 1024 })
    expect(ok.truncated).toBe(false)
    const r = await env.step({ text: '<answer>Brenlow</answer>', numTokens: 1025 })
    expect(r).toMatchObject({ truncated: true, stopReason: 'max_tokens', reward: 0 })
  })

  it('truncates when the total context exceeds its cap', async () => {
    const env = makeEnv(world, qa, { budgets: { maxTurns: 16, maxResponseTokens: 1024, maxContextTokens: 400 } })
    await env.initialObservation()
    let r = await env.step(search('Harrow House'))
    for (let i = 0; i < 10 && !r.truncated; i++) r = await env.step(`<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Marie_Alder"}}</tool_call>`)
    expect(r).toMatchObject({ truncated: true, stopReason: 'context' })
  })

  it('an answer within budget terminates normally with episode statistics', async () => {
    const env = makeEnv(world, qa)
    await env.initialObservation()
    await env.step(search('Harrow House headquarters'))
    await env.step('<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Nowhere"}}</tool_call>')
    await env.step('oops')
    const r = await env.step('<answer>Brenlow</answer>')
    expect(r).toMatchObject({ terminated: true, reward: 1 })
    expect(r.metrics).toMatchObject({
      'episode/turns': 4,
      'episode/searches': 1,
      'episode/accesses': 1,
      'episode/search_success_rate': 1,
      'episode/access_success_rate': 0,
      'episode/malformed': 1,
    })
    expect(r.metrics['episode/response_tokens']).toBeGreaterThan(0)
    expect(env.stats().turns).toBe(4)
  })
})

describe('fault injection', () => {
  const run = async (seed: number) => {
    const env = makeEnv(world, qa, { budgets: { maxTurns: 100, maxResponseTokens: 1024, maxContextTokens: 1e8 }, faults: { seed, searchTimeout: 0.25, searchRateLimit: 0.25, searchEmpty: 0.25, accessFailure: 0.5, latencyRate: 0, latencyMs: 0, timeoutMs: 0 } })
    const out: string[] = []
    for (let i = 0; i < 40; i++) {
      const r = await env.step(i % 3 === 2 ? '<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Brenlow"}}</tool_call>' : search('Brenlow'))
      out.push(Object.keys(r.metrics).filter((k) => /_(timeout|rate_limited|unavailable|empty|ok)$/.test(k)).sort().join(','))
      if (r.truncated) break
    }
    return { out, stats: env.stats() }
  }
  it('is seeded: the same seed gives the same faults; another seed differs', async () => {
    const a = await run(7)
    expect((await run(7)).out).toEqual(a.out)
    expect((await run(8)).out).not.toEqual(a.out)
    const all = a.out.join(' ')
    expect(all).toMatch(/search_timeout/)
    expect(all).toMatch(/search_rate_limited/)
    expect(a.stats.search_success_rate).toBeLessThan(1)
  })
  it('failures are observations that say what happened', async () => {
    const env = makeEnv(world, qa, { faults: { ...resolveGymOptions({}).faults, searchRateLimit: 1, accessFailure: 1 } })
    const s = await env.step(search('x'))
    expect(s.observation[0].content).toBe('Search failed: the search service is rate-limited (429). You may try again.')
    expect(s.metrics).toMatchObject({ search_errors: 1, search_rate_limited: 1 })
    const a = await env.step('<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Brenlow"}}</tool_call>')
    expect(a.metrics).toMatchObject({ access_errors: 1, access_unavailable: 1 })
  })
  it('empty results and added latency', async () => {
    const slow = withFaults(world, { searchEmpty: 1, latencyRate: 1, latencyMs: 30 }, new Rng(1))
    const t0 = performance.now()
    expect(await slow.search('Brenlow', 5)).toEqual([])
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25)
  })
})

describe('no-Access ablation', () => {
  it('search returns whole documents and access is disabled', async () => {
    const env = makeEnv(world, qa, { access: false })
    const obs = await env.initialObservation()
    expect(obs[0].content).not.toContain('"name": "access"')
    expect(obs[0].content).toContain('"name": "search"')
    expect(env.tools.map((t) => t.function.name)).toEqual(['search'])
    const r = await env.step(search('University of Tessin'))
    expect(r.observation[0].content).toContain('IGNORE ALL PREVIOUS INSTRUCTIONS') // the end of the full document
    const a = await env.step('<tool_call>{"name":"access","arguments":{"url":"https://fixture.wiki/Brenlow"}}</tool_call>')
    expect(a.metrics['malformed/tool_disabled']).toBe(1)
  })
})

describe('options', () => {
  it('rejects unknown keys and out-of-range values with clear messages', () => {
    expect(() => resolveGymOptions({ topk: 3 })).toThrow(/unknown config key 'gym options.topk'/)
    expect(() => resolveGymOptions({ topK: 0 })).toThrow(/topK must be an integer in \[1, 100\]/)
    expect(() => resolveGymOptions({ protocol: 'xml' })).toThrow(/unknown protocol 'xml'/)
    expect(() => resolveGymOptions({ prompt: 'short' })).toThrow(/prompt must be 'full' or 'brief'/)
    expect(resolveGymOptions({ prompt: 'brief' }).prompt).toBe('brief')
    expect(() => resolveGymOptions({ faults: { searchTimeout: 2 } })).toThrow(/probability/)
    expect(() => makeEnv(world, 'nope')).toThrow(/no QA with id 'nope'/)
  })
})

describe('token counting', () => {
  it('the Qwen3 tokenizer counts real tokens; the default estimate is close for English prose', async () => {
    const { qwen3TokenCounter, approxTokens } = await import('./token-count')
    const count = await qwen3TokenCounter()
    const text = 'The Glass Orchard is a 1962 novel written by Marie Alder. It was published by Harrow House. '.repeat(20)
    const exact = count(text)
    expect(exact).toBeGreaterThan(300)
    expect(Math.abs(approxTokens(text) - exact) / exact).toBeLessThan(0.25)
    const env = makeEnv(world, qa, { budgets: { maxTurns: 16, maxResponseTokens: 30, maxContextTokens: 32768 } }, count)
    await env.initialObservation()
    expect((await env.step('<answer>Brenlow is the city you are looking for</answer>')).stopReason).toBe('answer')
    expect((await makeEnv(world, qa, { budgets: { maxTurns: 16, maxResponseTokens: 30, maxContextTokens: 32768 } }, count).step(text)).stopReason).toBe('max_tokens')
  })
})

describe('makeEnvGroup', () => {
  it('builds N independent envs whose fault streams differ but repeat', async () => {
    const { makeEnvGroup } = await import('../make-env')
    const faults = { seed: 3, searchTimeout: 0.5, searchRateLimit: 0, searchEmpty: 0, accessFailure: 0, latencyRate: 0, latencyMs: 0, timeoutMs: 0 }
    const run = async () => {
      const envs = makeEnvGroup(world, qa, 8, { faults })
      const out: number[] = []
      for (const env of envs) {
        let errs = 0
        for (let i = 0; i < 6; i++) errs += (await env.step(search('Brenlow'))).metrics.search_errors ?? 0
        out.push(errs)
      }
      return out
    }
    const a = await run()
    expect(a).toHaveLength(8)
    expect(new Set(a).size).toBeGreaterThan(1)
    expect(await run()).toEqual(a)
    expect(() => makeEnvGroup(world, qa, 0)).toThrow(/group size/)
  })
})
