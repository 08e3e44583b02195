// gym/wrappers/budgets-boundary: every budget hit exactly (allowed) and exceeded by one (cut), with a constant token
// counter so the arithmetic is visible; an answer on the last allowed turn is an answer; option ranges at their
// edges (topK 1 and 100 accepted, 0 and 101 refused) and topK honoured by the search tool at 1 and past the corpus.
import { FIXTURE_DOCS, FIXTURE_QA, openFixtureWorld } from '../../tests/fixtures/gym-fixture-world'
import { makeEnv, resolveGymOptions } from '../make-env'
import { DEFAULT_BUDGETS } from './budgets'

const world = openFixtureWorld()
const qa = FIXTURE_QA[1] // gold 'Brenlow'
const search = (q: string) => `<tool_call>{"name":"search","arguments":{"query":${JSON.stringify(q)}}}</tool_call>`
/** Every text counts 10 tokens; each message adds 4 (messagesTokens). Initial prompt: system + user = 2 × 14 = 28. */
const ten = () => 10
const budgets = (b: Partial<typeof DEFAULT_BUDGETS>) => ({ budgets: { ...DEFAULT_BUDGETS, ...b } })

describe('turn budget', () => {
  it('an answer on turn maxTurns is scored; a non-answer on turn maxTurns is truncated', async () => {
    const a = makeEnv(world, qa, budgets({ maxTurns: 3 }))
    await a.initialObservation()
    for (let i = 1; i <= 2; i++) expect((await a.step(search(`Brenlow ${i}`))).truncated).toBe(false)
    expect(await a.step('<answer>Brenlow</answer>')).toMatchObject({ terminated: true, truncated: false, reward: 1 })

    const b = makeEnv(world, qa, budgets({ maxTurns: 3 }))
    await b.initialObservation()
    for (let i = 1; i <= 2; i++) expect((await b.step(search(`Brenlow ${i}`))).truncated).toBe(false)
    expect(await b.step(search('Brenlow 3'))).toMatchObject({ truncated: true, stopReason: 'max_turns' })
  })
  it('maxTurns = 1: the first non-answer turn is the last', async () => {
    const env = makeEnv(world, qa, budgets({ maxTurns: 1 }))
    await env.initialObservation()
    expect(await env.step(search('Brenlow'))).toMatchObject({ truncated: true, stopReason: 'max_turns' })
  })
})

describe('response-token budget', () => {
  it('a response of exactly maxResponseTokens passes; one more token is cut', async () => {
    const ok = makeEnv(world, qa, budgets({ maxResponseTokens: 10 }), ten)
    await ok.initialObservation()
    expect(await ok.step('<answer>Brenlow</answer>')).toMatchObject({ terminated: true, reward: 1 })
    const cut = makeEnv(world, qa, budgets({ maxResponseTokens: 9 }), ten)
    await cut.initialObservation()
    expect(await cut.step('<answer>Brenlow</answer>')).toMatchObject({ truncated: true, stopReason: 'max_tokens', reward: 0 })
  })
})

describe('context budget', () => {
  it('before the step: prompt 28 + response 10 = 38 fits a cap of 38, not of 37', async () => {
    const ok = makeEnv(world, qa, budgets({ maxContextTokens: 38 }), ten)
    await ok.initialObservation()
    expect(await ok.step('<answer>Brenlow</answer>')).toMatchObject({ terminated: true, reward: 1 })
    const cut = makeEnv(world, qa, budgets({ maxContextTokens: 37 }), ten)
    await cut.initialObservation()
    expect(await cut.step('<answer>Brenlow</answer>')).toMatchObject({ truncated: true, stopReason: 'context' })
  })
  it('after the step: 38 + one tool observation (10 + 4) = 52 fits a cap of 52, not of 51', async () => {
    const ok = makeEnv(world, qa, budgets({ maxContextTokens: 52 }), ten)
    await ok.initialObservation()
    const r = await ok.step(search('Brenlow'))
    expect(r.truncated).toBe(false)
    expect(r.metrics.context_tokens).toBe(52)
    const cut = makeEnv(world, qa, budgets({ maxContextTokens: 51 }), ten)
    await cut.initialObservation()
    expect(await cut.step(search('Brenlow'))).toMatchObject({ truncated: true, stopReason: 'context' })
  })
})

describe('option ranges at their edges', () => {
  it.each([
    ['topK', { topK: 1 }, { topK: 100 }, { topK: 0 }, { topK: 101 }],
    ['maxTurns', budgets({ maxTurns: 1 }), budgets({ maxTurns: 1000 }), budgets({ maxTurns: 0 }), budgets({ maxTurns: 1001 })],
    ['maxCallsPerTurn', { maxCallsPerTurn: 1 }, { maxCallsPerTurn: 16 }, { maxCallsPerTurn: 0 }, { maxCallsPerTurn: 17 }],
  ])('%s: both bounds accepted, one past each refused with a range error', (name, lo, hi, below, above) => {
    expect(() => resolveGymOptions(lo)).not.toThrow()
    expect(() => resolveGymOptions(hi)).not.toThrow()
    expect(() => resolveGymOptions(below)).toThrow(new RegExp(`${name} must be an integer in`))
    expect(() => resolveGymOptions(above)).toThrow(new RegExp(`${name} must be an integer in`))
  })
})

describe('topK in the search tool', () => {
  const results = (text: string) => (text.match(/^\[\d+\] /gm) ?? []).length
  it('topK = 1 returns exactly one result; topK past the corpus returns every match and no more', async () => {
    const one = makeEnv(world, qa, { topK: 1 })
    await one.initialObservation()
    expect(results((await one.step(search('Brenlow Harrow House Marie Alder'))).observation[0].content as string)).toBe(1)
    const all = makeEnv(world, qa, { topK: 100 })
    await all.initialObservation()
    const n = results((await all.step(search('Brenlow Harrow House Marie Alder Glass Orchard'))).observation[0].content as string)
    expect(n).toBeGreaterThan(1)
    expect(n).toBeLessThanOrEqual(FIXTURE_DOCS.length)
  })
})
