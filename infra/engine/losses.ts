// infra/engine/losses: per-token policy-gradient and SFT losses on log-probs (host numbers), with their
// derivative with respect to the new log-prob. Tinker conventions: a datum's loss is the SUM over its tokens of
// mask·loss_t (mask values are weights, so a trainer can put 1/token-count there for a mean). It does not know
// models; the learner feeds it log-probs and pushes the derivative back through the model.
import { EngineError } from '../errors'

/** Every loss the learner computes (the CUDA kernel numbers them in this order). */
export const LOSS_NAMES = ['importance_sampling', 'ppo', 'cross_entropy'] as const
export type LossName = (typeof LOSS_NAMES)[number]
/** The policy-gradient losses a GRPO run may name (config `loss`): cross_entropy is SFT's and pretraining's. */
export const POLICY_LOSS_NAMES = ['ppo', 'importance_sampling'] as const satisfies readonly LossName[]
export type PolicyLossName = (typeof POLICY_LOSS_NAMES)[number]

export interface LossConfig {
  name: LossName
  /** PPO ratio clip: objective uses clip(ρ, 1 − epsLow, 1 + epsHigh). Default 0.4 (SearchGym: [0.6, 1.4]). */
  epsLow?: number
  /** Upper clip (default = epsLow). */
  epsHigh?: number
  /** β of the KL-to-reference penalty (k3 estimator); 0 = off (default). Applies to importance_sampling and ppo. */
  klBeta?: number
}

/** The clipped surrogate objective of one token: min(ρA, clip(ρ, 1−εlow, 1+εhigh)·A). */
export function clippedSurrogate(ratio: number, advantage: number, epsLow = 0.4, epsHigh = epsLow): number {
  const clipped = Math.min(Math.max(ratio, 1 - epsLow), 1 + epsHigh)
  return Math.min(ratio * advantage, clipped * advantage)
}

/** k3 estimator of KL(π‖π_ref) at one sampled token: exp(ref − logp) − (ref − logp) − 1 (≥ 0, unbiased). */
export function k3(logp: number, refLogp: number): number {
  const d = refLogp - logp
  return Math.exp(d) - d - 1
}

export interface TokenLoss {
  /** Loss of the token (before the mask weight). */
  loss: number
  /** d loss / d logp */
  dlogp: number
  ratio: number
  /** The clipped side of the objective was active (its gradient is 0). */
  clipped: boolean
  kl: number
}

/** The loss of one token under the named loss; oldLogp/advantage are ignored by cross_entropy. */
export function tokenLoss(cfg: LossConfig, logp: number, oldLogp: number, advantage: number, refLogp?: number): TokenLoss {
  const beta = cfg.klBeta ?? 0
  let loss: number, dlogp: number, ratio = 1, clipped = false
  switch (cfg.name) {
    case 'cross_entropy':
      return { loss: -logp, dlogp: -1, ratio: 1, clipped: false, kl: 0 }
    case 'importance_sampling':
      ratio = Math.exp(logp - oldLogp)
      loss = -ratio * advantage
      dlogp = -ratio * advantage
      break
    case 'ppo': {
      const lo = cfg.epsLow ?? 0.4
      const hi = cfg.epsHigh ?? lo
      ratio = Math.exp(logp - oldLogp)
      const unclipped = ratio * advantage
      const obj = clippedSurrogate(ratio, advantage, lo, hi)
      clipped = obj < unclipped
      loss = -obj
      dlogp = clipped ? 0 : -unclipped
      break
    }
    default:
      throw new EngineError('engine.loss', `unknown loss '${String((cfg as { name: unknown }).name)}'; use ${LOSS_NAMES.slice(0, -1).join(', ')} or ${LOSS_NAMES.at(-1)}`)
  }
  let kl = 0
  if (beta > 0) {
    if (refLogp === undefined) throw new EngineError('engine.loss', 'klBeta > 0 needs reference log-probs')
    kl = k3(logp, refLogp)
    loss += beta * kl
    dlogp += beta * (1 - Math.exp(refLogp - logp))
  }
  return { loss, dlogp, ratio, clipped, kl }
}
