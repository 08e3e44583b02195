// tests/helpers/learner-grads: a learner's LoRA gradients after a backward pass, by parameter name, and the largest
// element-wise difference between two such sets (same parameters and shapes, or it throws) — for tests that compare
// two ways of computing the same gradient.
import type { Learner } from '../../infra/engine/learner'

export function allGrads(l: Learner): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>()
  for (const p of l.model.adapter!.params()) out.set(p.name, l.gradient(p.name) ?? new Float32Array(0))
  return out
}

export function maxDiff(a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  let m = 0
  for (const [k, x] of a) {
    const y = b.get(k)
    if (!y || y.length !== x.length) throw new Error(`gradient ${k}: ${y ? `${y.length} elements against ${x.length}` : 'missing'}`)
    for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i] - y[i]))
  }
  return m
}
