// bench/stats.test: the statistics on cases whose answers are known exactly or analytically.
import { bootstrapMean, bootstrapSeedsQuestions, pairedDifference, permutationPValue, quantileSorted, signTest } from './stats'
import { Rng } from '../infra/rng'

const B = { resamples: 4000, seed: 11, label: 't' }

it('quantiles interpolate like numpy (type 7)', () => {
  expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5)
  expect(quantileSorted([0, 10], 0.25)).toBe(2.5)
})

it('a constant sample has a zero-width interval', () => {
  const e = bootstrapMean(Array(50).fill(0.7), B)
  expect(e.mean).toBeCloseTo(0.7, 12)
  expect(e.lo).toBeCloseTo(0.7, 12)
  expect(e.hi).toBeCloseTo(0.7, 12)
})

it('a Bernoulli proportion gets the normal-approximation interval p ± 1.96·sqrt(p(1−p)/n)', () => {
  const xs = [...Array(120).fill(1), ...Array(280).fill(0)]
  const e = bootstrapMean(xs, B)
  const half = 1.96 * Math.sqrt((0.3 * 0.7) / 400)
  expect(e.mean).toBeCloseTo(0.3, 12)
  expect(Math.abs(e.lo - (0.3 - half))).toBeLessThan(0.01)
  expect(Math.abs(e.hi - (0.3 + half))).toBeLessThan(0.01)
})

it('is deterministic in the seed and label, and streams differ by label', () => {
  const xs = Array.from({ length: 60 }, (_, i) => (i * 37) % 11 / 10)
  expect(bootstrapMean(xs, B)).toEqual(bootstrapMean(xs, B))
  expect(bootstrapMean(xs, { ...B, label: 'other' }).lo).not.toBe(bootstrapMean(xs, B).lo)
})

it('exact sign test', () => {
  expect(signTest(10, 0)).toBeCloseTo(2 / 1024, 15)
  expect(signTest(8, 2)).toBeCloseTo(112 / 1024, 15)
  expect(signTest(5, 5)).toBe(1)
  expect(signTest(0, 0)).toBe(1)
})

it('exact sign-flip permutation p-values', () => {
  expect(permutationPValue(Array(10).fill(1), { resamples: 100, seed: 1, label: 'p' })).toEqual({ p: 2 / 1024, exact: true })
  // sums of four ±1: |sum| >= 2 in 16 − C(4,2) = 10 of 16 patterns
  expect(permutationPValue([1, 1, 1, -1], { resamples: 100, seed: 1, label: 'p' })).toEqual({ p: 10 / 16, exact: true })
  expect(permutationPValue([0, 0], { resamples: 100, seed: 1, label: 'p' })).toEqual({ p: 1, exact: true })
})

it('Monte Carlo permutation p-value when too many non-zero differences to enumerate', () => {
  const r = permutationPValue(Array(40).fill(1), { resamples: 999, seed: 1, label: 'p' })
  expect(r.exact).toBe(false)
  expect(r.p).toBeCloseTo(1 / 1000, 12)
})

it('a constant paired shift is recovered exactly, with a zero-width CI', () => {
  const rng = new Rng(5)
  const a = Array.from({ length: 15 }, () => rng.float(0, 0.9))
  const b = a.map((x) => x + 0.1)
  const d = pairedDifference(a, b, B)
  expect(d.mean).toBeCloseTo(0.1, 12)
  expect(d.lo).toBeCloseTo(0.1, 12)
  expect(d.hi).toBeCloseTo(0.1, 12)
  expect(d.wins).toBe(15)
  expect(d.pPermutation).toBeCloseTo(2 / 2 ** 15, 15)
  expect(d.exact).toBe(true)
})

describe('bootstrapSeedsQuestions (seeds × questions)', () => {
  it('one seed equals the question bootstrap in mean; a constant grid has a zero-width interval', () => {
    const row = [1, 0, 0.5, 1, 0, 0, 1, 0.25]
    expect(bootstrapSeedsQuestions([row], B).mean).toBeCloseTo(bootstrapMean(row, B).mean, 12)
    const c = bootstrapSeedsQuestions([Array(30).fill(0.4), Array(30).fill(0.4)], B)
    expect([c.lo, c.hi]).toEqual([0.4, 0.4].map((x) => expect.closeTo(x, 12)))
  })

  it('seed variance widens the interval: seeds that disagree give a wider CI than seeds that agree', () => {
    const rng = new Rng(3)
    const q = Array.from({ length: 200 }, () => rng.next())
    const agree = [q, q, q]
    const disagree = [q.map((x) => x * 0.2), q, q.map((x) => Math.min(1, x * 1.8))]
    const a = bootstrapSeedsQuestions(agree, { ...B, resamples: 800 })
    const d = bootstrapSeedsQuestions(disagree, { ...B, resamples: 800 })
    expect(d.hi - d.lo).toBeGreaterThan(2 * (a.hi - a.lo))
    expect(a.lo).toBeLessThan(a.mean)
    expect(a.hi).toBeGreaterThan(a.mean)
  })

  it('is a function of its seed and label only', () => {
    const g = [[0, 1, 1, 0], [1, 1, 0, 0]]
    expect(bootstrapSeedsQuestions(g, B)).toEqual(bootstrapSeedsQuestions(g, B))
    expect(() => bootstrapSeedsQuestions([[1, 2], [1]], B)).toThrow(/every seed/)
  })
})
