// bench/gpu/bench: times one configuration of the Qwen3-shaped model of qwen3-step.ts on the cuda backend and appends
// one JSON line to --out: a learner step (tokens/s over timed steps after one warm-up, loss, peak bytes) or the
// sampler (new tokens/s at a batch). One configuration per process, so an out-of-memory run does not take the others
// down and each peak is its own. --mode emu runs the same code on the emulated build (the host dry-run).
// --profile: every backend call is bracketed by synchronize() and timed; the record gets the time per backend method
// of the timed part (where a step's time goes; the syncs cost a little, so tokens/s of a profiled run is a floor).
// The record names the attention generation (`attention`: v1, or v2 under SG_CUDA_ATTN=v2), so run.sh can time both.
// Usage: node bin/run-ts.mjs bench/gpu/bench.ts --mode device|emu --out FILE [--profile]
//          (--learner SHAPE --batch B --seq T [--steps 2] [--loss ppo|cross_entropy] [--lr 1e-5] | --sampler SHAPE --batch B --prompt T --new N)
import { appendFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { Rng } from '../../infra/rng'
import { createCudaBackend } from '../../infra/engine'
import { QWEN3_SHAPES, Qwen3Lora } from './qwen3-step'

function fail(msg: string): never {
  console.error(`bench/gpu/bench: ${msg}`)
  process.exit(2)
}

const { values: a } = parseArgs({
  options: {
    mode: { type: 'string', default: 'device' },
    out: { type: 'string' },
    learner: { type: 'string' },
    sampler: { type: 'string' },
    batch: { type: 'string' },
    seq: { type: 'string' },
    steps: { type: 'string', default: '2' },
    prompt: { type: 'string' },
    new: { type: 'string' },
    rank: { type: 'string', default: '32' },
    seed: { type: 'string', default: '1' },
    loss: { type: 'string', default: 'ppo' },
    lr: { type: 'string', default: '1e-5' },
    profile: { type: 'boolean', default: false },
  },
  strict: true,
})
if (a.mode !== 'device' && a.mode !== 'emu') fail(`--mode must be device or emu, got ${a.mode}`)
if (!a.out) fail('--out FILE is required')
if (a.loss !== 'ppo' && a.loss !== 'cross_entropy') fail(`--loss must be ppo or cross_entropy, got ${a.loss}`)
const lr = Number(a.lr)
if (!(lr > 0)) fail(`--lr must be a positive number, got ${a.lr}`)
if (!a.learner === !a.sampler) fail('give exactly one of --learner SHAPE or --sampler SHAPE')
const shapeName = (a.learner ?? a.sampler)!
const shape = QWEN3_SHAPES[shapeName] ?? fail(`unknown shape ${shapeName}; use ${Object.keys(QWEN3_SHAPES).join(', ')}`)
const int = (v: string | undefined, what: string): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) fail(`${what} must be a positive integer, got ${v}`)
  return n
}
const B = int(a.batch, '--batch')
const seed = int(a.seed, '--seed')
const rng = new Rng(seed)
// The attention generation the library uses (SG_CUDA_ATTN, read once by the library as by this line: v2 or else v1).
const attention = process.env.SG_CUDA_ATTN === 'v2' ? 'v2' : 'v1'
const record: Record<string, unknown> = { kind: a.learner ? 'learner' : 'sampler', shape: shapeName, batch: B, mode: a.mode, attention, date: new Date().toISOString() }
const t0 = performance.now()
/** Per-method time (ms) and calls of the backend, each call bracketed by synchronize(); off until `on` is set. */
const prof = { on: false, ms: new Map<string, number>(), calls: new Map<string, number>() }
function profiled<T extends object>(be: T & { synchronize(): void }): T {
  const skip = new Set(['synchronize', 'memory', 'reshape', 'release', 'device'])
  return new Proxy(be, {
    get(target, key, recv) {
      const v = Reflect.get(target, key, recv)
      if (typeof v !== 'function' || typeof key !== 'string' || skip.has(key)) return typeof v === 'function' ? v.bind(target) : v
      return (...args: unknown[]) => {
        if (!prof.on) return v.apply(target, args)
        target.synchronize()
        const t = performance.now()
        const out = v.apply(target, args)
        target.synchronize()
        prof.ms.set(key, (prof.ms.get(key) ?? 0) + performance.now() - t)
        prof.calls.set(key, (prof.calls.get(key) ?? 0) + 1)
        return out
      }
    },
  })
}
try {
  const raw = createCudaBackend({ mode: a.mode as 'device' | 'emu' })
  const be = a.profile ? profiled(raw) : raw
  record.device = be.device
  const model = new Qwen3Lora(be, shape, int(a.rank, '--rank'), 64, seed)
  be.synchronize()
  record.initSeconds = (performance.now() - t0) / 1000
  if (a.learner) {
    const T = int(a.seq, '--seq'), steps = int(a.steps, '--steps')
    const N = B * T
    const cu = Int32Array.from({ length: B + 1 }, (_, b) => b * T)
    const ids = Int32Array.from({ length: N }, () => rng.int(0, shape.vocab))
    const targets = Int32Array.from({ length: N }, () => rng.int(0, shape.vocab))
    const adv = Float32Array.from({ length: N }, () => rng.normal(0, 1))
    const step = (): number => model.learnerStep(ids, targets, cu, adv, lr, a.loss as 'ppo' | 'cross_entropy')
    const losses = [step()]
    be.synchronize()
    prof.on = a.profile === true
    const t1 = performance.now()
    for (let s = 0; s < steps; s++) losses.push(step())
    be.synchronize()
    const sec = (performance.now() - t1) / 1000
    Object.assign(record, { seq: T, tokens: N, steps, loss: a.loss, seconds: sec, tokensPerSecond: (N * steps) / sec, losses })
  } else {
    const T = int(a.prompt, '--prompt'), n = int(a.new, '--new')
    const prompts = Array.from({ length: B }, () => Int32Array.from({ length: T }, () => rng.int(0, shape.vocab)))
    prof.on = a.profile === true
    const t1 = performance.now()
    const out = model.sample(prompts, n, { temperature: 1, topK: 50, topP: 0.95 }, rng)
    be.synchronize()
    const sec = (performance.now() - t1) / 1000
    const valid = out.every((row) => row.every((id) => id >= 0 && id < shape.vocab))
    Object.assign(record, { prompt: T, newTokens: n, seconds: sec, newTokensPerSecond: (B * n) / sec, idsInVocab: valid })
  }
  if (a.profile) {
    const rows = [...prof.ms].sort((x, y) => y[1] - x[1])
    record.profileMs = Object.fromEntries(rows.map(([k, ms]) => [k, { ms: Math.round(ms * 10) / 10, calls: prof.calls.get(k) }]))
  }
  const mem = be.memory()
  Object.assign(record, { ok: true, peakBytes: mem.peak, reservedBytes: mem.reserved })
} catch (err) {
  Object.assign(record, { ok: false, error: (err as Error).message.split('\n')[0] })
}
record.wallSeconds = (performance.now() - t0) / 1000
appendFileSync(a.out, JSON.stringify(record) + '\n')
console.log(JSON.stringify(record))
process.exit(record.ok ? 0 : 1)
