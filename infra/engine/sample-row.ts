// infra/engine/sample-row: the sampling rules for one row of logits — temperature (0 = greedy), top-k, then top-p
// over the renormalised top-k, ties to the lower id — in float64 on the host. The ts backend's sampleRows is this;
// the native (and cuda) backends implement the same rules and are checked against it by backend-contract.ts.
import type { RowSamplingParams } from './backend'

/** Log-softmax of a host row in float64. */
function logSoftmaxRow(x: Float32Array, scale = 1): Float64Array {
  let max = -Infinity
  for (let i = 0; i < x.length; i++) if (x[i] * scale > max) max = x[i] * scale
  let s = 0
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] * scale - max)
  const lse = max + Math.log(s)
  const out = new Float64Array(x.length)
  for (let i = 0; i < x.length; i++) out[i] = x[i] * scale - lse
  return out
}

/**
 * The token ids a draw may pick from log-probs lp (already temperature-scaled), by decreasing probability (ties:
 * lower id first): the top-k (0 = all), then the smallest prefix whose renormalised mass reaches top-p.
 */
export function samplingSupport(lp: Float64Array, topK: number, topP: number): number[] {
  if (topK === 0 && topP === 1) return [...lp.keys()]
  let cand: number[]
  const byProb = (a: number, b: number): number => lp[b] - lp[a] || a - b
  // Tokens more than e^30 times less likely than the best can only matter when top-p is within ~V·e^-30 of 1;
  // sort the rest first and fall back to the full sort in that case (keeps 150k-token vocabularies cheap).
  let max = -Infinity
  for (let i = 0; i < lp.length; i++) if (lp[i] > max) max = lp[i]
  const likely: number[] = []
  for (let i = 0; i < lp.length; i++) if (lp[i] > max - 30) likely.push(i)
  cand = likely.sort(byProb)
  let total = 0
  for (let i = 0; i < lp.length; i++) total += Math.exp(lp[i])
  if (topK > 0) {
    if (cand.length < topK && cand.length < lp.length) cand = [...lp.keys()].sort(byProb)
    cand = cand.slice(0, topK)
    // Top-p then applies to the renormalised top-k distribution (as in Hugging Face and vLLM).
    total = 0
    for (const i of cand) total += Math.exp(lp[i])
  }
  if (topP < 1) {
    let cum = 0
    let keep = 0
    while (keep < cand.length) {
      cum += Math.exp(lp[cand[keep]]) / total
      keep++
      if (cum >= topP) break
    }
    if (cum < topP && cand.length < lp.length && topK === 0) {
      cand = [...lp.keys()].sort(byProb)
      cum = 0
      keep = 0
      while (keep < cand.length) {
        cum += Math.exp(lp[cand[keep]]) / total
        keep++
        if (cum >= topP) break
      }
    }
    cand = cand.slice(0, keep)
  }
  return cand
}

/** Draw one token from a row of logits with the uniform u in [0,1) (unused when greedy); returns the id and its
 *  log-probs (sampling policy, raw model). */
export function sampleFromRow(row: Float32Array, r: RowSamplingParams, u: number): { id: number; logprob: number; modelLogprob: number } {
  const raw = logSoftmaxRow(row)
  if (r.temperature === 0) {
    let best = 0
    for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i
    return { id: best, logprob: 0, modelLogprob: raw[best] }
  }
  const lp = r.temperature === 1 ? raw : logSoftmaxRow(row, 1 / r.temperature)
  const cand = samplingSupport(lp, r.topK, r.topP)
  let z = 0
  for (const i of cand) z += Math.exp(lp[i])
  u *= z
  let id = cand[cand.length - 1]
  for (const i of cand) {
    u -= Math.exp(lp[i])
    if (u < 0) {
      id = i
      break
    }
  }
  return { id, logprob: lp[id] - Math.log(z), modelLogprob: raw[id] }
}

