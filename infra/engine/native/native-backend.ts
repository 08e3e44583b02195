// infra/engine/native/native-backend: the `native` backend — the Backend interface over the C++ addon (src/). Tensors
// live outside the JS heap in an arena of addon-allocated chunks (release() frees a block at once, else the GC does); this file
// checks shapes and dtypes, allocates outputs and calls one addon kernel per op. Frozen weights may be bf16.
import { EngineError } from '../../errors'
import {
  type AdamWHyper, type Backend, type CacheTensors, type DecoderStack, type StackLinear, type LoraOperand, type MemoryStats, type RowSamplingParams, type SampledRows, type Tensor,
  type WeightDtype, numel,
} from '../backend'
import { checkForwardCached } from '../forward-cached'
import { checkCu } from '../ts-backend'
import { type NativeAddon, type NativeStackHandle, loadNativeAddon } from './addon'

/** A block of arena memory; views of a tensor share their owner's block (and keep the owner alive). */
interface Block {
  buffer: ArrayBuffer
  byteOffset: number
  bytes: number
  alive: boolean
  /** A small tensor on the JS heap (not in the arena). */
  heap?: boolean
}

/** Tensors below this many bytes live on the JS heap; the rest in the off-heap arena. */
export const SMALL_TENSOR_BYTES = 16384

export class NativeTensor implements Tensor {
  constructor(
    readonly shape: readonly number[],
    readonly data: Float32Array | Uint16Array,
    readonly dtype: WeightDtype,
    readonly block: Block,
    /** The owning tensor of a view (reshape, sliceRows); release() of a view frees nothing. */
    readonly base?: NativeTensor,
  ) {}
  get owner(): boolean {
    return this.base === undefined
  }
}

/**
 * The block size for a tensor of `bytes`: exact 64-byte multiples up to 64 KiB, then size classes 2^(1/4) apart (at
 * most 19 % slack). Freed blocks are kept per size, so without classes a run whose shapes change on every call (GRPO
 * rollouts: every turn's prompt has a new length) never reused a freed block and carved new ones for ever — about
 * 70–130 MB more per sampling call on `small` (bench/perf/native-cache-growth.ts). With classes the free lists are
 * bounded by the peak use of each class.
 */
export function sizeClass(bytes: number): number {
  const b = Math.max(64, Math.ceil(bytes / 64) * 64)
  if (b <= 65536) return b
  const s = Math.ceil(2 ** (Math.ceil(Math.log2(b) * 4) / 4) / 64) * 64
  return s >= b ? s : b
}

/**
 * Off-heap memory for tensors: chunks of at least 64 MiB from the addon (outside the JS heap), carved into
 * 64-byte-aligned blocks with per-size free lists. release() returns a block at once; a tensor that is never
 * released returns its block when the GC collects it (FinalizationRegistry). Handing out a block is a typed-array
 * view (no native call), which is what makes many small ops cheap.
 */
class Arena {
  private readonly free = new Map<number, { buffer: ArrayBuffer; byteOffset: number }[]>()
  private chunk?: ArrayBuffer
  private chunkBase = 0
  private used = 0
  private chunkBytes = 0
  liveBytes = 0
  peakBytes = 0
  private readonly registry = new FinalizationRegistry<Block>((b) => this.give(b))
  constructor(private readonly addon: NativeAddon) {}

  take(bytes: number): Block {
    const size = sizeClass(bytes)
    const list = this.free.get(size)
    const hit = list?.pop()
    let block: Block
    if (hit) block = { ...hit, bytes: size, alive: true }
    else {
      if (!this.chunk || this.used + size > this.chunkBytes) {
        const want = Math.max(64 << 20, size)
        const f = this.addon.alloc(want / 4, false)
        this.chunk = f.buffer as ArrayBuffer
        this.chunkBase = f.byteOffset
        this.chunkBytes = want
        this.used = 0
      }
      block = { buffer: this.chunk, byteOffset: this.chunkBase + this.used, bytes: size, alive: true }
      this.used += size
    }
    this.liveBytes += size
    if (this.liveBytes > this.peakBytes) this.peakBytes = this.liveBytes
    return block
  }
  track(t: NativeTensor): void {
    this.registry.register(t, t.block, t.block)
  }
  give(b: Block): void {
    if (!b.alive) return
    b.alive = false
    this.liveBytes -= b.bytes
    let list = this.free.get(b.bytes)
    if (!list) this.free.set(b.bytes, (list = []))
    list.push({ buffer: b.buffer, byteOffset: b.byteOffset })
  }
  release(b: Block): void {
    if (!b.alive) return
    this.registry.unregister(b)
    this.give(b)
  }
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new EngineError('engine.shape', `shape mismatch: ${what}`)
}

function T(t: Tensor): NativeTensor {
  if (!(t instanceof NativeTensor)) throw new EngineError('engine.backend', 'tensor does not belong to the native backend')
  if (!t.block.alive) throw new EngineError('engine.backend', 'tensor (or the tensor it views) was released')
  return t
}

/** An f32 operand (activations, gradients, LoRA, norms). */
function F(t: Tensor): Float32Array {
  const n = T(t)
  if (n.dtype !== 'f32') throw new EngineError('engine.dtype', `this operand must be f32, got a ${n.dtype} tensor [${t.shape}]`)
  return n.data as Float32Array
}

const rows = (t: Tensor): number => t.shape[0]
const cols = (t: Tensor): number => (t.shape.length === 0 ? 1 : numel(t.shape) / t.shape[0])

const STACK_LINEARS: readonly StackLinear[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down']

/** A decoder stack bound in the addon, with the tensors it points into (checked alive before each call). */
interface BoundStack {
  handle: NativeStackHandle
  tensors: NativeTensor[]
}

export class NativeBackend implements Backend {
  readonly name = 'native'
  private readonly arena: Arena
  private readonly stacks = new WeakMap<DecoderStack, BoundStack>()
  constructor(readonly addon: NativeAddon) {
    this.arena = new Arena(addon)
  }

  private alloc(shape: readonly number[], dtype: WeightDtype): NativeTensor {
    const n = numel(shape)
    const bytes = n * (dtype === 'bf16' ? 2 : 4)
    if (bytes < SMALL_TENSOR_BYTES) {
      // Small tensors (norm weights, decode-step rows, per-token vectors) live on the JS heap: registering each with
      // the FinalizationRegistry would cost more than the op that fills it. Their bytes are not in memoryStats.
      const data = dtype === 'bf16' ? new Uint16Array(n) : new Float32Array(n)
      return new NativeTensor(shape.slice(), data, dtype, { buffer: data.buffer as ArrayBuffer, byteOffset: 0, bytes, alive: true, heap: true })
    }
    const b = this.arena.take(bytes)
    const data = dtype === 'bf16' ? new Uint16Array(b.buffer, b.byteOffset, n) : new Float32Array(b.buffer, b.byteOffset, n)
    const t = new NativeTensor(shape.slice(), data, dtype, b)
    this.arena.track(t)
    return t
  }
  /** A new f32 tensor, uninitialised unless zero (every op below overwrites all of its output). */
  private out(shape: readonly number[], zero = false): NativeTensor {
    const t = this.alloc(shape, 'f32')
    if (zero) t.data.fill(0)
    return t
  }
  private view(t: NativeTensor, shape: readonly number[], data: Float32Array | Uint16Array): NativeTensor {
    return new NativeTensor(shape.slice(), data, t.dtype, t.block, t.base ?? t)
  }

  // ---- memory ----
  fromHost(data: Float32Array, shape: readonly number[], dtype: WeightDtype = 'f32'): Tensor {
    check(numel(shape) === data.length, `fromHost: ${data.length} values for shape [${shape}]`)
    if (dtype === 'bf16') {
      const t = this.alloc(shape, 'bf16')
      this.addon.toBf16(data, t.data as Uint16Array, data.length)
      return t
    }
    const t = this.out(shape)
    t.data.set(data)
    return t
  }
  toHost(t: Tensor): Float32Array {
    const n = T(t)
    if (n.dtype === 'f32') return (n.data as Float32Array).slice()
    const out = new Float32Array(n.data.length)
    this.addon.fromBf16(n.data as Uint16Array, out, out.length)
    return out
  }
  zeros(shape: readonly number[]): Tensor {
    return this.out(shape, true)
  }
  uninitialized(shape: readonly number[]): Tensor {
    return this.out(shape)
  }
  reshape(t: Tensor, shape: readonly number[]): Tensor {
    check(numel(shape) === numel(t.shape), `reshape [${t.shape}] → [${shape}]`)
    return this.view(T(t), shape, T(t).data)
  }
  sliceRows(t: Tensor, start: number, end: number): Tensor {
    check(start >= 0 && end >= start && end <= rows(t), `sliceRows ${start}..${end} of [${t.shape}]`)
    const c = cols(t)
    return this.view(T(t), [end - start, ...t.shape.slice(1)], T(t).data.subarray(start * c, end * c))
  }
  concatRows(ts: readonly Tensor[]): Tensor {
    check(ts.length > 0, 'concatRows of nothing')
    const tail = ts[0].shape.slice(1)
    let n = 0
    for (const t of ts) {
      check(t.shape.slice(1).join(',') === tail.join(','), `concatRows [${t.shape}] vs [${ts[0].shape}]`)
      n += rows(t)
    }
    const out = this.out([n, ...tail])
    let o = 0
    for (const t of ts) {
      const d = F(t)
      out.data.set(d, o)
      o += d.length
    }
    return out
  }
  writeRows(dst: Tensor, rowOffset: number, src: Tensor): void {
    check(cols(dst) === cols(src) && rowOffset + rows(src) <= rows(dst), `writeRows [${src.shape}] at ${rowOffset} into [${dst.shape}]`)
    F(dst).set(F(src), rowOffset * cols(dst))
  }
  clone(t: Tensor): Tensor {
    const n = T(t)
    const out = this.alloc(t.shape, n.dtype)
    ;(out.data as Float32Array).set(n.data as Float32Array)
    return out
  }
  release(t: Tensor): void {
    if (!(t instanceof NativeTensor)) throw new EngineError('engine.backend', 'tensor does not belong to the native backend')
    if (!t.owner) return
    if (t.block.heap) t.block.alive = false
    else this.arena.release(t.block)
  }
  /** Bytes of tensors handed out now and at peak (the arena's chunks themselves stay allocated for reuse). */
  memoryStats(resetPeak = false): MemoryStats {
    const r = { liveBytes: this.arena.liveBytes, peakBytes: this.arena.peakBytes }
    if (resetPeak) this.arena.peakBytes = this.arena.liveBytes
    return r
  }

  // ---- elementwise ----
  add(a: Tensor, b: Tensor): Tensor {
    check(numel(a.shape) === numel(b.shape), `add [${a.shape}] + [${b.shape}]`)
    const out = this.out(a.shape)
    this.addon.add(F(a), F(b), out.data as Float32Array, out.data.length)
    return out
  }
  addInPlace(dst: Tensor, src: Tensor, alpha = 1): void {
    check(numel(dst.shape) === numel(src.shape), `addInPlace [${dst.shape}] += [${src.shape}]`)
    this.addon.axpy(F(dst), F(src), alpha, numel(dst.shape))
  }
  scaleInPlace(t: Tensor, s: number): void {
    this.addon.scale(F(t), s, numel(t.shape))
  }
  fillZero(t: Tensor): void {
    F(t).fill(0)
  }
  sumSquares(t: Tensor): number {
    return this.addon.sumSquares(F(t), numel(t.shape))
  }
  adamwStep(p: Tensor, g: Tensor, m: Tensor, v: Tensor, h: AdamWHyper): void {
    const n = numel(p.shape)
    check(numel(g.shape) === n && numel(m.shape) === n && numel(v.shape) === n, `adamwStep [${p.shape}]`)
    const bc1 = 1 - Math.pow(h.beta1, h.step), bc2 = 1 - Math.pow(h.beta2, h.step)
    this.addon.adamw(F(p), F(g), F(m), F(v), n, h.lr, h.beta1, h.beta2, h.eps, h.weightDecay, bc1, bc2)
  }

  // ---- ops ----
  embedding(table: Tensor, ids: Int32Array): Tensor {
    const [V, C] = table.shape
    for (const id of ids) if (!(id >= 0 && id < V)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${V})`)
    const out = this.out([ids.length, C])
    this.addon.embedding(T(table).data, V, C, ids, ids.length, out.data as Float32Array)
    return out
  }
  embeddingBackward(dy: Tensor, ids: Int32Array, vocabSize: number): Tensor {
    const C = cols(dy)
    check(rows(dy) === ids.length, `embeddingBackward dy [${dy.shape}] for ${ids.length} ids`)
    for (const id of ids) if (!(id >= 0 && id < vocabSize)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${vocabSize})`)
    const out = this.out([vocabSize, C], true)
    this.addon.embeddingBackward(F(dy), ids, ids.length, C, out.data as Float32Array)
    return out
  }

  linear(x: Tensor, w: Tensor, bias?: Tensor, lora?: LoraOperand): Tensor {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(Number.isInteger(N) && x.shape[x.shape.length - 1] === K, `linear x [${x.shape}] · w [${w.shape}]ᵀ`)
    const out = this.out([...x.shape.slice(0, -1), M])
    const o = out.data as Float32Array
    let beta = 0
    if (bias) {
      check(numel(bias.shape) === M, `linear bias [${bias.shape}] for ${M} outputs`)
      const b = F(bias)
      for (let n = 0; n < N; n++) o.set(b, n * M)
      beta = 1
    }
    const xd = F(x)
    this.addon.gemm(N, M, K, 1, xd, K, 1, T(w).data, 1, K, beta, o, M)
    if (lora) {
      const r = lora.a.shape[0]
      check(lora.a.shape[1] === K && lora.b.shape[0] === M && lora.b.shape[1] === r, `lora A [${lora.a.shape}] B [${lora.b.shape}] on w [${w.shape}]`)
      const xa = this.out([N, r])
      this.addon.gemm(N, r, K, lora.scale, xd, K, 1, F(lora.a), 1, K, 0, xa.data as Float32Array, r)
      this.addon.gemm(N, M, r, 1, xa.data as Float32Array, r, 1, F(lora.b), 1, r, 1, o, M)
      this.release(xa)
    }
    return out
  }
  linearBackward(x: Tensor, w: Tensor, dy: Tensor, lora?: LoraOperand): { dx: Tensor; dA?: Tensor; dB?: Tensor } {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(numel(dy.shape) === N * M, `linearBackward dy [${dy.shape}] for x [${x.shape}] w [${w.shape}]`)
    const g = F(dy)
    const dx = this.out(x.shape)
    const dxd = dx.data as Float32Array
    this.addon.gemm(N, K, M, 1, g, M, 1, T(w).data, K, 1, 0, dxd, K)
    if (!lora) return { dx }
    const r = lora.a.shape[0]
    const xd = F(x), A = F(lora.a), B = F(lora.b)
    const xa = this.out([N, r]), dxa = this.out([N, r])
    const xad = xa.data as Float32Array, dxad = dxa.data as Float32Array
    this.addon.gemm(N, r, K, 1, xd, K, 1, A, 1, K, 0, xad, r) // x Aᵀ
    this.addon.gemm(N, r, M, lora.scale, g, M, 1, B, r, 1, 0, dxad, r) // scale · dy B
    const dB = this.out([M, r]), dA = this.out([r, K])
    this.addon.gemm(M, r, N, lora.scale, g, 1, M, xad, r, 1, 0, dB.data as Float32Array, r) // scale · dyᵀ (x Aᵀ)
    this.addon.gemm(r, K, N, 1, dxad, 1, r, xd, K, 1, 0, dA.data as Float32Array, K) // dxaᵀ x
    this.addon.gemm(N, K, r, 1, dxad, r, 1, A, K, 1, 1, dxd, K) // dx += dxa A
    this.release(xa)
    this.release(dxa)
    return { dx, dA, dB }
  }
  linearWeightGrad(x: Tensor, dy: Tensor, into?: Tensor): Tensor {
    // Rows are the first dimension of dy (x and dy may be [N,H,D]-shaped views of [N,K] and [N,M]).
    const N = dy.shape[0], M = numel(dy.shape) / N, K = numel(x.shape) / N
    check(Number.isInteger(K), `linearWeightGrad x [${x.shape}] dy [${dy.shape}]`)
    if (into) check(numel(into.shape) === M * K && into.dtype !== 'bf16', `linearWeightGrad into [${into.shape}] for [${M},${K}]`)
    const out = (into as NativeTensor | undefined) ?? this.out([M, K])
    this.addon.gemm(M, K, N, 1, F(dy), 1, M, F(x), K, 1, into ? 1 : 0, out.data as Float32Array, K) // dyᵀ x
    return out
  }
  mergeLora(w: Tensor, lora: LoraOperand): Tensor {
    const [M, K] = w.shape
    const r = lora.a.shape[0]
    const out = this.out([M, K])
    const o = out.data as Float32Array
    const wn = T(w)
    if (wn.dtype === 'bf16') this.addon.fromBf16(wn.data as Uint16Array, o, M * K)
    else o.set(wn.data as Float32Array)
    this.addon.gemm(M, K, r, lora.scale, F(lora.b), r, 1, F(lora.a), K, 1, 1, o, K)
    return out
  }

  rmsnorm(x: Tensor, w: Tensor, eps: number): Tensor {
    const C = x.shape[x.shape.length - 1]
    check(numel(w.shape) === C, `rmsnorm x [${x.shape}] w [${w.shape}]`)
    const out = this.out(x.shape)
    this.addon.rmsnorm(F(x), F(w), numel(x.shape) / C, C, eps, out.data as Float32Array)
    return out
  }
  rmsnormBackward(x: Tensor, w: Tensor, eps: number, dy: Tensor): { dx: Tensor; dw: Tensor } {
    const C = x.shape[x.shape.length - 1]
    check(numel(w.shape) === C && numel(dy.shape) === numel(x.shape), `rmsnormBackward x [${x.shape}] w [${w.shape}] dy [${dy.shape}]`)
    const dx = this.out(x.shape), dw = this.out(w.shape)
    this.addon.rmsnormBackward(F(x), F(w), F(dy), numel(x.shape) / C, C, eps, dx.data as Float32Array, dw.data as Float32Array)
    return { dx, dw }
  }

  private ropeApply(x: Tensor, positions: Int32Array, theta: number, sign: 1 | -1): Tensor {
    const [N, H, D] = x.shape
    check(x.shape.length === 3 && positions.length === N && D % 2 === 0, `rope wants [N,H,D] with even D and N positions, got [${x.shape}] and ${positions.length}`)
    const out = this.out(x.shape)
    this.addon.rope(F(x), positions, N, H, D, theta, sign, out.data as Float32Array)
    return out
  }
  rope(x: Tensor, positions: Int32Array, theta: number): Tensor {
    return this.ropeApply(x, positions, theta, 1)
  }
  ropeBackward(dy: Tensor, positions: Int32Array, theta: number): Tensor {
    return this.ropeApply(dy, positions, theta, -1)
  }

  private attnShapes(q: Tensor, k: Tensor, v: Tensor): { Tq: number; H: number; D: number; S: number; KV: number } {
    const [Tq, H, D] = q.shape
    const [S, KV] = k.shape
    check(q.shape.length === 3 && k.shape.length === 3 && k.shape[2] === D && v.shape[0] === S && v.shape[1] === KV && v.shape[2] === D && H % KV === 0,
      `attention q [${q.shape}] k [${k.shape}] v [${v.shape}]`)
    return { Tq, H, D, S, KV }
  }
  attention(q: Tensor, k: Tensor, v: Tensor, qStart: number): Tensor {
    const { Tq, H, D, S, KV } = this.attnShapes(q, k, v)
    check(qStart >= 0 && qStart + Tq <= S, `attention: queries end at ${qStart + Tq} but only ${S} keys`)
    const out = this.out([Tq, H, D])
    this.addon.attentionCached(F(q), F(k), F(v), Tq, S, H, KV, D, qStart, out.data as Float32Array)
    return out
  }
  attentionBackward(q: Tensor, k: Tensor, v: Tensor, qStart: number, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    const { Tq, H, D, S, KV } = this.attnShapes(q, k, v)
    check(qStart >= 0 && qStart + Tq <= S && numel(dy.shape) === numel(q.shape), `attentionBackward q [${q.shape}] k [${k.shape}] qStart ${qStart}`)
    const dq = this.out(q.shape), dk = this.out(k.shape), dv = this.out(v.shape)
    this.addon.attentionCachedBackward(F(q), F(k), F(v), F(dy), Tq, S, H, KV, D, qStart, dq.data as Float32Array, dk.data as Float32Array, dv.data as Float32Array)
    return { dq, dk, dv }
  }
  attentionVarlen(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array): Tensor {
    const { Tq, H, D, S, KV } = this.attnShapes(q, k, v)
    checkCu(cu, Tq, S)
    const out = this.out([Tq, H, D])
    this.addon.attention(F(q), F(k), F(v), cu, cu.length - 1, H, KV, D, out.data as Float32Array)
    return out
  }
  attentionVarlenBackward(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    const { Tq, H, D, S, KV } = this.attnShapes(q, k, v)
    checkCu(cu, Tq, S)
    check(numel(dy.shape) === numel(q.shape), `attentionVarlenBackward dy [${dy.shape}] for q [${q.shape}]`)
    const dq = this.out(q.shape), dk = this.out(k.shape), dv = this.out(v.shape)
    this.addon.attentionBackward(F(q), F(k), F(v), F(dy), cu, cu.length - 1, H, KV, D, dq.data as Float32Array, dk.data as Float32Array, dv.data as Float32Array)
    return { dq, dk, dv }
  }

  swiglu(gate: Tensor, up: Tensor): Tensor {
    check(numel(gate.shape) === numel(up.shape), `swiglu gate [${gate.shape}] up [${up.shape}]`)
    const out = this.out(gate.shape)
    this.addon.swiglu(F(gate), F(up), numel(gate.shape), out.data as Float32Array)
    return out
  }
  swigluBackward(gate: Tensor, up: Tensor, dy: Tensor): { dgate: Tensor; dup: Tensor } {
    check(numel(gate.shape) === numel(up.shape) && numel(dy.shape) === numel(up.shape), `swigluBackward gate [${gate.shape}] up [${up.shape}] dy [${dy.shape}]`)
    const dgate = this.out(gate.shape), dup = this.out(up.shape)
    this.addon.swigluBackward(F(gate), F(up), F(dy), numel(gate.shape), dgate.data as Float32Array, dup.data as Float32Array)
    return { dgate, dup }
  }

  logSoftmax(logits: Tensor): Tensor {
    const out = this.out(logits.shape)
    this.addon.logSoftmax(F(logits), rows(logits), cols(logits), out.data as Float32Array)
    return out
  }
  private badTarget(targets: Int32Array, n: number, V: number): never {
    throw new EngineError('engine.token_id', `target id ${targets[n]} is outside the vocabulary [0, ${V})`)
  }
  targetLogprobs(logits: Tensor, targets: Int32Array): Tensor {
    const N = rows(logits), V = cols(logits)
    check(targets.length === N, `targetLogprobs: ${targets.length} targets for ${N} rows`)
    const out = this.out([N])
    const bad = this.addon.targetLogprobs(F(logits), targets, N, V, out.data as Float32Array)
    if (bad >= 0) this.badTarget(targets, bad, V)
    return out
  }
  targetLogprobsBackward(logits: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    const N = rows(logits), V = cols(logits)
    check(targets.length === N && numel(dlogp.shape) === N, `targetLogprobsBackward: ${targets.length} targets for ${N} rows`)
    const out = this.out(logits.shape)
    this.addon.targetLogprobsBackward(F(logits), targets, F(dlogp), N, V, out.data as Float32Array)
    return out
  }
  headLogprobs(hidden: Tensor, w: Tensor, targets: Int32Array): Tensor {
    const [N, C] = hidden.shape
    const V = w.shape[0]
    check(hidden.shape.length === 2 && w.shape[1] === C && targets.length === N, `headLogprobs hidden [${hidden.shape}] w [${w.shape}] ${targets.length} targets`)
    const out = this.out([N])
    const bad = this.addon.headLogprobs(F(hidden), T(w).data, targets, N, C, V, out.data as Float32Array)
    if (bad >= 0) this.badTarget(targets, bad, V)
    return out
  }
  headLogprobsBackward(hidden: Tensor, w: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    const [N, C] = hidden.shape
    const V = w.shape[0]
    check(hidden.shape.length === 2 && w.shape[1] === C && targets.length === N && numel(dlogp.shape) === N, `headLogprobsBackward hidden [${hidden.shape}] w [${w.shape}]`)
    for (let n = 0; n < N; n++) if (!(targets[n] >= 0 && targets[n] < V)) this.badTarget(targets, n, V)
    const out = this.out([N, C])
    this.addon.headLogprobsBackward(F(hidden), T(w).data, targets, F(dlogp), N, C, V, out.data as Float32Array)
    return out
  }
  sampleRows(logits: Tensor, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    const R = rows(logits), V = cols(logits)
    check(uniforms.length === R, `sampleRows: ${uniforms.length} uniforms for ${R} rows`)
    const out: SampledRows = { ids: new Int32Array(R), logprobs: new Float64Array(R), modelLogprobs: new Float64Array(R) }
    this.addon.sampleRows(F(logits), R, V, params.temperature, params.topK, params.topP, uniforms, out.ids, out.logprobs, out.modelLogprobs)
    return out
  }

  // ---- the fused cached forward (src/decode.cc): one addon call per prefill or decode step ----
  private bind(stack: DecoderStack): BoundStack {
    let b = this.stacks.get(stack)
    if (!b) {
      const tensors: NativeTensor[] = []
      const t = (x: Tensor | undefined): Float32Array | Uint16Array | null => {
        if (!x) return null
        const n = T(x)
        tensors.push(n)
        return n.data
      }
      // f32 operands (norms, biases, LoRA): F() checks the dtype, t() records the tensor for the liveness check.
      const f = (x: Tensor | undefined): Float32Array | null => {
        if (!x) return null
        F(x)
        return t(x) as Float32Array
      }
      const C = stack.embed.shape[1]
      const layers = stack.layers.map((lw) => {
        const e: (Float32Array | Uint16Array | number | null)[] = [f(lw.inputNorm), f(lw.postNorm), f(lw.qNorm), f(lw.kNorm)]
        for (const name of STACK_LINEARS) {
          const w = lw[name]
          const lo = lw.lora?.[name]
          const bias = name === 'q' ? lw.qBias : name === 'k' ? lw.kBias : name === 'v' ? lw.vBias : name === 'o' ? lw.oBias : undefined
          const [M, K] = w.shape
          if (lo) check(lo.a.shape[1] === K && lo.b.shape[0] === M && lo.b.shape[1] === lo.a.shape[0], `lora A [${lo.a.shape}] B [${lo.b.shape}] on ${name} [${w.shape}]`)
          if (bias) check(numel(bias.shape) === M, `${name} bias [${bias.shape}] for ${M} outputs`)
          e.push(t(w), M, K, f(bias), lo ? f(lo.a) : null, lo ? f(lo.b) : null, lo ? lo.scale : 0, lo ? lo.a.shape[0] : 0)
        }
        return e
      })
      const H = stack.heads, KV = stack.kvHeads, D = stack.headDim
      check(stack.layers.every((lw) => lw.q.shape[0] === H * D && lw.k.shape[0] === KV * D && lw.o.shape[1] === H * D && lw.q.shape[1] === C), 'forwardCached: stack shapes do not match its heads / head dim / hidden size')
      if (stack.head) check(stack.head.shape.length === 2 && stack.head.shape[1] === C, `decoder stack head [${stack.head.shape}] for hidden size ${C}`)
      const handle = this.addon.bindStack(t(stack.embed)!, f(stack.norm)!, [stack.embed.shape[0], C, H, KV, D], stack.eps, stack.ropeTheta, layers, t(stack.head), stack.head?.shape[0] ?? 0)
      b = { handle, tensors }
      this.stacks.set(stack, b)
    }
    for (const n of b.tensors) if (!n.block.alive) throw new EngineError('engine.backend', 'forwardCached: a tensor of the decoder stack was released')
    return b
  }
  forwardCached(stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): Tensor {
    const { B, C } = checkForwardCached(stack, ids, cu, caches, starts)
    const bound = this.bind(stack)
    const flat: Float32Array[] = []
    for (const c of caches) for (let l = 0; l < c.k.length; l++) flat.push(F(c.k[l]), F(c.v[l]))
    const out = this.out([B, C])
    this.addon.forwardCached(bound.handle, ids, cu, B, starts, flat, out.data as Float32Array)
    return out
  }
  /** A decode step, the head and the draw in one addon call (src/decode.cc decodeSample): rows in chunks over the
   *  threads, only ids and log-probs come back. Same arithmetic as forwardCached → linear → sampleRows. */
  decodeSample(stack: DecoderStack, head: Tensor, ids: Int32Array, caches: readonly CacheTensors[], starts: Int32Array, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    const B = ids.length
    const { C } = checkForwardCached(stack, ids, Int32Array.from({ length: B + 1 }, (_, i) => i), caches, starts)
    const [V, Ch] = head.shape
    check(head.shape.length === 2 && Ch === C, `decodeSample head [${head.shape}] for hidden size ${C}`)
    check(uniforms.length === B, `decodeSample: ${uniforms.length} uniforms for ${B} rows`)
    const hw = T(head).data
    const bound = this.bind(stack)
    const flat: Float32Array[] = []
    for (const c of caches) for (let l = 0; l < c.k.length; l++) flat.push(F(c.k[l]), F(c.v[l]))
    const out: SampledRows = { ids: new Int32Array(B), logprobs: new Float64Array(B), modelLogprobs: new Float64Array(B) }
    this.addon.decodeSample(bound.handle, hw, V, ids, B, starts, flat, params.temperature, params.topK, params.topP, uniforms, out.ids, out.logprobs, out.modelLogprobs)
    return out
  }
}

/** The native backend, or an error saying why it is not available here. */
export function createNativeBackend(): Backend {
  const { addon, reason } = loadNativeAddon()
  if (!addon) throw new EngineError('engine.backend', reason!)
  return new NativeBackend(addon)
}
