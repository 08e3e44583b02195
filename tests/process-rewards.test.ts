// tests/process-rewards: issue 14's guards — four scripted policies (the oracle, an oracle that wanders, a spammer that
// opens every result, one that answers without searching) on a 3-hop fixture question; their step signals and
// rewards equal values computed by hand (comments show the arithmetic), and the ordering oracle > wanderer > spammer,
// no-search holds under every reward spec (ties only where a spec cannot see the difference, named below).
import { makeEnv, PROCESS, COST, FEWEST_RETRIEVALS_BONUS, REWARD_PRESETS, scoreAnswer } from '../gym'
import type { Policy } from '../gym'
import { runEpisode } from '../agent/rollout/episode'
import type { TrajectoryRecord } from '../agent/rollout/types'
import { accessTurn, answerTurn, noSearchPolicy, scriptedPolicy, searchTurn, spammerPolicy, wandererPolicy } from '../agent/policy/scripted'
import { scoreGroups } from '../agent/grpo/groups'
import { FIXTURE_DOCS } from './fixtures/gym-fixture-world'
import { PROCESS_QA, openProcessFixtureWorld } from './fixtures/process-fixture-world'

const world = openProcessFixtureWorld()
const U = (title: string) => FIXTURE_DOCS.find((d) => d.title === title)!.url

// The oracle: one search per entity it needs, opens each gold page once, answers.
const ORACLE_TURNS = [
  searchTurn('Marie Alder'), // top-5: Marie Alder (8), The Glass Orchard (2), University of Tessin (2), Velmora (2)
  accessTurn(U('Marie Alder')),
  accessTurn(U('The Glass Orchard')),
  searchTurn('Harrow House'), // top-5: Harrow House (8), Brenlow (2), The Glass Orchard (2)
  accessTurn(U('Harrow House')),
  answerTurn('Brenlow'),
]
const oracle = (): Policy => scriptedPolicy('oracle', ORACLE_TURNS)
// Two off-path turns first: 'Ostria' finds Brenlow and Velmora only (no gold, no evidence), then the oracle.
const wanderer = (): Policy => wandererPolicy(oracle(), [searchTurn('Ostria'), accessTurn(U('Brenlow'))])
// Two rounds of: search the question verbatim, open all five results; then answer with the top title (Marie Alder).
const spammer = (answer?: string): Policy => spammerPolicy({ rounds: 2, answer })
const noSearch = (): Policy => noSearchPolicy('Velmora')

async function play(policy: Policy, reward: string): Promise<TrajectoryRecord & { reward: number }> {
  const env = makeEnv(world, PROCESS_QA, { reward, budgets: { maxTurns: 40, maxResponseTokens: 1024, maxContextTokens: 1_000_000 } })
  const rec = await runEpisode(PROCESS_QA, env, policy, { scorer: scoreAnswer })
  return { ...rec, reward: rec.turns.reduce((a, t) => a + t.reward, 0) }
}

const sig = (r: TrajectoryRecord, key: 'gold_found' | 'gold_accessed' | 'evidence_new' | 'redundant_query' | 'redundant_access' | 'hop_reached') =>
  r.turns.map((t) => t.signals?.[key] ?? NaN)

describe('step signals of the scripted trajectories (hand-computed on the fixture)', () => {
  it('oracle: gold found 2 then 1, each gold page opened once, all three evidence sentences seen (two in snippets), no redundancy', async () => {
    const r = await play(oracle(), 'f1')
    expect(r.turns).toHaveLength(6)
    expect(sig(r, 'gold_found')).toEqual([2, 0, 0, 1, 0, 0])
    expect(sig(r, 'gold_accessed')).toEqual([0, 1, 1, 0, 1, 0])
    // The Marie Alder and Glass Orchard snippets (first 160 characters) already hold the hop-0 and hop-1 sentences.
    expect(sig(r, 'evidence_new')).toEqual([2, 0, 0, 1, 0, 0])
    expect(sig(r, 'hop_reached')).toEqual([2, 2, 2, 3, 3, 3])
    expect(sig(r, 'redundant_query')).toEqual([0, 0, 0, 0, 0, 0])
    expect(sig(r, 'redundant_access')).toEqual([0, 0, 0, 0, 0, 0])
    // The same signals are in the env's step metrics.
    expect(r.turns[0].metrics['signal/gold_found']).toBe(2)
  })

  it('wanderer: two empty detour turns, then the oracle signals two turns later', async () => {
    const r = await play(wanderer(), 'f1')
    expect(r.turns).toHaveLength(8)
    expect(sig(r, 'gold_found')).toEqual([0, 0, 2, 0, 0, 1, 0, 0])
    expect(sig(r, 'gold_accessed')).toEqual([0, 0, 0, 1, 1, 0, 1, 0])
    expect(sig(r, 'evidence_new')).toEqual([0, 0, 2, 0, 0, 1, 0, 0])
    expect(sig(r, 'hop_reached')).toEqual([0, 0, 2, 2, 2, 3, 3, 3])
  })

  it('spammer: the question as a query ranks Marie Alder 17, Glass Orchard 13, Tessin 10, Brenlow 8, Velmora 7; the second round is all redundant', async () => {
    const r = await play(spammer(), 'f1')
    expect(r.turns).toHaveLength(13) // search, 5 accesses, search, 5 accesses, answer
    expect(r.turns[1].tool_calls ?? r.turns[1].text).toContain(U('Marie Alder'))
    expect(sig(r, 'gold_found')).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expect(sig(r, 'gold_accessed')).toEqual([0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expect(sig(r, 'evidence_new')).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expect(sig(r, 'redundant_query')).toEqual([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
    expect(sig(r, 'redundant_access')).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0])
    expect(sig(r, 'hop_reached').at(-1)).toBe(2) // Harrow House never came up: hop 2 unseen
    expect(r.prediction).toBe('Marie Alder')
    expect(r.counts).toMatchObject({ search: 2, access: 10 })
  })

  it('no-search: one turn, no signals', async () => {
    const r = await play(noSearch(), 'f1')
    expect(r.turns).toHaveLength(1)
    expect(r.turns[0].signals).toEqual({ gold_found: 0, gold_accessed: 0, evidence_new: 0, redundant_query: 0, redundant_access: 0, hop_reached: 0 })
  })
})

// Hand-computed rewards. process: β·clip(Σ_t γ^(t−1)(found_t + accessed_t)/(2·3) − ρ·redundant_t, −1, 1), β 0.25, γ 0.9, ρ 0.1.
//   oracle   : 2/6 + .9/6 + .81/6 + .729/6 + .6561/6                        = 0.8491833…  → 0.2122958…
//   wanderer : (.81·2 + .729 + .6561 + .59049 + .531441)/6 = 0.81 × oracle's = 0.6878385   → 0.1719596…
//   spammer  : 2/6 + .9/6 + .81/6 − 0.1·6                                    = 0.0183333…  → 0.0045833…
// cost: −0.02 per tool call: oracle 5 → −0.10, wanderer 7 → −0.14, spammer 12 → −0.24, no-search 0.
const PROC = { oracle: 0.25 * (2 + 0.9 + 0.81 + 0.729 + 0.6561) / 6, wanderer: 0.25 * (0.81 * 2 + 0.729 + 0.6561 + 0.59049 + 0.531441) / 6, spammer: 0.25 * ((2 + 0.9 + 0.81) / 6 - 0.6) }

describe('rewards of the scripted trajectories (hand-computed)', () => {
  it('the constants are the documented ones', () => {
    expect(PROCESS).toEqual({ weight: 0.25, gamma: 0.9, redundancyPrice: 0.1 })
    expect(COST).toEqual({ price: 0.02, cap: 0.25 })
    expect(FEWEST_RETRIEVALS_BONUS).toBe(0.2)
  })

  it.each([
    ['f1', { oracle: 1, wanderer: 1, spammer: 0, noSearch: 0 }],
    ['process', { oracle: 1 + PROC.oracle, wanderer: 1 + PROC.wanderer, spammer: PROC.spammer, noSearch: 0 }],
    ['cost', { oracle: 0.9, wanderer: 0.86, spammer: -0.24, noSearch: 0 }],
    ['process+cost+f1', { oracle: 1 + PROC.oracle - 0.1, wanderer: 1 + PROC.wanderer - 0.14, spammer: PROC.spammer - 0.24, noSearch: 0 }],
  ])('%s', async (spec, want) => {
    const got = {
      oracle: (await play(oracle(), spec)).reward,
      wanderer: (await play(wanderer(), spec)).reward,
      spammer: (await play(spammer(), spec)).reward,
      noSearch: (await play(noSearch(), spec)).reward,
    }
    for (const k of Object.keys(want) as (keyof typeof want)[]) expect(got[k]).toBeCloseTo(want[k], 10)
  })

  it('process: the step rewards add up to the capped total, paid on the turns that earned them', async () => {
    const r = await play(oracle(), 'process')
    const steps = r.turns.map((t) => t.metrics['reward/step'])
    expect(steps[0]).toBeCloseTo(0.25 * 2 / 6, 12)
    expect(steps[1]).toBeCloseTo(0.25 * 0.9 / 6, 12)
    expect(steps[5]).toBe(0) // the answer turn earns no step credit
    expect(r.turns.at(-1)!.metrics['reward/process']).toBeCloseTo(PROC.oracle, 12)
    expect(r.turns.at(-1)!.metrics['reward/terminal']).toBe(1)
  })
})

/** The reward of each policy under a spec, with the group terms applied over the four as one group. */
async function rewardsUnder(spec: string, spammerAnswer?: string) {
  const names = ['oracle', 'wanderer', 'spammer', 'noSearch'] as const
  const policies = [oracle(), wanderer(), spammer(spammerAnswer), noSearch()]
  const recs = []
  for (const p of policies) recs.push(await play(p, spec))
  const bonus = REWARD_PRESETS[spec]?.includes('fewest-retrievals') ? FEWEST_RETRIEVALS_BONUS : 0
  const rollouts = recs.map((r) => ({ reward: r.reward, infraFault: null, correct: r.em === 1, retrievals: r.counts.search + r.counts.access }))
  const g = scoreGroups(rollouts, 4, { fewestRetrievalsBonus: bonus })
  const rewards = g.kept[0]?.rewards ?? rollouts.map((r) => r.reward)
  return Object.fromEntries(names.map((n, i) => [n, rewards[i]])) as Record<(typeof names)[number], number>
}

describe('ordering oracle > wanderer > spammer, no-search under every reward spec', () => {
  // Terminal-only specs score the answer, not the path: the oracle and the wanderer (both answer right) tie there.
  // r1-searcher-stage1 is answer-blind by design (format + "made a retrieval"): the spammer ties the oracle on it.
  const TIE_ORACLE_WANDERER = new Set(['f1', 'em', 'em+format', 'f1+format', 'r1-searcher-stage1', 'r1-searcher-stage2'])
  const ANSWER_BLIND = new Set(['r1-searcher-stage1'])
  it.each(Object.keys(REWARD_PRESETS))('%s', async (spec) => {
    const r = await rewardsUnder(spec)
    if (TIE_ORACLE_WANDERER.has(spec)) expect(r.oracle).toBeCloseTo(r.wanderer, 12)
    else expect(r.oracle).toBeGreaterThan(r.wanderer)
    if (ANSWER_BLIND.has(spec)) {
      expect(r.wanderer).toBeCloseTo(r.spammer, 12)
      expect(r.spammer).toBeGreaterThan(r.noSearch)
    } else {
      expect(r.wanderer).toBeGreaterThan(r.spammer)
      expect(r.wanderer).toBeGreaterThan(r.noSearch)
    }
  })

  it('cost-group: the oracle (5 tool calls) gets the fewest-retrievals bonus over the wanderer (7)', async () => {
    const r = await rewardsUnder('cost-group')
    expect(r).toEqual({ oracle: 1 + 0.2, wanderer: 1, spammer: 0, noSearch: 0 })
  })

  it('a spammer that answers right does not beat the oracle or the wanderer where the spec sees the path', async () => {
    // process: 1 + 0.0045833 (spammer) < 1 + 0.1719596 (wanderer); cost: 1 − 0.24 < 1 − 0.14
    const p = await rewardsUnder('process', 'Brenlow')
    expect(p.spammer).toBeCloseTo(1 + PROC.spammer, 10)
    expect(p.wanderer).toBeGreaterThan(p.spammer)
    const c = await rewardsUnder('cost', 'Brenlow')
    expect(c.spammer).toBeCloseTo(0.76, 10)
    expect(c.wanderer).toBeGreaterThan(c.spammer)
    // cost-group rewards only the fewest: the oracle gets the bonus; wanderer and right-answering spammer tie at 1.
    expect(await rewardsUnder('cost-group', 'Brenlow')).toEqual({ oracle: 1.2, wanderer: 1, spammer: 1, noSearch: 0 })
  })
})
