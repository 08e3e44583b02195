// gym/reward-steps tests: the step terms' caps (process at ±0.25, cost at −0.25), step rewards adding up to the capped
// total, spec parsing of the new terms and presets, and a budget cut that keeps the last turn's step credit.
import { makeEnv } from './make-env'
import { parseRewardSpec } from './reward'
import { COST, PROCESS, StepCredit } from './reward-steps'
import type { StepSignalCounts } from './step-signals'
import { openProcessFixtureWorld, PROCESS_QA } from '../tests/fixtures/process-fixture-world'

const zero: StepSignalCounts = { gold_found: 0, gold_accessed: 0, evidence_new: 0, redundant_query: 0, redundant_access: 0, hop_reached: 0 }

describe('StepCredit', () => {
  it('process is capped at +β: finding and opening all gold at turn 1 gives exactly 0.25, more gives nothing', () => {
    const c = new StepCredit({ process: true, cost: false }, 2)
    expect(c.step(1, { ...zero, gold_found: 2, gold_accessed: 2 }, 1).reward).toBeCloseTo(PROCESS.weight, 12)
    expect(c.step(2, { ...zero, gold_found: 2 }, 1).reward).toBe(0)
    // a redundant action below the cap takes back ρ·β from the capped total
    const r = c.step(3, { ...zero, redundant_query: 1 }, 1).reward
    expect(r).toBeCloseTo(0, 12) // raw 1 + 0.9·2/4 − 0.1 = 1.35 > 1: still capped
    expect(c.totals().process).toBeCloseTo(0.25, 12)
  })
  it('process is capped at −β: endless redundancy costs at most 0.25', () => {
    const c = new StepCredit({ process: true, cost: false }, 3)
    let sum = 0
    for (let t = 1; t <= 30; t++) sum += c.step(t, { ...zero, redundant_access: 1 }, 1).reward
    expect(sum).toBeCloseTo(-PROCESS.weight, 12)
  })
  it('cost: 0.02 per tool call up to 0.25', () => {
    const c = new StepCredit({ process: false, cost: true }, 3)
    const rs = Array.from({ length: 15 }, (_, t) => c.step(t + 1, zero, 1).reward)
    expect(rs[0]).toBeCloseTo(-COST.price, 12)
    expect(rs.reduce((a, b) => a + b, 0)).toBeCloseTo(-COST.cap, 12)
    expect(rs[14]).toBe(0)
  })
  it('no gold documents in the record: no positive process credit', () => {
    const c = new StepCredit({ process: true, cost: false }, 0)
    expect(c.step(1, { ...zero, gold_found: 3 }, 1).reward).toBe(0)
  })
})

describe('reward spec grammar', () => {
  it('presets and terms', () => {
    expect(parseRewardSpec('process').terms).toEqual(['f1', 'process'])
    expect(parseRewardSpec('cost').terms).toEqual(['f1', 'cost'])
    expect(parseRewardSpec('cost-group').terms).toEqual(['f1', 'fewest-retrievals'])
    expect(parseRewardSpec('em+format+process+cost').terms).toEqual(['em', 'format', 'process', 'cost'])
    expect(() => parseRewardSpec('f1+proces')).toThrow(/unknown reward spec 'f1\+proces'/)
  })
})

describe('budgets keep the last turn step credit', () => {
  it('cost: two searches then the max_turns cut → −0.04 in total', async () => {
    const env = makeEnv(openProcessFixtureWorld(), PROCESS_QA, { reward: 'cost', budgets: { maxTurns: 2, maxResponseTokens: 1024, maxContextTokens: 1_000_000 } })
    await env.initialObservation()
    const s = (q: string) => `<tool_call>${JSON.stringify({ name: 'search', arguments: { query: q } })}</tool_call>`
    const a = await env.step(s('Marie Alder'))
    const b = await env.step(s('Harrow House'))
    expect(b.stopReason).toBe('max_turns')
    expect(a.reward + b.reward).toBeCloseTo(-0.04, 12)
    expect(b.metrics['signal/hop_reached']).toBe(3) // not summed with the cut's own value
    expect(b.metrics['reward/cost']).toBeCloseTo(-0.04, 12)
  })
})
