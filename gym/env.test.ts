// gym/env tests: SearchEnv on the fixture world — prompt, search/access observations, unknown pages, the observation
// cap, answers and rewards, malformed turns, failing engines, and the three protocols end to end.
import { SearchEnv } from './env'
import { resolveGymOptions } from './make-env'
import { FIXTURE_DOCS, FIXTURE_QA, openFixtureWorld } from '../tests/fixtures/gym-fixture-world'
import type { GymWorld } from './world-view'

const world = openFixtureWorld()
const qa = FIXTURE_QA[0]
const tc = (name: string, args: unknown) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`

describe('SearchEnv (hermes)', () => {
  it('starts with the system prompt (tool schemas, answer format) and the question', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({}))
    const obs = await env.initialObservation()
    expect(obs.map((m) => m.role)).toEqual(['system', 'user'])
    expect(obs[0].content).toContain('<tools>')
    expect(obs[0].content).toContain('"name": "search"')
    expect(obs[0].content).toContain('"name": "access"')
    expect(obs[0].content).toContain('<answer>')
    expect(obs[1].content).toBe(qa.question)
    expect(env.tools.map((t) => t.function.name)).toEqual(['search', 'access'])
  })

  it('search returns titles, URLs and snippets; access returns the full page', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({}))
    await env.initialObservation()
    const s = await env.step(tc('search', { query: 'Glass Orchard novel' }))
    expect(s.terminated || s.truncated).toBe(false)
    expect(s.observation).toHaveLength(1)
    expect(s.observation[0].role).toBe('tool')
    expect(s.observation[0].content).toContain('[1] The Glass Orchard\nURL: https://fixture.wiki/The_Glass_Orchard')
    expect(s.metrics).toMatchObject({ turn: 1, search_calls: 1, search_ok: 1 })
    const a = await env.step(tc('access', { url: 'https://fixture.wiki/The_Glass_Orchard' }))
    expect(a.observation[0].content).toContain(FIXTURE_DOCS[1].text)
    expect(a.metrics).toMatchObject({ access_calls: 1, access_ok: 1 })
  })

  it('stepSignals false: the same observations and outcome without signal/* metrics; step-term rewards refuse it', async () => {
    const play = async (stepSignals: boolean) => {
      const env = new SearchEnv(world, qa, resolveGymOptions({ stepSignals }))
      await env.initialObservation()
      const steps = [await env.step(tc('search', { query: 'Glass Orchard novel' })), await env.step(tc('access', { url: FIXTURE_DOCS[1].url })), await env.step(`<answer>${qa.answer}</answer>`)]
      return steps
    }
    const on = await play(true)
    const off = await play(false)
    expect(Object.keys(on[0].metrics).some((k) => k.startsWith('signal/'))).toBe(true)
    for (let i = 0; i < on.length; i++) {
      expect(off[i].observation).toEqual(on[i].observation)
      expect(off[i].reward).toBe(on[i].reward)
      expect(Object.keys(off[i].metrics).filter((k) => k.startsWith('signal/'))).toEqual([])
      const rest = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('signal/') && k !== 'tool_latency_ms'))
      expect(rest(off[i].metrics)).toEqual(rest(on[i].metrics))
    }
    expect(off[2].metrics.f1).toBe(1)
    expect(() => resolveGymOptions({ stepSignals: false, reward: 'process' })).toThrow(/stepSignals must not be false/)
    expect(() => resolveGymOptions({ stepSignals: false, reward: 'cost' })).toThrow(/stepSignals must not be false/)
    expect(() => resolveGymOptions({ stepSignals: 'no' })).toThrow(/stepSignals must be a boolean/)
  })

  it('an unknown URL gets a clear "no such page" observation', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({}))
    const r = await env.step(tc('access', { url: 'https://fixture.wiki/Nowhere' }))
    expect(r.observation[0].content).toMatch(/^No such page: "https:\/\/fixture.wiki\/Nowhere"/)
    expect(r.metrics.access_not_found).toBe(1)
    expect(r.terminated).toBe(false)
  })

  it('cuts long pages to the observation cap with a note', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({ observationCap: 120 }))
    const r = await env.step(tc('access', { url: FIXTURE_DOCS[0].url }))
    const text = r.observation[0].content
    expect(text).toMatch(/\[Page truncated: showing the first 120 of \d+ characters\.\]$/)
    expect(r.metrics.obs_truncated).toBe(1)
  })

  it('an answer ends the episode with the F1 reward', async () => {
    const env = new SearchEnv(world, FIXTURE_QA[1], resolveGymOptions({}))
    const r = await env.step('<answer>Brenlow city</answer>')
    expect(r).toMatchObject({ terminated: true, truncated: false, stopReason: 'answer', reward: 2 / 3 })
    expect(r.metrics).toMatchObject({ f1: 2 / 3, em: 0, answered: 1 })
    expect(r.logs).toMatchObject({ answer: 'Brenlow city', gold: 'Brenlow' })
    const again = await env.step('<answer>Brenlow</answer>')
    expect(again).toMatchObject({ reward: 0, terminated: true, metrics: { after_done: 1 } })
    expect(env.done).toBe(true)
  })

  it('aliases count', async () => {
    const env = new SearchEnv(world, FIXTURE_QA[3], resolveGymOptions({}))
    expect((await env.step('<answer>in 1899</answer>')).reward).toBe(1)
  })

  it('malformed turns get a corrective observation, are counted and feed the format reward', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({ reward: 'r1-searcher-stage2' }))
    const bad = await env.step('<tool_call>{oops}</tool_call>')
    expect(bad.terminated || bad.truncated).toBe(false)
    expect(bad.observation[0].content).toMatch(/^Format error \(bad_json\)/)
    expect(bad.metrics).toMatchObject({ malformed: 1, 'malformed/bad_json': 1 })
    expect(bad.logs.malformed).toMatch(/^bad_json/)
    const end = await env.step('<answer>Marie Alder</answer>')
    expect(end.reward).toBe(1 - 2)
    expect(end.metrics.format_ok).toBe(0)
  })

  it('a failing engine becomes an observation, never an exception', async () => {
    const broken: GymWorld = { ...world, search: async () => Promise.reject(new Error('engine down')), access: async () => { throw new Error('disk') } }
    const env = new SearchEnv(broken, qa, resolveGymOptions({}))
    const s = await env.step(tc('search', { query: 'x' }))
    expect(s.observation[0].content).toMatch(/^Search failed because of an internal error/)
    expect(s.metrics).toMatchObject({ search_calls: 1, search_errors: 1 })
    expect(s.logs.search_error).toBe('engine down')
    const a = await env.step(tc('access', { url: 'x' }))
    expect(a.metrics).toMatchObject({ access_errors: 1 })
  })

  it('finish() truncates with the stop reason and the no-answer reward', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({ reward: 'em+format' }))
    const r = await env.finish('max_turns', 'budget')
    expect(r).toMatchObject({ terminated: false, truncated: true, stopReason: 'max_turns', reward: -0.1 })
  })
})

describe('SearchEnv with other protocols', () => {
  it('search-r1: <search> answered with <information>', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({ protocol: 'search-r1' }))
    const obs = await env.initialObservation()
    expect(obs[0].content).toContain('<search> query </search>')
    const r = await env.step('<think>look it up</think><search>Glass Orchard</search>')
    expect(r.observation[0].role).toBe('user')
    expect(r.observation[0].content).toMatch(/^\n\n<information>Doc 1\(Title: The Glass Orchard\) URL: https:\/\/fixture.wiki\/The_Glass_Orchard\n/)
    expect(r.observation[0].content).toMatch(/<\/information>\n\n$/)
    expect((await env.step('<answer> Marie Alder </answer>')).reward).toBe(1)
  })

  it('accessByTitle: a title shown in this episode opens its page; unseen titles and the option off do not', async () => {
    const on = new SearchEnv(world, qa, resolveGymOptions({ protocol: 'search-r1', accessByTitle: true }))
    await on.initialObservation()
    const early = await on.step('<access> The Glass Orchard </access>')
    expect(early.observation[0].content).toContain('No such page: "The Glass Orchard"')
    await on.step('<search> Glass Orchard </search>')
    const r = await on.step('<access> The Glass Orchard </access>')
    expect(r.observation[0].content).toMatch(/^\n\n<information>The Glass Orchard\nURL: https:\/\/fixture.wiki\/The_Glass_Orchard\n/)
    expect(r.metrics.access_by_title).toBe(1)
    const off = new SearchEnv(world, qa, resolveGymOptions({ protocol: 'search-r1' }))
    await off.initialObservation()
    await off.step('<search> Glass Orchard </search>')
    expect((await off.step('<access> The Glass Orchard </access>')).observation[0].content).toContain('No such page')
  })

  it('openai: tool_calls answered by tool messages with the same ids; malformed calls too', async () => {
    const env = new SearchEnv(world, qa, resolveGymOptions({ protocol: 'openai' }))
    const obs = await env.initialObservation()
    expect(obs[0].content).not.toContain('<tools>')
    const call = (id: string, args: string) => ({ id, type: 'function' as const, function: { name: 'search', arguments: args } })
    const r = await env.step({ text: '', tool_calls: [call('c1', '{"query":"Harrow House"}')] })
    expect(r.observation).toMatchObject([{ role: 'tool', tool_call_id: 'c1' }])
    expect(r.observation[0].content).toContain('Harrow House')
    const bad = await env.step({ text: '', tool_calls: [call('c2', '{"query":'), call('c3', '{}')] })
    expect(bad.observation.map((m) => m.tool_call_id)).toEqual(['c2', 'c3'])
    expect(bad.metrics['malformed/too_many_calls']).toBe(1)
  })
})
