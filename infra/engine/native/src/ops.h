// infra/engine/native/src/ops.h: the kernels of the native backend — the host reference the CUDA backend mirrors
// op by op (same list, same shapes, same tolerances as infra/engine/backend.ts and backend-contract.ts).
//
// Shape legend: N rows (tokens of a packed batch), C hidden, K in-features, M out-features, V vocab, H heads,
// KV key/value heads (H % KV == 0), D head dim, F ffn width, r LoRA rank, T query rows, S key rows, B sequences,
// cu[B+1] cumulative sequence offsets (cu[0] = 0, cu[B] = N). Row-major everywhere; linear weights [M,K].
// Dtypes: activations, LoRA weights, gradients and optimizer state f32; frozen weights f32 or bf16 (uint16, the
// high half of an f32), widened to f32 when packed; every reduction accumulates in f32 registers (sumSquares and
// the head's log-sum-exp in f64).
//
// Op list (forward / backward):
//   gemm            C[m,n] = alpha·Σ_k op(A)[m,k]·op(B)[k,n] + beta·C        (linear, its backward, LoRA, merge)
//   embedding       table [V,C] (f32|bf16), ids [N] → [N,C]  /  dy [N,C] → dtable [V,C] (scatter-add)
//   rmsnorm         x [N,C], w [C] → [N,C]                   /  dx [N,C], dw [C]
//   rope            x [N,H,D], positions [N] (rotate-half)   /  rotation by −angle
//   attention       q [N,H,D], k,v [N,KV,D], cu [B+1] (varlen, causal from position 0, GQA)
//                                                              /  dq, dk, dv
//   attentionCached q [T,H,D], k,v [S,KV,D], qStart            (decode / prefill against a KV cache)
//   swiglu          gate, up [N,F] → silu(gate)·up            /  dgate, dup
//   logSoftmax, targetLogprobs, targetLogprobsBackward over logits [N,V]
//   headLogprobs    hidden [N,C], w [V,C], targets [N] → logp [N]  (chunked: rows × vocab tiles, online lse,
//                   [N,V] never held)  /  dhidden [N,C] = dlogp·(w[t] − Σ_v softmax_v·w_v), one online pass
//   sampleRows      logits [R,V], temperature/top-k/top-p, one uniform per row → ids [R], logprob, modelLogprob
//   adamw, sumSquares (f64), add, axpy, scale
//   forwardCached   a whole decoder stack over B sequences continuing their KV caches (ids [N], cu [B+1], starts [B],
//                   per sequence and layer k/v caches [capacity, KV·D]) → [B,C] final-normed last hidden rows; the
//                   composition of the kernels above in model.forward's order, in one call (decode.cc)
#pragma once
#include <cstdint>
#include <vector>

namespace sg {
enum class DType { F32 = 0, BF16 = 1 };

inline float bf16ToF32(uint16_t h) {
  union { uint32_t u; float f; } v;
  v.u = (uint32_t)h << 16;
  return v.f;
}
/** Round to nearest even (NaN stays NaN). */
inline uint16_t f32ToBf16(float f) {
  union { uint32_t u; float f; } v;
  v.f = f;
  if ((v.u & 0x7fffffff) > 0x7f800000) return (uint16_t)((v.u >> 16) | 0x40);
  uint32_t lsb = (v.u >> 16) & 1;
  return (uint16_t)((v.u + 0x7fff + lsb) >> 16);
}

/** A matrix operand: element (i, j) at data[i·rs + j·cs]; bf16 when dtype is BF16. */
struct Mat {
  const void* data;
  DType dtype;
  int64_t rs, cs;
};

/** C[m,n] (row stride ldc) = alpha·A·B + beta·C for A [M,K], B [K,N]. beta 0 never reads C. */
void gemm(int64_t M, int64_t N, int64_t K, float alpha, Mat A, Mat B, float beta, float* C, int64_t ldc);
/** Which micro-kernel gemm uses: "avx512" | "avx2" | "portable". */
const char* gemmKernel();
void setGemmKernel(const char* name);
/** The few-row gemm on weights packed by packPanels (panels of 16 output columns, k-major inside, zero-padded):
 *  C [N,M] = A [N,K] · wᵀ (+ beta · C), N ≤ 8. No horizontal sums: each output is one FMA chain over k, so its value
 *  does not depend on N, the thread count or its panel's neighbours. Only where packedGemvAvailable(). */
bool packedGemvAvailable();
size_t packedSize(int64_t M, int64_t K);
void packPanels(const float* w, int64_t M, int64_t K, float* out);
void gemvPacked(int64_t N, int64_t M, int64_t K, const float* A, int64_t lda, const float* packed, float beta, float* C, int64_t ldc);
/** Peak f32 FMA throughput of this machine in GFLOP/s, measured with the best kernel's instruction mix. */
double measurePeakGflops(double seconds, int threads);

void embedding(const void* table, DType dt, int64_t V, int64_t C, const int32_t* ids, int64_t N, float* out);
void embeddingBackward(const float* dy, const int32_t* ids, int64_t N, int64_t C, float* dtable);
void rmsnorm(const float* x, const float* w, int64_t N, int64_t C, float eps, float* out);
void rmsnormBackward(const float* x, const float* w, const float* dy, int64_t N, int64_t C, float eps, float* dx, float* dw);
void rope(const float* x, const int32_t* pos, int64_t N, int64_t H, int64_t D, double theta, int sign, float* out);
/** rope in two steps: the angles' cos / sign·sin per (row, i < D/2) once, then applied to any [N,H,D] at those rows. */
void ropeTable(const int32_t* pos, int64_t N, int64_t D, double theta, int sign, double* cs, double* sn);
void ropeApply(const float* x, const double* cs, const double* sn, int64_t N, int64_t H, int64_t D, float* out);
/** Varlen causal attention: sequence b is rows [cu[b], cu[b+1]) of q, k and v, positions from 0. */
void attention(const float* q, const float* k, const float* v, const int32_t* cu, int64_t B, int64_t H, int64_t KV, int64_t D,
               float* out);
void attentionCached(const float* q, const float* k, const float* v, int64_t T, int64_t S, int64_t H, int64_t KV, int64_t D,
                     int64_t qStart, float* out);
void attentionBackward(const float* q, const float* k, const float* v, const float* dy, const int32_t* cu, int64_t B, int64_t H, int64_t KV, int64_t D, float* dq, float* dk, float* dv);
void attentionCachedBackward(const float* q, const float* k, const float* v, const float* dy, int64_t T, int64_t S, int64_t H,
                             int64_t KV, int64_t D, int64_t qStart, float* dq, float* dk, float* dv);
void swiglu(const float* g, const float* u, int64_t n, float* out);
void swigluBackward(const float* g, const float* u, const float* dy, int64_t n, float* dg, float* du);
void logSoftmax(const float* x, int64_t N, int64_t V, float* out);
/** Returns -1 when all targets are in range, else the index of the first bad one. */
int64_t targetLogprobs(const float* x, const int32_t* t, int64_t N, int64_t V, float* out);
void targetLogprobsBackward(const float* x, const int32_t* t, const float* g, int64_t N, int64_t V, float* out);
/** Returns -1 when all targets are in range, else the index of the first bad one. */
int64_t headLogprobs(const float* h, const void* w, DType wt, const int32_t* t, int64_t N, int64_t C, int64_t V, float* logp);
void headLogprobsBackward(const float* h, const void* w, DType wt, const int32_t* t, const float* dlogp, int64_t N, int64_t C, int64_t V,
                          float* dh);
struct SampleParams {
  double temperature;
  int64_t topK;
  double topP;
};
void sampleRows(const float* logits, int64_t R, int64_t V, SampleParams p, const double* uniforms, int32_t* ids, double* logprob,
                double* modelLogprob);
/** bc1 = 1 − β1^step, bc2 = 1 − β2^step (computed by the caller). */
void adamw(float* p, const float* g, float* m, float* v, int64_t n, double lr, double b1, double b2, double eps, double wd, double bc1,
           double bc2);
double sumSquares(const float* x, int64_t n);

/** A linear of the decoder stack: w [M,K] (f32|bf16), optional bias [M], optional LoRA A [r,K], B [M,r], scale. */
struct StackLinear {
  const void* w = nullptr;
  DType dt = DType::F32;
  int64_t M = 0, K = 0;
  const float* bias = nullptr;
  const float* loraA = nullptr;
  const float* loraB = nullptr;
  float loraScale = 0;
  int64_t r = 0;
  /** w in the few-row kernel's layout (gemvPacked), filled by packStack when w is f32; empty: not packed. */
  std::vector<float> packed;
};
struct StackLayer {
  const float* inputNorm = nullptr;
  const float* postNorm = nullptr;
  const float* qNorm = nullptr;  // null: no QK-norm
  const float* kNorm = nullptr;
  StackLinear q, k, v, o, gate, up, down;
};
struct Stack {
  const void* embed = nullptr;
  DType embedDt = DType::F32;
  int64_t V = 0, C = 0, H = 0, KV = 0, D = 0;
  float eps = 0;
  double theta = 0;
  const float* norm = nullptr;
  std::vector<StackLayer> layers;
  /** The output head bound with the stack (may be null) and its packed copy (decodeSample uses it for that head). */
  const void* head = nullptr;
  DType headDt = DType::F32;
  int64_t headV = 0;
  std::vector<float> headPacked;
};
/** Pack the stack's f32 weights (and head) for the few-row kernel when it is available (AVX-512) and they fit in
 *  maxBytes; the bound weights must not change value while the stack is in use. */
void packStack(Stack& s, double maxBytes);
/** kc[b·L + l], vc[b·L + l]: sequence b's layer-l key / value cache [capacity, KV·D]. out [B,C]. */
void forwardCached(const Stack& s, const int32_t* ids, const int32_t* cu, int64_t B, const int32_t* starts, float* const* kc,
                   float* const* vc, float* out);
/** One decode step and its draw: forwardCached over B sequences of one new token each (ids [B], KV written at starts),
 *  the head (hidden · headᵀ, head [V,C]) and sampleRows on those logits — per chunk of rows, on the threads. */
void decodeSample(const Stack& s, const void* head, DType headDt, int64_t V, const int32_t* ids, int64_t B, const int32_t* starts,
                  float* const* kc, float* const* vc, SampleParams p, const double* uniforms, int32_t* outIds, double* logprob,
                  double* modelLogprob);
/** Decode thread count: 0 (default, env SEARCHGYM_DECODE_THREADS unset) = chosen per step from its size; n ≥ 1 = at
 *  most n threads. forceRows (measurement only) = the row split for every step. */
void setDecodeThreads(int n, bool forceRows);
int decodeThreads();
/** Decode steps run so far by this process: [0] on one thread, [1] split by output columns, [2] split by rows. */
void decodeStepCounts(int64_t out[3]);
/** Causal GQA attention of B sequences against their caches: sequence b's queries q rows cu[b].. at positions
 *  starts[b].. see cache rows 0..starts[b]+i (kc[b], vc[b]: [≥S, KV·D]). Same per-row arithmetic as attentionCached. */
void attentionSegments(const float* q, const float* const* kc, const float* const* vc, const int32_t* cu, const int32_t* starts, int64_t B,
                       int64_t H, int64_t KV, int64_t D, float* out);
void axpy(float* dst, const float* src, float alpha, int64_t n);
void add(const float* a, const float* b, float* out, int64_t n);
void scale(float* x, float s, int64_t n);
}  // namespace sg
