// infra/engine/sample.test: the truncation rules of one draw (top-k, top-p, their order, the fast path for large
// vocabularies) and the draw's log-probs, on hand-made distributions.
import { Rng } from '../rng'
import { samplingSupport, sampleToken } from './sample'

const lpOf = (p: number[]) => Float64Array.from(p, Math.log)

test('top-p keeps the smallest most-likely prefix reaching p; top-k applies first and renormalises', () => {
  const lp = lpOf([0.15, 0.5, 0.05, 0.3])
  expect(samplingSupport(lp, 0, 1)).toEqual([0, 1, 2, 3])
  expect(samplingSupport(lp, 0, 0.75)).toEqual([1, 3])
  expect(samplingSupport(lp, 0, 0.5)).toEqual([1])
  expect(samplingSupport(lp, 0, 0.9)).toEqual([1, 3, 0])
  expect(samplingSupport(lp, 2, 1)).toEqual([1, 3])
  // Within the top-2 (0.5, 0.3 → 0.625, 0.375) a nucleus of 0.6 keeps only the first.
  expect(samplingSupport(lp, 2, 0.6)).toEqual([1])
  // Ties go to the lower id.
  expect(samplingSupport(lpOf([0.25, 0.25, 0.25, 0.25]), 2, 1)).toEqual([0, 1])
})

test('very unlikely tokens are still reachable through top-k and a top-p close to 1', () => {
  const lp = Float64Array.from([0, -40, -50, -45])
  expect(samplingSupport(lp, 3, 1)).toEqual([0, 1, 3])
  expect(samplingSupport(lp, 0, 0.5)).toEqual([0])
  // The two 1e-14 tokens fall below the fast path's cut, but a nucleus of 1 − 1.5e-14 needs one of them.
  const tail = Float64Array.from([Math.log(1 - 2e-14), Math.log(1e-14), Math.log(1e-14)])
  expect(samplingSupport(tail, 0, 0.9)).toEqual([0])
  expect(samplingSupport(tail, 0, 1 - 1.5e-14)).toEqual([0, 1])
})

test('sampleToken: draws follow the truncated distribution and report its log-prob', () => {
  const row = Float32Array.from([0.15, 0.5, 0.05, 0.3].map(Math.log))
  const rng = new Rng(5)
  const counts = [0, 0, 0, 0]
  for (let i = 0; i < 4000; i++) {
    const d = sampleToken(row, { temperature: 1, topK: 0, topP: 0.75 }, rng)
    counts[d.id]++
    expect(d.logprob).toBeCloseTo(Math.log(d.id === 1 ? 0.5 / 0.8 : 0.3 / 0.8), 5)
    expect(d.modelLogprob).toBeCloseTo(Math.log(d.id === 1 ? 0.5 : 0.3), 5)
  }
  expect(counts[0] + counts[2]).toBe(0)
  expect(counts[1] / 4000).toBeCloseTo(0.625, 1)
  const greedy = sampleToken(row, { temperature: 0, topK: 0, topP: 1 }, rng)
  expect(greedy).toEqual({ id: 1, logprob: 0, modelLogprob: expect.closeTo(Math.log(0.5), 5) })
})
