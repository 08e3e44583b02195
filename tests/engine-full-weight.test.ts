// tests/engine-full-weight: full-weight training (Learner trainable 'full') and the masked output head, on every
// backend (ts, native, cuda emulated): every base weight's gradient — embedding, norms, q/k/v/o (+ biases, + q/k-norm),
// gate/up/down, the untied head — against tests/fixtures/engine-reference's float64 central finite differences
// (reference-full.safetensors, make_reference.py --full-weights; same tolerances as the LoRA reference test); the
// head computed only where the mask is non-zero gives the all-rows head's loss, log-probs and gradients (a datum whose
// mask is all zero, one all one, and mixed); training moves the weights, sampling sees the moved weights, and a
// resumed run equals an uninterrupted one.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Rng } from '../infra/rng'
import type { Backend } from '../infra/engine/backend'
import { presetConfig } from '../infra/engine/config'
import { createCudaBackend } from '../infra/engine/cuda/cuda-backend'
import { createNativeBackend } from '../infra/engine/native/native-backend'
import { createTsBackend } from '../infra/engine/ts-backend'
import { backward, createRandomModel, forward, loadModel, targetLogprobs, targetLogprobsBackward, weightParams } from '../infra/engine/model'
import { Learner, type Datum } from '../infra/engine/learner'
import { LORA_TARGETS } from '../infra/engine/lora'
import { tokenLoss } from '../infra/engine/losses'
import { readSafetensors } from '../infra/engine/safetensors'

const FIXTURE = fileURLToPath(new URL('./fixtures/engine-reference', import.meta.url))
const TOL = { loss: 1e-6, grads: 1e-4 }
const hasGxx = spawnSync('g++', ['--version']).status === 0
const BACKENDS: [string, () => Backend][] = [
  ['ts', createTsBackend],
  ['native', createNativeBackend],
  ...(hasGxx ? ([['cuda (emulated)', () => createCudaBackend({ mode: 'emu' })]] as [string, () => Backend][]) : []),
]
if (!hasGxx) console.warn('engine-full-weight: the cuda (emulated) rows are SKIPPED — g++ is not on PATH')

const tmp = mkdtempSync(join(tmpdir(), 'engine-full-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function relMax(ours: Float32Array, ref: Float32Array): number {
  if (ours.length !== ref.length) return Infinity
  let d = 0, m = 0
  for (let i = 0; i < ref.length; i++) {
    d = Math.max(d, Math.abs(ours[i] - ref[i]))
    m = Math.max(m, Math.abs(ref[i]))
  }
  return d / (m || 1)
}

const sft = (tokens: number[], mask?: number[]): Datum => ({ inputTokens: tokens.slice(0, -1), targetTokens: tokens.slice(1), mask })

describe.each(BACKENDS)('%s', (_name, make) => {
  let be: Backend
  beforeAll(() => {
    be = make()
  }, 600_000)

  test.each(['qwen3', 'qwen2', 'llama'])(`%s: every base weight's gradient within ${TOL.grads} of the float64 finite differences`, (arch) => {
    const dir = join(FIXTURE, arch)
    const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as { sequences: number[][]; weights: number[][] }
    const ref = readSafetensors(join(dir, 'reference-full.safetensors')).tensors
    const learner = new Learner(loadModel(join(dir, 'model'), be), { trainable: 'full' })
    const datums = inputs.sequences.map((s, i) => ({ inputTokens: s.slice(0, -1), targetTokens: s.slice(1), mask: inputs.weights[i] }))
    const fb = learner.forwardBackward(datums, { name: 'cross_entropy' })
    const refLoss = ref.get('loss')!.data[0]
    expect(Math.abs(fb.loss - refLoss) / Math.abs(refLoss)).toBeLessThanOrEqual(TOL.loss)
    const params = weightParams(learner.model)
    expect(params.length).toBe(arch === 'qwen3' ? 24 : arch === 'qwen2' ? 27 : 21)
    const bad: string[] = []
    let worst = 0
    for (const p of params) {
      const want = ref.get(`grad.${p.name}`)
      if (!want) throw new Error(`reference-full.safetensors has no grad.${p.name}; rerun make_reference.py --full-weights`)
      // A vacuous comparison (a weight the loss does not depend on) would prove nothing.
      expect(Math.max(...Array.from(want.data, Math.abs))).toBeGreaterThan(1e-4)
      const d = relMax(learner.gradient(p.name) ?? new Float32Array(0), want.data)
      worst = Math.max(worst, d)
      if (!(d <= TOL.grads)) bad.push(`${p.name}: ${d.toExponential(2)}`)
    }
    console.log(`${_name} ${arch}: full-weight grads worst ${worst.toExponential(2)} over ${params.length} tensors`)
    expect(bad).toEqual([])
  })

  test('the masked head equals the all-rows head: loss, log-probs at masked rows, LoRA gradients (all-zero, all-one and mixed masks)', () => {
    const m = createRandomModel(presetConfig('tiny', 48, [47]), new Rng(3), be, { std: 0.3 })
    const l = new Learner(m, { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed: 2 })
    l.forwardBackward([sft([3, 9, 4, 40, 2, 7])], { name: 'cross_entropy' })
    l.optimStep({ lr: 0.05 }) // B ≠ 0: the adapter's gradients are not the fresh adapter's special case
    const rng = new Rng(9)
    const tokens = (n: number) => Array.from({ length: n }, () => rng.int(0, 46))
    const seqs = [tokens(9), tokens(7), tokens(12)]
    const datums: Datum[] = [
      { ...sft(seqs[0], new Array(8).fill(0)), oldLogprobs: new Array(8).fill(-3), advantages: new Array(8).fill(0.5) },
      { ...sft(seqs[1], new Array(6).fill(1)), oldLogprobs: new Array(6).fill(-3.2), advantages: new Array(6).fill(-0.7) },
      { ...sft(seqs[2], [0, 0, 0, 1, 1, 0, 0.5, 1, 0, 0, 1]), oldLogprobs: new Array(11).fill(-2.9), advantages: new Array(11).fill(1.1) },
    ]
    for (const loss of [{ name: 'cross_entropy' as const }, { name: 'ppo' as const, epsLow: 0.2 }]) {
      l.zeroGrad()
      const got = l.forwardBackward(datums, loss, { temperature: 0.8 })
      const masked = new Map(l.model.adapter!.params().map((p) => [p.name, l.gradient(p.name) ?? new Float32Array(0)]))
      // The all-rows head, as forwardBackward computed it before masking: every row's log-prob, dL/dlogp 0 where mask is 0.
      l.zeroGrad()
      const grads = new Map()
      const f = forward(m, datums.map((d) => ({ tokens: d.inputTokens })), { keepTape: true })
      be.scaleInPlace(f.hidden, 1 / 0.8)
      const targets = Int32Array.from(datums.flatMap((d) => d.targetTokens))
      const lp = targetLogprobs(m, f.hidden, targets)
      const dlogp = new Float32Array(lp.length)
      let o = 0, lossSum = 0
      for (const d of datums) {
        for (let t = 0; t < d.targetTokens.length; t++) {
          const w = d.mask![t]
          if (w !== 0) {
            const tl = tokenLoss(loss, lp[o + t], d.oldLogprobs![t], d.advantages![t])
            lossSum += w * tl.loss
            dlogp[o + t] = w * tl.dlogp
          }
        }
        o += d.targetTokens.length
      }
      const dh = targetLogprobsBackward(m, f.hidden, targets, dlogp)
      be.scaleInPlace(dh, 1 / 0.8)
      backward(m, f, dh, grads)
      expect(Math.abs(got.loss - lossSum)).toBeLessThan(1e-5 * Math.max(1, Math.abs(lossSum)))
      o = 0
      datums.forEach((d, di) => {
        d.targetTokens.forEach((_, t) => {
          if (d.mask![t] === 0) expect(got.logprobs[di][t]).toBeNaN()
          else expect(Math.abs(got.logprobs[di][t] - lp[o + t])).toBeLessThan(1e-5)
        })
        o += d.targetTokens.length
      })
      let worst = 0
      for (const [name, g] of masked) {
        const want = be.toHost(grads.get(name))
        for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(g[i] - want[i]) / Math.max(1e-3, Math.abs(want[i])))
      }
      expect(worst).toBeLessThan(1e-4)
    }
    // A pack whose masks are all zero runs nothing and accumulates nothing.
    l.zeroGrad()
    const none = l.forwardBackward([datums[0]], { name: 'cross_entropy' })
    expect(none.metrics.tokens).toBe(0)
    expect(none.loss).toBe(0)
    expect(l.model.adapter!.params().every((p) => l.gradient(p.name) === undefined)).toBe(true)
  })

  test('full-weight steps lower the loss, sampling sees the new weights, and a resumed run equals an uninterrupted one', () => {
    const config = presetConfig('tiny', 40, [39])
    const data = [sft([1, 5, 9, 13, 17, 21, 25, 29, 33]), sft([2, 6, 10, 14, 18, 22, 26, 30, 34])]
    const run = (steps: number, resumeAt?: number) => {
      let l = new Learner(createRandomModel(config, new Rng(4), be), { trainable: 'full' })
      // Sample before training too: a backend binds the stack (and may pack the weights) on first use.
      l.sample([1, 5, 9], { maxNewTokens: 2, temperature: 0, seed: 1, eosTokenIds: [] })
      const losses: number[] = []
      for (let s = 0; s < steps; s++) {
        if (s === resumeAt) {
          l.saveState(join(tmp, 'state'))
          l = new Learner(createRandomModel(config, new Rng(99), be), { trainable: 'full' })
          l.loadState(join(tmp, 'state'))
        }
        losses.push(l.forwardBackward(data, { name: 'cross_entropy' }).loss)
        l.optimStep({ lr: 3e-3, weightDecay: 0.01, gradClip: 1 })
      }
      return { l, losses }
    }
    const a = run(8)
    expect(a.losses[7]).toBeLessThan(a.losses[0] * 0.8)
    const b = run(8, 4)
    expect(b.losses).toEqual(a.losses)
    // Greedy sampling after the steps: its model log-probs are the trained weights' (a stale bound stack would differ).
    const [s] = a.l.sample([1, 5, 9], { maxNewTokens: 5, temperature: 0, seed: 1, eosTokenIds: [] })
    const lp = a.l.computeLogprobs([1, 5, 9, ...s.tokens])
    s.modelLogprobs.forEach((x, i) => expect(Math.abs(x - lp[2 + i])).toBeLessThan(1e-4))
    expect(() => new Learner(createRandomModel(config, new Rng(4), be), { trainable: 'full' }).forwardBackward(data.map((d) => ({ ...d, oldLogprobs: d.targetTokens.map(() => -1), advantages: d.targetTokens.map(() => 1) })), { name: 'ppo', klBeta: 0.1 })).toThrow(/frozen reference/)
  })
})
