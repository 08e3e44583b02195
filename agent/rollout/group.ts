// agent/rollout/group: batched rollouts — one episode per (question, env) item through the one turn loop
// (runEpisode), all items sampled together by a PolicyBatch in lockstep (N envs of a question share the first
// prefill). Returns each trajectory with its exact token sequence, its reward (the env's, per the reward spec) and
// whether infrastructure failed under it (tool timeouts, 429s, unavailable pages, endpoint/engine errors).
import type { Env } from '../../gym'
import type { Qa } from '../../world'
import type { PolicyBatch, TokenSequence } from '../policy/engine-policy'
import { stepCreditOf } from './env-stats'
import { runEpisode, type EpisodeOptions } from './episode'
import type { TrajectoryRecord } from './types'

export interface RolloutItem {
  qa: Qa
  env: Env
}

export interface Rollout {
  record: TrajectoryRecord
  seq: TokenSequence
  /** Sum of the env's step rewards. */
  reward: number
  /** Per turn: the step-term credit the env paid on it (process, cost); all 0 for terminal-only reward specs. */
  stepRewards: number[]
  /** reward − Σ stepRewards: the terminal reward (the group baseline is computed from it). */
  terminalReward: number
  /** EM 1 (for the fewest-retrievals group term). */
  correct: boolean
  /** Tool calls of the episode (search + access). */
  retrievals: number
  /** Why this episode must be masked out of learning (infrastructure failed under it), or null. */
  infraFault: string | null
  truncated: boolean
}

const FAULT_KINDS = ['timeout', 'rate_limited', 'unavailable'] as const

/** Infrastructure failures of a finished episode, or null when none: masked, not scored 0. */
export function infraFaultOf(r: TrajectoryRecord): string | null {
  if (r.status !== 'ok') return `${r.status}: ${r.error ?? ''}`.trim()
  for (const turn of r.turns)
    for (const tool of ['search', 'access'])
      for (const k of FAULT_KINDS) if ((turn.metrics[`${tool}_${k}`] ?? 0) > 0) return `${tool}_${k}`
  return null
}

export async function rolloutBatch(items: readonly RolloutItem[], batch: PolicyBatch, opts: EpisodeOptions, onEpisode?: () => void): Promise<Rollout[]> {
  if (items.length !== batch.size) throw new Error(`rolloutBatch: ${items.length} items for a batch of ${batch.size} slots`)
  return Promise.all(
    items.map(async (it, i) => {
      let record: TrajectoryRecord
      try {
        record = await runEpisode(it.qa, it.env, batch.policy(i), opts)
      } finally {
        batch.finish(i)
      }
      onEpisode?.()
      const reward = record.turns.reduce((a, t) => a + t.reward, 0)
      const stepRewards = record.turns.map((t) => stepCreditOf(t))
      const terminalReward = reward - stepRewards.reduce((a, b) => a + b, 0)
      const seq = batch.sequence(i)
      const truncated = record.stopReason !== null && record.stopReason !== 'answer'
      const retrievals = record.counts.search + record.counts.access
      return { record, seq, reward, stepRewards, terminalReward, correct: record.em === 1, retrievals, infraFault: infraFaultOf(record), truncated }
    }),
  )
}
