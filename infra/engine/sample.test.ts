// infra/engine/sample.test: the truncation rules of one draw (top-k, top-p, their order, the fast path for large
// vocabularies) and the draw's log-probs, on hand-made distributions; the merged sampling copy's reuse and rebuild.
import { Rng } from '../rng'
import { presetConfig } from './config'
import { Learner } from './learner'
import { LORA_TARGETS } from './lora'
import { createRandomModel } from './model'
import { generate, releaseMergedForSampling, samplingSupport, sampleToken } from './sample'
import { createTsBackend } from './ts-backend'

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

test('the merged sampling copy is kept between calls and rebuilt when the adapter changes (an optimizer step)', () => {
  const be = createTsBackend()
  let merges = 0
  const mergeLora = be.mergeLora.bind(be)
  be.mergeLora = (w, lora) => {
    merges++
    return mergeLora(w, lora)
  }
  const m = createRandomModel(presetConfig('tiny', 32, [31]), new Rng(2), be, { std: 0.3 })
  const learner = new Learner(m, { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed: 3 })
  const perMerge = m.config.numLayers * LORA_TARGETS.length
  const step = (): void => {
    learner.forwardBackward([{ inputTokens: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], advantages: [1, 1, 1, 1], oldLogprobs: [-3, -3, -3, -3] }], { name: 'ppo' })
    learner.optimStep({ lr: 0.05 })
  }
  step() // lora_B ≠ 0, so the adapter matters
  const params = { n: 3, maxNewTokens: 12, seed: 4, eosTokenIds: [] }
  const a = generate(m, [1, 2, 3], params)
  expect(merges).toBe(perMerge)
  expect(generate(m, [1, 2, 3], params)).toEqual(a) // same adapter: the kept copy, same samples
  expect(merges).toBe(perMerge)
  step()
  const b = generate(m, [1, 2, 3], params)
  expect(merges).toBe(2 * perMerge) // the step changed the adapter's values: merged again
  expect(b.map((s) => s.modelLogprobs)).not.toEqual(a.map((s) => s.modelLogprobs))
  releaseMergedForSampling(m)
  expect(generate(m, [1, 2, 3], params)).toEqual(b) // a fresh merge of the same values gives the same samples
  expect(merges).toBe(3 * perMerge)
})
