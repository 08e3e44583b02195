// agent/train/update: a training step's policy update — the kept groups' trajectories as scored sequences (turn-level
// credit for process/cost specs; DAPO overlong filtering), then the PPO update (mini-batches × epochs, micro-batched)
// with its wall and CPU cost. It knows no rollout, metrics file or checkpoint.
import type { Learner } from '../../infra/engine'
import { Rng } from '../../infra/rng'
import type { ScoredSequence } from '../grpo/datums'
import { grpoEpochs } from '../grpo/learn'
import type { Rollout } from '../rollout/group'
import type { TrainConfig } from './config'
import type { UpdateResult } from './step-record'
import type { KeptQuestion } from './step-rollouts'

/** DAPO's "overlong": the episode ended on the turn / token / context budget, or one of its turns hit the per-turn
 *  token cap (gym.budgets.maxResponseTokens) — its reward says nothing about its content. */
export function overlong(r: Pick<Rollout, 'record' | 'seq'>): boolean {
  const s = r.record.stopReason
  return s === 'max_turns' || s === 'max_tokens' || s === 'context' || r.seq.truncatedTurns > 0
}

/** Turn-level credit (process/cost specs): each turn's advantage on that turn's sampled tokens. DAPO overlong
 *  filtering: a trajectory cut by a budget keeps its place in its group's advantages but trains nothing. */
export function scoredSequences(kept: readonly KeptQuestion[], overlongFilter: boolean): { scored: ScoredSequence[]; overlongFiltered: number } {
  let overlongFiltered = 0
  const scored: ScoredSequence[] = kept.flatMap((g) =>
    g.rollouts.flatMap((r, i): ScoredSequence[] => {
      if (overlongFilter && overlong(r)) {
        overlongFiltered++
        return []
      }
      return [g.turnAdv ? { seq: r.seq, advantage: g.adv[i], turnAdvantages: g.turnAdv[i], turnTokens: r.record.turns.map((t) => t.tokens?.length ?? t.completionTokens) } : { seq: r.seq, advantage: g.adv[i] }]
    }),
  )
  return { scored, overlongFiltered }
}

/** The PPO update on the step's sequences (none: no optimizer step, the neutral metrics), timed. */
export function updatePolicy(learner: Learner, scored: readonly ScoredSequence[], c: TrainConfig, step: number): UpdateResult {
  const tl = performance.now()
  const lc0 = process.cpuUsage()
  const lm =
    scored.length > 0
      ? grpoEpochs(
          learner,
          scored,
          { loss: c.loss, epsLow: c.epsLow, epsHigh: c.epsHigh, klBeta: c.klBeta, microBatch: c.microBatch, temperature: c.temperature > 0 ? c.temperature : 1, klReference: c.klReference, aggregation: c.aggregation, ppoMiniBatch: c.ppoMiniBatch, ppoEpochs: c.ppoEpochs },
          { lr: c.lr, weightDecay: c.weightDecay, gradClip: c.gradClip },
          Rng.derive(c.seed, 'ppo', step),
        )
      : { loss: 0, tokens: 0, clipFraction: 0, kl: 0, meanRatio: 1, gradNorm: 0, entropy: 0, optimizerSteps: 0, clipFractionLast: 0, meanRatioLast: 1 }
  return { lm, ms: performance.now() - tl, cpu: process.cpuUsage(lc0) }
}
