// bench/stats: the statistics of benchmark figures — percentile bootstrap CIs (seeded Rng), paired differences,
// a paired sign-flip permutation p-value (exact for small n) and an exact two-sided sign test. Pure functions on numbers.
import { Rng } from '../infra/rng'

export interface Estimate {
  n: number
  mean: number
  /** Lower and upper bounds of the percentile bootstrap interval at `level`. */
  lo: number
  hi: number
}

export interface BootstrapOptions {
  /** Number of bootstrap resamples. */
  resamples: number
  seed: number
  /** A label so every figure draws from its own stream (order of computation does not matter). */
  label: string
  level?: number
}

export function mean(xs: ArrayLike<number>): number {
  if (xs.length === 0) return NaN
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]
  return s / xs.length
}

/** Linear-interpolated quantile of a sorted array (Hyndman–Fan type 7, as numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(sorted.length - 1, lo + 1)
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo])
}

/** Percentile bootstrap CI of the mean of `xs` (resample questions with replacement). */
export function bootstrapMean(xs: readonly number[], opts: BootstrapOptions): Estimate {
  const n = xs.length
  const m = mean(xs)
  if (n === 0) return { n, mean: NaN, lo: NaN, hi: NaN }
  const level = opts.level ?? 0.95
  const rng = Rng.derive(opts.seed, 'bootstrap', opts.label)
  const means = new Float64Array(opts.resamples)
  for (let b = 0; b < opts.resamples; b++) {
    let s = 0
    for (let i = 0; i < n; i++) s += xs[Math.floor(rng.next() * n)]
    means[b] = s / n
  }
  means.sort()
  const a = (1 - level) / 2
  return { n, mean: m, lo: quantileSorted(means, a), hi: quantileSorted(means, 1 - a) }
}

export interface PairedEstimate extends Estimate {
  /** Two-sided p-value of the paired sign-flip permutation test (H0: differences symmetric around 0). */
  pPermutation: number
  /** True when the permutation p-value was computed exactly (all 2^k sign patterns). */
  exact: boolean
  /** Two-sided exact sign test on the non-zero differences. */
  pSign: number
  wins: number
  losses: number
  ties: number
}

/** Exact two-sided binomial sign test: P(|wins - k/2| >= observed) with k non-ties, p = 1/2. */
export function signTest(wins: number, losses: number): number {
  const k = wins + losses
  if (k === 0) return 1
  const x = Math.min(wins, losses)
  // log-space binomial coefficients keep this exact enough for k in the thousands
  let logC = 0
  let tail = 0
  const logHalfK = -k * Math.LN2
  for (let i = 0; i <= x; i++) {
    if (i > 0) logC += Math.log(k - i + 1) - Math.log(i)
    tail += Math.exp(logC + logHalfK)
  }
  return Math.min(1, 2 * tail)
}

/**
 * Sign-flip permutation test of the mean difference. Exact enumeration of the 2^k sign patterns of the k non-zero
 * differences when k <= exactLimit; otherwise `resamples` random patterns with the (count+1)/(B+1) estimator.
 */
export function permutationPValue(diffs: readonly number[], opts: { resamples: number; seed: number; label: string; exactLimit?: number }): { p: number; exact: boolean } {
  const nz = diffs.filter((d) => d !== 0)
  const k = nz.length
  if (k === 0) return { p: 1, exact: true }
  const obs = Math.abs(nz.reduce((s, d) => s + d, 0))
  const tol = 1e-12 * Math.max(1, obs)
  const exactLimit = opts.exactLimit ?? 20
  if (k <= exactLimit) {
    // Gray-code walk over the 2^k sign patterns: each step flips one sign, so the sum updates in O(1).
    const total = 2 ** k
    const neg = new Uint8Array(k)
    let s = nz.reduce((acc, d) => acc + d, 0)
    let extreme = Math.abs(s) >= obs - tol ? 1 : 0
    for (let g = 1; g < total; g++) {
      const bit = 31 - Math.clz32(g & -g)
      s += neg[bit] ? 2 * nz[bit] : -2 * nz[bit]
      neg[bit] ^= 1
      if (Math.abs(s) >= obs - tol) extreme++
    }
    return { p: extreme / total, exact: true }
  }
  const rng = Rng.derive(opts.seed, 'permutation', opts.label)
  let extreme = 0
  for (let b = 0; b < opts.resamples; b++) {
    let s = 0
    for (let i = 0; i < k; i++) s += rng.next() < 0.5 ? -nz[i] : nz[i]
    if (Math.abs(s) >= obs - tol) extreme++
  }
  return { p: (extreme + 1) / (opts.resamples + 1), exact: false }
}

/** Mean of b − a over paired questions, its bootstrap CI (resampling pairs), and paired tests. */
export function pairedDifference(a: readonly number[], b: readonly number[], opts: BootstrapOptions): PairedEstimate {
  if (a.length !== b.length) throw new Error(`pairedDifference: ${a.length} vs ${b.length} values; pair by question id first`)
  const diffs = a.map((x, i) => b[i] - x)
  const est = bootstrapMean(diffs, opts)
  let wins = 0
  let losses = 0
  for (const d of diffs) {
    if (d > 0) wins++
    else if (d < 0) losses++
  }
  const perm = permutationPValue(diffs, { resamples: Math.max(opts.resamples, 2000), seed: opts.seed, label: opts.label })
  return { ...est, pPermutation: perm.p, exact: perm.exact, pSign: signTest(wins, losses), wins, losses, ties: diffs.length - wins - losses }
}

/**
 * Two-way percentile bootstrap of the grand mean of an S × Q grid (runs with S seeds, scored on the same Q questions):
 * each resample draws S seeds and Q questions with replacement, independently, and averages the drawn cells — so the
 * interval carries the variance between seeds as well as between questions. With S = 1 it is the question bootstrap.
 */
export function bootstrapSeedsQuestions(grid_S_Q: readonly (readonly number[])[], opts: BootstrapOptions): Estimate {
  const S = grid_S_Q.length
  const Q = S > 0 ? grid_S_Q[0].length : 0
  if (S === 0 || Q === 0) return { n: 0, mean: NaN, lo: NaN, hi: NaN }
  if (grid_S_Q.some((r) => r.length !== Q)) throw new Error('bootstrapSeedsQuestions: every seed needs a value for every question')
  let total = 0
  for (const r of grid_S_Q) for (const v of r) total += v
  const level = opts.level ?? 0.95
  const rng = Rng.derive(opts.seed, 'bootstrap-2way', opts.label)
  const means = new Float64Array(opts.resamples)
  const qs = new Int32Array(Q)
  for (let b = 0; b < opts.resamples; b++) {
    for (let j = 0; j < Q; j++) qs[j] = Math.floor(rng.next() * Q)
    let s = 0
    for (let i = 0; i < S; i++) {
      const row = grid_S_Q[Math.floor(rng.next() * S)]
      for (let j = 0; j < Q; j++) s += row[qs[j]]
    }
    means[b] = s / (S * Q)
  }
  means.sort()
  const a = (1 - level) / 2
  return { n: S * Q, mean: total / (S * Q), lo: quantileSorted(means, a), hi: quantileSorted(means, 1 - a) }
}
