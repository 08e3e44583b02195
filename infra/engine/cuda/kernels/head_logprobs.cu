// infra/engine/cuda/kernels/head_logprobs.cu: the fused chunked output head → target log-probs and its gradient
// into the hidden states (Liger/unsloth style). Rows in chunks of rowChunk, vocabulary in chunks of vocabChunk: each
// [rowChunk, vocabChunk] logits tile comes from one bf16 GEMM (gemm_cublaslt.cu), is folded into a running max/sum
// per row (online log-sum-exp) and the target logit is picked out; backward recomputes the tile, turns it in place
// into dlogp·(onehot − softmax) in bf16 and adds tile·W_chunk into dh. [N,V] logits never exist.
// h [N,C] fp32, W [V,C] bf16, targets [N] → logp [N], lse [N]; dlogp [N] → dh [N,C].
#include "common.cuh"

__global__ void sgHeadInit(float *runM, float *runL, float *tgt, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    runM[i] = -FLT_MAX;
    runL[i] = 0.0f;
    tgt[i] = 0.0f;
  }
}

// One block per row of the tile: fold the row's vc logits into (runM, runL); pick the target logit.
__global__ void sgHeadFold(const float *__restrict__ chunk, int vc, int v0, const int *__restrict__ targets, int r0,
                           float *__restrict__ runM, float *__restrict__ runL, float *__restrict__ tgt) {
  __shared__ float scratch[33];
  const int r = blockIdx.x, n = r0 + r;
  const float *row = chunk + (long)r * vc;
  float mx = -FLT_MAX;
  for (int j = threadIdx.x; j < vc; j += blockDim.x) mx = fmaxf(mx, row[j]);
  mx = sgBlockMax(mx, scratch);
  float s = 0.0f;
  for (int j = threadIdx.x; j < vc; j += blockDim.x) s += expf(row[j] - mx);
  s = sgBlockSum(s, scratch);
  if (threadIdx.x == 0) {
    const float m0 = runM[n], m1 = fmaxf(m0, mx);
    runL[n] = runL[n] * expf(m0 - m1) + s * expf(mx - m1);
    runM[n] = m1;
    const int t = targets[n] - v0;
    if (t >= 0 && t < vc) tgt[n] = row[t];
  }
}

__global__ void sgHeadFinish(const float *runM, const float *runL, const float *tgt, int N, float *logp, float *lse) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    const float l = runM[i] + logf(runL[i]);
    lse[i] = l;
    logp[i] = tgt[i] - l;
  }
}

// g[r,j] = dlogp[n]·(onehot − exp(logit − lse[n])) in bf16, in the layout of the tile.
__global__ void sgHeadGradTile(const float *__restrict__ chunk, int rows, int vc, int v0, const int *__restrict__ targets, int r0,
                               const float *__restrict__ lse, const float *__restrict__ dlogp, bf16 *__restrict__ g) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)rows * vc) return;
  const int r = (int)(idx / vc), j = (int)(idx % vc), n = r0 + r;
  const float p = expf(chunk[idx] - lse[n]);
  g[idx] = __float2bfloat16(dlogp[n] * ((targets[n] == v0 + j ? 1.0f : 0.0f) - p));
}

__global__ void sgHeadZero(float *p, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}

int sg_head_logprobs(const float *h, const sg_bf16 *W, const int *targets, int N, int C, int V, int rowChunk, int vocabChunk,
                     float *logp, float *lse, sg_bf16 *hb, float *chunk, float *runM, float *runL, float *tgt, void *stream) {
  if (N <= 0) return 0;
  if (rowChunk <= 0 || vocabChunk <= 0) return -2;
  sg_cast_f32_bf16(h, hb, (long)N * C, stream);
  SG_LAUNCH(sgHeadInit, sgCeilDiv(N, 256), 256, stream, runM, runL, tgt, N);
  for (int r0 = 0; r0 < N; r0 += rowChunk) {
    const int rows = min(rowChunk, N - r0);
    for (int v0 = 0; v0 < V; v0 += vocabChunk) {
      const int vc = min(vocabChunk, V - v0);
      int st = sg_gemm_bf16(0, 1, rows, vc, C, 1.0f, hb + (long)r0 * C, W + (long)v0 * C, 0.0f, chunk, stream);
      if (st) return st;
      SG_LAUNCH(sgHeadFold, rows, 256, stream, chunk, vc, v0, targets, r0, runM, runL, tgt);
    }
  }
  SG_LAUNCH(sgHeadFinish, sgCeilDiv(N, 256), 256, stream, runM, runL, tgt, N, logp, lse);
  return 0;
}

int sg_head_logprobs_bwd(const float *h, const sg_bf16 *W, const int *targets, const float *lse, const float *dlogp, int N,
                         int C, int V, int rowChunk, int vocabChunk, float *dh, sg_bf16 *hb, float *chunk, sg_bf16 *chunkb,
                         void *stream) {
  if (N <= 0) return 0;
  if (rowChunk <= 0 || vocabChunk <= 0) return -2;
  sg_cast_f32_bf16(h, hb, (long)N * C, stream);
  SG_LAUNCH(sgHeadZero, sgCeilDiv((long)N * C, 256), 256, stream, dh, (long)N * C);
  for (int r0 = 0; r0 < N; r0 += rowChunk) {
    const int rows = min(rowChunk, N - r0);
    for (int v0 = 0; v0 < V; v0 += vocabChunk) {
      const int vc = min(vocabChunk, V - v0);
      int st = sg_gemm_bf16(0, 1, rows, vc, C, 1.0f, hb + (long)r0 * C, W + (long)v0 * C, 0.0f, chunk, stream);
      if (st) return st;
      SG_LAUNCH(sgHeadGradTile, sgCeilDiv((long)rows * vc, 256), 256, stream, chunk, rows, vc, v0, targets, r0, lse, dlogp,
                (bf16 *)chunkb);
      st = sg_gemm_bf16(0, 0, rows, C, vc, 1.0f, chunkb, W + (long)v0 * C, 1.0f, dh + (long)r0 * C, stream);
      if (st) return st;
    }
  }
  return 0;
}
