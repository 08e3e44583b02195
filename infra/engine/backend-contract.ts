// infra/engine/backend-contract: the one test suite every engine backend must pass (ts now, cuda later):
// each op's forward against a naive float64 computation written from the definition, and each backward
// against central finite differences of the backend's own forward. Call runBackendContract({ name, make })
// from a *.test.ts file; it uses jest's describe/test/expect. Tolerances are stated per check.
import { Rng } from '../rng'
import type { Backend, Tensor } from './backend'
import { bf16ToF32, f32ToBf16 } from './safetensors'
import { sampleFromRow } from './sample-row'

export interface ContractOptions {
  name: string
  make: () => Backend
  /** Allowed max |backend − naive| for forwards, relative to max(1, |naive|). Default 1e-4 (float32). */
  forwardTol?: number
}

function randn(rng: Rng, n: number, scale = 1): Float32Array {
  const out = new Float32Array(n)
  for (let i = 0; i < n; i++) out[i] = rng.normal(0, scale)
  return out
}

/** Max of |a − b| / max(1, |b|); NaN counts as infinite. */
export function maxRelDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity
  let m = 0
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i]))
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d
  }
  return m
}

/**
 * Central finite differences of L(x) = Σ out(x)·R at up to `samples` coordinates of x, against the analytic
 * gradient. Returns the worst |analytic − fd| / (atol + rtol·|fd|) (≤ 1 passes) and a description of it.
 */
export function finiteDifferenceCheck(
  forward: (x: Float32Array) => Float32Array,
  x0: Float32Array,
  R: Float32Array,
  analytic: Float32Array,
  rng: Rng,
  opts: { eps?: number; atol?: number; rtol?: number; samples?: number } = {},
): { worst: number; detail: string } {
  const eps = opts.eps ?? 1e-2, atol = opts.atol ?? 2e-3, rtol = opts.rtol ?? 2e-2
  const idx = x0.length <= (opts.samples ?? 24) ? [...x0.keys()] : rng.sample([...x0.keys()], opts.samples ?? 24)
  const loss = (x: Float32Array): number => {
    const out = forward(x)
    let s = 0
    for (let i = 0; i < out.length; i++) s += out[i] * R[i]
    return s
  }
  let worst = 0
  let detail = 'ok'
  for (const i of idx) {
    const xp = x0.slice(), xm = x0.slice()
    xp[i] += eps
    xm[i] -= eps
    const fd = (loss(xp) - loss(xm)) / (xp[i] - xm[i])
    const ratio = Math.abs(analytic[i] - fd) / (atol + rtol * Math.abs(fd))
    if (!(ratio <= worst)) {
      worst = Number.isNaN(ratio) ? Infinity : ratio
      detail = `index ${i}: analytic ${analytic[i]} vs finite difference ${fd}`
    }
  }
  return { worst, detail }
}

// ---- naive references (float64, straight from the definitions) ----
function naiveLinear(x: Float32Array, w: Float32Array, N: number, K: number, M: number, b?: Float32Array, A?: Float32Array, B?: Float32Array, r = 0, scale = 0): Float64Array {
  const out = new Float64Array(N * M)
  for (let n = 0; n < N; n++)
    for (let m = 0; m < M; m++) {
      let s = b ? b[m] : 0
      for (let k = 0; k < K; k++) s += x[n * K + k] * w[m * K + k]
      if (A && B)
        for (let j = 0; j < r; j++) {
          let xa = 0
          for (let k = 0; k < K; k++) xa += x[n * K + k] * A[j * K + k]
          s += scale * xa * B[m * r + j]
        }
      out[n * M + m] = s
    }
  return out
}

function naiveRmsnorm(x: Float32Array, w: Float32Array, C: number, eps: number): Float64Array {
  const out = new Float64Array(x.length)
  for (let o = 0; o < x.length; o += C) {
    let ms = 0
    for (let c = 0; c < C; c++) ms += (x[o + c] * x[o + c]) / C
    for (let c = 0; c < C; c++) out[o + c] = (w[c] * x[o + c]) / Math.sqrt(ms + eps)
  }
  return out
}

/** Hugging Face apply_rotary_pos_emb: emb = cat(freqs, freqs); x·cos + rotate_half(x)·sin. */
function naiveRope(x: Float32Array, N: number, H: number, D: number, pos: Int32Array, theta: number): Float64Array {
  const out = new Float64Array(x.length)
  for (let n = 0; n < N; n++) {
    const emb: number[] = []
    for (let i = 0; i < D / 2; i++) emb.push(pos[n] / Math.pow(theta, (2 * i) / D))
    const full = [...emb, ...emb]
    for (let h = 0; h < H; h++) {
      const v = Array.from(x.subarray((n * H + h) * D, (n * H + h + 1) * D))
      const rot = [...v.slice(D / 2).map((z) => -z), ...v.slice(0, D / 2)]
      for (let d = 0; d < D; d++) out[(n * H + h) * D + d] = v[d] * Math.cos(full[d]) + rot[d] * Math.sin(full[d])
    }
  }
  return out
}

/** Expand k/v to H heads (repeat_kv), full score matrix with a causal mask, softmax, weighted sum. */
function naiveAttention(q: Float32Array, k: Float32Array, v: Float32Array, Tq: number, S: number, H: number, KV: number, D: number, qStart: number): Float64Array {
  const out = new Float64Array(Tq * H * D)
  for (let h = 0; h < H; h++) {
    const kvh = Math.floor(h / (H / KV))
    for (let i = 0; i < Tq; i++) {
      const scores: number[] = []
      for (let j = 0; j < S; j++) {
        if (j > qStart + i) {
          scores.push(-Infinity)
          continue
        }
        let s = 0
        for (let d = 0; d < D; d++) s += q[(i * H + h) * D + d] * k[(j * KV + kvh) * D + d]
        scores.push(s / Math.sqrt(D))
      }
      const max = Math.max(...scores)
      const e = scores.map((s) => Math.exp(s - max))
      const z = e.reduce((a, b) => a + b, 0)
      for (let d = 0; d < D; d++) {
        let s = 0
        for (let j = 0; j < S; j++) s += (e[j] / z) * v[(j * KV + kvh) * D + d]
        out[(i * H + h) * D + d] = s
      }
    }
  }
  return out
}

function naiveLogSoftmax(x: Float32Array, V: number): Float64Array {
  const out = new Float64Array(x.length)
  for (let o = 0; o < x.length; o += V) {
    let z = 0
    for (let c = 0; c < V; c++) z += Math.exp(x[o + c])
    for (let c = 0; c < V; c++) out[o + c] = x[o + c] - Math.log(z)
  }
  return out
}

export function runBackendContract(opts: ContractOptions): void {
  const fwdTol = opts.forwardTol ?? 1e-4
  describe(`engine backend contract: ${opts.name}`, () => {
    let be: Backend
    beforeAll(() => {
      be = opts.make()
    })
    const host = (t: Tensor): Float32Array => be.toHost(t)
    const expectClose = (got: ArrayLike<number>, want: ArrayLike<number>, tol = fwdTol): void => {
      const d = maxRelDiff(got, want)
      if (!(d <= tol)) throw new Error(`max relative difference ${d} exceeds ${tol}`)
      expect(d).toBeLessThanOrEqual(tol)
    }
    const expectGrad = (r: { worst: number; detail: string }): void => {
      if (!(r.worst <= 1)) throw new Error(`gradient check failed (worst ratio ${r.worst.toFixed(3)}): ${r.detail}`)
      expect(r.worst).toBeLessThanOrEqual(1)
    }

    test('memory ops: fromHost/toHost, reshape, sliceRows, concatRows, writeRows, clone', () => {
      const rng = new Rng(1)
      const a = randn(rng, 12), b = randn(rng, 8)
      const ta = be.fromHost(a, [3, 4]), tb = be.fromHost(b, [2, 4])
      expect(Array.from(host(ta))).toEqual(Array.from(a))
      expect(be.reshape(ta, [2, 6]).shape).toEqual([2, 6])
      expect(Array.from(host(be.sliceRows(ta, 1, 3)))).toEqual(Array.from(a.subarray(4, 12)))
      expect(Array.from(host(be.concatRows([ta, tb])))).toEqual([...a, ...b])
      const dst = be.zeros([6, 4])
      be.writeRows(dst, 3, ta)
      expect(Array.from(host(dst))).toEqual([...new Array(12).fill(0), ...a])
      const c = be.clone(ta)
      be.scaleInPlace(c, 2)
      expect(Array.from(host(ta))).toEqual(Array.from(a))
      expect(be.sumSquares(tb)).toBeCloseTo(b.reduce((s, x) => s + x * x, 0), 4)
      const s = be.add(ta, ta)
      be.addInPlace(s, ta, -1)
      expectClose(host(s), a)
      be.fillZero(s)
      expect(be.sumSquares(s)).toBe(0)
    })

    test('linear (bias, LoRA) forward matches naive; merged LoRA weight gives the same output', () => {
      const rng = new Rng(2)
      const N = 5, K = 7, M = 6, r = 3, scale = 1.7
      const x = randn(rng, N * K), w = randn(rng, M * K, 0.5), b = randn(rng, M), A = randn(rng, r * K, 0.5), B = randn(rng, M * r, 0.5)
      const lora = { a: be.fromHost(A, [r, K]), b: be.fromHost(B, [M, r]), scale }
      const y = be.linear(be.fromHost(x, [N, K]), be.fromHost(w, [M, K]), be.fromHost(b, [M]), lora)
      expect(y.shape).toEqual([N, M])
      expectClose(host(y), naiveLinear(x, w, N, K, M, b, A, B, r, scale))
      expectClose(host(be.linear(be.fromHost(x, [N, K]), be.fromHost(w, [M, K]))), naiveLinear(x, w, N, K, M))
      const merged = be.mergeLora(be.fromHost(w, [M, K]), lora)
      expectClose(host(be.linear(be.fromHost(x, [N, K]), merged, be.fromHost(b, [M]))), host(y))
    })

    test('linear backward (dx, dA, dB) matches finite differences', () => {
      const rng = new Rng(3)
      const N = 4, K = 5, M = 6, r = 2, scale = 2
      const x = randn(rng, N * K), w = randn(rng, M * K, 0.5), A = randn(rng, r * K, 0.5), B = randn(rng, M * r, 0.5), R = randn(rng, N * M)
      const W = be.fromHost(w, [M, K])
      const fwd = (xx: Float32Array, AA: Float32Array, BB: Float32Array): Float32Array =>
        host(be.linear(be.fromHost(xx, [N, K]), W, undefined, { a: be.fromHost(AA, [r, K]), b: be.fromHost(BB, [M, r]), scale }))
      const g = be.linearBackward(be.fromHost(x, [N, K]), W, be.fromHost(R, [N, M]), { a: be.fromHost(A, [r, K]), b: be.fromHost(B, [M, r]), scale })
      expectGrad(finiteDifferenceCheck((xx) => fwd(xx, A, B), x, R, host(g.dx), rng))
      expectGrad(finiteDifferenceCheck((AA) => fwd(x, AA, B), A, R, host(g.dA!), rng))
      expectGrad(finiteDifferenceCheck((BB) => fwd(x, A, BB), B, R, host(g.dB!), rng))
      const plain = be.linearBackward(be.fromHost(x, [N, K]), W, be.fromHost(R, [N, M]))
      expect(plain.dA).toBeUndefined()
      expectGrad(finiteDifferenceCheck((xx) => host(be.linear(be.fromHost(xx, [N, K]), W)), x, R, host(plain.dx), rng))
    })

    test('linear weight gradient (dyᵀ x) matches finite differences; accumulates into a given tensor', () => {
      const rng = new Rng(31)
      const N = 5, K = 6, M = 4
      const x = randn(rng, N * K), w = randn(rng, M * K, 0.5), R = randn(rng, N * M)
      const X = be.fromHost(x, [N, K])
      const dw = be.linearWeightGrad(X, be.fromHost(R, [N, M]))
      expect(dw.shape).toEqual([M, K])
      expectGrad(finiteDifferenceCheck((ww) => host(be.linear(X, be.fromHost(ww, [M, K]))), w, R, host(dw), rng, { samples: M * K }))
      const acc = be.fromHost(new Float32Array(M * K).fill(0.5), [M, K])
      const back = be.linearWeightGrad(X, be.fromHost(R, [N, M]), acc)
      expect(back).toBe(acc)
      expectClose(host(acc), Array.from(host(dw), (v) => v + 0.5))
    })

    test('embedding forward gathers rows; backward scatter-adds (repeated ids)', () => {
      const rng = new Rng(4)
      const V = 7, C = 3
      const tab = randn(rng, V * C), ids = Int32Array.from([2, 0, 2, 6]), R = randn(rng, ids.length * C)
      const y = host(be.embedding(be.fromHost(tab, [V, C]), ids))
      expectClose(y, Array.from(ids).flatMap((id) => Array.from(tab.subarray(id * C, id * C + C))))
      const g = host(be.embeddingBackward(be.fromHost(R, [ids.length, C]), ids, V))
      expectGrad(finiteDifferenceCheck((t) => host(be.embedding(be.fromHost(t, [V, C]), ids)), tab, R, g, rng, { samples: V * C }))
      expect(() => be.embedding(be.fromHost(tab, [V, C]), Int32Array.from([V]))).toThrow(/outside the vocabulary/)
    })

    test('rmsnorm forward matches naive; backward (dx, dw) matches finite differences', () => {
      const rng = new Rng(5)
      const N = 3, C = 8, eps = 1e-6
      const x = randn(rng, N * C), w = randn(rng, C, 0.5).map((v) => 1 + v), R = randn(rng, N * C)
      expectClose(host(be.rmsnorm(be.fromHost(x, [N, C]), be.fromHost(w, [C]), eps)), naiveRmsnorm(x, w, C, eps))
      const g = be.rmsnormBackward(be.fromHost(x, [N, C]), be.fromHost(w, [C]), eps, be.fromHost(R, [N, C]))
      expectGrad(finiteDifferenceCheck((xx) => host(be.rmsnorm(be.fromHost(xx, [N, C]), be.fromHost(w, [C]), eps)), x, R, host(g.dx), rng))
      expectGrad(finiteDifferenceCheck((ww) => host(be.rmsnorm(be.fromHost(x, [N, C]), be.fromHost(ww, [C]), eps)), w, R, host(g.dw), rng))
    })

    test('rope forward matches the Hugging Face rotate-half formula; backward matches finite differences', () => {
      const rng = new Rng(6)
      const N = 4, H = 2, D = 8, theta = 10000
      const pos = Int32Array.from([0, 3, 17, 1000])
      const x = randn(rng, N * H * D), R = randn(rng, N * H * D)
      expectClose(host(be.rope(be.fromHost(x, [N, H, D]), pos, theta)), naiveRope(x, N, H, D, pos, theta))
      const g = host(be.ropeBackward(be.fromHost(R, [N, H, D]), pos, theta))
      expectGrad(finiteDifferenceCheck((xx) => host(be.rope(be.fromHost(xx, [N, H, D]), pos, theta)), x, R, g, rng))
    })

    test('causal GQA attention forward matches naive (with and without a cached prefix)', () => {
      const rng = new Rng(7)
      const H = 4, KV = 2, D = 4
      for (const [Tq, S, qStart] of [[5, 5, 0], [2, 6, 4], [1, 6, 5]]) {
        const q = randn(rng, Tq * H * D), k = randn(rng, S * KV * D), v = randn(rng, S * KV * D)
        const y = be.attention(be.fromHost(q, [Tq, H, D]), be.fromHost(k, [S, KV, D]), be.fromHost(v, [S, KV, D]), qStart)
        expect(y.shape).toEqual([Tq, H, D])
        expectClose(host(y), naiveAttention(q, k, v, Tq, S, H, KV, D, qStart))
      }
    })

    test('attention backward (dq, dk, dv) matches finite differences', () => {
      const rng = new Rng(8)
      const H = 4, KV = 2, D = 4
      for (const [Tq, S, qStart] of [[4, 4, 0], [2, 5, 3]]) {
        const q = randn(rng, Tq * H * D), k = randn(rng, S * KV * D), v = randn(rng, S * KV * D), R = randn(rng, Tq * H * D)
        const f = (qq: Float32Array, kk: Float32Array, vv: Float32Array): Float32Array =>
          host(be.attention(be.fromHost(qq, [Tq, H, D]), be.fromHost(kk, [S, KV, D]), be.fromHost(vv, [S, KV, D]), qStart))
        const g = be.attentionBackward(be.fromHost(q, [Tq, H, D]), be.fromHost(k, [S, KV, D]), be.fromHost(v, [S, KV, D]), qStart, be.fromHost(R, [Tq, H, D]))
        expectGrad(finiteDifferenceCheck((qq) => f(qq, k, v), q, R, host(g.dq), rng))
        expectGrad(finiteDifferenceCheck((kk) => f(q, kk, v), k, R, host(g.dk), rng))
        expectGrad(finiteDifferenceCheck((vv) => f(q, k, vv), v, R, host(g.dv), rng))
      }
    })

    test('swiglu forward matches naive; backward matches finite differences', () => {
      const rng = new Rng(9)
      const n = 12
      const g0 = randn(rng, n, 2), u0 = randn(rng, n), R = randn(rng, n)
      expectClose(host(be.swiglu(be.fromHost(g0, [3, 4]), be.fromHost(u0, [3, 4]))), Array.from(g0, (g, i) => (g / (1 + Math.exp(-g))) * u0[i]))
      const gr = be.swigluBackward(be.fromHost(g0, [3, 4]), be.fromHost(u0, [3, 4]), be.fromHost(R, [3, 4]))
      expectGrad(finiteDifferenceCheck((gg) => host(be.swiglu(be.fromHost(gg, [3, 4]), be.fromHost(u0, [3, 4]))), g0, R, host(gr.dgate), rng))
      expectGrad(finiteDifferenceCheck((uu) => host(be.swiglu(be.fromHost(g0, [3, 4]), be.fromHost(uu, [3, 4]))), u0, R, host(gr.dup), rng))
    })

    test('log-softmax and target log-probs match naive; backward matches finite differences', () => {
      const rng = new Rng(10)
      const N = 3, V = 9
      const x = randn(rng, N * V, 3), targets = Int32Array.from([0, 8, 4]), R = randn(rng, N)
      const ls = naiveLogSoftmax(x, V)
      expectClose(host(be.logSoftmax(be.fromHost(x, [N, V]))), ls)
      expectClose(host(be.targetLogprobs(be.fromHost(x, [N, V]), targets)), Array.from(targets, (t, n) => ls[n * V + t]))
      const g = host(be.targetLogprobsBackward(be.fromHost(x, [N, V]), targets, be.fromHost(R, [N])))
      expectGrad(finiteDifferenceCheck((xx) => host(be.targetLogprobs(be.fromHost(xx, [N, V]), targets)), x, R, g, rng, { samples: N * V }))
    })

    test('bf16 weights: fromHost rounds to bfloat16; linear, embedding and the head use the rounded values', () => {
      const rng = new Rng(12)
      const N = 5, K = 9, M = 7
      const x = randn(rng, N * K), w = randn(rng, M * K, 0.5)
      const wr = w.map((v) => bf16ToF32(f32ToBf16(v)))
      const wb = be.fromHost(w, [M, K], 'bf16')
      expect(Array.from(host(wb))).toEqual(Array.from(wr))
      expectClose(host(be.linear(be.fromHost(x, [N, K]), wb)), naiveLinear(x, wr, N, K, M))
      const dy = randn(rng, N * M)
      expectClose(host(be.linearBackward(be.fromHost(x, [N, K]), wb, be.fromHost(dy, [N, M])).dx),
        host(be.linearBackward(be.fromHost(x, [N, K]), be.fromHost(wr, [M, K]), be.fromHost(dy, [N, M])).dx))
      const ids = Int32Array.from([6, 0, 3])
      expectClose(host(be.embedding(wb, ids)), Array.from(ids).flatMap((id) => Array.from(wr.subarray(id * K, id * K + K))))
      const t = Int32Array.from([1, 6, 0, 2, 5])
      expectClose(host(be.headLogprobs(be.fromHost(x, [N, K]), wb, t)), host(be.headLogprobs(be.fromHost(x, [N, K]), be.fromHost(wr, [M, K]), t)))
    })

    test('varlen attention over a packed batch = attention per sequence (forward and backward)', () => {
      const rng = new Rng(13)
      const H = 4, KV = 2, D = 8
      const lens = [5, 1, 9, 3]
      const N = lens.reduce((a, b) => a + b, 0)
      const cu = Int32Array.from([0, ...lens.map((_, i) => lens.slice(0, i + 1).reduce((a, b) => a + b, 0))])
      const q = randn(rng, N * H * D), k = randn(rng, N * KV * D), v = randn(rng, N * KV * D), dy = randn(rng, N * H * D)
      const Q = be.fromHost(q, [N, H, D]), Kt = be.fromHost(k, [N, KV, D]), Vt = be.fromHost(v, [N, KV, D]), DY = be.fromHost(dy, [N, H, D])
      const packed = host(be.attentionVarlen(Q, Kt, Vt, cu))
      const back = be.attentionVarlenBackward(Q, Kt, Vt, cu, DY)
      const want: number[] = [], wq: number[] = [], wk: number[] = [], wv: number[] = []
      for (let b = 0; b < lens.length; b++) {
        const sl = (t: Tensor): Tensor => be.sliceRows(t, cu[b], cu[b + 1])
        want.push(...host(be.attention(sl(Q), sl(Kt), sl(Vt), 0)))
        const r = be.attentionBackward(sl(Q), sl(Kt), sl(Vt), 0, sl(DY))
        wq.push(...host(r.dq))
        wk.push(...host(r.dk))
        wv.push(...host(r.dv))
      }
      expectClose(packed, want, 1e-5)
      expectClose(host(back.dq), wq, 1e-5)
      expectClose(host(back.dk), wk, 1e-5)
      expectClose(host(back.dv), wv, 1e-5)
      expect(() => be.attentionVarlen(Q, Kt, Vt, Int32Array.from([0, 3, N - 1]))).toThrow(/cumulative offsets/)
    })

    test('fused head = the chunked reference (logits, then target log-probs); its backward likewise', () => {
      const rng = new Rng(14)
      // More rows than one row chunk (256) and more vocabulary than one vocabulary tile (4096).
      const N = 300, C = 8, V = 4500
      const h = randn(rng, N * C), w = randn(rng, V * C, 0.5), g = randn(rng, N)
      g.fill(0, 0, 40)
      const t = Int32Array.from({ length: N }, () => rng.int(0, V - 1))
      const Hh = be.fromHost(h, [N, C]), W = be.fromHost(w, [V, C])
      const lg = be.linear(Hh, W)
      expectClose(host(be.headLogprobs(Hh, W, t)), host(be.targetLogprobs(lg, t)))
      const ref = be.linearBackward(Hh, W, be.targetLogprobsBackward(lg, t, be.fromHost(g, [N]))).dx
      expectClose(host(be.headLogprobsBackward(Hh, W, t, be.fromHost(g, [N]))), host(ref))
      expect(() => be.headLogprobs(Hh, W, Int32Array.from({ length: N }, () => V))).toThrow(/outside the vocabulary/)
    })

    test('sampleRows = the host sampler (sample-row.ts) for the same uniforms: same ids, same log-probs', () => {
      const rng = new Rng(15)
      const R = 6, V = 50
      const x = randn(rng, R * V, 2)
      x[3 * V + 7] = x[3 * V + 8] // a tie: lower id first
      const L = be.fromHost(x, [R, V])
      for (const p of [
        { temperature: 0, topK: 0, topP: 1 },
        { temperature: 1, topK: 0, topP: 1 },
        { temperature: 0.7, topK: 0, topP: 1 },
        { temperature: 1, topK: 5, topP: 1 },
        { temperature: 1.3, topK: 0, topP: 0.8 },
        { temperature: 0.9, topK: 10, topP: 0.5 },
      ]) {
        const u = Float64Array.from({ length: R }, () => rng.next())
        const got = be.sampleRows(L, p, u)
        for (let r = 0; r < R; r++) {
          const want = sampleFromRow(x.subarray(r * V, (r + 1) * V), p, u[r])
          expect(got.ids[r]).toBe(want.id)
          expect(Math.abs(got.logprobs[r] - want.logprob)).toBeLessThanOrEqual(1e-6)
          expect(Math.abs(got.modelLogprobs[r] - want.modelLogprob)).toBeLessThanOrEqual(1e-6)
        }
      }
    })

    test('release frees a tensor at once (backends with their own memory) and views survive their use', () => {
      const t = be.fromHost(new Float32Array(1 << 16).fill(1), [256, 256])
      const before = be.memoryStats().liveBytes
      expect(be.sumSquares(be.sliceRows(t, 0, 2))).toBe(512)
      be.release(t)
      const after = be.memoryStats().liveBytes
      if (before > 0) expect(before - after).toBeGreaterThanOrEqual(1 << 18)
      else expect(after).toBe(0)
    })

    test('adamwStep matches the AdamW update written out', () => {
      const rng = new Rng(11)
      const p0 = randn(rng, 6), g0 = randn(rng, 6), m0 = randn(rng, 6, 0.1), v0 = randn(rng, 6, 0.1).map(Math.abs)
      const h = { lr: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, step: 3 }
      const p = be.fromHost(p0, [6]), m = be.fromHost(m0, [6]), v = be.fromHost(v0, [6])
      be.adamwStep(p, be.fromHost(g0, [6]), m, v, h)
      const want = Array.from(p0, (pi, i) => {
        const mi = 0.9 * m0[i] + 0.1 * g0[i]
        const vi = 0.95 * v0[i] + 0.05 * g0[i] * g0[i]
        return pi - 0.01 * 0.1 * pi - (0.01 * (mi / (1 - 0.9 ** 3))) / (Math.sqrt(vi / (1 - 0.95 ** 3)) + 1e-8)
      })
      expectClose(host(p), want, 1e-5)
      expectClose(host(m), Array.from(m0, (mi, i) => 0.9 * mi + 0.1 * g0[i]), 1e-6)
    })
  })
}
