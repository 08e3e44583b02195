// infra/engine/native/addon: loads the compiled native backend (build/Release/searchgym_native.node, built by
// build.mjs during npm ci) and says why when it cannot — the reason build.mjs recorded, or the load error.
// The typed surface below is the addon's whole API (argument order as in src/addon.cc).
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

type F32 = Float32Array
type W = Float32Array | Uint16Array

export interface NativeAddon {
  /** Uninitialised unless zero. */
  alloc(n: number, bf16: boolean, zero?: boolean): Float32Array | Uint16Array
  release(data: Float32Array | Uint16Array): boolean
  memStats(resetPeak?: boolean): { liveBytes: number; peakBytes: number; cachedBytes: number }
  /** Free the cache of released blocks. */
  trim(): void
  threads(n?: number): number
  /** The decode-thread override (env SEARCHGYM_DECODE_THREADS): 0 = chosen per step from its size, n ≥ 1 = at most n;
   *  forceRows (measurement only): every decode step split by rows, the path before the column split. */
  decodeThreads(n?: number, forceRows?: boolean): number
  /** Decode steps this process ran: [on one thread, split by output columns, split by rows]. */
  decodeStepCounts(): [number, number, number]
  gemmKernel(name?: string): string
  peakGflops(seconds: number, threads: number): number
  gemm(M: number, N: number, K: number, alpha: number, A: W, aRs: number, aCs: number, B: W, bRs: number, bCs: number, beta: number, C: F32, ldc: number): void
  embedding(table: W, V: number, C: number, ids: Int32Array, N: number, out: F32): void
  embeddingBackward(dy: F32, ids: Int32Array, N: number, C: number, dtable: F32): void
  rmsnorm(x: F32, w: F32, N: number, C: number, eps: number, out: F32): void
  rmsnormBackward(x: F32, w: F32, dy: F32, N: number, C: number, eps: number, dx: F32, dw: F32): void
  rope(x: F32, pos: Int32Array, N: number, H: number, D: number, theta: number, sign: number, out: F32): void
  attention(q: F32, k: F32, v: F32, cu: Int32Array, B: number, H: number, KV: number, D: number, out: F32): void
  attentionCached(q: F32, k: F32, v: F32, T: number, S: number, H: number, KV: number, D: number, qStart: number, out: F32): void
  attentionBackward(q: F32, k: F32, v: F32, dy: F32, cu: Int32Array, B: number, H: number, KV: number, D: number, dq: F32, dk: F32, dv: F32): void
  attentionCachedBackward(q: F32, k: F32, v: F32, dy: F32, T: number, S: number, H: number, KV: number, D: number, qStart: number, dq: F32, dk: F32, dv: F32): void
  swiglu(g: F32, u: F32, n: number, out: F32): void
  swigluBackward(g: F32, u: F32, dy: F32, n: number, dg: F32, du: F32): void
  logSoftmax(x: F32, N: number, V: number, out: F32): void
  targetLogprobs(x: F32, t: Int32Array, N: number, V: number, out: F32): number
  targetLogprobsBackward(x: F32, t: Int32Array, g: F32, N: number, V: number, out: F32): void
  headLogprobs(h: F32, w: W, t: Int32Array, N: number, C: number, V: number, out: F32): number
  headLogprobsBackward(h: F32, w: W, t: Int32Array, dlogp: F32, N: number, C: number, V: number, dh: F32): void
  sampleRows(logits: F32, R: number, V: number, temperature: number, topK: number, topP: number, uniforms: Float64Array, ids: Int32Array, logprob: Float64Array, modelLogprob: Float64Array): void
  adamw(p: F32, g: F32, m: F32, v: F32, n: number, lr: number, b1: number, b2: number, eps: number, wd: number, bc1: number, bc2: number): void
  sumSquares(x: F32, n: number): number
  axpy(dst: F32, src: F32, alpha: number, n: number): void
  add(a: F32, b: F32, out: F32, n: number): void
  scale(x: F32, s: number, n: number): void
  toBf16(src: F32, dst: Uint16Array, n: number): void
  fromBf16(src: Uint16Array, dst: F32, n: number): void
  /** layers[l]: [inputNorm, postNorm, qNorm|null, kNorm|null, then per linear (q,k,v,o,gate,up,down): w, M, K, bias|null,
   *  loraA|null, loraB|null, loraScale, r]. Returns an opaque handle (the pointers; the caller keeps the arrays alive). */
  bindStack(embed: W, norm: F32, dims: number[], eps: number, theta: number, layers: (W | number | null)[][], head: W | null, headV: number): NativeStackHandle
  /** caches: for each sequence b, for each layer l: its key cache, then its value cache. out [B,C]. */
  forwardCached(stack: NativeStackHandle, ids: Int32Array, cu: Int32Array, B: number, starts: Int32Array, caches: F32[], out: F32): void
  decodeSample(stack: NativeStackHandle, head: W, V: number, ids: Int32Array, B: number, starts: Int32Array, caches: F32[], temperature: number, topK: number, topP: number, uniforms: Float64Array, outIds: Int32Array, logprob: Float64Array, modelLogprob: Float64Array): void
}

/** An External holding a bound decoder stack (addon.cc BindStack). */
export type NativeStackHandle = { readonly __nativeStack: unique symbol }

const here = dirname(fileURLToPath(import.meta.url))
export const NATIVE_ADDON_PATH = join(here, 'build', 'Release', 'searchgym_native.node')

let cached: { addon?: NativeAddon; reason?: string } | undefined

/** The addon, or why it is not there (one line). */
export function loadNativeAddon(): { addon?: NativeAddon; reason?: string } {
  if (cached) return cached
  if (!existsSync(NATIVE_ADDON_PATH)) {
    let why = 'it was never built'
    try {
      const st = JSON.parse(readFileSync(join(here, 'build', 'status.json'), 'utf8')) as { reason?: string }
      if (st.reason) why = st.reason
    } catch {
      // no status file: npm ci has not run the install script here
    }
    cached = { reason: `the native backend is not built (${why}); build it with: node infra/engine/native/build.mjs` }
    return cached
  }
  try {
    cached = { addon: createRequire(import.meta.url)(NATIVE_ADDON_PATH) as NativeAddon }
  } catch (e) {
    cached = { reason: `the native backend failed to load (${(e as Error).message.split('\n')[0]}); rebuild it with: node infra/engine/native/build.mjs` }
  }
  return cached
}
