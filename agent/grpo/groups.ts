// agent/grpo/groups: finished rollouts of G-sized groups (one question each) → the groups that carry a learning
// signal, with their advantages. Episodes hit by infrastructure faults are MASKED (left out of the group: neither
// scored 0 nor trained on); groups whose remaining rewards are all equal are dropped and counted (all-0, all-1,
// other constants) so the trainer can refill them. Knows nothing of tokens beyond carrying them along.
import { degenerateKind, groupAdvantages, type AdvantageOptions } from './advantages'
import { fewestRetrievalsBonus, turnAdvantages } from './turn-credit'

export interface EpisodeOutcomeLike {
  reward: number
  /** Non-null: the episode is masked out (infrastructure failed under it). */
  infraFault: string | null
  /** Per turn, the step credit the env paid (process/cost terms); absent or all 0 for terminal-only specs. */
  stepRewards?: readonly number[]
  /** The terminal reward (reward − Σ stepRewards); defaults to reward. */
  terminalReward?: number
  /** Group terms: whether the answer is correct (EM 1) and the episode's tool calls. */
  correct?: boolean
  retrievals?: number
}

/** Advantage options plus the group terms of the reward spec. */
export interface GroupScoringOptions extends AdvantageOptions {
  /** R1-Searcher++ fewest-retrievals bonus (0 or absent: off). */
  fewestRetrievalsBonus?: number
}

export interface KeptGroup<R> {
  index: number
  rollouts: R[]
  /** Per episode: its total reward (terminal + step credit + group bonus). */
  rewards: number[]
  /** Per episode: the advantage of its first turn (the whole sequence's when there is no step credit). */
  advantages: number[]
  /** Per episode and turn, when any episode of the group has step credit; null: one advantage per sequence. */
  turnAdvantages: number[][] | null
}

export interface GroupScoring<R> {
  kept: KeptGroup<R>[]
  all0: number
  all1: number
  constant: number
  masked: number
  /** Per group with ≥ 1 unmasked episode: its index and mean reward (for curriculum statistics). */
  means: { index: number; meanReward: number }[]
}

export function scoreGroups<R extends EpisodeOutcomeLike>(rollouts: readonly R[], groupSize: number, opts: GroupScoringOptions = {}): GroupScoring<R> {
  const out: GroupScoring<R> = { kept: [], all0: 0, all1: 0, constant: 0, masked: 0, means: [] }
  for (let gi = 0; gi * groupSize < rollouts.length; gi++) {
    const group = rollouts.slice(gi * groupSize, (gi + 1) * groupSize)
    const valid = group.filter((r) => r.infraFault === null)
    out.masked += group.length - valid.length
    if (valid.length === 0) continue
    const bonus = opts.fewestRetrievalsBonus
      ? fewestRetrievalsBonus(valid.map((r) => r.correct === true), valid.map((r) => r.retrievals ?? 0), opts.fewestRetrievalsBonus)
      : valid.map(() => 0)
    const rewards = valid.map((r, j) => r.reward + bonus[j])
    out.means.push({ index: gi, meanReward: rewards.reduce((a, b) => a + b, 0) / rewards.length })
    const kind = valid.length < 2 ? 'constant' : degenerateKind(rewards)
    if (kind) {
      out[kind]++
      continue
    }
    const steps = valid.map((r) => r.stepRewards ?? [])
    if (steps.every((s) => s.every((x) => x === 0))) {
      out.kept.push({ index: gi, rollouts: valid, rewards, advantages: groupAdvantages(rewards, opts), turnAdvantages: null })
      continue
    }
    // Step credit: per-turn advantages, the baseline from terminal rewards (agent/grpo/turn-credit).
    const terminal = valid.map((r, j) => (r.terminalReward ?? r.reward) + bonus[j])
    const perTurn = turnAdvantages(terminal, steps, opts)
    const first = perTurn.map((p) => p[0] ?? 0)
    out.kept.push({ index: gi, rollouts: valid, rewards, advantages: first, turnAdvantages: perTurn })
  }
  return out
}
