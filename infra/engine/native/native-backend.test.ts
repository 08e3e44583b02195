// infra/engine/native/native-backend.test: the native backend runs the shared backend and model contracts unchanged,
// plus what only it has: the portable gemm fallback against the SIMD kernel, thread-count independence (gemm, the
// few-row gemm, a decode step split over threads), and "same seed, same bits" for two identical training steps. When the addon was not built these report themselves
// skipped, with the reason.
import { Rng } from '../../rng'
import type { Backend } from '../backend'
import { runBackendContract } from '../backend-contract'
import { presetConfig } from '../config'
import { Learner } from '../learner'
import { LORA_TARGETS } from '../lora'
import { createKvCache, createRandomModel, decoderStack } from '../model'
import { runModelContract } from '../model-contract'
import { createTsBackend } from '../ts-backend'
import { loadNativeAddon } from './addon'
import { createNativeBackend, sizeClass } from './native-backend'

const { addon, reason } = loadNativeAddon()

if (!addon) {
  test.skip(`native backend contracts (skipped: ${reason})`, () => {})
} else {
  runBackendContract({ name: 'native', make: createNativeBackend })
  runModelContract({ name: 'native', make: createNativeBackend })

  describe('native kernels', () => {
    function randomGemm(seed: number, M: number, N: number, K: number) {
      const rng = new Rng(seed)
      const A = addon!.alloc(M * K, false) as Float32Array, B = addon!.alloc(N * K, false) as Float32Array
      for (let i = 0; i < A.length; i++) A[i] = rng.normal(0, 1)
      for (let i = 0; i < B.length; i++) B[i] = rng.normal(0, 1)
      return { A, B }
    }

    test('every gemm kernel (portable, avx2, avx512 where present) agrees with a float64 loop on odd shapes', () => {
      const M = 29, N = 45, K = 300
      const { A, B } = randomGemm(1, M, N, K)
      const want = new Float64Array(M * N)
      for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) want[i * N + j] += A[i * K + k] * B[j * K + k]
      const best = addon!.gemmKernel()
      try {
        for (const kern of ['portable', 'avx2', 'avx512']) {
          const used = addon!.gemmKernel(kern)
          const C = new Float32Array(M * N)
          addon!.gemm(M, N, K, 1, A, K, 1, B, 1, K, 0, C, N)
          let worst = 0
          for (let i = 0; i < C.length; i++) worst = Math.max(worst, Math.abs(C[i] - want[i]) / Math.max(1, Math.abs(want[i])))
          expect({ used, worst: worst < 1e-4 }).toEqual({ used, worst: true })
        }
      } finally {
        addon!.gemmKernel(best)
      }
    })

    test('results do not depend on the thread count (fixed partitioning and reduction order)', () => {
      const M = 100, N = 70, K = 513
      const { A, B } = randomGemm(2, M, N, K)
      const threads = addon!.threads()
      const run = (t: number): Float32Array => {
        addon!.threads(t)
        const C = new Float32Array(M * N)
        addon!.gemm(M, N, K, 1, A, K, 1, B, 1, K, 0, C, N)
        return C
      }
      try {
        const one = run(1), three = run(3)
        expect(Buffer.from(three.buffer).equals(Buffer.from(one.buffer))).toBe(true)
      } finally {
        addon!.threads(threads)
      }
    })

    test('the few-row (decode) gemm: same bits on 1 and 3 threads when the columns do not split evenly into tiles', () => {
      const M = 7, N = 1030, K = 300 // 2·M·N·K is above the parallel threshold, N mod 4 ≠ 0
      const { A, B } = randomGemm(7, M, N, K)
      const threads = addon!.threads()
      const run = (t: number): Float32Array => {
        addon!.threads(t)
        const C = new Float32Array(M * N)
        addon!.gemm(M, N, K, 1, A, K, 1, B, 1, K, 0, C, N)
        return C
      }
      try {
        expect(Buffer.from(run(3).buffer).equals(Buffer.from(run(1).buffer))).toBe(true)
      } finally {
        addon!.threads(threads)
      }
    })

    test('a decode step (one token per sequence) gives the same bits on 1 and 2 threads and as its rows in chunks of 4', () => {
      const be = createNativeBackend()
      const m = createRandomModel(presetConfig('tiny', 64, [1]), new Rng(6), be, { std: 0.3 })
      const stack = decoderStack(m)
      const rng = new Rng(8)
      const R = 11 // chunks of 4, 4, 3 rows
      const caches = Array.from({ length: R }, () => createKvCache(m, 16))
      const lens = Array.from({ length: R }, (_, i) => 2 + (i % 5))
      const prompt = Int32Array.from({ length: lens.reduce((a, x) => a + x, 0) }, () => rng.int(0, 63))
      const cuP = new Int32Array(R + 1)
      lens.forEach((n, i) => (cuP[i + 1] = cuP[i] + n))
      be.release(be.forwardCached(stack, prompt, cuP, caches, new Int32Array(R)))
      const ids = Int32Array.from({ length: R }, () => rng.int(0, 63)), starts = Int32Array.from(lens)
      const step = (rows: [number, number]): Float32Array => {
        const [a, b] = rows
        const out = be.forwardCached(stack, ids.subarray(a, b), Int32Array.from({ length: b - a + 1 }, (_, i) => i), caches.slice(a, b), starts.subarray(a, b))
        const host = be.toHost(out)
        be.release(out)
        return host
      }
      const threads = addon!.threads()
      try {
        addon!.threads(1)
        const one = step([0, R])
        addon!.threads(2)
        const two = step([0, R])
        const chunks = [step([0, 4]), step([4, 8]), step([8, R])]
        const joined = new Float32Array(one.length)
        let o = 0
        for (const c of chunks) {
          joined.set(c, o)
          o += c.length
        }
        expect(one.some((x) => x !== 0)).toBe(true)
        expect(Buffer.from(two.buffer).equals(Buffer.from(one.buffer))).toBe(true)
        expect(Buffer.from(joined.buffer).equals(Buffer.from(one.buffer))).toBe(true)
      } finally {
        addon!.threads(threads)
      }
    })

    test('a decode step of ≤ 8 rows split by output columns: the same bits on 1, 2 and 3 threads, and as the row split (forwardCached and decodeSample)', () => {
      const be = createNativeBackend()
      // tiny: 64 / 32 / 128-column linears (4 / 2 / 8 panels of 16) and a 1000-column head (a partial last panel), so
      // the 2- and 3-thread splits fall inside q, k, v, gate/up and the head.
      const m = createRandomModel(presetConfig('tiny', 1000, [1]), new Rng(16), be, { std: 0.3 })
      const stack = decoderStack(m)
      const head = m.weights.lmHead
      const rng = new Rng(18)
      const threads = addon!.threads()
      try {
        for (const R of [8, 5]) {
          const lens = Array.from({ length: R }, (_, i) => 3 + ((i * 7) % 11))
          const prompt = Int32Array.from({ length: lens.reduce((a, x) => a + x, 0) }, () => rng.int(0, 999))
          const cuP = new Int32Array(R + 1)
          lens.forEach((n, i) => (cuP[i + 1] = cuP[i] + n))
          const ids = Int32Array.from({ length: R }, () => rng.int(0, 999)), starts = Int32Array.from(lens)
          const uniforms = Float64Array.from({ length: R }, () => rng.next())
          const params = { temperature: 0.9, topK: 0, topP: 1 }
          /** Fresh caches holding the prompt, then one decode step under a thread setting: hidden rows, the draw, and
           *  the keys the step appended (rows `starts` of every layer's cache). */
          const run = (th: number, decode: number, rows = false): Buffer[] => {
            addon!.threads(th)
            addon!.decodeThreads(decode, rows)
            const caches = Array.from({ length: R }, () => createKvCache(m, 32))
            be.release(be.forwardCached(stack, prompt, cuP, caches, new Int32Array(R)))
            const out = be.forwardCached(stack, ids, Int32Array.from({ length: R + 1 }, (_, i) => i), caches, starts)
            const hidden = Buffer.from(be.toHost(out).buffer)
            be.release(out)
            const d = be.decodeSample(stack, head, ids, caches, Int32Array.from(lens, (x) => x + 1), params, uniforms)
            const W = m.config.numKvHeads * m.config.headDim
            const keys = caches.map((c, b) => Buffer.from(be.toHost(c.k[1]).slice((lens[b] + 1) * W, (lens[b] + 2) * W).buffer))
            for (const c of caches) for (const t of [...c.k, ...c.v]) be.release(t)
            return [hidden, Buffer.from(d.ids.buffer), Buffer.from(d.logprobs.buffer), Buffer.from(d.modelLogprobs.buffer), ...keys]
          }
          const one = run(1, 1)
          expect(one[0].some((x) => x !== 0)).toBe(true)
          for (const [th, decode, rows] of [[2, 2, false], [3, 3, false], [2, 0, false], [2, 2, true]] as const) {
            const got = run(th, decode, rows)
            expect({ R, th, decode, rows, same: got.every((b, i) => b.equals(one[i])) }).toEqual({ R, th, decode, rows, same: true })
          }
        }
      } finally {
        addon!.threads(threads)
        addon!.decodeThreads(0)
      }
    })

    test('attention over many keys (the 16-key score blocks of the AVX-512 row) = the ts reference', () => {
      const nb = createNativeBackend(), tb = createTsBackend()
      const rng = new Rng(21)
      for (const D of [16, 32, 64]) {
        const T = 5, S = 53, H = 4, KV = 2
        const q = Float32Array.from({ length: T * H * D }, () => rng.normal(0, 1))
        const k = Float32Array.from({ length: S * KV * D }, () => rng.normal(0, 1))
        const v = Float32Array.from({ length: S * KV * D }, () => rng.normal(0, 1))
        const run = (be: Backend): Float32Array => be.toHost(be.attention(be.fromHost(q, [T, H, D]), be.fromHost(k, [S, KV, D]), be.fromHost(v, [S, KV, D]), S - T))
        const got = run(nb), want = run(tb)
        let worst = 0
        for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]))
        expect({ D, close: worst < 1e-5 }).toEqual({ D, close: true })
      }
    })

    test('same seed, same bits: two identical training steps give identical adapters', () => {
      const step = (): Float32Array[] => {
        const be = createNativeBackend()
        const m = createRandomModel(presetConfig('tiny', 64, [63]), new Rng(3), be, { std: 0.3 })
        const learner = new Learner(m, { lora: { rank: 4, alpha: 8, targets: [...LORA_TARGETS] }, seed: 5 })
        const rng = new Rng(4)
        const datums = [12, 7, 20].map((T) => {
          const toks = Array.from({ length: T + 1 }, () => rng.int(0, 62))
          return { inputTokens: toks.slice(0, T), targetTokens: toks.slice(1), advantages: toks.slice(1).map((_, i) => (i % 3) - 1), oldLogprobs: toks.slice(1).map(() => -4) }
        })
        for (let s = 0; s < 2; s++) {
          learner.forwardBackward(datums, { name: 'ppo' })
          learner.optimStep({ lr: 1e-2 })
        }
        return m.adapter!.params().map((p) => be.toHost(p.tensor))
      }
      const a = step(), b = step()
      expect(a.length).toBeGreaterThan(0)
      a.forEach((x, i) => expect(Buffer.from(x.buffer).equals(Buffer.from(b[i].buffer))).toBe(true))
      // The step changed the adapter (lora_B starts at 0), so equality is not vacuous.
      expect(a.some((x) => x.some((v) => v !== 0))).toBe(true)
    })

    test('forwardCached: few-row gemm = float64 loop; a released stack tensor is a clear error, not a crash', () => {
      const { A, B } = randomGemm(3, 8, 37, 200)
      const C = new Float32Array(8 * 37)
      addon!.gemm(8, 37, 200, 1, A, 200, 1, B, 1, 200, 0, C, 37)
      for (let i = 0; i < 8; i++)
        for (let j = 0; j < 37; j++) {
          let s = 0
          for (let k = 0; k < 200; k++) s += A[i * 200 + k] * B[j * 200 + k]
          expect(Math.abs(C[i * 37 + j] - s)).toBeLessThan(1e-4 * Math.max(1, Math.abs(s)))
        }
      const be = createNativeBackend()
      const m = createRandomModel(presetConfig('tiny', 64, [1]), new Rng(5), be)
      const stack = decoderStack(m)
      const cache = createKvCache(m, 4)
      expect(be.forwardCached(stack, Int32Array.of(3, 4), Int32Array.of(0, 2), [cache], Int32Array.of(0)).shape).toEqual([1, m.config.hiddenSize])
      be.release(m.weights.layers[1].up)
      expect(() => be.forwardCached(stack, Int32Array.of(5), Int32Array.of(0, 1), [cache], Int32Array.of(2))).toThrow(/released/)
    })
  })
}

// Arena size classes: a freed block is reused by any tensor of its class, so shapes that change on every call (GRPO
// turns of new lengths) do not grow memory for ever (bench/perf/native-cache-growth.ts).
test('arena size classes: never smaller than asked, at most 19% (+64 B) larger, few classes over a range', () => {
  expect(sizeClass(1)).toBe(64)
  expect(sizeClass(65536)).toBe(65536)
  const classes = new Set<number>()
  for (let bytes = 1000; bytes <= 8_000_000; bytes += 997) {
    const s = sizeClass(bytes)
    expect(s).toBeGreaterThanOrEqual(bytes)
    expect(s % 64).toBe(0)
    expect(s).toBeLessThanOrEqual(Math.max(65536, bytes * 1.19 + 64))
    classes.add(s)
  }
  // 64 KiB .. 8 MB spans 7 octaves: 4 classes each (plus the exact sizes below 64 KiB)
  expect([...classes].filter((s) => s > 65536).length).toBeLessThanOrEqual(4 * 7 + 1)
})
