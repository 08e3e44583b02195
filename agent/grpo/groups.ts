// agent/grpo/groups: finished rollouts of G-sized groups (one question each) → the groups that carry a learning
// signal, with their advantages. Episodes hit by infrastructure faults are MASKED (left out of the group: neither
// scored 0 nor trained on); groups whose remaining rewards are all equal are dropped and counted (all-0, all-1,
// other constants) so the trainer can refill them. Knows nothing of tokens beyond carrying them along.
import { degenerateKind, groupAdvantages, type AdvantageOptions } from './advantages'

export interface EpisodeOutcomeLike {
  reward: number
  /** Non-null: the episode is masked out (infrastructure failed under it). */
  infraFault: string | null
}

export interface KeptGroup<R> {
  index: number
  rollouts: R[]
  rewards: number[]
  advantages: number[]
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

export function scoreGroups<R extends EpisodeOutcomeLike>(rollouts: readonly R[], groupSize: number, opts: AdvantageOptions = {}): GroupScoring<R> {
  const out: GroupScoring<R> = { kept: [], all0: 0, all1: 0, constant: 0, masked: 0, means: [] }
  for (let gi = 0; gi * groupSize < rollouts.length; gi++) {
    const group = rollouts.slice(gi * groupSize, (gi + 1) * groupSize)
    const valid = group.filter((r) => r.infraFault === null)
    out.masked += group.length - valid.length
    if (valid.length === 0) continue
    const rewards = valid.map((r) => r.reward)
    out.means.push({ index: gi, meanReward: rewards.reduce((a, b) => a + b, 0) / rewards.length })
    const kind = valid.length < 2 ? 'constant' : degenerateKind(rewards)
    if (kind) out[kind]++
    else out.kept.push({ index: gi, rollouts: valid, rewards, advantages: groupAdvantages(rewards, opts) })
  }
  return out
}
