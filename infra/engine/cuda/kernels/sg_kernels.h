// infra/engine/cuda/kernels/sg_kernels.h: the host-callable launchers of every kernel, plain C++ types only (device
// pointers on nvcc builds, host pointers in the emulated build). Shapes (as infra/engine/backend.ts): N rows,
// C hidden, K in, M out, V vocab, H heads, KV kv-heads, D head dim, F ffn, r rank, T/S query/key rows, B sequences.
// Row-major everywhere; fp32 unless the name says bf16. `stream` is a cudaStream_t (ignored when emulated).
// It does not allocate: scratch buffers are the caller's, sized as stated.
#pragma once
#include <cstdint>

typedef uint16_t sg_bf16;

// ---- cast.cu ----
/** y[i] = bf16(x[i]) for i < n. */
void sg_cast_f32_bf16(const float *x, sg_bf16 *y, long n, void *stream);

// ---- gemm_cublaslt.cu (cuBLASLt opened at run time; the emulated build routes to the host reference GEMM) ----
/** C[M,N] = alpha · op(A) op(B) + beta · C. op(A) is [M,K] (A stored [K,M] when transA), op(B) is [K,N] (B stored
 *  [N,K] when transB); bf16 inputs, fp32 accumulate and output. Returns 0 or an error code (sg_gemm_error()). */
int sg_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                 float *C, void *stream);
/** The same in fp32 (fp32 compute) through cuBLASLt; -1 when cuBLASLt is unavailable (always when emulated). */
int sg_gemm_f32_cublaslt(int transA, int transB, int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                         float *C, void *stream);
/** The last GEMM error as text ("" when none). */
const char *sg_gemm_error();

// ---- lora.cu: y += scale · (x Aᵀ) Bᵀ and its backward ----
/** x [N,K], A [r,K], B [M,r] → u [N,r] = x Aᵀ (kept for backward), y [N,M] += scale · u Bᵀ. */
void sg_lora_fwd(const float *x, const float *A, const float *B, int N, int K, int M, int r, float scale, float *y, float *u,
                 void *stream);
/** dy [N,M] → du [N,r] = scale · dy B (scratch), dx [N,K] += du A, dA [r,K] = duᵀ x, dB [M,r] = scale · dyᵀ u. */
void sg_lora_bwd(const float *x, const float *A, const float *B, const float *u, const float *dy, int N, int K, int M, int r,
                 float scale, float *dx, float *du, float *dA, float *dB, void *stream);

// ---- rmsnorm.cu ----
/** y = x · rstd · w with rstd = 1/sqrt(mean(x²) + eps) per row; x [N,C], w [C]; rstd [N] out. */
void sg_rmsnorm_fwd(const float *x, const float *w, int N, int C, float eps, float *y, float *rstd, void *stream);
/** dx [N,C] and dw [C] (dw may be null: a frozen weight). */
void sg_rmsnorm_bwd(const float *x, const float *w, const float *rstd, const float *dy, int N, int C, float *dx, float *dw,
                    void *stream);
/** bf16 activations: x [N,C] bf16 in, y [N,C] bf16 out, fp32 sums, rstd [N] fp32. */
void sg_rmsnorm_fwd_bf16(const sg_bf16 *x, const float *w, int N, int C, float eps, sg_bf16 *y, float *rstd, void *stream);
/** As sg_rmsnorm_bwd with the saved x in bf16; dy, dx, dw fp32. */
void sg_rmsnorm_bwd_bf16(const sg_bf16 *x, const float *w, const float *rstd, const float *dy, int N, int C, float *dx, float *dw,
                         void *stream);

// ---- rope.cu ----
/** Rotate-half rotary embedding of x [N,H,D] at positions [N]; inverse=1 rotates by the negative angle (backward). */
void sg_rope(const float *x, const int *pos, int N, int H, int D, float theta, int inverse, float *y, void *stream);

// ---- swiglu.cu ----
/** out = silu(gate) · up, [N,F] as n = N·F elements. */
void sg_swiglu_fwd(const float *gate, const float *up, long n, float *out, void *stream);
void sg_swiglu_bwd(const float *gate, const float *up, const float *dy, long n, float *dgate, float *dup, void *stream);

// ---- attention_fwd.cu / attention_bwd.cu: causal GQA flash attention over packed variable-length sequences ----
// q [ΣT,H,D], k/v [ΣS,KV,D]; sequence b owns query rows cuQ[b]..cuQ[b+1] and key rows cuK[b]..cuK[b+1] (cumulative
// offsets, B+1 entries); its query row i sits at position qStart[b] + i and sees keys 0..qStart[b]+i. D ∈ {64,128},
// H % KV == 0. Tensor cores (wmma bf16 16x16x16, fp32 accumulate); scale 1/sqrt(D).
/** o [ΣT,H,D], lse [ΣT,H] (log-sum-exp of the scaled scores, for backward). maxT = max_b T_b. Returns 0 or -1 (bad D). */
int sg_attention_fwd(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                     int maxT, int H, int KV, int D, float *o, float *lse, void *stream);
/** dq (zeroed here, fp32 atomics), dk, dv; dvec [ΣT,H] scratch. totalQ = ΣT, maxS = max_b S_b. Every key row of
 *  every sequence is written (keys no query sees get 0). */
int sg_attention_bwd(const float *q, const float *k, const float *v, const float *o, const float *lse, const float *dout,
                     const int *cuQ, const int *cuK, const int *qStart, int B, int totalQ, int maxS, int H, int KV, int D,
                     float *dq, float *dk, float *dv, float *dvec, void *stream);
/** The same two with the kernel generation chosen by the caller (1: one warp per 16-row tile; 2: FA2-style 4-warp
 *  blocks over 64-row tiles). The plain names use 1 unless SG_CUDA_ATTN=v2 (read once; v2 becomes the default once a GPU run has measured it). Returns as above. */
int sg_attention_fwd_v(int version, const float *q, const float *k, const float *v, const int *cuQ, const int *cuK,
                       const int *qStart, int B, int maxT, int H, int KV, int D, float *o, float *lse, void *stream);
int sg_attention_bwd_v(int version, const float *q, const float *k, const float *v, const float *o, const float *lse,
                       const float *dout, const int *cuQ, const int *cuK, const int *qStart, int B, int totalQ, int maxS, int H,
                       int KV, int D, float *dq, float *dk, float *dv, float *dvec, void *stream);

// ---- head_logprobs.cu: fused chunked output head → target log-probs, never [N,V] logits ----
/** h [N,C] fp32, W [V,C] bf16, targets [N] → logp [N], lse [N]. Scratch: hb [N,C] bf16, chunk [rowChunk·vocabChunk]
 *  fp32, runM/runL/tgt [N]. Logits exist only one [rowChunk, vocabChunk] tile at a time. Returns 0 or a GEMM error. */
int sg_head_logprobs(const float *h, const sg_bf16 *W, const int *targets, int N, int C, int V, int rowChunk, int vocabChunk,
                     float *logp, float *lse, sg_bf16 *hb, float *chunk, float *runM, float *runL, float *tgt, void *stream);
/** dlogp [N] → dh [N,C] (overwritten) = dlogp · (W[target] − Σ_v softmax_v W[v]). Scratch: hb [N,C] bf16, chunk fp32
 *  and chunkb bf16 of rowChunk·vocabChunk. lse from the forward. */
int sg_head_logprobs_bwd(const float *h, const sg_bf16 *W, const int *targets, const float *lse, const float *dlogp, int N,
                         int C, int V, int rowChunk, int vocabChunk, float *dh, sg_bf16 *hb, float *chunk, sg_bf16 *chunkb,
                         void *stream);

// ---- token_loss.cu: GRPO / PPO / importance-sampling / cross-entropy token loss (infra/engine/losses.ts) ----
enum { SG_LOSS_IS = 0, SG_LOSS_PPO = 1, SG_LOSS_CE = 2 };
/** Per token: loss[n] = weight[n] · loss_t, dlogp[n] = weight[n] · dloss_t/dlogp. refLogp may be null when klBeta = 0. */
void sg_token_loss(const float *logp, const float *oldLogp, const float *adv, const float *weight, const float *refLogp, int N,
                   int kind, float epsLow, float epsHigh, float klBeta, float *loss, float *dlogp, void *stream);

// ---- adamw.cu: fused AdamW over one flat fp32 arena of LoRA parameters ----
/** p, g, m, v [n]; g is multiplied by gradScale first (global-norm clipping); step is 1-based. */
void sg_adamw(float *p, const float *g, float *m, float *v, long n, float lr, float beta1, float beta2, float eps,
              float weightDecay, int step, float gradScale, void *stream);

// ---- decode_attention.cu: one new query row per sequence against a backend-owned KV cache ----
/** kc/vc [B,Smax,KV,D]; k/v [B,KV,D] written at row lens[b] of sequence b. */
void sg_kv_append(float *kc, float *vc, const float *k, const float *v, const int *lens, int B, int Smax, int KV, int D,
                  void *stream);
/** q [B,H,D] sees cache rows 0..lens[b]-1 (lens counts the row just appended) → o [B,H,D]; scores [B,H,Smax] scratch. */
void sg_decode_attention(const float *q, const float *kc, const float *vc, const int *lens, int B, int Smax, int H, int KV,
                         int D, float *scores, float *o, void *stream);

// ---- sample.cu: temperature / top-k / top-p on the device → ids and log-probs ----
/** logits [B,V], uniforms [B] in [0,1) (from the caller's seeded Rng) → ids [B], logprobs [B] (under the truncated,
 *  temperature-scaled distribution), modelLogprobs [B] (temperature 1, untruncated). temperature 0 = greedy
 *  (lowest id on ties). The support is infra/engine/sample.ts samplingSupport (ties: lower id first); the draw walks
 *  the support in id order, which is the same distribution as walking it by probability. */
void sg_sample(const float *logits, int B, int V, float temperature, int topK, float topP, const float *uniforms, int *ids,
               float *logprobs, float *modelLogprobs, void *stream);

// ---- fp32_ops.cu: the fp32 path of the current Backend boundary (contract precision; not the training fast path) ----
/** C[M,N] = alpha · op(A) op(B) + beta · C, all fp32 (layouts as sg_gemm_bf16): cuBLASLt's fp32 GEMM on a GPU, the
 *  tiled kernel of fp32_ops.cu where cuBLASLt is unavailable and in the emulated build. */
void sg_gemm_f32(int transA, int transB, int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
                 void *stream);
/** dst = dstScale · dst + alpha · src (src may be null: dst = dstScale · dst). */
void sg_axpy(float *dst, const float *src, long n, float alpha, float dstScale, void *stream);
/** partial[b] = Σ x² over a grid-stride share; the caller sums `blocks` partials (in float64). */
void sg_sum_squares_partial(const float *x, long n, float *partial, int blocks, void *stream);
/** y [rows,M] += bias [M] */
void sg_add_bias(float *y, const float *bias, long rows, int M, void *stream);
/** out [N,C] = table[ids]; ids must be in range (checked by the caller). */
void sg_embedding(const float *table, const int *ids, int N, int C, float *out, void *stream);
/** dtable [V,C] += scatter of dy [N,C] at ids (fp32 atomics; dtable zeroed by the caller). */
void sg_embedding_bwd(const float *dy, const int *ids, int N, int C, float *dtable, void *stream);
/** Over rows of x [N,V]: mode 0 out [N,V] = log-softmax; mode 1 out [N] = target log-prob; mode 2 out [N,V] =
 *  dlogp · (onehot(target) − softmax). */
void sg_row_softmax(const float *x, int N, int V, const int *targets, const float *dlogp, int mode, float *out, void *stream);
/** One sequence: q [T,H,D], k/v [S,KV,D], query i sees keys 0..qStart+i; any D ≤ 256. 0, -1 (D), -2 (H % KV). */
int sg_attention_simple(const float *q, const float *k, const float *v, int T, int S, int H, int KV, int D, int qStart, float *o,
                        void *stream);
/** dq [T,H,D], dk/dv [S,KV,D] (zeroed here). */
int sg_attention_simple_bwd(const float *q, const float *k, const float *v, const float *dout, int T, int S, int H, int KV, int D,
                            int qStart, float *dq, float *dk, float *dv, void *stream);

// ---- init.cu ----
/** Uniform [−scale, scale) from (seed, index) into f32 (when non-null) or b16. */
void sg_fill_random(float *f32, sg_bf16 *b16, long n, unsigned long long seed, float scale, void *stream);
