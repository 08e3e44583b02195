// gym/reward-aliases: gold aliases reach the reward at every level — scoreAnswer, each reward spec that reads the
// answer, and a whole SearchEnv episode (where the env builds the gold list from the QA's answer and aliases).
// Every case answers with an alias that scores strictly less against the main gold alone.
import { SearchEnv } from './env'
import { resolveGymOptions } from './make-env'
import { FIXTURE_QA, openFixtureWorld } from '../tests/fixtures/gym-fixture-world'
import { computeReward, parseRewardSpec, scoreAnswer } from './reward'

const GOLDS = ['Robert Allen Zimmerman', 'Bob Dylan'] // main gold, alias

describe('scoreAnswer over aliases', () => {
  it('an answer equal to an alias (and only to it) scores F1 1 and EM 1', () => {
    expect(scoreAnswer('Bob Dylan', GOLDS)).toEqual({ f1: 1, em: 1 })
    expect(scoreAnswer('Bob Dylan', GOLDS.slice(0, 1))).toEqual({ f1: 0, em: 0 }) // the same answer without the alias
  })
  it('the alias listed first or last makes no difference; the maximum is taken, not the last or the first', () => {
    expect(scoreAnswer('Bob Dylan', [...GOLDS].reverse())).toEqual({ f1: 1, em: 1 })
    expect(scoreAnswer('Dylan', ['Bob Dylan', 'Zimmerman', 'Dylan Thomas']).f1).toBeCloseTo(2 / 3, 12)
  })
})

describe('reward specs read every alias', () => {
  const outcome = { answer: 'the Bob Dylan.', golds: GOLDS, malformedTurns: 0, validSearches: 1 }
  it.each([
    ['f1', 1],
    ['em', 1],
    ['em+format', 1],
    ['f1+format', 1],
    ['r1-searcher-stage2', 1],
  ])('%s: an alias answer earns %d', (spec, want) => {
    const r = computeReward(parseRewardSpec(spec), outcome)
    expect(r.reward).toBe(want)
    expect(r.metrics.f1).toBe(1)
    expect(r.metrics.em).toBe(1)
  })
  it('without the alias in golds the same answer earns 0 (the case above is not vacuous)', () => {
    expect(computeReward(parseRewardSpec('f1'), { ...outcome, golds: GOLDS.slice(0, 1) }).reward).toBe(0)
  })
})

describe('SearchEnv passes the QA aliases to the reward', () => {
  const world = openFixtureWorld()
  const base = FIXTURE_QA[1]
  it(`an episode answering with an alias of '${base.answer}' gets reward 1; the same answer is partial without it`, async () => {
    const withAlias = new SearchEnv(world, { ...base, aliases: ['Brenlow city'] }, resolveGymOptions({}))
    const r = await withAlias.step('<answer>Brenlow city</answer>')
    expect(r).toMatchObject({ terminated: true, reward: 1 })
    expect(r.metrics).toMatchObject({ f1: 1, em: 1 })
    const without = new SearchEnv(world, { ...base, aliases: [] }, resolveGymOptions({}))
    const s = await without.step('<answer>Brenlow city</answer>')
    expect(s.reward).toBeCloseTo(2 / 3, 12)
    expect(s.metrics.em).toBe(0)
  })
})
