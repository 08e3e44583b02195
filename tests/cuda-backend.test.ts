// tests/cuda-backend: the `cuda` backend (infra/engine/cuda/cuda-backend.ts) through its real extern "C" library,
// built here through the emulation layer (mode 'emu': same kernels and binding, host memory), runs the unchanged
// backend and model contract suites; and its fast-path ops agree with the interface ops: packed varlen attention = per-sequence
// attention, the chunked head = log-softmax of full logits, device sampling = the sample.ts rule for the same uniform.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareWithReference } from '../bench/parity/compare'
import { presetConfig } from '../infra/engine/config'
import { Learner } from '../infra/engine/learner'
import { createLoraAdapter, LORA_TARGETS, saveLoraAdapter } from '../infra/engine/lora'
import { createRandomModel, forward, logits, saveModel } from '../infra/engine/model'
import { type HostTensor, writeSafetensors } from '../infra/engine/safetensors'
import { Rng } from '../infra/rng'
import { runBackendContract } from '../infra/engine/backend-contract'
import { runModelContract } from '../infra/engine/model-contract'
import { createBackend, createCudaBackend, cudaUnavailableReason, type CudaBackend } from '../infra/engine'
import { maxRelDiff } from '../infra/engine/backend-contract'

const hasGxx = spawnSync('g++', ['--version']).status === 0
if (!hasGxx) console.warn('cuda-backend: SKIPPED — g++ is not on PATH, the emulated library cannot be built')

if (hasGxx) {
  runBackendContract({ name: 'cuda (emulated)', make: () => createCudaBackend({ mode: 'emu' }) })
  runModelContract({ name: 'cuda (emulated)', make: () => createCudaBackend({ mode: 'emu' }) })
}

const maybe = hasGxx ? describe : describe.skip
maybe('cuda fast path (emulated) agrees with the interface ops', () => {
  let be: CudaBackend
  beforeAll(() => {
    be = createCudaBackend({ mode: 'emu' })
  }, 600_000)
  afterAll(() => be?.dispose())
  const randn = (rng: Rng, n: number, s = 1): Float32Array => Float32Array.from({ length: n }, () => rng.normal(0, s))
  const bf16Grid = (x: Float32Array): Float32Array => {
    const u = new Uint32Array(x.buffer.slice(0))
    for (let i = 0; i < u.length; i++) u[i] = ((u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16) << 16
    return new Float32Array(u.buffer)
  }

  test('packed varlen tensor-core attention = per-sequence attention, forward and backward (bf16 tolerance)', () => {
    const rng = new Rng(7)
    const H = 4, KV = 2, D = 64, lens = [5, 17, 1]
    const cu = Int32Array.from([0, 5, 22, 23])
    const N = cu[3]
    const q = bf16Grid(randn(rng, N * H * D)), k = bf16Grid(randn(rng, N * KV * D)), v = bf16Grid(randn(rng, N * KV * D)), dy = bf16Grid(randn(rng, N * H * D))
    const Q = be.fromHost(q, [N, H, D]), K = be.fromHost(k, [N, KV, D]), V = be.fromHost(v, [N, KV, D]), DY = be.fromHost(dy, [N, H, D])
    const { o, lse } = be.attentionVarlenLse(Q, K, V, cu, cu)
    const g = be.attentionVarlenLseBackward(Q, K, V, o, lse, DY, cu, cu)
    const parts = { o: [] as number[], dq: [] as number[], dk: [] as number[], dv: [] as number[] }
    for (let b = 0; b < lens.length; b++) {
      const s = cu[b], e = cu[b + 1]
      const qs = be.sliceRows(Q, s, e), ks = be.sliceRows(K, s, e), vs = be.sliceRows(V, s, e)
      parts.o.push(...be.toHost(be.attention(qs, ks, vs, 0)))
      const r = be.attentionBackward(qs, ks, vs, 0, be.sliceRows(DY, s, e))
      parts.dq.push(...be.toHost(r.dq))
      parts.dk.push(...be.toHost(r.dk))
      parts.dv.push(...be.toHost(r.dv))
    }
    expect(maxRelDiff(be.toHost(o), parts.o)).toBeLessThan(2e-2)
    expect(maxRelDiff(be.toHost(g.dq), parts.dq)).toBeLessThan(3e-2)
    expect(maxRelDiff(be.toHost(g.dk), parts.dk)).toBeLessThan(3e-2)
    expect(maxRelDiff(be.toHost(g.dv), parts.dv)).toBeLessThan(3e-2)
  }, 120_000)

  test('chunked head (bf16 weights, chunks smaller than N and V) = target log-probs of the full logits, and its gradient', () => {
    const rng = new Rng(8)
    const N = 9, C = 32, V = 70
    const h = bf16Grid(randn(rng, N * C)), w = bf16Grid(randn(rng, V * C, 0.3))
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V))
    const dl = randn(rng, N)
    const H = be.fromHost(h, [N, C]), W = be.fromHost(w, [V, C])
    const Wb = be.toBf16(W)
    const { logp, lse } = be.headLogprobsLse(H, Wb, targets, 4, 16)
    const logits = be.linear(H, W)
    expect(maxRelDiff(be.toHost(logp), be.toHost(be.targetLogprobs(logits, targets)))).toBeLessThan(1e-4)
    const dh = be.headLogprobsLseBackward(H, Wb, targets, lse, be.fromHost(dl, [N]), 4, 16)
    const dlogits = be.targetLogprobsBackward(logits, targets, be.fromHost(dl, [N]))
    const want = be.linearBackward(H, W, dlogits).dx
    expect(maxRelDiff(be.toHost(dh), be.toHost(want))).toBeLessThan(2e-2)
  }, 120_000)

  test('device sampling uses sample.ts samplingSupport and draws from it with the given uniform', async () => {
    const { samplingSupport } = await import('../infra/engine/sample')
    const rng = new Rng(9)
    const B = 4, V = 50
    const logits = randn(rng, B * V, 2)
    const logSoftmax = (row: Float32Array, scale: number): Float64Array => {
      const x = Float64Array.from(row, (v) => Math.fround(v * Math.fround(scale)))
      const m = Math.max(...x)
      const lse = m + Math.log(x.reduce((s, v) => s + Math.exp(v - m), 0))
      return x.map((v) => v - lse)
    }
    for (const p of [{ temperature: 1, topK: 0, topP: 1 }, { temperature: 0.7, topK: 5, topP: 0.9 }, { temperature: 1.2, topK: 0, topP: 0.6 }, { temperature: 0, topK: 0, topP: 1 }]) {
      const uniforms = Float32Array.from({ length: B }, () => rng.next())
      const got = be.sampleDevice(be.fromHost(logits, [B, V]), p, uniforms)
      for (let b = 0; b < B; b++) {
        const row = logits.subarray(b * V, (b + 1) * V)
        const raw = logSoftmax(row, 1)
        let id: number, logprob: number
        if (p.temperature === 0) {
          id = row.indexOf(Math.max(...row))
          logprob = 0
        } else {
          const lp = logSoftmax(row, 1 / p.temperature)
          const support = samplingSupport(lp, p.topK, p.topP).sort((a, c) => a - c)
          const z = support.reduce((s, i) => s + Math.exp(lp[i]), 0)
          let u = uniforms[b] * z
          id = support[support.length - 1]
          for (const i of support) if ((u -= Math.exp(lp[i])) < 0) { id = i; break }
          logprob = lp[id] - Math.log(z)
        }
        expect(got.ids[b]).toBe(id)
        expect(got.logprobs[b]).toBeCloseTo(logprob, 4)
        expect(got.modelLogprobs[b]).toBeCloseTo(raw[id], 4)
      }
    }
  }, 120_000)

  test('the GEMM-based LoRA of the fast path = the fused LoRA kernels of linear()/linearBackward()', () => {
    const rng = new Rng(10)
    const N = 13, K = 40, M = 24, r = 8
    const x = be.fromHost(randn(rng, N * K), [N, K]), w = be.fromHost(randn(rng, M * K), [M, K]), dy = be.fromHost(randn(rng, N * M), [N, M])
    const lora = { a: be.fromHost(randn(rng, r * K), [r, K]), b: be.fromHost(randn(rng, M * r), [M, r]), scale: 2 }
    // fp32 sums in another order: the contract's float32 tolerance (1e-4 relative to max(1, |value|)).
    const fused = be.toHost(be.linear(x, w, undefined, lora))
    const y = be.linear(x, w)
    const u = be.loraForward(x, lora, y)
    expect(maxRelDiff(be.toHost(y), fused)).toBeLessThan(1e-4)
    const want = be.linearBackward(x, w, dy, lora)
    const dx = be.linearBackward(x, w, dy).dx
    const got = be.loraBackward(x, lora, u, dy, dx)
    expect(maxRelDiff(be.toHost(dx), be.toHost(want.dx))).toBeLessThan(1e-4)
    expect(maxRelDiff(be.toHost(got.dA), be.toHost(want.dA!))).toBeLessThan(1e-4)
    expect(maxRelDiff(be.toHost(got.dB), be.toHost(want.dB!))).toBeLessThan(1e-4)
  })

  test('toHostAsync (off the main thread) returns the same values as toHost', async () => {
    const x = Float32Array.from({ length: 1000 }, (_, i) => i * 0.5 - 7)
    const t = be.fromHost(x, [10, 100])
    expect(Array.from(await be.toHostAsync(t))).toEqual(Array.from(be.toHost(t)))
    expect(Array.from(await be.toHostAsync(t))).toEqual(Array.from(x))
  })

  test('memory is released explicitly and the peak is reported', () => {
    const before = be.memory().live
    const t = be.zeros([1000])
    expect(be.memory().live).toBe(before + 4000)
    be.release(t)
    expect(be.memory().live).toBe(before)
    expect(be.memory().peak).toBeGreaterThanOrEqual(before + 4000)
    expect(() => be.toHost(t)).toThrow(/after release/)
  })
})

maybe("createBackend('cuda')", () => {
  const saved = { mode: process.env.SG_CUDA_MODE, lib: process.env.SG_CUDA_LIB }
  afterEach(() => {
    for (const [k, v] of [['SG_CUDA_MODE', saved.mode], ['SG_CUDA_LIB', saved.lib]] as const) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })

  test('builds the cuda backend (emulated here) through the one chooser', () => {
    process.env.SG_CUDA_MODE = 'emu'
    const be = createBackend('cuda')
    expect(be.name).toBe('cuda-emu')
    expect(Array.from(be.toHost(be.fromHost(Float32Array.from([1, 2, 3]), [3])))).toEqual([1, 2, 3])
    ;(be as CudaBackend).dispose()
  }, 600_000)

  test('a cuda backend that cannot start is one line naming the reason and pointing at --backend native', () => {
    process.env.SG_CUDA_LIB = join(tmpdir(), 'no-such-dir', 'libsgcuda.so')
    let msg = ''
    try {
      createBackend('cuda')
    } catch (err) {
      msg = (err as Error).message
    }
    expect(msg).toMatch(/^the cuda backend is not available \(device\): .+; use --backend native$/)
    expect(msg).toMatch(/use --backend native$/)
    expect(msg).not.toMatch(/\n/)
    expect(msg.match(/use --backend native/g)).toHaveLength(1)
    expect(cudaUnavailableReason()).toMatch(/cuda backend unavailable/)
  })
})

maybe('bench/parity/compare.ts on --backend cuda (emulated)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cuda-parity-'))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  // A reference laid out like make_reference.py's, computed by the ts engine (no PyTorch here): cuda vs ts parity.
  test('the cuda engine matches the ts engine within the PyTorch parity tolerances (logits, loss, every LoRA gradient)', () => {
    const m = createRandomModel({ ...presetConfig('tiny', 97, [96], 95), tieWordEmbeddings: false }, new Rng(1), undefined, { std: 0.2 })
    const rng = new Rng(2)
    m.adapter = createLoraAdapter(m.backend, m.config, { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, rng)
    for (const p of m.adapter.params())
      if (p.name.includes('lora_B')) m.backend.writeRows(p.tensor, 0, m.backend.fromHost(Float32Array.from({ length: p.tensor.shape[0] * p.tensor.shape[1] }, () => rng.normal(0, 0.1)), p.tensor.shape))
    const dir = join(tmp, 'ref')
    mkdirSync(dir, { recursive: true })
    saveModel(m, join(dir, 'model'))
    saveLoraAdapter(join(dir, 'adapter'), m.adapter, m.backend, '')
    const sequences = [[95, 3, 17, 42, 8, 61, 90, 23, 5], [95, 50, 2, 88]]
    const weights = sequences.map((s) => s.slice(1).map((_, t) => 0.5 * (t % 4)))
    const ref = new Map<string, HostTensor>()
    sequences.forEach((s, i) => {
      for (const [useLora, key] of [[false, 'base_logits'], [true, 'lora_logits']] as const) {
        const lg = logits(m, forward(m, [{ tokens: s }], { useLora }).hidden)
        ref.set(`${key}.${i}`, { shape: lg.shape.slice(), data: m.backend.toHost(lg) })
      }
    })
    const learner = new Learner(m)
    const fb = learner.forwardBackward(sequences.map((s, i) => ({ inputTokens: s.slice(0, -1), targetTokens: s.slice(1), mask: weights[i] })), { name: 'cross_entropy' })
    for (const p of m.adapter.params()) ref.set(`grad.${p.name}`, { shape: p.tensor.shape.slice(), data: learner.gradient(p.name)! })
    writeSafetensors(join(dir, 'reference.safetensors'), ref)
    writeFileSync(join(dir, 'inputs.json'), JSON.stringify({ sequences, weights, loss: fb.loss }))
    const r = compareWithReference(dir, createCudaBackend({ mode: 'emu' }))
    expect(r.grads.tensors).toBe(2 * 7 * 2)
    expect(r.pass).toBe(true)
  }, 300_000)
})
