// infra/engine/ts-backend: the reference backend — plain TypeScript loops over Float32Array (accumulating in
// float64 locals). Readable first; matmuls are blocked so the CPU demos are not needlessly slow. It does not
// know about models; shapes as in backend.ts.
import { EngineError } from '../errors'
import {
  type AdamWHyper, type Backend, type CacheTensors, type DecoderStack, type LoraOperand, type MemoryStats, type RowSamplingParams, type SampledRows, type Tensor,
  type WeightDtype, numel,
} from './backend'
import { bf16ToF32, f32ToBf16 } from './safetensors'
import { decodeSampleReference, forwardCachedReference } from './forward-cached'
import { sampleFromRow } from './sample-row'

/** bf16 tensors hold their bf16-rounded values widened to float32 (the reference of what bf16 storage computes). */
export class TsTensor implements Tensor {
  constructor(
    readonly shape: readonly number[],
    readonly data: Float32Array,
    readonly dtype: WeightDtype = 'f32',
  ) {}
}

/** Rows per chunk of the reference fused head. */
export const HEAD_CHUNK_ROWS = 256

function T(t: Tensor): TsTensor {
  if (!(t instanceof TsTensor)) throw new EngineError('engine.backend', 'tensor does not belong to the ts backend')
  return t
}

function cols(t: Tensor): number {
  return t.shape.length === 0 ? 1 : numel(t.shape) / t.shape[0]
}

function rows(t: Tensor): number {
  return t.shape[0]
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new EngineError('engine.shape', `shape mismatch: ${what}`)
}

// ---- matmul kernels (row-major) ----
const ROW_BLOCK = 4
const COL_BLOCK = 64

/** out[n,m] = Σ_k x[n,k] w[m,k]  (x [N,K], w [M,K]); both operands read along contiguous rows.
 *  Register-blocked 4 rows × 4 columns (16 sums per 8 loads), column blocks of 64 rows of w stay in cache. */
export function matmulNT(x: Float32Array, w: Float32Array, N: number, K: number, M: number, out = new Float32Array(N * M)): Float32Array {
  for (let m0 = 0; m0 < M; m0 += COL_BLOCK) {
    const m1 = Math.min(M, m0 + COL_BLOCK)
    let n = 0
    for (; n + ROW_BLOCK <= N; n += ROW_BLOCK) {
      const x0 = n * K, x1 = x0 + K, x2 = x1 + K, x3 = x2 + K
      let m = m0
      for (; m + 4 <= m1; m += 4) {
        const w0 = m * K, w1 = w0 + K, w2 = w1 + K, w3 = w2 + K
        let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0
        let s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0
        for (let k = 0; k < K; k++) {
          const a0 = x[x0 + k], a1 = x[x1 + k], a2 = x[x2 + k], a3 = x[x3 + k]
          const b0 = w[w0 + k], b1 = w[w1 + k], b2 = w[w2 + k], b3 = w[w3 + k]
          s00 += a0 * b0; s01 += a0 * b1; s02 += a0 * b2; s03 += a0 * b3
          s10 += a1 * b0; s11 += a1 * b1; s12 += a1 * b2; s13 += a1 * b3
          s20 += a2 * b0; s21 += a2 * b1; s22 += a2 * b2; s23 += a2 * b3
          s30 += a3 * b0; s31 += a3 * b1; s32 += a3 * b2; s33 += a3 * b3
        }
        const o0 = n * M + m, o1 = o0 + M, o2 = o1 + M, o3 = o2 + M
        out[o0] = s00; out[o0 + 1] = s01; out[o0 + 2] = s02; out[o0 + 3] = s03
        out[o1] = s10; out[o1 + 1] = s11; out[o1 + 2] = s12; out[o1 + 3] = s13
        out[o2] = s20; out[o2 + 1] = s21; out[o2 + 2] = s22; out[o2 + 3] = s23
        out[o3] = s30; out[o3 + 1] = s31; out[o3 + 2] = s32; out[o3 + 3] = s33
      }
      for (; m < m1; m++) {
        const wo = m * K
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0
        for (let k = 0; k < K; k++) {
          const wk = w[wo + k]
          s0 += x[x0 + k] * wk
          s1 += x[x1 + k] * wk
          s2 += x[x2 + k] * wk
          s3 += x[x3 + k] * wk
        }
        out[n * M + m] = s0
        out[(n + 1) * M + m] = s1
        out[(n + 2) * M + m] = s2
        out[(n + 3) * M + m] = s3
      }
    }
    for (; n < N; n++) {
      const xo = n * K
      for (let m = m0; m < m1; m++) {
        const wo = m * K
        let s = 0
        for (let k = 0; k < K; k++) s += x[xo + k] * w[wo + k]
        out[n * M + m] = s
      }
    }
  }
  return out
}

/** out[n,k] += Σ_m a[n,m] w[m,k]  (a [N,M], w [M,K]) as row axpys, 4 rows × 4 rows of w per pass over k. */
export function matmulNNAcc(a: Float32Array, w: Float32Array, N: number, M: number, K: number, out: Float32Array): Float32Array {
  for (let m0 = 0; m0 < M; m0 += COL_BLOCK) {
    const m1 = Math.min(M, m0 + COL_BLOCK)
    let n = 0
    for (; n + ROW_BLOCK <= N; n += ROW_BLOCK) {
      const o0 = n * K, o1 = o0 + K, o2 = o1 + K, o3 = o2 + K
      const r0 = n * M, r1 = r0 + M, r2 = r1 + M, r3 = r2 + M
      let m = m0
      for (; m + 4 <= m1; m += 4) {
        const w0 = m * K, w1 = w0 + K, w2 = w1 + K, w3 = w2 + K
        const a00 = a[r0 + m], a01 = a[r0 + m + 1], a02 = a[r0 + m + 2], a03 = a[r0 + m + 3]
        const a10 = a[r1 + m], a11 = a[r1 + m + 1], a12 = a[r1 + m + 2], a13 = a[r1 + m + 3]
        const a20 = a[r2 + m], a21 = a[r2 + m + 1], a22 = a[r2 + m + 2], a23 = a[r2 + m + 3]
        const a30 = a[r3 + m], a31 = a[r3 + m + 1], a32 = a[r3 + m + 2], a33 = a[r3 + m + 3]
        for (let k = 0; k < K; k++) {
          const b0 = w[w0 + k], b1 = w[w1 + k], b2 = w[w2 + k], b3 = w[w3 + k]
          out[o0 + k] += a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3
          out[o1 + k] += a10 * b0 + a11 * b1 + a12 * b2 + a13 * b3
          out[o2 + k] += a20 * b0 + a21 * b1 + a22 * b2 + a23 * b3
          out[o3 + k] += a30 * b0 + a31 * b1 + a32 * b2 + a33 * b3
        }
      }
      for (; m < m1; m++) {
        const a0 = a[r0 + m], a1 = a[r1 + m], a2 = a[r2 + m], a3 = a[r3 + m]
        const wo = m * K
        for (let k = 0; k < K; k++) {
          const wk = w[wo + k]
          out[o0 + k] += a0 * wk
          out[o1 + k] += a1 * wk
          out[o2 + k] += a2 * wk
          out[o3 + k] += a3 * wk
        }
      }
    }
    for (; n < N; n++) {
      const oo = n * K
      for (let m = m0; m < m1; m++) {
        const an = a[n * M + m]
        if (an === 0) continue
        const wo = m * K
        for (let k = 0; k < K; k++) out[oo + k] += an * w[wo + k]
      }
    }
  }
  return out
}

/** out[p,q] += Σ_n a[n,p] b[n,q]  (a [N,P], b [N,Q]): weight gradients. */
export function matmulTNAcc(a: Float32Array, b: Float32Array, N: number, P: number, Q: number, out: Float32Array): Float32Array {
  for (let n = 0; n < N; n++) {
    const ao = n * P, bo = n * Q
    for (let p = 0; p < P; p++) {
      const ap = a[ao + p]
      if (ap === 0) continue
      const oo = p * Q
      for (let q = 0; q < Q; q++) out[oo + q] += ap * b[bo + q]
    }
  }
  return out
}

function invFreq(D: number, theta: number): Float64Array {
  const f = new Float64Array(D / 2)
  for (let i = 0; i < D / 2; i++) f[i] = 1 / Math.pow(theta, (2 * i) / D)
  return f
}

function ropeApply(src: Float32Array, shape: readonly number[], positions: Int32Array, theta: number, sign: 1 | -1): TsTensor {
  const [N, H, D] = shape
  check(shape.length === 3 && positions.length === N && D % 2 === 0, `rope wants [N,H,D] with even D and N positions, got [${shape}] and ${positions.length}`)
  const out = new Float32Array(src.length)
  const f = invFreq(D, theta)
  const half = D / 2
  const cos = new Float64Array(half), sin = new Float64Array(half)
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < half; i++) {
      const ang = positions[n] * f[i]
      cos[i] = Math.cos(ang)
      sin[i] = sign * Math.sin(ang)
    }
    for (let h = 0; h < H; h++) {
      const o = (n * H + h) * D
      for (let i = 0; i < half; i++) {
        const x1 = src[o + i], x2 = src[o + i + half]
        out[o + i] = x1 * cos[i] - x2 * sin[i]
        out[o + i + half] = x2 * cos[i] + x1 * sin[i]
      }
    }
  }
  return new TsTensor(shape.slice(), out)
}

export class TsBackend implements Backend {
  readonly name = 'ts'

  fromHost(data: Float32Array, shape: readonly number[], dtype: WeightDtype = 'f32'): Tensor {
    check(numel(shape) === data.length, `fromHost: ${data.length} values for shape [${shape}]`)
    if (dtype === 'bf16') return new TsTensor(shape.slice(), data.map((x) => bf16ToF32(f32ToBf16(x))), 'bf16')
    return new TsTensor(shape.slice(), data.slice())
  }
  toHost(t: Tensor): Float32Array {
    return T(t).data.slice()
  }
  zeros(shape: readonly number[]): Tensor {
    return new TsTensor(shape.slice(), new Float32Array(numel(shape)))
  }
  reshape(t: Tensor, shape: readonly number[]): Tensor {
    check(numel(shape) === numel(t.shape), `reshape [${t.shape}] → [${shape}]`)
    return new TsTensor(shape.slice(), T(t).data, T(t).dtype)
  }
  sliceRows(t: Tensor, start: number, end: number): Tensor {
    check(start >= 0 && end >= start && end <= rows(t), `sliceRows ${start}..${end} of [${t.shape}]`)
    const c = cols(t)
    return new TsTensor([end - start, ...t.shape.slice(1)], T(t).data.subarray(start * c, end * c), T(t).dtype)
  }
  concatRows(ts: readonly Tensor[]): Tensor {
    check(ts.length > 0, 'concatRows of nothing')
    const tail = ts[0].shape.slice(1)
    let n = 0
    for (const t of ts) {
      check(t.shape.slice(1).join(',') === tail.join(','), `concatRows [${t.shape}] vs [${ts[0].shape}]`)
      n += rows(t)
    }
    const out = new Float32Array(n * numel(tail))
    let o = 0
    for (const t of ts) {
      out.set(T(t).data, o)
      o += T(t).data.length
    }
    return new TsTensor([n, ...tail], out)
  }
  writeRows(dst: Tensor, rowOffset: number, src: Tensor): void {
    check(cols(dst) === cols(src) && rowOffset + rows(src) <= rows(dst), `writeRows [${src.shape}] at ${rowOffset} into [${dst.shape}]`)
    T(dst).data.set(T(src).data, rowOffset * cols(dst))
  }
  clone(t: Tensor): Tensor {
    return new TsTensor(t.shape.slice(), T(t).data.slice(), T(t).dtype)
  }
  /** The ts backend's memory is the JS heap: release only drops nothing (the GC frees it). */
  release(t: Tensor): void {
    T(t)
  }
  memoryStats(): MemoryStats {
    return { liveBytes: 0, peakBytes: 0 }
  }

  add(a: Tensor, b: Tensor): Tensor {
    check(numel(a.shape) === numel(b.shape), `add [${a.shape}] + [${b.shape}]`)
    const x = T(a).data, y = T(b).data
    const out = new Float32Array(x.length)
    for (let i = 0; i < x.length; i++) out[i] = x[i] + y[i]
    return new TsTensor(a.shape.slice(), out)
  }
  addInPlace(dst: Tensor, src: Tensor, alpha = 1): void {
    check(numel(dst.shape) === numel(src.shape), `addInPlace [${dst.shape}] += [${src.shape}]`)
    const x = T(dst).data, y = T(src).data
    for (let i = 0; i < x.length; i++) x[i] += alpha * y[i]
  }
  scaleInPlace(t: Tensor, s: number): void {
    const x = T(t).data
    for (let i = 0; i < x.length; i++) x[i] *= s
  }
  fillZero(t: Tensor): void {
    T(t).data.fill(0)
  }
  sumSquares(t: Tensor): number {
    const x = T(t).data
    let s = 0
    for (let i = 0; i < x.length; i++) s += x[i] * x[i]
    return s
  }
  adamwStep(p: Tensor, g: Tensor, m: Tensor, v: Tensor, h: AdamWHyper): void {
    const P = T(p).data, G = T(g).data, Mo = T(m).data, Vo = T(v).data
    const bc1 = 1 - Math.pow(h.beta1, h.step)
    const bc2 = 1 - Math.pow(h.beta2, h.step)
    for (let i = 0; i < P.length; i++) {
      const gi = G[i]
      Mo[i] = h.beta1 * Mo[i] + (1 - h.beta1) * gi
      Vo[i] = h.beta2 * Vo[i] + (1 - h.beta2) * gi * gi
      const mhat = Mo[i] / bc1
      const vhat = Vo[i] / bc2
      P[i] = P[i] - h.lr * h.weightDecay * P[i] - (h.lr * mhat) / (Math.sqrt(vhat) + h.eps)
    }
  }

  embedding(table: Tensor, ids: Int32Array): Tensor {
    const [V, C] = table.shape
    const tab = T(table).data
    const out = new Float32Array(ids.length * C)
    for (let n = 0; n < ids.length; n++) {
      const id = ids[n]
      if (!(id >= 0 && id < V)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${V})`)
      out.set(tab.subarray(id * C, (id + 1) * C), n * C)
    }
    return new TsTensor([ids.length, C], out)
  }
  embeddingBackward(dy: Tensor, ids: Int32Array, vocabSize: number): Tensor {
    const C = cols(dy)
    const g = T(dy).data
    const out = new Float32Array(vocabSize * C)
    for (let n = 0; n < ids.length; n++) {
      const o = ids[n] * C
      for (let c = 0; c < C; c++) out[o + c] += g[n * C + c]
    }
    return new TsTensor([vocabSize, C], out)
  }

  linear(x: Tensor, w: Tensor, bias?: Tensor, lora?: LoraOperand): Tensor {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(Number.isInteger(N) && x.shape[x.shape.length - 1] === K, `linear x [${x.shape}] · w [${w.shape}]ᵀ`)
    const out = matmulNT(T(x).data, T(w).data, N, K, M)
    if (bias) {
      check(numel(bias.shape) === M, `linear bias [${bias.shape}] for ${M} outputs`)
      const b = T(bias).data
      for (let n = 0; n < N; n++) for (let m = 0; m < M; m++) out[n * M + m] += b[m]
    }
    if (lora) {
      const r = lora.a.shape[0]
      check(lora.a.shape[1] === K && lora.b.shape[0] === M && lora.b.shape[1] === r, `lora A [${lora.a.shape}] B [${lora.b.shape}] on w [${w.shape}]`)
      const xa = matmulNT(T(x).data, T(lora.a).data, N, K, r)
      for (let i = 0; i < xa.length; i++) xa[i] *= lora.scale
      const delta = matmulNT(xa, T(lora.b).data, N, r, M)
      for (let i = 0; i < out.length; i++) out[i] += delta[i]
    }
    return new TsTensor([...x.shape.slice(0, -1), M], out)
  }
  linearBackward(x: Tensor, w: Tensor, dy: Tensor, lora?: LoraOperand): { dx: Tensor; dA?: Tensor; dB?: Tensor } {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(numel(dy.shape) === N * M, `linearBackward dy [${dy.shape}] for x [${x.shape}] w [${w.shape}]`)
    const g = T(dy).data
    const dx = matmulNNAcc(g, T(w).data, N, M, K, new Float32Array(N * K))
    if (!lora) return { dx: new TsTensor(x.shape.slice(), dx) }
    const r = lora.a.shape[0]
    const xd = T(x).data
    const xa = matmulNT(xd, T(lora.a).data, N, K, r)
    const dxa = matmulNNAcc(g, T(lora.b).data, N, M, r, new Float32Array(N * r))
    for (let i = 0; i < dxa.length; i++) dxa[i] *= lora.scale
    const dB = matmulTNAcc(g, xa, N, M, r, new Float32Array(M * r))
    for (let i = 0; i < dB.length; i++) dB[i] *= lora.scale
    const dA = matmulTNAcc(dxa, xd, N, r, K, new Float32Array(r * K))
    matmulNNAcc(dxa, T(lora.a).data, N, r, K, dx)
    return { dx: new TsTensor(x.shape.slice(), dx), dA: new TsTensor([r, K], dA), dB: new TsTensor([M, r], dB) }
  }
  linearWeightGrad(x: Tensor, dy: Tensor, into?: Tensor): Tensor {
    // Rows are the first dimension of dy (x and dy may be [N,H,D]-shaped views of [N,K] and [N,M]).
    const N = dy.shape[0], M = numel(dy.shape) / N, K = numel(x.shape) / N
    check(Number.isInteger(K), `linearWeightGrad x [${x.shape}] dy [${dy.shape}]`)
    if (into) check(numel(into.shape) === M * K && into.dtype !== 'bf16', `linearWeightGrad into [${into.shape}] for [${M},${K}]`)
    const out = into ?? new TsTensor([M, K], new Float32Array(M * K))
    matmulTNAcc(T(dy).data as Float32Array, T(x).data as Float32Array, N, M, K, T(out).data as Float32Array)
    return out
  }
  mergeLora(w: Tensor, lora: LoraOperand): Tensor {
    const [M, K] = w.shape
    const r = lora.a.shape[0]
    const b = T(lora.b).data.map((v) => v * lora.scale)
    const out = T(w).data.slice()
    matmulNNAcc(b, T(lora.a).data, M, r, K, out)
    return new TsTensor([M, K], out)
  }

  rmsnorm(x: Tensor, w: Tensor, eps: number): Tensor {
    const C = x.shape[x.shape.length - 1]
    check(numel(w.shape) === C, `rmsnorm x [${x.shape}] w [${w.shape}]`)
    const xs = T(x).data, ws = T(w).data
    const out = new Float32Array(xs.length)
    for (let o = 0; o < xs.length; o += C) {
      let ss = 0
      for (let c = 0; c < C; c++) ss += xs[o + c] * xs[o + c]
      const inv = 1 / Math.sqrt(ss / C + eps)
      for (let c = 0; c < C; c++) out[o + c] = xs[o + c] * inv * ws[c]
    }
    return new TsTensor(x.shape.slice(), out)
  }
  rmsnormBackward(x: Tensor, w: Tensor, eps: number, dy: Tensor): { dx: Tensor; dw: Tensor } {
    const C = x.shape[x.shape.length - 1]
    const xs = T(x).data, ws = T(w).data, g = T(dy).data
    const dx = new Float32Array(xs.length)
    const dw = new Float64Array(C)
    for (let o = 0; o < xs.length; o += C) {
      let ss = 0
      for (let c = 0; c < C; c++) ss += xs[o + c] * xs[o + c]
      const inv = 1 / Math.sqrt(ss / C + eps)
      // y = x·inv·w ⇒ dx = inv·(g·w) − x·inv³/C · Σ (g·w·x)
      let dot = 0
      for (let c = 0; c < C; c++) {
        dot += g[o + c] * ws[c] * xs[o + c]
        dw[c] += g[o + c] * xs[o + c] * inv
      }
      const k = (dot * inv * inv * inv) / C
      for (let c = 0; c < C; c++) dx[o + c] = g[o + c] * ws[c] * inv - xs[o + c] * k
    }
    return { dx: new TsTensor(x.shape.slice(), dx), dw: new TsTensor(w.shape.slice(), Float32Array.from(dw)) }
  }

  rope(x: Tensor, positions: Int32Array, theta: number): Tensor {
    return ropeApply(T(x).data, x.shape, positions, theta, 1)
  }
  ropeBackward(dy: Tensor, positions: Int32Array, theta: number): Tensor {
    // The rotation is orthogonal: its transpose is the rotation by the negative angle.
    return ropeApply(T(dy).data, dy.shape, positions, theta, -1)
  }

  attention(q: Tensor, k: Tensor, v: Tensor, qStart: number): Tensor {
    const [Tq, H, D] = q.shape
    const [S, KV] = k.shape
    check(q.shape.length === 3 && k.shape[2] === D && v.shape[0] === S && v.shape[1] === KV && H % KV === 0, `attention q [${q.shape}] k [${k.shape}] v [${v.shape}]`)
    check(qStart + Tq <= S, `attention: queries end at ${qStart + Tq} but only ${S} keys`)
    const Q = T(q).data, Kd = T(k).data, Vd = T(v).data
    const out = new Float32Array(Q.length)
    const group = H / KV
    const scale = 1 / Math.sqrt(D)
    const p = new Float64Array(S)
    for (let i = 0; i < Tq; i++) {
      const last = qStart + i
      for (let h = 0; h < H; h++) {
        const kvh = Math.floor(h / group)
        const qo = (i * H + h) * D
        let max = -Infinity
        for (let j = 0; j <= last; j++) {
          const ko = (j * KV + kvh) * D
          let s = 0
          for (let d = 0; d < D; d++) s += Q[qo + d] * Kd[ko + d]
          s *= scale
          p[j] = s
          if (s > max) max = s
        }
        let sum = 0
        for (let j = 0; j <= last; j++) {
          p[j] = Math.exp(p[j] - max)
          sum += p[j]
        }
        for (let j = 0; j <= last; j++) {
          const pj = p[j] / sum
          const vo = (j * KV + kvh) * D
          for (let d = 0; d < D; d++) out[qo + d] += pj * Vd[vo + d]
        }
      }
    }
    return new TsTensor([Tq, H, D], out)
  }
  attentionBackward(q: Tensor, k: Tensor, v: Tensor, qStart: number, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    const [Tq, H, D] = q.shape
    const [S, KV] = k.shape
    const Q = T(q).data, Kd = T(k).data, Vd = T(v).data, G = T(dy).data
    const dq = new Float32Array(Q.length), dk = new Float32Array(Kd.length), dv = new Float32Array(Vd.length)
    const group = H / KV
    const scale = 1 / Math.sqrt(D)
    const p = new Float64Array(S), dp = new Float64Array(S)
    for (let i = 0; i < Tq; i++) {
      const last = qStart + i
      for (let h = 0; h < H; h++) {
        const kvh = Math.floor(h / group)
        const qo = (i * H + h) * D
        let max = -Infinity
        for (let j = 0; j <= last; j++) {
          const ko = (j * KV + kvh) * D
          let s = 0
          for (let d = 0; d < D; d++) s += Q[qo + d] * Kd[ko + d]
          p[j] = s * scale
          if (p[j] > max) max = p[j]
        }
        let sum = 0
        for (let j = 0; j <= last; j++) {
          p[j] = Math.exp(p[j] - max)
          sum += p[j]
        }
        let pdp = 0
        for (let j = 0; j <= last; j++) {
          p[j] /= sum
          const vo = (j * KV + kvh) * D
          let s = 0
          for (let d = 0; d < D; d++) {
            s += G[qo + d] * Vd[vo + d]
            dv[vo + d] += p[j] * G[qo + d]
          }
          dp[j] = s
          pdp += p[j] * s
        }
        for (let j = 0; j <= last; j++) {
          const ds = p[j] * (dp[j] - pdp) * scale
          if (ds === 0) continue
          const ko = (j * KV + kvh) * D
          for (let d = 0; d < D; d++) {
            dq[qo + d] += ds * Kd[ko + d]
            dk[ko + d] += ds * Q[qo + d]
          }
        }
      }
    }
    return {
      dq: new TsTensor(q.shape.slice(), dq),
      dk: new TsTensor(k.shape.slice(), dk),
      dv: new TsTensor(v.shape.slice(), dv),
    }
  }

  swiglu(gate: Tensor, up: Tensor): Tensor {
    check(numel(gate.shape) === numel(up.shape), `swiglu gate [${gate.shape}] up [${up.shape}]`)
    const g = T(gate).data, u = T(up).data
    const out = new Float32Array(g.length)
    for (let i = 0; i < g.length; i++) out[i] = (g[i] / (1 + Math.exp(-g[i]))) * u[i]
    return new TsTensor(gate.shape.slice(), out)
  }
  swigluBackward(gate: Tensor, up: Tensor, dy: Tensor): { dgate: Tensor; dup: Tensor } {
    const g = T(gate).data, u = T(up).data, d = T(dy).data
    const dg = new Float32Array(g.length), du = new Float32Array(g.length)
    for (let i = 0; i < g.length; i++) {
      const s = 1 / (1 + Math.exp(-g[i]))
      du[i] = d[i] * g[i] * s
      dg[i] = d[i] * u[i] * s * (1 + g[i] * (1 - s))
    }
    return { dgate: new TsTensor(gate.shape.slice(), dg), dup: new TsTensor(up.shape.slice(), du) }
  }

  attentionVarlen(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array): Tensor {
    checkCu(cu, q.shape[0], k.shape[0], v.shape[0])
    const parts: Tensor[] = []
    for (let b = 0; b + 1 < cu.length; b++)
      parts.push(this.attention(this.sliceRows(q, cu[b], cu[b + 1]), this.sliceRows(k, cu[b], cu[b + 1]), this.sliceRows(v, cu[b], cu[b + 1]), 0))
    return parts.length === 1 ? parts[0] : this.concatRows(parts)
  }
  attentionVarlenBackward(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    checkCu(cu, q.shape[0], k.shape[0], v.shape[0])
    const dq: Tensor[] = [], dk: Tensor[] = [], dv: Tensor[] = []
    for (let b = 0; b + 1 < cu.length; b++) {
      const sl = (x: Tensor): Tensor => this.sliceRows(x, cu[b], cu[b + 1])
      const r = this.attentionBackward(sl(q), sl(k), sl(v), 0, sl(dy))
      dq.push(r.dq)
      dk.push(r.dk)
      dv.push(r.dv)
    }
    const cat = (xs: Tensor[]): Tensor => (xs.length === 1 ? xs[0] : this.concatRows(xs))
    return { dq: cat(dq), dk: cat(dk), dv: cat(dv) }
  }

  /** The chunked reference: per HEAD_CHUNK_ROWS rows, logits = linear(hidden, w), then targetLogprobs. */
  headLogprobs(hidden: Tensor, w: Tensor, targets: Int32Array): Tensor {
    const N = rows(hidden)
    check(targets.length === N && hidden.shape[1] === w.shape[1], `headLogprobs hidden [${hidden.shape}] w [${w.shape}] ${targets.length} targets`)
    const out = new Float32Array(N)
    for (let s = 0; s < N; s += HEAD_CHUNK_ROWS) {
      const e = Math.min(N, s + HEAD_CHUNK_ROWS)
      const lg = this.linear(this.sliceRows(hidden, s, e), w)
      out.set(T(this.targetLogprobs(lg, targets.subarray(s, e))).data, s)
    }
    return new TsTensor([N], out)
  }
  headLogprobsBackward(hidden: Tensor, w: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    const N = rows(hidden), C = hidden.shape[1]
    const g = T(dlogp).data
    const out = new Float32Array(N * C)
    for (let s = 0; s < N; s += HEAD_CHUNK_ROWS) {
      const e = Math.min(N, s + HEAD_CHUNK_ROWS)
      if (g.subarray(s, e).every((x) => x === 0)) continue
      const hs = this.sliceRows(hidden, s, e)
      const dl = this.targetLogprobsBackward(this.linear(hs, w), targets.subarray(s, e), new TsTensor([e - s], g.slice(s, e)))
      out.set(T(this.linearBackward(hs, w, dl).dx).data, s * C)
    }
    return new TsTensor([N, C], out)
  }

  sampleRows(logits: Tensor, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    const R = rows(logits), V = cols(logits)
    check(uniforms.length === R, `sampleRows: ${uniforms.length} uniforms for ${R} rows`)
    const x = T(logits).data
    const out: SampledRows = { ids: new Int32Array(R), logprobs: new Float64Array(R), modelLogprobs: new Float64Array(R) }
    for (let r = 0; r < R; r++) {
      const d = sampleFromRow(x.subarray(r * V, (r + 1) * V), params, uniforms[r])
      out.ids[r] = d.id
      out.logprobs[r] = d.logprob
      out.modelLogprobs[r] = d.modelLogprob
    }
    return out
  }
  forwardCached(stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): Tensor {
    return forwardCachedReference(this, stack, ids, cu, caches, starts)
  }
  decodeSample(stack: DecoderStack, head: Tensor, ids: Int32Array, caches: readonly CacheTensors[], starts: Int32Array, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    return decodeSampleReference(this, stack, head, ids, caches, starts, params, uniforms)
  }

  logSoftmax(logits: Tensor): Tensor {
    const V = cols(logits)
    const x = T(logits).data
    const out = new Float32Array(x.length)
    for (let o = 0; o < x.length; o += V) {
      const lse = logSumExp(x, o, V)
      for (let c = 0; c < V; c++) out[o + c] = x[o + c] - lse
    }
    return new TsTensor(logits.shape.slice(), out)
  }
  targetLogprobs(logits: Tensor, targets: Int32Array): Tensor {
    const V = cols(logits)
    const N = rows(logits)
    check(targets.length === N, `targetLogprobs: ${targets.length} targets for ${N} rows`)
    const x = T(logits).data
    const out = new Float32Array(N)
    for (let n = 0; n < N; n++) {
      const t = targets[n]
      if (!(t >= 0 && t < V)) throw new EngineError('engine.token_id', `target id ${t} is outside the vocabulary [0, ${V})`)
      out[n] = x[n * V + t] - logSumExp(x, n * V, V)
    }
    return new TsTensor([N], out)
  }
  targetLogprobsBackward(logits: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    const V = cols(logits)
    const N = rows(logits)
    const x = T(logits).data, g = T(dlogp).data
    const out = new Float32Array(x.length)
    for (let n = 0; n < N; n++) {
      const gn = g[n]
      if (gn === 0) continue
      const o = n * V
      const lse = logSumExp(x, o, V)
      for (let c = 0; c < V; c++) out[o + c] = -gn * Math.exp(x[o + c] - lse)
      out[o + targets[n]] += gn
    }
    return new TsTensor(logits.shape.slice(), out)
  }
}

/** cu must run 0 = cu[0] ≤ … ≤ cu[B] = N over the rows of q, k and v. */
export function checkCu(cu: Int32Array, ...rowCounts: number[]): void {
  let ok = cu.length >= 2 && cu[0] === 0
  for (let i = 1; ok && i < cu.length; i++) ok = cu[i] >= cu[i - 1]
  for (const n of rowCounts) ok = ok && cu[cu.length - 1] === n
  if (!ok) throw new EngineError('engine.shape', `shape mismatch: cumulative offsets [${Array.from(cu)}] do not cover ${rowCounts.join('/')} rows`)
}

function logSumExp(x: Float32Array, o: number, V: number): number {
  let max = -Infinity
  for (let c = 0; c < V; c++) if (x[o + c] > max) max = x[o + c]
  let s = 0
  for (let c = 0; c < V; c++) s += Math.exp(x[o + c] - max)
  return max + Math.log(s)
}

/** The reference backend. */
export function createTsBackend(): Backend {
  return new TsBackend()
}
