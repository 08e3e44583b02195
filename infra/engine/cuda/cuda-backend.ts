// infra/engine/cuda/cuda-backend: the `cuda` engine backend — the current Backend interface (../backend.ts) over
// the extern "C" library of binding/sgcuda.cpp, loaded with koffi. Device memory stays behind opaque buffer
// handles; only host copies and token ids cross into JavaScript. The interface ops run on the fp32 kernels
// (contract precision); the training/sampling fast path is the extra methods below the interface (bf16 base
// GEMM, tensor-core varlen attention, chunked head, token loss, fused AdamW, KV cache decode, device sampling).
// `mode: 'emu'` loads the same library built through the emulation layer (host memory) — what CI tests.
// It does not know models or the learner.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import type koffiModule from 'koffi'
import { EngineError } from '../../errors'
import type { AdamWHyper, Backend, CacheTensors, DecoderStack, LoraOperand, MemoryStats, RowSamplingParams, SampledRows, Tensor, WeightDtype } from '../backend'
import type { LossName } from '../losses'
import { numel } from '../backend'
import { bf16ToF32, f32ToBf16 } from '../safetensors'
import { decodeSampleReference, forwardCachedReference } from '../forward-cached'
import { sampleFromRow } from '../sample-row'
import { buildLibrary } from './build'

type Handle = unknown

/** One device allocation, or a row view into one (parent set: sliceRows); shared by reshaped views, freed when
 *  released or when no tensor references it. A view's handle owns no memory and dies with its parent. */
class Storage {
  constructor(readonly handle: Handle, readonly bytes: number, public freed = false, readonly parent?: Storage) {}
  get dead(): boolean {
    return this.freed || (this.parent?.dead ?? false)
  }
}

/** What one element occupies on the device: 'bf16' only for the fast path's toBf16/random copies (the interface
 *  ops read fp32), 'i32' for uploaded ids. Not Tensor.dtype: an interface bf16 weight (fromHost(…, 'bf16')) is
 *  stored as its bf16-rounded values in fp32, like the ts backend, and says dtype 'bf16'. */
export type CudaElem = 'f32' | 'bf16' | 'i32'

export class CudaTensor implements Tensor {
  readonly dtype?: WeightDtype
  /** base: the tensor a reshape/sliceRows view was taken of, held so the GC cannot free memory a view still reads. */
  constructor(readonly shape: readonly number[], readonly storage: Storage, readonly elem: CudaElem = 'f32', dtype?: WeightDtype, readonly base?: CudaTensor) {
    const d = dtype ?? (elem === 'bf16' ? 'bf16' : undefined)
    if (d === 'bf16') this.dtype = d
  }
}

export interface CudaBackendOptions {
  /** 'device' (nvcc build, a GPU) or 'emu' (g++ + emulation layer, any host). Default: $SG_CUDA_MODE or 'device'. */
  mode?: 'device' | 'emu'
  /** A prebuilt libsgcuda.so (default: $SG_CUDA_LIB, else built and cached by build.ts). */
  libPath?: string
}

const ERR_NAMES = ['ok', 'no_device', 'cuda', 'arg', 'gemm', 'oom']

// koffi type names are process-global: declare the two handle types once.
let handleTypesDeclared = false
const bound = new Map<string, Lib>()

function bindLibrary(path: string): Lib {
  const hit = bound.get(path)
  if (hit) return hit
  const lib = bindLibraryOnce(path)
  bound.set(path, lib)
  return lib
}

// koffi (a native module) is loaded on first use: commands that never bind the CUDA library do not pay for it.
let koffiLoaded: typeof koffiModule | undefined
function loadKoffi(): typeof koffiModule {
  return (koffiLoaded ??= createRequire(import.meta.url)('koffi') as typeof koffiModule)
}

function bindLibraryOnce(path: string) {
  const koffi = loadKoffi()
  const lib = koffi.load(path)
  if (!handleTypesDeclared) {
    // koffi's type names are process-wide, and a second copy of this module (a test runner's fresh module registry over
    // the same native koffi) must not declare them again.
    for (const name of ['sg_ctx', 'sg_buf']) {
      try {
        koffi.pointer(name, koffi.opaque())
      } catch (e) {
        if (!/Duplicate type name/.test((e as Error).message)) throw e
      }
    }
    handleTypesDeclared = true
  }
  const f = (sig: string) => lib.func(sig)
  return {
    createError: f('const char *sg_create_error()'),
    create: f('int sg_create(_Out_ sg_ctx *out)'),
    deviceName: f('const char *sg_device_name(sg_ctx c)'),
    lastError: f('const char *sg_last_error(sg_ctx c)'),
    destroy: f('void sg_destroy(sg_ctx c)'),
    alloc: f('int sg_alloc(sg_ctx c, int64_t bytes, _Out_ sg_buf *out)'),
    free: f('int sg_free(sg_ctx c, sg_buf b)'),
    view: f('int sg_view(sg_ctx c, sg_buf b, int64_t off, int64_t bytes, _Out_ sg_buf *out)'),
    viewFree: f('void sg_view_free(sg_buf b)'),
    liveBytes: f('int64_t sg_live_bytes(sg_ctx c)'),
    peakBytes: f('int64_t sg_peak_bytes(sg_ctx c)'),
    resetPeak: f('void sg_reset_peak(sg_ctx c)'),
    upload: f('int sg_upload(sg_ctx c, sg_buf b, int64_t off, const void *host, int64_t bytes)'),
    download: f('int sg_download(sg_ctx c, sg_buf b, int64_t off, _Out_ void *host, int64_t bytes)'),
    copy: f('int sg_copy(sg_ctx c, sg_buf dst, int64_t dstOff, sg_buf src, int64_t srcOff, int64_t bytes)'),
    sync: f('int sg_sync(sg_ctx c)'),
    castBf16: f('int sg_op_cast_bf16(sg_ctx c, sg_buf x, sg_buf y, int64_t n)'),
    gemm: f('int sg_op_gemm(sg_ctx c, int tA, int tB, int M, int N, int K, float alpha, sg_buf A, sg_buf B, float beta, sg_buf C)'),
    gemmF32: f('int sg_op_gemm_f32(sg_ctx c, int tA, int tB, int M, int N, int K, float alpha, sg_buf A, sg_buf B, float beta, sg_buf C)'),
    axpy: f('int sg_op_axpy(sg_ctx c, sg_buf dst, sg_buf src, int64_t n, float alpha, float dstScale)'),
    sumSquares: f('int sg_op_sum_squares(sg_ctx c, sg_buf x, int64_t n, _Out_ double *out)'),
    addBias: f('int sg_op_add_bias(sg_ctx c, sg_buf y, sg_buf bias, int64_t rows, int M)'),
    embedding: f('int sg_op_embedding(sg_ctx c, sg_buf table, sg_buf ids, int N, int C, sg_buf out)'),
    embeddingBwd: f('int sg_op_embedding_bwd(sg_ctx c, sg_buf dy, sg_buf ids, int N, int C, sg_buf dtable)'),
    rowSoftmax: f('int sg_op_row_softmax(sg_ctx c, sg_buf x, int N, int V, sg_buf targets, sg_buf dlogp, int mode, sg_buf out)'),
    attnSimple: f('int sg_op_attention_simple(sg_ctx c, sg_buf q, sg_buf k, sg_buf v, int T, int S, int H, int KV, int D, int qStart, sg_buf o)'),
    attnSimpleBwd: f('int sg_op_attention_simple_bwd(sg_ctx c, sg_buf q, sg_buf k, sg_buf v, sg_buf dout, int T, int S, int H, int KV, int D, int qStart, sg_buf dq, sg_buf dk, sg_buf dv)'),
    loraFwd: f('int sg_op_lora_fwd(sg_ctx c, sg_buf x, sg_buf A, sg_buf B, int N, int K, int M, int r, float scale, sg_buf y, sg_buf u)'),
    loraBwd: f('int sg_op_lora_bwd(sg_ctx c, sg_buf x, sg_buf A, sg_buf B, sg_buf u, sg_buf dy, int N, int K, int M, int r, float scale, sg_buf dx, sg_buf du, sg_buf dA, sg_buf dB)'),
    rmsnormFwd: f('int sg_op_rmsnorm_fwd(sg_ctx c, sg_buf x, sg_buf w, int N, int C, float eps, sg_buf y, sg_buf rstd)'),
    rmsnormBwd: f('int sg_op_rmsnorm_bwd(sg_ctx c, sg_buf x, sg_buf w, sg_buf rstd, sg_buf dy, int N, int C, sg_buf dx, sg_buf dw)'),
    rope: f('int sg_op_rope(sg_ctx c, sg_buf x, sg_buf pos, int N, int H, int D, float theta, int inverse, sg_buf y)'),
    swigluFwd: f('int sg_op_swiglu_fwd(sg_ctx c, sg_buf g, sg_buf u, int64_t n, sg_buf out)'),
    swigluBwd: f('int sg_op_swiglu_bwd(sg_ctx c, sg_buf g, sg_buf u, sg_buf dy, int64_t n, sg_buf dg, sg_buf du)'),
    attnFwd: f('int sg_op_attention_fwd(sg_ctx c, sg_buf q, sg_buf k, sg_buf v, sg_buf cuQ, sg_buf cuK, sg_buf qStart, int B, int maxT, int H, int KV, int D, sg_buf o, sg_buf lse)'),
    attnBwd: f('int sg_op_attention_bwd(sg_ctx c, sg_buf q, sg_buf k, sg_buf v, sg_buf o, sg_buf lse, sg_buf dout, sg_buf cuQ, sg_buf cuK, sg_buf qStart, int B, int totalQ, int maxS, int H, int KV, int D, sg_buf dq, sg_buf dk, sg_buf dv, sg_buf dvec)'),
    head: f('int sg_op_head_logprobs(sg_ctx c, sg_buf h, sg_buf W, sg_buf targets, int N, int C, int V, int rowChunk, int vocabChunk, sg_buf logp, sg_buf lse, sg_buf hb, sg_buf chunk, sg_buf runM, sg_buf runL, sg_buf tgt)'),
    headBwd: f('int sg_op_head_logprobs_bwd(sg_ctx c, sg_buf h, sg_buf W, sg_buf targets, sg_buf lse, sg_buf dlogp, int N, int C, int V, int rowChunk, int vocabChunk, sg_buf dh, sg_buf hb, sg_buf chunk, sg_buf chunkb)'),
    tokenLoss: f('int sg_op_token_loss(sg_ctx c, sg_buf logp, sg_buf oldLogp, sg_buf adv, sg_buf weight, sg_buf refLogp, int N, int kind, float epsLow, float epsHigh, float klBeta, sg_buf loss, sg_buf dlogp)'),
    adamw: f('int sg_op_adamw(sg_ctx c, sg_buf p, sg_buf g, sg_buf m, sg_buf v, int64_t n, float lr, float b1, float b2, float eps, float wd, int step, float gradScale)'),
    kvAppend: f('int sg_op_kv_append(sg_ctx c, sg_buf kc, sg_buf vc, sg_buf k, sg_buf v, sg_buf lens, int B, int Smax, int KV, int D)'),
    decodeAttn: f('int sg_op_decode_attention(sg_ctx c, sg_buf q, sg_buf kc, sg_buf vc, sg_buf lens, int B, int Smax, int H, int KV, int D, sg_buf scores, sg_buf o)'),
    reservedBytes: f('int64_t sg_reserved_bytes(sg_ctx c)'),
    fillRandom: f('int sg_op_fill_random(sg_ctx c, sg_buf b, int bf16out, int64_t n, uint64_t seed, float scale)'),
    sample: f('int sg_op_sample(sg_ctx c, sg_buf logits, int B, int V, float temperature, int topK, float topP, sg_buf uniforms, sg_buf ids, sg_buf logprobs, sg_buf modelLogprobs)'),
  }
}
type Lib = ReturnType<typeof bindLibraryOnce>

function check(cond: boolean, what: string): void {
  if (!cond) throw new EngineError('engine.shape', `shape mismatch: ${what}`)
}

/** Where the cuda backend cannot start, why (one line) — for a caller that falls back to `native`. */
export function cudaUnavailableReason(opts: CudaBackendOptions = {}): string | null {
  try {
    createCudaBackend(opts).dispose()
    return null
  } catch (err) {
    return (err as Error).message.split('\n')[0]
  }
}

const NVIDIA_DRIVER_PATHS = ['/dev/nvidia0', '/dev/nvidiactl', '/proc/driver/nvidia/version']

export function createCudaBackend(opts: CudaBackendOptions = {}): CudaBackend {
  const mode = opts.mode ?? (process.env.SG_CUDA_MODE === 'emu' ? 'emu' : 'device')
  let path = opts.libPath ?? process.env.SG_CUDA_LIB
  try {
    // No NVIDIA driver on this host: say so at once instead of compiling the device library (about a minute) first.
    if (!path && mode === 'device' && !NVIDIA_DRIVER_PATHS.some((p) => existsSync(p))) throw new Error('no NVIDIA driver or GPU on this host (no /dev/nvidia0, /dev/nvidiactl or /proc/driver/nvidia)')
    if (!path) path = buildLibrary(mode).path
    return new CudaBackend(bindLibrary(path), mode)
  } catch (err) {
    if (err instanceof EngineError && err.code === 'engine.cuda_unavailable') throw err
    throw new EngineError('engine.cuda_unavailable', `cuda backend unavailable (${mode}): ${(err as Error).message.split('\n')[0]}; use --backend native`, { cause: err })
  }
}

export class CudaBackend implements Backend {
  readonly name: string
  readonly device: string
  private readonly ctx: Handle
  private readonly registry = new FinalizationRegistry<{ h: Handle; s: Storage }>((x) => this.freeStorage(x.s))

  constructor(private readonly lib: Lib, readonly mode: 'device' | 'emu') {
    const out: Handle[] = [null]
    const st = lib.create(out) as number
    if (st !== 0) throw new EngineError('engine.cuda_unavailable', `cuda backend unavailable: ${lib.createError() as string}; use --backend native`)
    this.ctx = out[0]
    this.device = lib.deviceName(this.ctx) as string
    this.name = mode === 'emu' ? 'cuda-emu' : 'cuda'
  }

  private disposed = false
  /** Owned allocations not yet freed: dispose frees them before the context goes (a finalizer that ran after
   *  sg_destroy would touch a deleted context). */
  private readonly owned = new Set<Storage>()

  /** Free every allocation and the context; tensors of this backend are unusable afterwards. */
  dispose(): void {
    if (this.disposed) return
    for (const s of this.owned) this.freeStorage(s)
    this.disposed = true
    this.lib.destroy(this.ctx)
  }

  private ok(st: number, what: string): void {
    if (st !== 0) throw new EngineError(`engine.cuda_${ERR_NAMES[st] ?? 'error'}`, `cuda ${what}: ${this.lib.lastError(this.ctx) as string}`)
  }

  private freeStorage(s: Storage): void {
    if (s.freed) return
    s.freed = true
    if (s.parent) this.lib.viewFree(s.handle)
    else if (!this.disposed) {
      this.owned.delete(s)
      this.lib.free(this.ctx, s.handle)
    }
  }

  private allocStorage(bytes: number): Storage {
    const out: Handle[] = [null]
    if (this.disposed) throw new EngineError('engine.backend', 'the cuda backend was disposed')
    this.ok(this.lib.alloc(this.ctx, bytes, out) as number, `alloc ${bytes} bytes`)
    const s = new Storage(out[0], bytes)
    this.owned.add(s)
    return s
  }

  private tensor(shape: readonly number[], elem: CudaElem = 'f32', storage?: Storage): CudaTensor {
    const s = storage ?? this.allocStorage(numel(shape) * (elem === 'bf16' ? 2 : 4))
    const t = new CudaTensor([...shape], s, elem)
    if (!storage) this.registry.register(t, { h: s.handle, s })
    return t
  }

  private T(t: Tensor): CudaTensor {
    if (!(t instanceof CudaTensor)) throw new EngineError('engine.backend', 'tensor does not belong to the cuda backend')
    if (t.storage.dead || this.disposed) throw new EngineError('engine.backend', 'tensor used after release')
    return t
  }

  /** The device buffer of an fp32 (or i32 ids) operand; a 2-byte fast-path copy cannot feed an fp32 kernel. */
  private h(t: Tensor): Handle {
    const ct = this.T(t)
    if (ct.elem === 'bf16') throw new EngineError('engine.backend', 'a bf16 device copy (toBf16/random) was passed to an fp32 op; pass the fromHost tensor')
    return ct.storage.handle
  }

  private ints(a: Int32Array): CudaTensor {
    const t = this.tensor([a.length], 'i32')
    this.ok(this.lib.upload(this.ctx, t.storage.handle, 0, a, a.byteLength) as number, 'upload ids')
    return t
  }

  /** Free a tensor's device memory now (and every view of it); a no-op for a sliceRows view. */
  release(t: Tensor): void {
    if (!(t instanceof CudaTensor)) throw new EngineError('engine.backend', 'tensor does not belong to the cuda backend')
    if (!t.storage.parent) this.freeStorage(t.storage)
  }

  memoryStats(resetPeak = false): MemoryStats {
    const m = this.memory()
    if (resetPeak) this.resetPeak()
    return { liveBytes: m.live, peakBytes: m.peak }
  }

  /** Free temporaries now: owned memory, and the handles of sliceRows views (which own no memory). */
  private drop(ts: readonly Tensor[]): void {
    for (const t of ts) this.freeStorage(this.T(t).storage)
  }

  /** Bytes live now and the peak since the last resetPeak (this backend's allocations). */
  memory(): { live: number; peak: number; reserved: number } {
    return { live: Number(this.lib.liveBytes(this.ctx)), peak: Number(this.lib.peakBytes(this.ctx)), reserved: Number(this.lib.reservedBytes(this.ctx)) }
  }

  /** A tensor of uniform [−scale, scale) values drawn on the device from (seed, index): benchmark weights. */
  random(shape: readonly number[], seed: number, scale: number, dtype: WeightDtype = 'f32'): CudaTensor {
    const t = this.tensor(shape, dtype)
    this.ok(this.lib.fillRandom(this.ctx, t.storage.handle, dtype === 'bf16' ? 1 : 0, numel(shape), BigInt(seed), scale) as number, 'random')
    return t
  }

  resetPeak(): void {
    this.lib.resetPeak(this.ctx)
  }

  synchronize(): void {
    this.ok(this.lib.sync(this.ctx) as number, 'sync')
  }

  // ---- memory ----
  /** 'bf16' rounds to bfloat16 (as the ts backend) and keeps the rounded values in fp32 for the interface ops. */
  fromHost(data: Float32Array, shape: readonly number[], dtype: WeightDtype = 'f32'): Tensor {
    check(numel(shape) === data.length, `fromHost: ${data.length} values for shape [${shape}]`)
    const src = dtype === 'bf16' ? data.map((x) => bf16ToF32(f32ToBf16(x))) : data
    const t = new CudaTensor([...shape], this.allocStorage(src.byteLength), 'f32', dtype)
    this.registry.register(t, { h: t.storage.handle, s: t.storage })
    this.ok(this.lib.upload(this.ctx, t.storage.handle, 0, src, src.byteLength) as number, 'upload')
    return t
  }

  toHost(t: Tensor): Float32Array {
    const ct = this.T(t)
    const n = numel(ct.shape)
    if (ct.elem === 'bf16') {
      const raw = new Uint16Array(n)
      this.ok(this.lib.download(this.ctx, ct.storage.handle, 0, raw, raw.byteLength) as number, 'download')
      return Float32Array.from(raw, (b) => bf16ToF32(b))
    }
    const out = new Float32Array(n)
    this.ok(this.lib.download(this.ctx, ct.storage.handle, 0, out, out.byteLength) as number, 'download')
    if (ct.elem === 'i32') return Float32Array.from(new Int32Array(out.buffer))
    return out
  }

  /** toHost off the main thread (koffi's worker pool): the wait for the device's queued work does not block a server. */
  toHostAsync(t: Tensor): Promise<Float32Array> {
    const ct = this.T(t)
    const out = new Float32Array(numel(ct.shape))
    return new Promise((resolve, reject) => {
      ;(this.lib.download as unknown as { async: (...a: unknown[]) => void }).async(this.ctx, ct.storage.handle, 0, out, out.byteLength, (err: unknown, st: number) => {
        if (err) reject(err)
        else if (st !== 0) reject(new EngineError('engine.cuda_download', `cuda download: ${this.lib.lastError(this.ctx) as string}`))
        else resolve(out)
      })
    })
  }

  zeros(shape: readonly number[]): Tensor {
    return this.tensor(shape)
  }

  reshape(t: Tensor, shape: readonly number[]): Tensor {
    const ct = this.T(t)
    check(numel(shape) === numel(ct.shape), `reshape [${ct.shape}] → [${shape}]`)
    return new CudaTensor([...shape], ct.storage, ct.elem, ct.dtype, ct.base ?? ct)
  }

  sliceRows(t: Tensor, start: number, end: number): Tensor {
    const ct = this.T(t)
    check(start >= 0 && end <= ct.shape[0] && start <= end, `sliceRows [${start}, ${end}) of [${ct.shape}]`)
    const rowBytes = (numel(ct.shape) / ct.shape[0]) * (ct.elem === 'bf16' ? 2 : 4)
    const out: Handle[] = [null]
    this.ok(this.lib.view(this.ctx, ct.storage.handle, start * rowBytes, (end - start) * rowBytes, out) as number, 'sliceRows')
    const s = new Storage(out[0], (end - start) * rowBytes, false, ct.storage.parent ?? ct.storage)
    const view = new CudaTensor([end - start, ...ct.shape.slice(1)], s, ct.elem, ct.dtype, ct.base ?? ct)
    this.registry.register(view, { h: s.handle, s })
    return view
  }

  concatRows(ts: readonly Tensor[]): Tensor {
    check(ts.length > 0, 'concatRows of nothing')
    const tail = ts[0].shape.slice(1)
    for (const t of ts) check(t.shape.slice(1).join() === tail.join(), `concatRows trailing dims [${t.shape}] vs [${ts[0].shape}]`)
    const rows = ts.reduce((s, t) => s + t.shape[0], 0)
    const out = this.tensor([rows, ...tail])
    let off = 0
    for (const t of ts) {
      const bytes = numel(t.shape) * 4
      this.ok(this.lib.copy(this.ctx, out.storage.handle, off, this.h(t), 0, bytes) as number, 'concatRows')
      off += bytes
    }
    return out
  }

  writeRows(dst: Tensor, rowOffset: number, src: Tensor): void {
    const d = this.T(dst)
    const row = numel(d.shape) / d.shape[0]
    check(src.shape.slice(1).join() === d.shape.slice(1).join() && rowOffset + src.shape[0] <= d.shape[0], `writeRows [${src.shape}] at ${rowOffset} into [${d.shape}]`)
    this.ok(this.lib.copy(this.ctx, d.storage.handle, rowOffset * row * 4, this.h(src), 0, numel(src.shape) * 4) as number, 'writeRows')
  }

  clone(t: Tensor): Tensor {
    const out = new CudaTensor([...t.shape], this.allocStorage(numel(t.shape) * 4), 'f32', this.T(t).dtype)
    this.registry.register(out, { h: out.storage.handle, s: out.storage })
    this.ok(this.lib.copy(this.ctx, out.storage.handle, 0, this.h(t), 0, numel(t.shape) * 4) as number, 'clone')
    return out
  }

  // ---- elementwise / reductions ----
  add(a: Tensor, b: Tensor): Tensor {
    check(numel(a.shape) === numel(b.shape), `add [${a.shape}] + [${b.shape}]`)
    const out = this.clone(a)
    this.addInPlace(out, b)
    return out
  }

  addInPlace(dst: Tensor, src: Tensor, alpha = 1): void {
    check(numel(dst.shape) === numel(src.shape), `addInPlace [${dst.shape}] += [${src.shape}]`)
    this.ok(this.lib.axpy(this.ctx, this.h(dst), this.h(src), numel(dst.shape), alpha, 1) as number, 'addInPlace')
  }

  scaleInPlace(t: Tensor, s: number): void {
    this.ok(this.lib.axpy(this.ctx, this.h(t), null, numel(t.shape), 0, s) as number, 'scaleInPlace')
  }

  fillZero(t: Tensor): void {
    this.ok(this.lib.axpy(this.ctx, this.h(t), null, numel(t.shape), 0, 0) as number, 'fillZero')
  }

  sumSquares(t: Tensor): number {
    const out = [0]
    this.ok(this.lib.sumSquares(this.ctx, this.h(t), numel(t.shape), out) as number, 'sumSquares')
    return out[0]
  }

  adamwStep(p: Tensor, g: Tensor, m: Tensor, v: Tensor, h: AdamWHyper): void {
    const n = numel(p.shape)
    check(numel(g.shape) === n && numel(m.shape) === n && numel(v.shape) === n, 'adamwStep operands differ in size')
    this.ok(this.lib.adamw(this.ctx, this.h(p), this.h(g), this.h(m), this.h(v), n, h.lr, h.beta1, h.beta2, h.eps, h.weightDecay, h.step, 1) as number, 'adamw')
  }

  // ---- ops with backward ----
  embedding(table: Tensor, ids: Int32Array): Tensor {
    const [V, C] = table.shape
    for (const id of ids) if (!(id >= 0 && id < V)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${V})`)
    const out = this.tensor([ids.length, C])
    this.ok(this.lib.embedding(this.ctx, this.h(table), this.h(this.ints(ids)), ids.length, C, out.storage.handle) as number, 'embedding')
    return out
  }

  embeddingBackward(dy: Tensor, ids: Int32Array, vocabSize: number): Tensor {
    const C = numel(dy.shape) / dy.shape[0]
    check(dy.shape[0] === ids.length, `embeddingBackward dy [${dy.shape}] for ${ids.length} ids`)
    for (const id of ids) if (!(id >= 0 && id < vocabSize)) throw new EngineError('engine.token_id', `token id ${id} is outside the vocabulary [0, ${vocabSize})`)
    const out = this.tensor([vocabSize, C])
    this.ok(this.lib.embeddingBwd(this.ctx, this.h(dy), this.h(this.ints(ids)), ids.length, C, out.storage.handle) as number, 'embeddingBackward')
    return out
  }

  linear(x: Tensor, w: Tensor, bias?: Tensor, lora?: LoraOperand): Tensor {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(w.shape.length === 2 && x.shape[x.shape.length - 1] === K && Number.isInteger(N) && (!bias || numel(bias.shape) === M), `linear x [${x.shape}] w [${w.shape}]`)
    const y = this.tensor([...x.shape.slice(0, -1), M])
    this.ok(this.lib.gemmF32(this.ctx, 0, 1, N, M, K, 1, this.h(x), this.h(w), 0, y.storage.handle) as number, 'linear')
    if (bias) this.ok(this.lib.addBias(this.ctx, y.storage.handle, this.h(bias), N, M) as number, 'linear bias')
    if (lora) {
      const r = lora.a.shape[0]
      check(lora.a.shape[1] === K && lora.b.shape[0] === M && lora.b.shape[1] === r, `lora A [${lora.a.shape}] B [${lora.b.shape}]`)
      const u = this.tensor([N, r])
      this.ok(this.lib.loraFwd(this.ctx, this.h(x), this.h(lora.a), this.h(lora.b), N, K, M, r, lora.scale, y.storage.handle, u.storage.handle) as number, 'lora')
      this.release(u)
    }
    return y
  }

  linearBackward(x: Tensor, w: Tensor, dy: Tensor, lora?: LoraOperand): { dx: Tensor; dA?: Tensor; dB?: Tensor } {
    const [M, K] = w.shape
    const N = numel(x.shape) / K
    check(w.shape.length === 2 && Number.isInteger(N) && numel(dy.shape) === N * M, `linearBackward x [${x.shape}] w [${w.shape}] dy [${dy.shape}]`)
    const dx = this.tensor(x.shape)
    this.ok(this.lib.gemmF32(this.ctx, 0, 0, N, K, M, 1, this.h(dy), this.h(w), 0, dx.storage.handle) as number, 'linearBackward dx')
    if (!lora) return { dx }
    const r = lora.a.shape[0]
    const u = this.tensor([N, r]), du = this.tensor([N, r]), dA = this.tensor([r, K]), dB = this.tensor([M, r])
    this.ok(this.lib.gemmF32(this.ctx, 0, 1, N, r, K, 1, this.h(x), this.h(lora.a), 0, u.storage.handle) as number, 'lora u')
    this.ok(this.lib.loraBwd(this.ctx, this.h(x), this.h(lora.a), this.h(lora.b), u.storage.handle, this.h(dy), N, K, M, r, lora.scale,
      dx.storage.handle, du.storage.handle, dA.storage.handle, dB.storage.handle) as number, 'lora backward')
    this.release(u)
    this.release(du)
    return { dx, dA, dB }
  }

  linearWeightGrad(x: Tensor, dy: Tensor, into?: Tensor): Tensor {
    // Rows are the first dimension of dy (x and dy may be [N,H,D]-shaped views of [N,K] and [N,M]).
    const N = dy.shape[0], M = numel(dy.shape) / N, K = numel(x.shape) / N
    check(Number.isInteger(K), `linearWeightGrad x [${x.shape}] dy [${dy.shape}]`)
    if (into) check(numel(into.shape) === M * K && into.dtype !== 'bf16', `linearWeightGrad into [${into.shape}] for [${M},${K}]`)
    const out = (into as CudaTensor | undefined) ?? this.tensor([M, K])
    this.ok(this.lib.gemmF32(this.ctx, 1, 0, M, K, N, 1, this.h(dy), this.h(x), into ? 1 : 0, out.storage.handle) as number, 'linearWeightGrad')
    return out
  }
  mergeLora(w: Tensor, lora: LoraOperand): Tensor {
    const [M, K] = w.shape
    const r = lora.a.shape[0]
    const out = this.tensor(w.shape)
    this.ok(this.lib.copy(this.ctx, out.storage.handle, 0, this.h(w), 0, numel(w.shape) * 4) as number, 'mergeLora copy')
    this.ok(this.lib.gemmF32(this.ctx, 0, 0, M, K, r, lora.scale, this.h(lora.b), this.h(lora.a), 1, this.h(out)) as number, 'mergeLora')
    return out
  }

  rmsnorm(x: Tensor, w: Tensor, eps: number): Tensor {
    const C = x.shape[x.shape.length - 1]
    const N = numel(x.shape) / C
    check(numel(w.shape) === C, `rmsnorm x [${x.shape}] w [${w.shape}]`)
    const y = this.tensor(x.shape)
    this.ok(this.lib.rmsnormFwd(this.ctx, this.h(x), this.h(w), N, C, eps, y.storage.handle, null) as number, 'rmsnorm')
    return y
  }

  rmsnormBackward(x: Tensor, w: Tensor, eps: number, dy: Tensor): { dx: Tensor; dw: Tensor } {
    const C = x.shape[x.shape.length - 1]
    const N = numel(x.shape) / C
    check(numel(w.shape) === C && numel(dy.shape) === numel(x.shape), `rmsnormBackward x [${x.shape}] w [${w.shape}] dy [${dy.shape}]`)
    const y = this.tensor([N, C]), rstd = this.tensor([N]), dx = this.tensor(x.shape), dw = this.tensor(w.shape)
    this.ok(this.lib.rmsnormFwd(this.ctx, this.h(x), this.h(w), N, C, eps, y.storage.handle, rstd.storage.handle) as number, 'rmsnorm rstd')
    this.ok(this.lib.rmsnormBwd(this.ctx, this.h(x), this.h(w), rstd.storage.handle, this.h(dy), N, C, dx.storage.handle, dw.storage.handle) as number, 'rmsnormBackward')
    this.release(y)
    this.release(rstd)
    return { dx, dw }
  }

  private ropeRun(x: Tensor, positions: Int32Array, theta: number, inverse: number): Tensor {
    const [N, H, D] = x.shape
    check(x.shape.length === 3 && positions.length === N && D % 2 === 0, `rope wants [N,H,D] with even D and N positions, got [${x.shape}] and ${positions.length}`)
    const y = this.tensor(x.shape)
    this.ok(this.lib.rope(this.ctx, this.h(x), this.h(this.ints(positions)), N, H, D, theta, inverse, y.storage.handle) as number, 'rope')
    return y
  }

  rope(x: Tensor, positions: Int32Array, theta: number): Tensor {
    return this.ropeRun(x, positions, theta, 0)
  }

  ropeBackward(dy: Tensor, positions: Int32Array, theta: number): Tensor {
    return this.ropeRun(dy, positions, theta, 1)
  }

  attention(q: Tensor, k: Tensor, v: Tensor, qStart: number): Tensor {
    const [Tq, H, D] = q.shape
    const [S, KV] = k.shape
    check(q.shape.length === 3 && k.shape[2] === D && v.shape[0] === S && v.shape[1] === KV && H % KV === 0, `attention q [${q.shape}] k [${k.shape}] v [${v.shape}]`)
    check(qStart + Tq <= S, `attention: queries end at ${qStart + Tq} but only ${S} keys`)
    const o = this.tensor(q.shape)
    this.ok(this.lib.attnSimple(this.ctx, this.h(q), this.h(k), this.h(v), Tq, S, H, KV, D, qStart, o.storage.handle) as number, 'attention')
    return o
  }

  attentionBackward(q: Tensor, k: Tensor, v: Tensor, qStart: number, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    const [Tq, H, D] = q.shape
    const [S, KV] = k.shape
    const dq = this.tensor(q.shape), dk = this.tensor(k.shape), dv = this.tensor(v.shape)
    this.ok(this.lib.attnSimpleBwd(this.ctx, this.h(q), this.h(k), this.h(v), this.h(dy), Tq, S, H, KV, D, qStart, dq.storage.handle, dk.storage.handle, dv.storage.handle) as number, 'attentionBackward')
    return { dq, dk, dv }
  }

  swiglu(gate: Tensor, up: Tensor): Tensor {
    check(numel(gate.shape) === numel(up.shape), `swiglu [${gate.shape}] [${up.shape}]`)
    const out = this.tensor(gate.shape)
    this.ok(this.lib.swigluFwd(this.ctx, this.h(gate), this.h(up), numel(gate.shape), out.storage.handle) as number, 'swiglu')
    return out
  }

  swigluBackward(gate: Tensor, up: Tensor, dy: Tensor): { dgate: Tensor; dup: Tensor } {
    const dgate = this.tensor(gate.shape), dup = this.tensor(up.shape)
    this.ok(this.lib.swigluBwd(this.ctx, this.h(gate), this.h(up), this.h(dy), numel(gate.shape), dgate.storage.handle, dup.storage.handle) as number, 'swigluBackward')
    return { dgate, dup }
  }

  private checkTargets(logits: Tensor, targets: Int32Array): void {
    const N = logits.shape[0], V = numel(logits.shape) / N
    check(targets.length === N, `targets ${targets.length} for ${N} rows`)
    for (const t of targets) if (!(t >= 0 && t < V)) throw new EngineError('engine.token_id', `target id ${t} is outside the vocabulary [0, ${V})`)
  }

  logSoftmax(logits: Tensor): Tensor {
    const N = logits.shape[0], V = numel(logits.shape) / N
    const out = this.tensor([N, V])
    this.ok(this.lib.rowSoftmax(this.ctx, this.h(logits), N, V, null, null, 0, out.storage.handle) as number, 'logSoftmax')
    return out
  }

  targetLogprobs(logits: Tensor, targets: Int32Array): Tensor {
    this.checkTargets(logits, targets)
    const N = logits.shape[0], V = numel(logits.shape) / N
    const out = this.tensor([N])
    this.ok(this.lib.rowSoftmax(this.ctx, this.h(logits), N, V, this.h(this.ints(targets)), null, 1, out.storage.handle) as number, 'targetLogprobs')
    return out
  }

  targetLogprobsBackward(logits: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    this.checkTargets(logits, targets)
    const N = logits.shape[0], V = numel(logits.shape) / N
    const out = this.tensor([N, V])
    this.ok(this.lib.rowSoftmax(this.ctx, this.h(logits), N, V, this.h(this.ints(targets)), this.h(dlogp), 2, out.storage.handle) as number, 'targetLogprobsBackward')
    return out
  }

  private checkCu(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array): void {
    const [N, H, D] = q.shape
    const KV = k.shape[1]
    check(q.shape.length === 3 && k.shape.length === 3 && k.shape[0] === N && k.shape[2] === D && v.shape.join() === k.shape.join() && H % KV === 0,
      `attentionVarlen q [${q.shape}] k [${k.shape}] v [${v.shape}]`)
    let okCu = cu.length >= 2 && cu[0] === 0 && cu[cu.length - 1] === N
    for (let b = 0; okCu && b + 1 < cu.length; b++) okCu = cu[b + 1] >= cu[b]
    if (!okCu) throw new EngineError('engine.shape', `attentionVarlen: cu [${Array.from(cu)}] are not cumulative offsets from 0 to ${N}`)
  }

  /** Interface varlen: each sequence of the packed batch through the fp32 attention kernel (contract precision,
   *  any head dim), positions from 0. The tensor-core kernel is attentionVarlenLse (bf16 tolerance, D 64/128). */
  attentionVarlen(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array): Tensor {
    this.checkCu(q, k, v, cu)
    const o = this.tensor(q.shape)
    for (let b = 0; b + 1 < cu.length; b++) {
      const s = cu[b], e = cu[b + 1]
      if (e === s) continue
      const part = [this.sliceRows(q, s, e), this.sliceRows(k, s, e), this.sliceRows(v, s, e)]
      const ob = this.attention(part[0], part[1], part[2], 0)
      this.writeRows(o, s, ob)
      this.drop([...part, ob])
    }
    return o
  }

  attentionVarlenBackward(q: Tensor, k: Tensor, v: Tensor, cu: Int32Array, dy: Tensor): { dq: Tensor; dk: Tensor; dv: Tensor } {
    this.checkCu(q, k, v, cu)
    check(dy.shape.join() === q.shape.join(), `attentionVarlenBackward dy [${dy.shape}] for q [${q.shape}]`)
    const dq = this.tensor(q.shape), dk = this.tensor(k.shape), dv = this.tensor(v.shape)
    for (let b = 0; b + 1 < cu.length; b++) {
      const s = cu[b], e = cu[b + 1]
      if (e === s) continue
      const part = [this.sliceRows(q, s, e), this.sliceRows(k, s, e), this.sliceRows(v, s, e), this.sliceRows(dy, s, e)]
      const g = this.attentionBackward(part[0], part[1], part[2], 0, part[3])
      this.writeRows(dq, s, g.dq)
      this.writeRows(dk, s, g.dk)
      this.writeRows(dv, s, g.dv)
      this.drop([...part, g.dq, g.dk, g.dv])
    }
    return { dq, dk, dv }
  }

  private static readonly HEAD_ROWS = 256

  private checkHead(hidden: Tensor, w: Tensor, targets: Int32Array): void {
    const [N, C] = hidden.shape
    const V = w.shape[0]
    check(hidden.shape.length === 2 && w.shape.length === 2 && w.shape[1] === C && targets.length === N, `headLogprobs hidden [${hidden.shape}] w [${w.shape}] ${targets.length} targets`)
    for (const t of targets) if (!(t >= 0 && t < V)) throw new EngineError('engine.token_id', `target id ${t} is outside the vocabulary [0, ${V})`)
  }

  /** Interface fused head (fp32, contract precision): row chunks of logits, never the whole [N,V]. The bf16
   *  fast path with lse is headLogprobsLse. */
  headLogprobs(hidden: Tensor, w: Tensor, targets: Int32Array): Tensor {
    this.checkHead(hidden, w, targets)
    const N = hidden.shape[0]
    const out = this.tensor([N])
    for (let s = 0; s < N; s += CudaBackend.HEAD_ROWS) {
      const e = Math.min(N, s + CudaBackend.HEAD_ROWS)
      const hs = this.sliceRows(hidden, s, e)
      const lg = this.linear(hs, w)
      const lp = this.targetLogprobs(lg, targets.subarray(s, e))
      this.writeRows(out, s, lp)
      this.drop([hs, lg, lp])
    }
    return out
  }

  /** Recomputes each row chunk's logits: dhidden = (dlogp · (onehot − softmax)) w. */
  headLogprobsBackward(hidden: Tensor, w: Tensor, targets: Int32Array, dlogp: Tensor): Tensor {
    this.checkHead(hidden, w, targets)
    const [N, C] = hidden.shape
    check(numel(dlogp.shape) === N, `headLogprobsBackward dlogp [${dlogp.shape}] for ${N} rows`)
    const dh = this.tensor([N, C])
    const d1 = this.reshape(dlogp, [N])
    for (let s = 0; s < N; s += CudaBackend.HEAD_ROWS) {
      const e = Math.min(N, s + CudaBackend.HEAD_ROWS)
      const hs = this.sliceRows(hidden, s, e), ds = this.sliceRows(d1, s, e)
      const lg = this.linear(hs, w)
      const dlg = this.targetLogprobsBackward(lg, targets.subarray(s, e), ds)
      const dx = this.linearBackward(hs, w, dlg).dx
      this.writeRows(dh, s, dx)
      this.drop([hs, ds, lg, dlg, dx])
    }
    return dh
  }

  /** The sample-row.ts rule over a host copy of the logits (float64, ties to the lower id): the same ids as the ts
   *  and native backends for the same uniforms. The device sampler (sampleDevice) draws in id order in float32,
   *  which does not pick the same id for every uniform, so the interface does not use it. */
  sampleRows(logits: Tensor, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    check(logits.shape.length === 2, `sampleRows logits [${logits.shape}]`)
    const [R, V] = logits.shape
    check(uniforms.length === R, `sampleRows: ${uniforms.length} uniforms for ${R} rows`)
    const x = this.toHost(logits)
    const out: SampledRows = { ids: new Int32Array(R), logprobs: new Float64Array(R), modelLogprobs: new Float64Array(R) }
    for (let r = 0; r < R; r++) {
      const d = sampleFromRow(x.subarray(r * V, (r + 1) * V), params, uniforms[r])
      out.ids[r] = d.id
      out.logprobs[r] = d.logprob
      out.modelLogprobs[r] = d.modelLogprob
    }
    return out
  }
  /** The interface's fused cached forward, composed from this backend's ops (forward-cached.ts); the device decode
   *  path (kvAppend / decodeAttention below) is the fast one. */
  forwardCached(stack: DecoderStack, ids: Int32Array, cu: Int32Array, caches: readonly CacheTensors[], starts: Int32Array): Tensor {
    return forwardCachedReference(this, stack, ids, cu, caches, starts)
  }
  decodeSample(stack: DecoderStack, head: Tensor, ids: Int32Array, caches: readonly CacheTensors[], starts: Int32Array, params: RowSamplingParams, uniforms: Float64Array): SampledRows {
    return decodeSampleReference(this, stack, head, ids, caches, starts, params, uniforms)
  }

  // ---- the fast path (issue 11's op list), beyond the current interface ----

  /** A bf16 copy of an fp32 tensor (the frozen base weights). */
  toBf16(t: Tensor): CudaTensor {
    const out = this.tensor(t.shape, 'bf16')
    this.ok(this.lib.castBf16(this.ctx, this.h(t), out.storage.handle, numel(t.shape)) as number, 'toBf16')
    return out
  }

  /** x [N,K] (fp32, rounded to bf16) · w [M,K]ᵀ (bf16) → [N,M] fp32 through cuBLASLt (host reference when emulated). */
  linearBf16(x: Tensor, wBf16: CudaTensor): Tensor {
    const [N, K] = x.shape
    const M = wBf16.shape[0]
    check(wBf16.elem === 'bf16' && wBf16.shape[1] === K, `linearBf16 x [${x.shape}] w [${wBf16.shape}] ${wBf16.elem}`)
    const xb = this.toBf16(x)
    const y = this.tensor([N, M])
    this.ok(this.lib.gemm(this.ctx, 0, 1, N, M, K, 1, xb.storage.handle, wBf16.storage.handle, 0, y.storage.handle) as number, 'linearBf16')
    this.release(xb)
    return y
  }

  /** Packed variable-length causal GQA attention on tensor cores (D 64 or 128). cuQ/cuK: B+1 cumulative offsets. */
  attentionVarlenLse(q: Tensor, k: Tensor, v: Tensor, cuQ: Int32Array, cuK: Int32Array, qStarts?: Int32Array): { o: Tensor; lse: Tensor } {
    const [, H, D] = q.shape
    const KV = k.shape[1]
    const B = cuQ.length - 1
    let maxT = 0
    for (let b = 0; b < B; b++) maxT = Math.max(maxT, cuQ[b + 1] - cuQ[b])
    check(cuK.length === B + 1 && cuQ[B] === q.shape[0] && cuK[B] === k.shape[0], 'attentionVarlen offsets do not match the row counts')
    const o = this.tensor(q.shape), lse = this.tensor([q.shape[0], H])
    this.ok(this.lib.attnFwd(this.ctx, this.h(q), this.h(k), this.h(v), this.h(this.ints(cuQ)), this.h(this.ints(cuK)), this.h(this.ints(qStarts ?? new Int32Array(B))),
      B, maxT, H, KV, D, o.storage.handle, lse.storage.handle) as number, 'attentionVarlen')
    return { o, lse }
  }

  attentionVarlenLseBackward(q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor, dout: Tensor, cuQ: Int32Array, cuK: Int32Array,
    qStarts?: Int32Array): { dq: Tensor; dk: Tensor; dv: Tensor } {
    const [NQ, H, D] = q.shape
    const KV = k.shape[1]
    const B = cuQ.length - 1
    let maxS = 0
    for (let b = 0; b < B; b++) maxS = Math.max(maxS, cuK[b + 1] - cuK[b])
    const dq = this.tensor(q.shape), dk = this.tensor(k.shape), dv = this.tensor(v.shape), dvec = this.tensor([NQ, H])
    this.ok(this.lib.attnBwd(this.ctx, this.h(q), this.h(k), this.h(v), this.h(o), this.h(lse), this.h(dout), this.h(this.ints(cuQ)), this.h(this.ints(cuK)),
      this.h(this.ints(qStarts ?? new Int32Array(B))), B, NQ, maxS, H, KV, D, dq.storage.handle, dk.storage.handle, dv.storage.handle, dvec.storage.handle) as number, 'attentionVarlenBackward')
    this.release(dvec)
    return { dq, dk, dv }
  }

  /** Fused chunked head: h [N,C], W [V,C] bf16 → target log-probs [N] and lse [N]; never [N,V]. */
  headLogprobsLse(h: Tensor, wBf16: CudaTensor, targets: Int32Array, rowChunk = 2048, vocabChunk = 16384): { logp: Tensor; lse: Tensor } {
    const [N, C] = h.shape
    const V = wBf16.shape[0]
    check(wBf16.elem === 'bf16' && wBf16.shape[1] === C, `headLogprobsLse wants a toBf16 weight [V,${C}], got [${wBf16.shape}] ${wBf16.elem}`)
    for (const t of targets) if (!(t >= 0 && t < V)) throw new EngineError('engine.token_id', `target id ${t} is outside the vocabulary [0, ${V})`)
    const rc = Math.min(rowChunk, N), vc = Math.min(vocabChunk, V)
    const logp = this.tensor([N]), lse = this.tensor([N])
    const scratch = [this.tensor([N, C], 'bf16'), this.tensor([rc * vc]), this.tensor([N]), this.tensor([N]), this.tensor([N])]
    this.ok(this.lib.head(this.ctx, this.h(h), wBf16.storage.handle, this.h(this.ints(targets)), N, C, V, rc, vc, logp.storage.handle, lse.storage.handle,
      ...scratch.map((s) => s.storage.handle)) as number, 'headLogprobs')
    for (const s of scratch) this.release(s)
    return { logp, lse }
  }

  headLogprobsLseBackward(h: Tensor, wBf16: CudaTensor, targets: Int32Array, lse: Tensor, dlogp: Tensor, rowChunk = 2048, vocabChunk = 16384): Tensor {
    const [N, C] = h.shape
    const V = wBf16.shape[0]
    const rc = Math.min(rowChunk, N), vc = Math.min(vocabChunk, V)
    const dh = this.tensor([N, C])
    const scratch = [this.tensor([N, C], 'bf16'), this.tensor([rc * vc]), this.tensor([rc * vc], 'bf16')]
    this.ok(this.lib.headBwd(this.ctx, this.h(h), wBf16.storage.handle, this.h(this.ints(targets)), this.h(lse), this.h(dlogp), N, C, V, rc, vc, dh.storage.handle,
      ...scratch.map((s) => s.storage.handle)) as number, 'headLogprobsBackward')
    for (const s of scratch) this.release(s)
    return dh
  }

  /** Device sampling over logits [B,V] with one uniform per row (draw them from a seeded Rng). */
  sampleDevice(logits: Tensor, p: RowSamplingParams, uniforms: Float32Array): { ids: Int32Array; logprobs: Float32Array; modelLogprobs: Float32Array } {
    const [B, V] = logits.shape
    check(uniforms.length === B, `sample: ${uniforms.length} uniforms for ${B} rows`)
    const u = this.fromHost(uniforms, [B])
    const ids = this.tensor([B], 'i32'), lp = this.tensor([B]), mlp = this.tensor([B])
    this.ok(this.lib.sample(this.ctx, this.h(logits), B, V, p.temperature, p.topK, p.topP, this.h(u), ids.storage.handle, lp.storage.handle, mlp.storage.handle) as number, 'sample')
    const idHost = new Int32Array(B)
    this.ok(this.lib.download(this.ctx, ids.storage.handle, 0, idHost, B * 4) as number, 'sample ids')
    const out = { ids: idHost, logprobs: this.toHost(lp), modelLogprobs: this.toHost(mlp) }
    for (const t of [u, ids, lp, mlp]) this.release(t)
    return out
  }

  /** dy [N,M] → dx [N,K] = dy · w (w bf16 [M,K]; dy rounded to bf16), the frozen base's input gradient. */
  linearBf16Backward(dy: Tensor, wBf16: CudaTensor): Tensor {
    const [N, M] = dy.shape
    const K = wBf16.shape[1]
    check(wBf16.shape[0] === M, `linearBf16Backward dy [${dy.shape}] w [${wBf16.shape}]`)
    const dyb = this.toBf16(dy)
    const dx = this.tensor([N, K])
    this.ok(this.lib.gemm(this.ctx, 0, 0, N, K, M, 1, dyb.storage.handle, wBf16.storage.handle, 0, dx.storage.handle) as number, 'linearBf16Backward')
    this.release(dyb)
    return dx
  }

  /** y [N,M] += scale · (x Aᵀ) Bᵀ in place; returns u = x Aᵀ [N,r] for the backward. Two fp32 GEMMs (cuBLASLt on a
   *  GPU): at N in the thousands they beat the fused row-per-block kernel of lora.cu, which linear() uses. */
  loraForward(x: Tensor, lora: LoraOperand, y: Tensor): Tensor {
    const [N, K] = x.shape
    const M = numel(y.shape) / N
    const r = lora.a.shape[0]
    check(lora.a.shape[1] === K && lora.b.shape[0] === M, `loraForward x [${x.shape}] A [${lora.a.shape}] B [${lora.b.shape}] y [${y.shape}]`)
    const u = this.tensor([N, r])
    this.ok(this.lib.gemmF32(this.ctx, 0, 1, N, r, K, 1, this.h(x), this.h(lora.a), 0, u.storage.handle) as number, 'lora shrink')
    this.ok(this.lib.gemmF32(this.ctx, 0, 1, N, M, r, lora.scale, u.storage.handle, this.h(lora.b), 1, this.h(y)) as number, 'lora expand')
    return u
  }

  /** dx [N,K] += LoRA's input gradient; returns dA [r,K], dB [M,r] (four fp32 GEMMs). */
  loraBackward(x: Tensor, lora: LoraOperand, u: Tensor, dy: Tensor, dx: Tensor): { dA: Tensor; dB: Tensor } {
    const [N, K] = x.shape
    const M = numel(dy.shape) / N
    const r = lora.a.shape[0]
    const du = this.tensor([N, r]), dA = this.tensor([r, K]), dB = this.tensor([M, r])
    const g = (tA: number, tB: number, m: number, n: number, k: number, alpha: number, A: Handle, B: Handle, beta: number, C: Handle, what: string): void =>
      this.ok(this.lib.gemmF32(this.ctx, tA, tB, m, n, k, alpha, A, B, beta, C) as number, what)
    g(0, 0, N, r, M, lora.scale, this.h(dy), this.h(lora.b), 0, du.storage.handle, 'lora du')
    g(0, 0, N, K, r, 1, du.storage.handle, this.h(lora.a), 1, this.h(dx), 'lora dx')
    g(1, 0, r, K, N, 1, du.storage.handle, this.h(x), 0, dA.storage.handle, 'lora dA')
    g(1, 0, M, r, N, lora.scale, this.h(dy), this.h(u), 0, dB.storage.handle, 'lora dB')
    this.release(du)
    return { dA, dB }
  }

  /** RMSNorm that also returns rstd [N] for rmsnormBackwardWithRstd; x viewed as [N, C]. */
  rmsnormWithRstd(x: Tensor, w: Tensor, eps: number): { y: Tensor; rstd: Tensor } {
    const C = w.shape[0]
    const N = numel(x.shape) / C
    const y = this.tensor(x.shape), rstd = this.tensor([N])
    this.ok(this.lib.rmsnormFwd(this.ctx, this.h(x), this.h(w), N, C, eps, y.storage.handle, rstd.storage.handle) as number, 'rmsnorm')
    return { y, rstd }
  }

  /** dx only (a frozen norm weight). */
  rmsnormBackwardWithRstd(x: Tensor, w: Tensor, rstd: Tensor, dy: Tensor): Tensor {
    const C = w.shape[0]
    const N = numel(x.shape) / C
    const dx = this.tensor(x.shape)
    this.ok(this.lib.rmsnormBwd(this.ctx, this.h(x), this.h(w), this.h(rstd), this.h(dy), N, C, dx.storage.handle, null) as number, 'rmsnormBackward')
    return dx
  }

  /** Per-token loss of infra/engine/losses.ts (weights = mask) → loss [N] and dlogp [N], both weighted. */
  tokenLoss(logp: Tensor, oldLogp: Tensor, adv: Tensor, weight: Tensor, kind: LossName,
    epsLow = 0.4, epsHigh = epsLow, klBeta = 0, refLogp?: Tensor): { loss: Tensor; dlogp: Tensor } {
    const N = logp.shape[0]
    const k = { importance_sampling: 0, ppo: 1, cross_entropy: 2 }[kind]
    const loss = this.tensor([N]), dlogp = this.tensor([N])
    this.ok(this.lib.tokenLoss(this.ctx, this.h(logp), this.h(oldLogp), this.h(adv), this.h(weight), refLogp ? this.h(refLogp) : null, N, k, epsLow, epsHigh, klBeta,
      loss.storage.handle, dlogp.storage.handle) as number, 'tokenLoss')
    return { loss, dlogp }
  }

  /** KV cache owned by the backend: k/v [B, Smax, KV, D] (fp32). */
  createKvCache(B: number, Smax: number, KV: number, D: number): { k: Tensor; v: Tensor; B: number; Smax: number; KV: number; D: number } {
    return { k: this.tensor([B, Smax, KV, D]), v: this.tensor([B, Smax, KV, D]), B, Smax, KV, D }
  }

  /** Append one row per sequence (k/v [B,KV,D]) at row lens[b]; then attention of q [B,H,D] over rows 0..lens[b]. */
  decodeStep(cache: { k: Tensor; v: Tensor; B: number; Smax: number; KV: number; D: number }, q: Tensor, k: Tensor, v: Tensor, lens: Int32Array): Tensor {
    const { B, Smax, KV, D } = cache
    const H = q.shape[1]
    for (const l of lens) if (!(l >= 0 && l < Smax)) throw new EngineError('engine.kv_cache', `KV cache of ${Smax} rows is full (row ${l})`)
    const lensT = this.ints(lens), seen = this.ints(lens.map((l) => l + 1))
    this.ok(this.lib.kvAppend(this.ctx, this.h(cache.k), this.h(cache.v), this.h(k), this.h(v), this.h(lensT), B, Smax, KV, D) as number, 'kvAppend')
    const scores = this.tensor([B, H, Smax]), o = this.tensor([B, H, D])
    this.ok(this.lib.decodeAttn(this.ctx, this.h(q), this.h(cache.k), this.h(cache.v), this.h(seen), B, Smax, H, KV, D, scores.storage.handle, o.storage.handle) as number, 'decodeAttention')
    for (const t of [lensT, seen, scores]) this.release(t)
    return o
  }

  /** Copy rows [srcRow, srcRow+rows) of a packed k or v [N,KV,D] into cache rows [0, rows) of sequence b. */
  fillCache(cacheT: Tensor, b: number, Smax: number, src: Tensor, srcRow: number, rows: number): void {
    const rowBytes = (numel(src.shape) / src.shape[0]) * 4
    this.ok(this.lib.copy(this.ctx, this.h(cacheT), b * Smax * rowBytes, this.h(src), srcRow * rowBytes, rows * rowBytes) as number, 'fillCache')
  }

  /** Fused AdamW with the gradient pre-scaled (global-norm clipping). */
  adamwStepScaled(p: Tensor, g: Tensor, m: Tensor, v: Tensor, h: AdamWHyper, gradScale: number): void {
    this.ok(this.lib.adamw(this.ctx, this.h(p), this.h(g), this.h(m), this.h(v), numel(p.shape), h.lr, h.beta1, h.beta2, h.eps, h.weightDecay, h.step, gradScale) as number, 'adamw')
  }
}
