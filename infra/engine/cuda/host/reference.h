// infra/engine/cuda/host/reference.h: the plain C++ reference of every CUDA op (fp64 accumulation, loops as the
// maths reads), what the host checks compare the emulated kernels against. Same shapes and argument order as
// ../kernels/sg_kernels.h. At merge it may be pointed at the native backend's kernels (infra/engine/native).
#pragma once
#include <cstdint>
#include <vector>

#include "../kernels/sg_kernels.h"

float sg_bf16_to_f32(sg_bf16 b);
sg_bf16 sg_f32_to_bf16(float f);
/** x rounded to bf16 and back (what a kernel sees after loading x as bf16). */
float sg_round_bf16(float x);

void sg_ref_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                      float *C);
void ref_lora_fwd(const float *x, const float *A, const float *B, int N, int K, int M, int r, float scale, float *y, float *u);
void ref_lora_bwd(const float *x, const float *A, const float *B, const float *dy, int N, int K, int M, int r, float scale,
                  float *dx, float *dA, float *dB);
void ref_rmsnorm_fwd(const float *x, const float *w, int N, int C, float eps, float *y);
void ref_rmsnorm_bwd(const float *x, const float *w, const float *dy, int N, int C, float eps, float *dx, float *dw);
void ref_rope(const float *x, const int *pos, int N, int H, int D, float theta, int inverse, float *y);
void ref_swiglu_fwd(const float *g, const float *u, long n, float *out);
void ref_swiglu_bwd(const float *g, const float *u, const float *dy, long n, float *dg, float *du);
/** Per-sequence causal GQA attention; query i of sequence b sees keys 0..qStart[b]+i. */
void ref_attention_fwd(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                       int H, int KV, int D, float *o);
void ref_attention_bwd(const float *q, const float *k, const float *v, const float *dout, const int *cuQ, const int *cuK,
                       const int *qStart, int B, int H, int KV, int D, float *dq, float *dk, float *dv);
/** Full logits per row (small V only). */
void ref_head_logprobs(const float *h, const sg_bf16 *W, const int *targets, int N, int C, int V, float *logp);
void ref_head_logprobs_bwd(const float *h, const sg_bf16 *W, const int *targets, const float *dlogp, int N, int C, int V,
                           float *dh);
void ref_token_loss(const float *logp, const float *oldLogp, const float *adv, const float *weight, const float *refLogp, int N,
                    int kind, float epsLow, float epsHigh, float klBeta, float *loss, float *dlogp);
void ref_adamw(float *p, const float *g, float *m, float *v, long n, float lr, float b1, float b2, float eps, float wd, int step,
               float gradScale);
void ref_decode_attention(const float *q, const float *kc, const float *vc, const int *lens, int B, int Smax, int H, int KV, int D,
                          float *o);
/** sample.ts samplingSupport + a draw in id order with uniform u; returns the id, its log-prob and the raw log-prob. */
void ref_sample(const float *row, int V, float temperature, int topK, float topP, float u, int *id, float *logprob,
                float *modelLogprob);
