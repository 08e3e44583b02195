// agent/grpo/learn: the GRPO policy update on a Learner. grpoUpdate: one optimizer step — datums of one mini-batch,
// forward/backward per micro-batch (gradients accumulate; weights already hold the mini-batch's aggregation), one
// AdamW step. grpoEpochs: the PPO schedule over a rollout batch (mini-batches × epochs, one step each; the old
// log-probs stay the sampler's, so the ratio leaves 1 after the first step and the clip acts). Clipped surrogate with
// ε_low/ε_high, optional k3 KL to the reference (the frozen start adapter, or the base), log-probs at the sampling
// temperature. Returns the metrics. Knows nothing of envs, rewards or curricula.
import type { Datum, KlReference, Learner } from '../../infra/engine'
import type { LossConfig, PolicyLossName } from '../../infra/engine'
import type { OptimParams } from '../../infra/engine'
import type { Rng } from '../../infra/rng'
import { buildDatums, microBatches, type Aggregation, type ScoredSequence } from './datums'
import { ppoSchedule } from './mini-batches'

export interface GrpoLossOptions {
  /** 'ppo' (clipped surrogate, default) or 'importance_sampling' (no clip). */
  loss: PolicyLossName
  epsLow: number
  epsHigh: number
  /** β of the k3 KL to the reference; 0 = off. */
  klBeta: number
  /** Datums per forward/backward call. */
  microBatch: number
  /** Log-probs at this temperature (the sampler's; default 1). */
  temperature?: number
  /** The KL reference (default 'start'). */
  klReference?: KlReference
}

export interface GrpoScheduleOptions extends GrpoLossOptions {
  aggregation: Aggregation
  /** Trajectories per optimizer step (0: the whole batch). */
  ppoMiniBatch: number
  ppoEpochs: number
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

export interface EpochsMetrics extends LearnMetrics {
  /** Optimizer steps taken on this rollout batch. */
  optimizerSteps: number
  /** Clip fraction and mean ratio of the last optimizer step (the first is on-policy: ratio 1). */
  clipFractionLast: number
  meanRatioLast: number
}

export function lossConfig(o: GrpoLossOptions): LossConfig {
  return { name: o.loss, epsLow: o.epsLow, epsHigh: o.epsHigh, klBeta: o.klBeta }
}

/** Forward/backward over all micro-batches, then one optimizer step. */
export function grpoUpdate(learner: Learner, datums: readonly Datum[], o: GrpoLossOptions, optim: OptimParams): LearnMetrics {
  const cfg = lossConfig(o)
  const policy = { temperature: o.temperature, klReference: o.klReference }
  let loss = 0, tokens = 0, clip = 0, kl = 0, ratio = 0, nlp = 0
  for (const d of datums) for (let t = 0; t < d.mask!.length; t++) if (d.mask![t] !== 0) nlp -= d.oldLogprobs![t]
  for (const mb of microBatches(datums, o.microBatch)) {
    const r = learner.forwardBackward(mb, cfg, policy)
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

/**
 * The PPO schedule over one rollout batch: per epoch a seeded shuffle of the trajectories, mini-batches of
 * ppoMiniBatch, each its own datums (so token-mean is the mean over that mini-batch's tokens) and one optimizer step.
 * Metrics: token-weighted means over every step (loss and gradNorm: means over steps; tokens: those of one epoch).
 */
export function grpoEpochs(learner: Learner, items: readonly ScoredSequence[], o: GrpoScheduleOptions, optim: OptimParams, rng: Rng): EpochsMetrics {
  const out: EpochsMetrics = { loss: 0, tokens: 0, clipFraction: 0, kl: 0, meanRatio: 1, gradNorm: 0, entropy: 0, optimizerSteps: 0, clipFractionLast: 0, meanRatioLast: 1 }
  let tokens = 0, clip = 0, kl = 0, ratio = 0, nlp = 0, n1 = 0
  for (const x of items)
    for (let t = 1; t < x.seq.ids.length; t++)
      if (x.seq.sampled[t] === 1) {
        nlp -= x.seq.logprobs[t]
        n1++
      }
  for (const mb of ppoSchedule(items, o.ppoMiniBatch, o.ppoEpochs, rng)) {
    const datums = buildDatums(mb, o.aggregation)
    if (datums.length === 0) continue
    const m = grpoUpdate(learner, datums, o, optim)
    out.optimizerSteps++
    out.loss += m.loss
    out.gradNorm += m.gradNorm
    tokens += m.tokens
    clip += m.clipFraction * m.tokens
    kl += m.kl * m.tokens
    ratio += m.meanRatio * m.tokens
    out.clipFractionLast = m.clipFraction
    out.meanRatioLast = m.meanRatio
  }
  if (out.optimizerSteps === 0) return out
  const n = Math.max(1, tokens)
  out.loss /= out.optimizerSteps
  out.gradNorm /= out.optimizerSteps
  out.tokens = tokens / o.ppoEpochs
  out.clipFraction = clip / n
  out.kl = kl / n
  out.meanRatio = ratio / n
  out.entropy = nlp / Math.max(1, n1)
  return out
}
