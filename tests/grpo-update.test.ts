// tests/grpo-update: the GRPO update as the anchors run it (issue 34), on a tiny random model — with mini-batches /
// epochs the clip acts (ratio ≠ 1, clip fraction > 0 after the first optimizer step; one step per batch stays at
// ratio 1); the KL to the frozen start adapter is 0 before any update and positive after one (while the base
// reference is far from 0); the learner's log-probs at the sampling temperature equal the sampler's (EngineSampler)
// on the ts, native and (emulated) cuda backends, so an update on freshly sampled tokens starts at ratio 1.
import { Rng } from '../infra/rng'
import { presetConfig } from '../infra/engine/config'
import type { Backend } from '../infra/engine/backend'
import { createRandomModel } from '../infra/engine/model'
import { Learner } from '../infra/engine/learner'
import { LORA_TARGETS, loadLoraAdapter, peftName } from '../infra/engine/lora'
import { createTsBackend } from '../infra/engine/ts-backend'
import { loadNativeAddon } from '../infra/engine/native/addon'
import { createNativeBackend } from '../infra/engine/native/native-backend'
import { createCudaBackend } from '../infra/engine'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TokenSequence } from '../agent/policy/engine-policy'
import { EngineSampler } from '../agent/policy/engine-sampler'
import { buildDatums, type ScoredSequence } from '../agent/grpo/datums'
import { grpoEpochs, grpoUpdate, lossConfig } from '../agent/grpo/learn'
import { ppoSchedule } from '../agent/grpo/mini-batches'

const tmp = mkdtempSync(join(tmpdir(), 'sg-grpo-update-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const lora = { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }
const config = () => presetConfig('tiny', 32, [31])

/** A learner whose adapter is non-zero (one SFT step), like an SFT start. */
function sftLearner(seed: number, backend: Backend = createTsBackend()): Learner {
  const l = new Learner(createRandomModel(config(), new Rng(seed), backend, { std: 0.3 }), { lora, seed })
  l.forwardBackward([{ inputTokens: [1, 2, 3, 4, 5, 6], targetTokens: [2, 3, 4, 5, 6, 7] }], { name: 'cross_entropy' })
  l.optimStep({ lr: 0.05 })
  return l
}

/** Prompt [0..3) unsampled, the rest sampled, old log-probs = the learner's now (ratio 1 at the first step). */
function scored(l: Learner, ids: number[], advantage: number, temperature = 1): ScoredSequence {
  const lp = l.computeLogprobs(ids, { temperature })
  const sampled = ids.map((_, t) => (t >= 3 ? 1 : 0))
  const seq: TokenSequence = { ids, sampled, logprobs: ids.map((_, t) => (t >= 3 ? lp[t - 1] : 0)), truncatedTurns: 0 }
  return { seq, advantage }
}

function batch(l: Learner, T = 1): ScoredSequence[] {
  const rng = new Rng(9)
  return Array.from({ length: 8 }, (_, i) => scored(l, Array.from({ length: 10 }, () => rng.int(1, 31)), i % 2 === 0 ? 1 : -1, T))
}

const opts = { loss: 'ppo' as const, epsLow: 0.05, epsHigh: 0.05, klBeta: 0, microBatch: 3, aggregation: 'token-mean' as const }
const optim = { lr: 0.05 }

describe('mini-batches / PPO epochs', () => {
  test('the schedule: a seeded shuffle per epoch, every trajectory once per epoch; one mini-batch is the batch as is', () => {
    const xs = Array.from({ length: 10 }, (_, i) => i)
    const s = ppoSchedule(xs, 4, 2, new Rng(3))
    expect(s.map((m) => m.length)).toEqual([4, 4, 2, 4, 4, 2])
    expect(s.slice(0, 3).flat().sort((a, b) => a - b)).toEqual(xs)
    expect(s.slice(3).flat().sort((a, b) => a - b)).toEqual(xs)
    expect(s.flat()).not.toEqual([...xs, ...xs])
    expect(ppoSchedule(xs, 4, 2, new Rng(3))).toEqual(s)
    expect(ppoSchedule(xs, 0, 2, new Rng(3))).toEqual([xs, xs])
    expect(ppoSchedule(xs, 10, 1, new Rng(3))).toEqual([xs])
  })

  test('each mini-batch is its own token-mean: its datum weights sum to 1', () => {
    const l = sftLearner(1)
    for (const mb of ppoSchedule(batch(l), 3, 1, new Rng(0))) {
      const w = buildDatums(mb, 'token-mean').reduce((a, d) => a + d.mask!.reduce((x, y) => x + y, 0), 0)
      expect(w).toBeCloseTo(1, 12)
    }
  })

  test('one step per batch: ratio 1, nothing clipped; mini-batches × epochs: the ratio leaves 1 and the clip acts', () => {
    const one = sftLearner(1)
    const m1 = grpoEpochs(one, batch(one), { ...opts, ppoMiniBatch: 0, ppoEpochs: 1 }, optim, new Rng(0))
    expect(m1.optimizerSteps).toBe(1)
    expect(Math.abs(m1.meanRatio - 1)).toBeLessThan(1e-6)
    expect(m1.clipFraction).toBe(0)

    const many = sftLearner(1)
    const m = grpoEpochs(many, batch(many), { ...opts, ppoMiniBatch: 2, ppoEpochs: 2 }, optim, new Rng(0))
    expect(m.optimizerSteps).toBe(8)
    expect(m.tokens).toBe(m1.tokens)
    expect(Math.abs(m.meanRatioLast - 1)).toBeGreaterThan(1e-3)
    expect(m.clipFractionLast).toBeGreaterThan(0)
    expect(m.clipFraction).toBeGreaterThan(0)
  })
})

describe('KL reference = the start adapter', () => {
  test('KL to the start adapter is 0 before any update and > 0 after one; the base reference is not 0; the start stays frozen', () => {
    // The start adapter as a run gets it: saved by an SFT learner, loaded into a fresh model before the Learner.
    const sft = sftLearner(2)
    sft.saveAdapter(join(tmp, 'start'))
    const model = createRandomModel(config(), new Rng(2), undefined, { std: 0.3 })
    model.adapter = loadLoraAdapter(join(tmp, 'start'), model.backend, model.config)
    const l = new Learner(model, { lora, seed: 2 })
    const items = batch(l)
    const startLp = l.computeLogprobs(items[0].seq.ids, { reference: 'start' })
    expect(startLp).toEqual(l.computeLogprobs(items[0].seq.ids))
    const kl = { ...opts, klBeta: 0.1, microBatch: 8 }
    const datums = buildDatums(items, 'token-mean')
    const at0 = l.forwardBackward(datums, lossConfig(kl), { klReference: 'start' })
    l.zeroGrad()
    expect(at0.metrics.meanKl).toBe(0)
    const base = l.forwardBackward(datums, lossConfig(kl), { klReference: 'base' })
    l.zeroGrad()
    expect(base.metrics.meanKl).toBeGreaterThan(0.01)
    grpoUpdate(l, datums, { ...kl, klReference: 'start' }, optim)
    const after = l.forwardBackward(datums, lossConfig(kl), { klReference: 'start' })
    l.zeroGrad()
    expect(after.metrics.meanKl).toBeGreaterThan(0)
    // The reference did not move with the adapter; a state reload (resume) replaces the adapter, not the reference.
    expect(l.computeLogprobs(items[0].seq.ids, { reference: 'start' })).toEqual(startLp)
    l.saveState(join(tmp, 'state'))
    l.loadState(join(tmp, 'state'))
    expect(l.computeLogprobs(items[0].seq.ids, { reference: 'start' })).toEqual(startLp)
    expect(l.computeLogprobs(items[0].seq.ids)).not.toEqual(startLp)
  })

  test('with no start adapter the start reference is the fresh adapter (B = 0), i.e. the base', () => {
    const l = new Learner(createRandomModel(config(), new Rng(4), undefined, { std: 0.3 }), { lora, seed: 4 })
    const ids = [1, 5, 9, 2, 7, 3]
    expect(l.computeLogprobs(ids, { reference: 'start' })).toEqual(l.computeLogprobs(ids, { useLora: false }))
  })
})

const native = loadNativeAddon()
const backends: [string, () => Backend][] = [['ts', createTsBackend]]
if (native.addon) backends.push(['native', createNativeBackend])
else test.skip(`native backend: log-probs at the sampling temperature (skipped: ${native.reason})`, () => {})
// The cuda backend shares the learner's path; its emulation (same kernels, host memory) builds wherever g++ is.
if (spawnSync('g++', ['--version']).status === 0) backends.push(['cuda (emulated)', () => createCudaBackend({ mode: 'emu' })])
else test.skip('cuda (emulated) backend: log-probs at the sampling temperature (skipped: g++ is not on PATH)', () => {})

describe.each(backends)('log-probs at the sampling temperature (%s backend)', (_name, make) => {
  test('the learner at T equals the sampler at T (float tolerance); an update on those samples starts at ratio 1', async () => {
    const l = sftLearner(5, make())
    const T = 0.7
    const prompt = [1, 4, 9, 16, 25]
    const sampler = new EngineSampler(l.model, { temperature: T, topP: 1, topK: 0, stopIds: [] })
    const [outs] = await sampler.sample([prompt], { n: 4, maxTokens: 12, seed: 3 })
    let maxDiff = 0, maxDiffT1 = 0
    const items: ScoredSequence[] = outs.map((o, i) => {
      const ids = [...prompt, ...o.tokenIds]
      const atT = l.computeLogprobs(ids, { temperature: T }).slice(prompt.length - 1)
      const at1 = l.computeLogprobs(ids).slice(prompt.length - 1)
      o.logprobs.forEach((x, t) => {
        maxDiff = Math.max(maxDiff, Math.abs(x - atT[t]))
        maxDiffT1 = Math.max(maxDiffT1, Math.abs(x - at1[t]))
      })
      const seq: TokenSequence = { ids, sampled: ids.map((_, t) => (t >= prompt.length ? 1 : 0)), logprobs: [...prompt.map(() => 0), ...o.logprobs], truncatedTurns: 0 }
      return { seq, advantage: i % 2 === 0 ? 1 : -1 }
    })
    expect(maxDiff).toBeLessThan(1e-4)
    // The temperature matters here: at T = 1 the learner's numbers are far from the sampler's.
    expect(maxDiffT1).toBeGreaterThan(1e-2)
    const m = grpoUpdate(l, buildDatums(items, 'token-mean'), { ...opts, microBatch: 2, temperature: T }, optim)
    expect(Math.abs(m.meanRatio - 1)).toBeLessThan(1e-4)
    expect(m.clipFraction).toBe(0)
  })
})

test('the gradient at temperature T is the derivative of the loss at T (central finite differences on a LoRA B entry)', () => {
  const l = sftLearner(6)
  const T = 0.6
  const items = batch(l, T).map((x, i) => ({ ...x, advantage: i % 3 === 0 ? 1.3 : -0.7 }))
  const datums = buildDatums(items, 'token-mean')
  const cfg = lossConfig({ ...opts, loss: 'importance_sampling', klBeta: 0.2 })
  l.forwardBackward(datums, cfg, { temperature: T })
  const g = l.gradient(peftName(0, 'down', 'B'))!
  l.zeroGrad()
  let i = 0
  for (let j = 1; j < g.length; j++) if (Math.abs(g[j]) > Math.abs(g[i])) i = j
  const be = l.model.backend
  const pair = l.model.adapter!.layers[0].down!
  const b0 = be.toHost(pair.b).slice()
  const lossAt = (d: number): number => {
    const b = b0.slice()
    b[i] += d
    pair.b = be.fromHost(b, pair.b.shape.slice())
    const r = l.forwardBackward(datums, cfg, { temperature: T })
    l.zeroGrad()
    return r.loss
  }
  const h = 1e-2
  const fd = (lossAt(h) - lossAt(-h)) / (2 * h)
  expect(Math.abs(g[i])).toBeGreaterThan(1e-4)
  expect(Math.abs(fd - g[i])).toBeLessThan(0.05 * Math.abs(g[i]) + 1e-5)
})
