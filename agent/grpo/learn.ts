// agent/grpo/learn: one GRPO policy update on a Learner — datums of the whole batch, forward/backward per micro-batch
// (gradients accumulate; weights already hold the global aggregation), one AdamW step. Clipped surrogate with
// ε_low/ε_high, optional k3 KL to the reference (the adapter switched off: no second model copy). Returns the
// step's metrics. Knows nothing of envs, rewards or curricula.
import type { Datum, Learner } from '../../infra/engine'
import type { LossConfig } from '../../infra/engine'
import type { OptimParams } from '../../infra/engine'
import { microBatches } from './datums'

export interface GrpoLossOptions {
  /** 'ppo' (clipped surrogate, default) or 'importance_sampling' (no clip). */
  loss: 'ppo' | 'importance_sampling'
  epsLow: number
  epsHigh: number
  /** β of the k3 KL to the reference; 0 = off. */
  klBeta: number
  /** Datums per forward/backward call. */
  microBatch: number
}

export interface LearnMetrics {
  loss: number
  tokens: number
  clipFraction: number
  kl: number
  meanRatio: number
  gradNorm: number
  /** Mean −log p of the sampled tokens under the sampler (an on-policy estimate of the policy's entropy). */
  entropy: number
}

export function lossConfig(o: GrpoLossOptions): LossConfig {
  return { name: o.loss, clipEps: o.epsLow, clipEpsHigh: o.epsHigh, klBeta: o.klBeta }
}

/** Forward/backward over all micro-batches, then one optimizer step. */
export function grpoUpdate(learner: Learner, datums: readonly Datum[], o: GrpoLossOptions, optim: OptimParams): LearnMetrics {
  const cfg = lossConfig(o)
  let loss = 0, tokens = 0, clip = 0, kl = 0, ratio = 0, nlp = 0
  for (const d of datums) for (let t = 0; t < d.mask!.length; t++) if (d.mask![t] !== 0) nlp -= d.oldLogprobs![t]
  for (const mb of microBatches(datums, o.microBatch)) {
    const r = learner.forwardBackward(mb, cfg)
    loss += r.loss
    const n = r.metrics.tokens
    tokens += n
    clip += r.metrics.clipFraction * n
    kl += r.metrics.meanKl * n
    ratio += r.metrics.meanRatio * n
  }
  const step = learner.optimStep(optim)
  const n = Math.max(1, tokens)
  return { loss, tokens, clipFraction: clip / n, kl: kl / n, meanRatio: ratio / n, gradNorm: step.gradNorm, entropy: nlp / n }
}
