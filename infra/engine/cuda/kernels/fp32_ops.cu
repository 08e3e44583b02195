// infra/engine/cuda/kernels/fp32_ops.cu: the fp32 path of the current Backend boundary (infra/engine/backend.ts) —
// the ops the contract suite checks at float32 tolerances and that the bf16 training kernels do not cover: a tiled
// fp32 GEMM (16x16 shared-memory tiles, CUDA cores), element-wise add/scale/fill, Σx² partials, bias broadcast,
// embedding gather/scatter-add, row log-softmax / target log-probs / their backward over [N,V], and single-sequence
// causal GQA attention of any head dim ≤ 256 (one thread per (query row, head); backward with fp32 atomics).
// Shapes as sg_kernels.h. Not the fast path: training uses the bf16 GEMM, flash attention and the chunked head.
#include "common.cuh"

__global__ void sgGemmF32(int transA, int transB, int M, int N, int K, float alpha, const float *__restrict__ A,
                          const float *__restrict__ B, float beta, float *__restrict__ C) {
  __shared__ float As[16][17];
  __shared__ float Bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int ka = k0 + tx, kb = k0 + ty;
    As[ty][tx] = (m < M && ka < K) ? (transA ? A[(long)ka * M + m] : A[(long)m * K + ka]) : 0.0f;
    Bs[ty][tx] = (n < N && kb < K) ? (transB ? B[(long)n * K + kb] : B[(long)kb * N + n]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (m < M && n < N) {
    float &c = C[(long)m * N + n];
    c = alpha * acc + (beta == 0.0f ? 0.0f : beta * c);
  }
}

void sg_gemm_f32(int transA, int transB, int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
                 void *stream) {
  if (M <= 0 || N <= 0) return;
#ifndef SG_EMU
  if (K > 0 && sg_gemm_f32_cublaslt(transA, transB, M, N, K, alpha, A, B, beta, C, stream) == 0) return;
#endif
  SG_LAUNCH(sgGemmF32, dim3(sgCeilDiv(N, 16), sgCeilDiv(M, 16)), dim3(16, 16), stream, transA, transB, M, N, K, alpha, A, B, beta, C);
}

__global__ void sgAxpy(float *__restrict__ dst, const float *__restrict__ src, long n, float alpha, float dstScale) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  // dstScale 0 overwrites (a NaN already in dst does not survive a fill).
  if (i < n) dst[i] = (dstScale == 0.0f ? 0.0f : dstScale * dst[i]) + (src ? alpha * src[i] : 0.0f);
}
void sg_axpy(float *dst, const float *src, long n, float alpha, float dstScale, void *stream) {
  if (n > 0) SG_LAUNCH(sgAxpy, sgCeilDiv(n, 256), 256, stream, dst, src, n, alpha, dstScale);
}

__global__ void sgSumSquares(const float *__restrict__ x, long n, float *__restrict__ partial) {
  __shared__ float scratch[33];
  float acc = 0.0f;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) acc += x[i] * x[i];
  acc = sgBlockSum(acc, scratch);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}
void sg_sum_squares_partial(const float *x, long n, float *partial, int blocks, void *stream) {
  SG_LAUNCH(sgSumSquares, blocks, 256, stream, x, n, partial);
}

__global__ void sgAddBias(float *__restrict__ y, const float *__restrict__ b, long rows, int M) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * M) y[i] += b[i % M];
}
void sg_add_bias(float *y, const float *bias, long rows, int M, void *stream) {
  if (rows > 0) SG_LAUNCH(sgAddBias, sgCeilDiv(rows * M, 256), 256, stream, y, bias, rows, M);
}

__global__ void sgEmbedding(const float *__restrict__ table, const int *__restrict__ ids, int N, int C, float *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long)N * C) out[i] = table[(long)ids[i / C] * C + i % C];
}
__global__ void sgEmbeddingBwd(const float *__restrict__ dy, const int *__restrict__ ids, int N, int C, float *__restrict__ dtable) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long)N * C) atomicAdd(&dtable[(long)ids[i / C] * C + i % C], dy[i]);
}
void sg_embedding(const float *table, const int *ids, int N, int C, float *out, void *stream) {
  if (N > 0) SG_LAUNCH(sgEmbedding, sgCeilDiv((long)N * C, 256), 256, stream, table, ids, N, C, out);
}
void sg_embedding_bwd(const float *dy, const int *ids, int N, int C, float *dtable, void *stream) {
  if (N > 0) SG_LAUNCH(sgEmbeddingBwd, sgCeilDiv((long)N * C, 256), 256, stream, dy, ids, N, C, dtable);
}

// One block per row: lse of the row; then out = x − lse (mode 0: full log-softmax), or the target's (mode 1), or
// dx = dlogp·(onehot − softmax) (mode 2).
__global__ void sgRowSoftmax(const float *__restrict__ x, int V, const int *__restrict__ targets, const float *__restrict__ dlogp,
                             int mode, float *__restrict__ out) {
  __shared__ float scratch[33];
  const long n = blockIdx.x;
  const float *row = x + n * V;
  float mx = -FLT_MAX;
  for (int j = threadIdx.x; j < V; j += blockDim.x) mx = fmaxf(mx, row[j]);
  mx = sgBlockMax(mx, scratch);
  float s = 0.0f;
  for (int j = threadIdx.x; j < V; j += blockDim.x) s += expf(row[j] - mx);
  s = sgBlockSum(s, scratch);
  const float lse = mx + logf(s);
  if (mode == 0) {
    for (int j = threadIdx.x; j < V; j += blockDim.x) out[n * V + j] = row[j] - lse;
  } else if (mode == 1) {
    if (threadIdx.x == 0) out[n] = row[targets[n]] - lse;
  } else {
    const float g = dlogp[n];
    for (int j = threadIdx.x; j < V; j += blockDim.x) out[n * V + j] = g * ((j == targets[n] ? 1.0f : 0.0f) - expf(row[j] - lse));
  }
}
void sg_row_softmax(const float *x, int N, int V, const int *targets, const float *dlogp, int mode, float *out, void *stream) {
  if (N > 0) SG_LAUNCH(sgRowSoftmax, N, 256, stream, x, V, targets, dlogp, mode, out);
}

#define SG_SIMPLE_ATTN_MAX_D 256

__global__ void sgAttnSimpleFwd(const float *__restrict__ q, const float *__restrict__ k, const float *__restrict__ v, int T, int S,
                                int H, int KV, int D, int qStart, float *__restrict__ o) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= T * H) return;
  const int i = idx / H, h = idx % H, g = h / (H / KV);
  const float scale = 1.0f / sqrtf((float)D);
  const float *qr = q + (long)idx * D;
  const int last = min(S - 1, qStart + i);
  float mx = -FLT_MAX;
  for (int j = 0; j <= last; j++) {
    float s = 0.0f;
    for (int d = 0; d < D; d++) s += qr[d] * k[((long)j * KV + g) * D + d];
    mx = fmaxf(mx, s * scale);
  }
  float acc[SG_SIMPLE_ATTN_MAX_D];
  for (int d = 0; d < D; d++) acc[d] = 0.0f;
  float z = 0.0f;
  for (int j = 0; j <= last; j++) {
    float s = 0.0f;
    for (int d = 0; d < D; d++) s += qr[d] * k[((long)j * KV + g) * D + d];
    const float p = expf(s * scale - mx);
    z += p;
    for (int d = 0; d < D; d++) acc[d] += p * v[((long)j * KV + g) * D + d];
  }
  for (int d = 0; d < D; d++) o[(long)idx * D + d] = acc[d] / z;
}

__global__ void sgAttnSimpleBwd(const float *__restrict__ q, const float *__restrict__ k, const float *__restrict__ v,
                                const float *__restrict__ dout, int T, int S, int H, int KV, int D, int qStart,
                                float *__restrict__ dq, float *__restrict__ dk, float *__restrict__ dv) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= T * H) return;
  const int i = idx / H, h = idx % H, g = h / (H / KV);
  const float scale = 1.0f / sqrtf((float)D);
  const float *qr = q + (long)idx * D, *dor = dout + (long)idx * D;
  const int last = min(S - 1, qStart + i);
  float mx = -FLT_MAX, z = 0.0f, rowdot = 0.0f;
  for (int j = 0; j <= last; j++) {
    float s = 0.0f;
    for (int d = 0; d < D; d++) s += qr[d] * k[((long)j * KV + g) * D + d];
    mx = fmaxf(mx, s * scale);
  }
  for (int j = 0; j <= last; j++) {
    float s = 0.0f, dp = 0.0f;
    for (int d = 0; d < D; d++) {
      s += qr[d] * k[((long)j * KV + g) * D + d];
      dp += dor[d] * v[((long)j * KV + g) * D + d];
    }
    const float p = expf(s * scale - mx);
    z += p;
    rowdot += p * dp;
  }
  rowdot /= z;
  float gq[SG_SIMPLE_ATTN_MAX_D];
  for (int d = 0; d < D; d++) gq[d] = 0.0f;
  for (int j = 0; j <= last; j++) {
    float s = 0.0f, dp = 0.0f;
    for (int d = 0; d < D; d++) {
      s += qr[d] * k[((long)j * KV + g) * D + d];
      dp += dor[d] * v[((long)j * KV + g) * D + d];
    }
    const float p = expf(s * scale - mx) / z;
    const float ds = p * (dp - rowdot) * scale;
    for (int d = 0; d < D; d++) {
      const long kv = ((long)j * KV + g) * D + d;
      gq[d] += ds * k[kv];
      atomicAdd(&dk[kv], ds * qr[d]);
      atomicAdd(&dv[kv], p * dor[d]);
    }
  }
  for (int d = 0; d < D; d++) dq[(long)idx * D + d] = gq[d];
}

int sg_attention_simple(const float *q, const float *k, const float *v, int T, int S, int H, int KV, int D, int qStart, float *o,
                        void *stream) {
  if (D > SG_SIMPLE_ATTN_MAX_D) return -1;
  if (KV <= 0 || H % KV) return -2;
  if (T > 0) SG_LAUNCH(sgAttnSimpleFwd, sgCeilDiv((long)T * H, 64), 64, stream, q, k, v, T, S, H, KV, D, qStart, o);
  return 0;
}

int sg_attention_simple_bwd(const float *q, const float *k, const float *v, const float *dout, int T, int S, int H, int KV, int D,
                            int qStart, float *dq, float *dk, float *dv, void *stream) {
  if (D > SG_SIMPLE_ATTN_MAX_D) return -1;
  if (KV <= 0 || H % KV) return -2;
  sg_axpy(dk, nullptr, (long)S * KV * D, 0.0f, 0.0f, stream);
  sg_axpy(dv, nullptr, (long)S * KV * D, 0.0f, 0.0f, stream);
  if (T > 0) SG_LAUNCH(sgAttnSimpleBwd, sgCeilDiv((long)T * H, 64), 64, stream, q, k, v, dout, T, S, H, KV, D, qStart, dq, dk, dv);
  return 0;
}
