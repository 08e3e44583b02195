// agent/grpo/datums: trajectories (exact token sequences + one advantage each) → the Learner's Datums. One Datum per
// packed trajectory: input token t predicts target t+1; mask (a weight) is non-zero only on sampled assistant tokens,
// 0 on prompt, template and tool-observation tokens; old log-probs are the sampler's. Weights implement the
// aggregation over the WHOLE batch (token-mean or sequence-mean), so micro-batches are weighted by their token share
// and accumulating them equals the global mean. Optional per-token weights (SFT's answer-turn weight) make that mean a
// weighted one: each trained token counts its weight instead of 1, in the numerator and in the denominator. Knows
// nothing of envs or models.
import type { Datum } from '../../infra/engine'
import type { TokenSequence } from '../policy/engine-policy'

export type Aggregation = 'token-mean' | 'sequence-mean'

export interface ScoredSequence {
  seq: TokenSequence
  advantage: number
  /** Turn-level credit: one advantage per assistant turn, applied to that turn's sampled tokens (turnTokens[i] of
   *  them, in order). Absent: `advantage` on every sampled token. */
  turnAdvantages?: readonly number[]
  turnTokens?: readonly number[]
  /** Per-token loss weight, aligned with seq.ids (the weight of ids[t] as a target; read only where sampled is 1, each
   *  > 0). Absent: 1 on every sampled token. The aggregation divides by the weights' sum, so the mean keeps its scale. */
  weights?: readonly number[]
}

/** Advantage of each position of a sequence (index = target position t+1's input index t), per turn when given. */
function positionAdvantages(x: ScoredSequence, T: number): (t: number) => number {
  if (!x.turnAdvantages || !x.turnTokens) return () => x.advantage
  const { sampled } = x.seq
  const per = new Array<number>(T).fill(0)
  let turn = 0
  let left = x.turnTokens[0] ?? 0
  // Sampled tokens of turn i are the i-th block of turnTokens[i] sampled positions (position 0 is never sampled).
  for (let t = 0; t < T; t++) {
    if (sampled[t + 1] !== 1) continue
    while (left === 0 && turn < x.turnTokens.length - 1) left = x.turnTokens[++turn]
    if (left === 0) throw new Error(`buildDatums: the sequence has more sampled tokens than its turns (${x.turnTokens.join('+')})`)
    per[t] = x.turnAdvantages[turn]
    left--
  }
  const rest = left + x.turnTokens.slice(turn + 1).reduce((a, b) => a + b, 0)
  if (rest !== 0) throw new Error(`buildDatums: the turns hold ${rest} more tokens than the sequence samples (${x.turnTokens.join('+')})`)
  return (t) => per[t]
}

/** Sampled (trained) positions of a sequence, counted on targets (position 0 is never a target). */
export function trainedTokens(seq: TokenSequence): number {
  let n = 0
  for (let t = 1; t < seq.ids.length; t++) n += seq.sampled[t]
  return n
}

/** The summed weight of a sequence's trained positions (its trained-token count when it has no weights). */
function trainedWeight(x: ScoredSequence): number {
  if (!x.weights) return trainedTokens(x.seq)
  if (x.weights.length !== x.seq.ids.length) throw new Error(`buildDatums: ${x.weights.length} weights for ${x.seq.ids.length} tokens; they must be aligned`)
  let w = 0
  for (let t = 1; t < x.seq.ids.length; t++) {
    if (x.seq.sampled[t] !== 1) continue
    if (!(x.weights[t] > 0)) throw new Error(`buildDatums: weight ${x.weights[t]} at trained position ${t}; weights must be > 0`)
    w += x.weights[t]
  }
  return w
}

/** Datums of a batch; the sum of all mask weights is 1 (each trajectory's tokens weighted by the aggregation, and by
 *  their own weights when given). */
export function buildDatums(items: readonly ScoredSequence[], aggregation: Aggregation): Datum[] {
  const counts = items.map(trainedWeight)
  const total = counts.reduce((a, b) => a + b, 0)
  const kept = counts.filter((c) => c > 0).length
  const out: Datum[] = []
  items.forEach((x, i) => {
    if (counts[i] === 0) return
    const w = aggregation === 'token-mean' ? 1 / total : 1 / (kept * counts[i])
    const { ids, sampled, logprobs } = x.seq
    const T = ids.length - 1
    const d: Datum = { inputTokens: ids.slice(0, T), targetTokens: ids.slice(1), oldLogprobs: new Array(T), advantages: new Array(T), mask: new Array(T) }
    const adv = positionAdvantages(x, T)
    for (let t = 0; t < T; t++) {
      const on = sampled[t + 1] === 1
      d.mask![t] = on ? (x.weights ? x.weights[t + 1] * w : w) : 0
      d.advantages![t] = on ? adv(t) : 0
      d.oldLogprobs![t] = on ? logprobs[t + 1] : 0
    }
    out.push(d)
  })
  return out
}

/** Consecutive micro-batches of at most `size` datums. */
export function microBatches<T>(xs: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
  return out
}
