// infra/engine/cuda/binding/sgcuda.cpp: the extern "C" library Node loads (koffi): opaque handles for a context and
// its buffers, integer error codes with a last-error string, and one entry per kernel launcher. Device pointers stay
// inside; JavaScript sees only handles. Built by nvcc for a GPU (device memory, one stream, cudart) or by g++ with
// SG_EMU (host memory, emulated kernels) so the same TypeScript backend runs in CI. Shapes as ../kernels/sg_kernels.h.
// It tracks live and peak bytes of its own allocations (the learner's peak-memory figure).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../kernels/sg_kernels.h"

#ifndef SG_EMU
#include <cuda_runtime.h>
#endif

#define SG_EXPORT extern "C" __attribute__((visibility("default")))

enum { SG_OK = 0, SG_ERR_NO_DEVICE = 1, SG_ERR_CUDA = 2, SG_ERR_ARG = 3, SG_ERR_GEMM = 4, SG_ERR_OOM = 5 };

struct sg_buf {
  void *ptr;
  int64_t bytes;
};

#include <map>
#include <vector>

struct sg_ctx {
  void *stream = nullptr;
  int64_t live = 0, peak = 0, reserved = 0;
  // Freed device blocks by size, reused by the next allocation of that size (a caching allocator: cudaMalloc and
  // cudaFree synchronise the device and cost far more than a kernel).
  std::map<int64_t, std::vector<void *>> pool;
  std::string err;
  std::string device;
};

static std::string gCreateError;

static int fail(sg_ctx *c, int code, const std::string &msg) {
  if (c) c->err = msg;
  return code;
}

#ifndef SG_EMU
static int cudaCheck(sg_ctx *c, cudaError_t e, const char *what) {
  if (e == cudaSuccess) return SG_OK;
  return fail(c, e == cudaErrorMemoryAllocation ? SG_ERR_OOM : SG_ERR_CUDA, std::string(what) + ": " + cudaGetErrorString(e));
}
// A launch error surfaces at the next call; checked after every op so the message names the op.
#define SG_AFTER(c, what) cudaCheck(c, cudaGetLastError(), what)
#else
#define SG_AFTER(c, what) SG_OK
#endif

SG_EXPORT const char *sg_create_error() { return gCreateError.c_str(); }

SG_EXPORT int sg_create(sg_ctx **out) {
  *out = nullptr;
#ifdef SG_EMU
  sg_ctx *c = new sg_ctx();
  c->device = "emulated (host CPU, cuda_emu.h)";
  *out = c;
  return SG_OK;
#else
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    gCreateError = std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount = 0");
    return SG_ERR_NO_DEVICE;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 8) {
    gCreateError = std::string("CUDA device ") + prop.name + " is below sm_80 (bf16 tensor cores needed)";
    return SG_ERR_NO_DEVICE;
  }
  sg_ctx *c = new sg_ctx();
  cudaStream_t s;
  if (cudaStreamCreate(&s) != cudaSuccess) {
    gCreateError = "cudaStreamCreate failed";
    delete c;
    return SG_ERR_CUDA;
  }
  c->stream = s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %.1f GiB)", prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0);
  c->device = buf;
  *out = c;
  return SG_OK;
#endif
}

SG_EXPORT const char *sg_device_name(sg_ctx *c) { return c->device.c_str(); }
SG_EXPORT const char *sg_last_error(sg_ctx *c) { return c->err.c_str(); }

SG_EXPORT void sg_destroy(sg_ctx *c) {
#ifndef SG_EMU
  if (c && c->stream) cudaStreamDestroy((cudaStream_t)c->stream);
#endif
  delete c;
}

SG_EXPORT int sg_alloc(sg_ctx *c, int64_t bytes, sg_buf **out) {
  *out = nullptr;
  if (bytes < 0) return fail(c, SG_ERR_ARG, "negative allocation");
  sg_buf *b = new sg_buf{nullptr, bytes};
#ifdef SG_EMU
  b->ptr = std::calloc((size_t)(bytes > 0 ? bytes : 1), 1);
  if (!b->ptr) {
    delete b;
    return fail(c, SG_ERR_OOM, "host allocation failed");
  }
#else
  int st = SG_OK;
  auto it = c->pool.find(bytes);
  if (it != c->pool.end() && !it->second.empty()) {
    b->ptr = it->second.back();
    it->second.pop_back();
  } else {
    st = cudaCheck(c, cudaMalloc(&b->ptr, (size_t)(bytes > 0 ? bytes : 1)), "cudaMalloc");
    if (st == SG_ERR_OOM) {  // give the cached blocks back and try once more
      cudaDeviceSynchronize();
      for (auto &kv : c->pool)
        for (void *p : kv.second) {
          cudaFree(p);
          c->reserved -= kv.first;
        }
      c->pool.clear();
      cudaGetLastError();
      st = cudaCheck(c, cudaMalloc(&b->ptr, (size_t)(bytes > 0 ? bytes : 1)), "cudaMalloc");
    }
    if (!st) c->reserved += bytes;
  }
  if (!st) st = cudaCheck(c, cudaMemsetAsync(b->ptr, 0, (size_t)bytes, (cudaStream_t)c->stream), "cudaMemset");
  if (st) {
    delete b;
    return st;
  }
#endif
  c->live += bytes;
  if (c->live > c->peak) c->peak = c->live;
  *out = b;
  return SG_OK;
}

SG_EXPORT int sg_free(sg_ctx *c, sg_buf *b) {
  if (!b) return SG_OK;
#ifdef SG_EMU
  std::free(b->ptr);
#else
  c->pool[b->bytes].push_back(b->ptr);  // stream-ordered reuse: later work on the one stream runs after earlier work
#endif
  c->live -= b->bytes;
  delete b;
  return SG_OK;
}

SG_EXPORT int64_t sg_buf_bytes(sg_buf *b) { return b->bytes; }
/** A non-owning handle on bytes [off, off+bytes) of b (a row view): not counted in live bytes; sg_view_free drops
 *  the handle only. Valid while b is. */
SG_EXPORT int sg_view(sg_ctx *c, sg_buf *b, int64_t off, int64_t bytes, sg_buf **out) {
  *out = nullptr;
  if (!b || off < 0 || bytes < 0 || off + bytes > b->bytes) return fail(c, SG_ERR_ARG, "view out of range");
  *out = new sg_buf{static_cast<char *>(b->ptr) + off, bytes};
  return SG_OK;
}
SG_EXPORT void sg_view_free(sg_buf *b) { delete b; }
SG_EXPORT int64_t sg_live_bytes(sg_ctx *c) { return c->live; }
SG_EXPORT int64_t sg_peak_bytes(sg_ctx *c) { return c->peak; }
/** Device bytes held from cudaMalloc (in use + cached for reuse); 0 when emulated. */
SG_EXPORT int64_t sg_reserved_bytes(sg_ctx *c) { return c->reserved; }
SG_EXPORT void sg_reset_peak(sg_ctx *c) { c->peak = c->live; }

static bool inRange(sg_buf *b, int64_t off, int64_t bytes) { return b && off >= 0 && bytes >= 0 && off + bytes <= b->bytes; }

SG_EXPORT int sg_upload(sg_ctx *c, sg_buf *b, int64_t offset, const void *host, int64_t bytes) {
  if (!inRange(b, offset, bytes)) return fail(c, SG_ERR_ARG, "upload outside the buffer");
#ifdef SG_EMU
  std::memcpy((char *)b->ptr + offset, host, (size_t)bytes);
  return SG_OK;
#else
  return cudaCheck(c, cudaMemcpyAsync((char *)b->ptr + offset, host, (size_t)bytes, cudaMemcpyHostToDevice, (cudaStream_t)c->stream),
                   "upload");
#endif
}

SG_EXPORT int sg_download(sg_ctx *c, sg_buf *b, int64_t offset, void *host, int64_t bytes) {
  if (!inRange(b, offset, bytes)) return fail(c, SG_ERR_ARG, "download outside the buffer");
#ifdef SG_EMU
  std::memcpy(host, (char *)b->ptr + offset, (size_t)bytes);
  return SG_OK;
#else
  int st = cudaCheck(c, cudaMemcpyAsync(host, (char *)b->ptr + offset, (size_t)bytes, cudaMemcpyDeviceToHost, (cudaStream_t)c->stream),
                     "download");
  return st ? st : cudaCheck(c, cudaStreamSynchronize((cudaStream_t)c->stream), "download sync");
#endif
}

/** dst[dstOff..] = src[srcOff..] for bytes (device to device). */
SG_EXPORT int sg_copy(sg_ctx *c, sg_buf *dst, int64_t dstOff, sg_buf *src, int64_t srcOff, int64_t bytes) {
  if (!inRange(dst, dstOff, bytes) || !inRange(src, srcOff, bytes)) return fail(c, SG_ERR_ARG, "copy outside a buffer");
#ifdef SG_EMU
  std::memmove((char *)dst->ptr + dstOff, (char *)src->ptr + srcOff, (size_t)bytes);
  return SG_OK;
#else
  return cudaCheck(c, cudaMemcpyAsync((char *)dst->ptr + dstOff, (char *)src->ptr + srcOff, (size_t)bytes, cudaMemcpyDeviceToDevice,
                                      (cudaStream_t)c->stream),
                   "copy");
#endif
}

SG_EXPORT int sg_sync(sg_ctx *c) {
#ifdef SG_EMU
  (void)c;
  return SG_OK;
#else
  return cudaCheck(c, cudaStreamSynchronize((cudaStream_t)c->stream), "sync");
#endif
}

// Element pointers into buffers: handle + element offset. A null handle is a null pointer (optional operands).
#define F(b, off) ((b) ? (float *)(b)->ptr + (off) : (float *)nullptr)
#define I(b) ((b) ? (int *)(b)->ptr : (int *)nullptr)
#define H(b, off) ((b) ? (sg_bf16 *)(b)->ptr + (off) : (sg_bf16 *)nullptr)

SG_EXPORT int sg_op_cast_bf16(sg_ctx *c, sg_buf *x, sg_buf *y, int64_t n) {
  if (!inRange(x, 0, n * 4) || !inRange(y, 0, n * 2)) return fail(c, SG_ERR_ARG, "cast_bf16: buffers too small");
  sg_cast_f32_bf16(F(x, 0), H(y, 0), n, c->stream);
  return SG_AFTER(c, "cast_bf16");
}

/** y [N,M] = alpha · x [N,K] (bf16) · w [M,K]ᵀ (bf16) + beta · y, or with the transposes named. */
SG_EXPORT int sg_op_gemm(sg_ctx *c, int transA, int transB, int M, int N, int K, float alpha, sg_buf *A, sg_buf *B, float beta,
                         sg_buf *C) {
  if (!inRange(A, 0, (int64_t)M * K * 2) || !inRange(B, 0, (int64_t)K * N * 2) || !inRange(C, 0, (int64_t)M * N * 4))
    return fail(c, SG_ERR_ARG, "gemm: buffers too small");
  if (sg_gemm_bf16(transA, transB, M, N, K, alpha, H(A, 0), H(B, 0), beta, F(C, 0), c->stream))
    return fail(c, SG_ERR_GEMM, sg_gemm_error());
  return SG_AFTER(c, "gemm");
}

SG_EXPORT int sg_op_lora_fwd(sg_ctx *c, sg_buf *x, sg_buf *A, sg_buf *B, int N, int K, int M, int r, float scale, sg_buf *y,
                             sg_buf *u) {
  if (r < 1 || r > 128) return fail(c, SG_ERR_ARG, "lora rank must be 1..128");
  sg_lora_fwd(F(x, 0), F(A, 0), F(B, 0), N, K, M, r, scale, F(y, 0), F(u, 0), c->stream);
  return SG_AFTER(c, "lora_fwd");
}

SG_EXPORT int sg_op_lora_bwd(sg_ctx *c, sg_buf *x, sg_buf *A, sg_buf *B, sg_buf *u, sg_buf *dy, int N, int K, int M, int r,
                             float scale, sg_buf *dx, sg_buf *du, sg_buf *dA, sg_buf *dB) {
  if (r < 1 || r > 128) return fail(c, SG_ERR_ARG, "lora rank must be 1..128");
  sg_lora_bwd(F(x, 0), F(A, 0), F(B, 0), F(u, 0), F(dy, 0), N, K, M, r, scale, F(dx, 0), F(du, 0), F(dA, 0), F(dB, 0), c->stream);
  return SG_AFTER(c, "lora_bwd");
}

SG_EXPORT int sg_op_rmsnorm_fwd(sg_ctx *c, sg_buf *x, sg_buf *w, int N, int C, float eps, sg_buf *y, sg_buf *rstd) {
  sg_rmsnorm_fwd(F(x, 0), F(w, 0), N, C, eps, F(y, 0), F(rstd, 0), c->stream);
  return SG_AFTER(c, "rmsnorm_fwd");
}

SG_EXPORT int sg_op_rmsnorm_bwd(sg_ctx *c, sg_buf *x, sg_buf *w, sg_buf *rstd, sg_buf *dy, int N, int C, sg_buf *dx, sg_buf *dw) {
  sg_rmsnorm_bwd(F(x, 0), F(w, 0), F(rstd, 0), F(dy, 0), N, C, F(dx, 0), F(dw, 0), c->stream);
  return SG_AFTER(c, "rmsnorm_bwd");
}

SG_EXPORT int sg_op_rope(sg_ctx *c, sg_buf *x, sg_buf *pos, int N, int H_, int D, float theta, int inverse, sg_buf *y) {
  if (D % 2) return fail(c, SG_ERR_ARG, "rope needs an even head dim");
  sg_rope(F(x, 0), I(pos), N, H_, D, theta, inverse, F(y, 0), c->stream);
  return SG_AFTER(c, "rope");
}

SG_EXPORT int sg_op_swiglu_fwd(sg_ctx *c, sg_buf *g, sg_buf *u, int64_t n, sg_buf *out) {
  sg_swiglu_fwd(F(g, 0), F(u, 0), n, F(out, 0), c->stream);
  return SG_AFTER(c, "swiglu_fwd");
}

SG_EXPORT int sg_op_swiglu_bwd(sg_ctx *c, sg_buf *g, sg_buf *u, sg_buf *dy, int64_t n, sg_buf *dg, sg_buf *du) {
  sg_swiglu_bwd(F(g, 0), F(u, 0), F(dy, 0), n, F(dg, 0), F(du, 0), c->stream);
  return SG_AFTER(c, "swiglu_bwd");
}

SG_EXPORT int sg_op_attention_fwd(sg_ctx *c, sg_buf *q, sg_buf *k, sg_buf *v, sg_buf *cuQ, sg_buf *cuK, sg_buf *qStart, int B,
                                  int maxT, int H_, int KV, int D, sg_buf *o, sg_buf *lse) {
  int st = sg_attention_fwd(F(q, 0), F(k, 0), F(v, 0), I(cuQ), I(cuK), I(qStart), B, maxT, H_, KV, D, F(o, 0), F(lse, 0), c->stream);
  if (st == -1) return fail(c, SG_ERR_ARG, "attention: head dim must be 64 or 128");
  if (st) return fail(c, SG_ERR_ARG, "attention: heads must be a multiple of kv-heads");
  return SG_AFTER(c, "attention_fwd");
}

SG_EXPORT int sg_op_attention_bwd(sg_ctx *c, sg_buf *q, sg_buf *k, sg_buf *v, sg_buf *o, sg_buf *lse, sg_buf *dout, sg_buf *cuQ,
                                  sg_buf *cuK, sg_buf *qStart, int B, int totalQ, int maxS, int H_, int KV, int D, sg_buf *dq,
                                  sg_buf *dk, sg_buf *dv, sg_buf *dvec) {
  int st = sg_attention_bwd(F(q, 0), F(k, 0), F(v, 0), F(o, 0), F(lse, 0), F(dout, 0), I(cuQ), I(cuK), I(qStart), B, totalQ, maxS,
                            H_, KV, D, F(dq, 0), F(dk, 0), F(dv, 0), F(dvec, 0), c->stream);
  if (st == -1) return fail(c, SG_ERR_ARG, "attention: head dim must be 64 or 128");
  if (st) return fail(c, SG_ERR_ARG, "attention: heads must be a multiple of kv-heads");
  return SG_AFTER(c, "attention_bwd");
}

SG_EXPORT int sg_op_head_logprobs(sg_ctx *c, sg_buf *h, sg_buf *W, sg_buf *targets, int N, int C, int V, int rowChunk,
                                  int vocabChunk, sg_buf *logp, sg_buf *lse, sg_buf *hb, sg_buf *chunk, sg_buf *runM, sg_buf *runL,
                                  sg_buf *tgt) {
  if (sg_head_logprobs(F(h, 0), H(W, 0), I(targets), N, C, V, rowChunk, vocabChunk, F(logp, 0), F(lse, 0), H(hb, 0), F(chunk, 0),
                       F(runM, 0), F(runL, 0), F(tgt, 0), c->stream))
    return fail(c, SG_ERR_GEMM, std::string("head_logprobs: ") + sg_gemm_error());
  return SG_AFTER(c, "head_logprobs");
}

SG_EXPORT int sg_op_head_logprobs_bwd(sg_ctx *c, sg_buf *h, sg_buf *W, sg_buf *targets, sg_buf *lse, sg_buf *dlogp, int N, int C,
                                      int V, int rowChunk, int vocabChunk, sg_buf *dh, sg_buf *hb, sg_buf *chunk, sg_buf *chunkb) {
  if (sg_head_logprobs_bwd(F(h, 0), H(W, 0), I(targets), F(lse, 0), F(dlogp, 0), N, C, V, rowChunk, vocabChunk, F(dh, 0), H(hb, 0),
                           F(chunk, 0), H(chunkb, 0), c->stream))
    return fail(c, SG_ERR_GEMM, std::string("head_logprobs_bwd: ") + sg_gemm_error());
  return SG_AFTER(c, "head_logprobs_bwd");
}

SG_EXPORT int sg_op_token_loss(sg_ctx *c, sg_buf *logp, sg_buf *oldLogp, sg_buf *adv, sg_buf *weight, sg_buf *refLogp, int N, int kind,
                               float epsLow, float epsHigh, float klBeta, sg_buf *loss, sg_buf *dlogp) {
  if (klBeta > 0 && !refLogp) return fail(c, SG_ERR_ARG, "token_loss: klBeta > 0 needs reference log-probs");
  sg_token_loss(F(logp, 0), F(oldLogp, 0), F(adv, 0), F(weight, 0), F(refLogp, 0), N, kind, epsLow, epsHigh, klBeta, F(loss, 0),
                F(dlogp, 0), c->stream);
  return SG_AFTER(c, "token_loss");
}

SG_EXPORT int sg_op_adamw(sg_ctx *c, sg_buf *p, sg_buf *g, sg_buf *m, sg_buf *v, int64_t n, float lr, float b1, float b2, float eps,
                          float wd, int step, float gradScale) {
  sg_adamw(F(p, 0), F(g, 0), F(m, 0), F(v, 0), n, lr, b1, b2, eps, wd, step, gradScale, c->stream);
  return SG_AFTER(c, "adamw");
}

SG_EXPORT int sg_op_kv_append(sg_ctx *c, sg_buf *kc, sg_buf *vc, sg_buf *k, sg_buf *v, sg_buf *lens, int B, int Smax, int KV, int D) {
  sg_kv_append(F(kc, 0), F(vc, 0), F(k, 0), F(v, 0), I(lens), B, Smax, KV, D, c->stream);
  return SG_AFTER(c, "kv_append");
}

SG_EXPORT int sg_op_decode_attention(sg_ctx *c, sg_buf *q, sg_buf *kc, sg_buf *vc, sg_buf *lens, int B, int Smax, int H_, int KV,
                                     int D, sg_buf *scores, sg_buf *o) {
  sg_decode_attention(F(q, 0), F(kc, 0), F(vc, 0), I(lens), B, Smax, H_, KV, D, F(scores, 0), F(o, 0), c->stream);
  return SG_AFTER(c, "decode_attention");
}

SG_EXPORT int sg_op_sample(sg_ctx *c, sg_buf *logits, int B, int V, float temperature, int topK, float topP, sg_buf *uniforms,
                           sg_buf *ids, sg_buf *logprobs, sg_buf *modelLogprobs) {
  sg_sample(F(logits, 0), B, V, temperature, topK, topP, F(uniforms, 0), I(ids), F(logprobs, 0), F(modelLogprobs, 0), c->stream);
  return SG_AFTER(c, "sample");
}

// ---- the fp32 path of the current Backend boundary (fp32_ops.cu) ----
SG_EXPORT int sg_op_gemm_f32(sg_ctx *c, int transA, int transB, int M, int N, int K, float alpha, sg_buf *A, sg_buf *B, float beta,
                             sg_buf *C) {
  if (!inRange(A, 0, (int64_t)M * K * 4) || !inRange(B, 0, (int64_t)K * N * 4) || !inRange(C, 0, (int64_t)M * N * 4))
    return fail(c, SG_ERR_ARG, "gemm_f32: buffers too small");
  sg_gemm_f32(transA, transB, M, N, K, alpha, F(A, 0), F(B, 0), beta, F(C, 0), c->stream);
  return SG_AFTER(c, "gemm_f32");
}

SG_EXPORT int sg_op_axpy(sg_ctx *c, sg_buf *dst, sg_buf *src, int64_t n, float alpha, float dstScale) {
  if (!inRange(dst, 0, n * 4) || (src && !inRange(src, 0, n * 4))) return fail(c, SG_ERR_ARG, "axpy: buffers too small");
  sg_axpy(F(dst, 0), F(src, 0), n, alpha, dstScale, c->stream);
  return SG_AFTER(c, "axpy");
}

/** Σ x² in float64 over the first n floats (partials on the device, summed here). */
SG_EXPORT int sg_op_sum_squares(sg_ctx *c, sg_buf *x, int64_t n, double *out) {
  const int blocks = 64;
  sg_buf *part = nullptr;
  int st = sg_alloc(c, blocks * 4, &part);
  if (st) return st;
  sg_sum_squares_partial(F(x, 0), n, F(part, 0), blocks, c->stream);
  float host[blocks];
  st = SG_AFTER(c, "sum_squares");
  if (!st) st = sg_download(c, part, 0, host, blocks * 4);
  sg_free(c, part);
  double s = 0;
  for (int i = 0; i < blocks; i++) s += host[i];
  *out = s;
  return st;
}

SG_EXPORT int sg_op_add_bias(sg_ctx *c, sg_buf *y, sg_buf *bias, int64_t rows, int M) {
  sg_add_bias(F(y, 0), F(bias, 0), rows, M, c->stream);
  return SG_AFTER(c, "add_bias");
}

SG_EXPORT int sg_op_embedding(sg_ctx *c, sg_buf *table, sg_buf *ids, int N, int C, sg_buf *out) {
  sg_embedding(F(table, 0), I(ids), N, C, F(out, 0), c->stream);
  return SG_AFTER(c, "embedding");
}

SG_EXPORT int sg_op_embedding_bwd(sg_ctx *c, sg_buf *dy, sg_buf *ids, int N, int C, sg_buf *dtable) {
  sg_embedding_bwd(F(dy, 0), I(ids), N, C, F(dtable, 0), c->stream);
  return SG_AFTER(c, "embedding_bwd");
}

SG_EXPORT int sg_op_row_softmax(sg_ctx *c, sg_buf *x, int N, int V, sg_buf *targets, sg_buf *dlogp, int mode, sg_buf *out) {
  sg_row_softmax(F(x, 0), N, V, I(targets), F(dlogp, 0), mode, F(out, 0), c->stream);
  return SG_AFTER(c, "row_softmax");
}

SG_EXPORT int sg_op_attention_simple(sg_ctx *c, sg_buf *q, sg_buf *k, sg_buf *v, int T, int S, int H_, int KV, int D, int qStart,
                                     sg_buf *o) {
  if (sg_attention_simple(F(q, 0), F(k, 0), F(v, 0), T, S, H_, KV, D, qStart, F(o, 0), c->stream))
    return fail(c, SG_ERR_ARG, "attention: head dim ≤ 256 and heads a multiple of kv-heads");
  return SG_AFTER(c, "attention_simple");
}

SG_EXPORT int sg_op_attention_simple_bwd(sg_ctx *c, sg_buf *q, sg_buf *k, sg_buf *v, sg_buf *dout, int T, int S, int H_, int KV, int D,
                                         int qStart, sg_buf *dq, sg_buf *dk, sg_buf *dv) {
  if (sg_attention_simple_bwd(F(q, 0), F(k, 0), F(v, 0), F(dout, 0), T, S, H_, KV, D, qStart, F(dq, 0), F(dk, 0), F(dv, 0), c->stream))
    return fail(c, SG_ERR_ARG, "attention: head dim ≤ 256 and heads a multiple of kv-heads");
  return SG_AFTER(c, "attention_simple_bwd");
}

SG_EXPORT int sg_op_fill_random(sg_ctx *c, sg_buf *b, int bf16out, int64_t n, uint64_t seed, float scale) {
  if (!inRange(b, 0, n * (bf16out ? 2 : 4))) return fail(c, SG_ERR_ARG, "fill_random: buffer too small");
  sg_fill_random(bf16out ? nullptr : F(b, 0), bf16out ? H(b, 0) : nullptr, n, seed, scale, c->stream);
  return SG_AFTER(c, "fill_random");
}
