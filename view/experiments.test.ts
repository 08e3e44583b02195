// view/experiments.test: the band across seeds — per-step statistics over the seeds that have the step, then buckets.
import { seedBand } from './experiments'

test('per step: mean, sample sd, min, max over the seeds that have it; NaN and missing steps skipped', () => {
  const b = seedBand(
    [
      { steps: [1, 2, 3], ys: [1, 2, NaN] },
      { steps: [1, 2, 3], ys: [3, 2, 5] },
      { steps: [1, 2], ys: [5, 2] },
    ],
    100,
  )
  expect(b).toEqual({ x: [1, 2, 3], mean: [3, 2, 5], sd: [2, 0, 0], min: [1, 2, 5], max: [5, 2, 5], seeds: [3, 3, 1], n: 3 })
})

test('more steps than points: buckets keep the extremes and average the means', () => {
  const steps = Array.from({ length: 10 }, (_, i) => i + 1)
  const b = seedBand([{ steps, ys: steps.map((s) => s) }, { steps, ys: steps.map((s) => -s) }], 2)
  expect(b.n).toBe(10)
  expect(b.x).toEqual([1, 10])
  expect(b.mean).toEqual([0, 0])
  expect(b.min).toEqual([-5, -10])
  expect(b.max).toEqual([5, 10])
})
