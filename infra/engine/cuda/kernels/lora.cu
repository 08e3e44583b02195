// infra/engine/cuda/kernels/lora.cu: fused LoRA shrink + expand (u = x Aᵀ into shared memory, then y += scale·u Bᵀ
// into the base output, one block per row) and its backward: du = scale·dy B with dx += du A (one block per row),
// dA = duᵀ x and dB = scale·dyᵀ u (one thread per output element, summed over rows in order: deterministic).
// x [N,K], A [r,K], B [M,r], u/du [N,r], y/dy [N,M]; r ≤ 128. The frozen base GEMM is not here (gemm_cublaslt.cu).
#include "common.cuh"

#define SG_LORA_MAX_R 128

// One warp per rank index j: u[j] = Σ_k x[k]·A[j,k] (lanes split k, shuffle-reduced).
__device__ __forceinline__ void sgRowTimesT(const float *__restrict__ xr, const float *__restrict__ A, int r, int K, float *us,
                                            float mul) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int j = warp; j < r; j += nw) {
    const float *aj = A + (long)j * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc += xr[k] * aj[k];
    acc = sgWarpSum(acc);
    if (lane == 0) us[j] = acc * mul;
  }
}

__global__ void sgLoraFwd(const float *__restrict__ x, const float *__restrict__ A, const float *__restrict__ B, int K, int M,
                          int r, float scale, float *__restrict__ y, float *__restrict__ u) {
  __shared__ float us[SG_LORA_MAX_R];
  const long n = blockIdx.x;
  sgRowTimesT(x + n * K, A, r, K, us, 1.0f);
  __syncthreads();
  for (int j = threadIdx.x; j < r; j += blockDim.x) u[n * r + j] = us[j];
  for (int m = threadIdx.x; m < M; m += blockDim.x) {
    const float *bm = B + (long)m * r;
    float acc = 0.0f;
    for (int j = 0; j < r; j++) acc += us[j] * bm[j];
    y[n * M + m] += scale * acc;
  }
}

// du[j] = scale · Σ_m dy[m]·B[m,j]; dx[k] += Σ_j du[j]·A[j,k].
__global__ void sgLoraBwdRows(const float *__restrict__ A, const float *__restrict__ B, const float *__restrict__ dy, int K, int M,
                              int r, float scale, float *__restrict__ dx, float *__restrict__ du) {
  __shared__ float dus[SG_LORA_MAX_R];
  const long n = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const float *dyr = dy + n * M;
  for (int j = warp; j < r; j += nw) {
    float acc = 0.0f;
    for (int m = lane; m < M; m += 32) acc += dyr[m] * B[(long)m * r + j];
    acc = sgWarpSum(acc);
    if (lane == 0) dus[j] = acc * scale;
  }
  __syncthreads();
  for (int j = threadIdx.x; j < r; j += blockDim.x) du[n * r + j] = dus[j];
  for (int k = threadIdx.x; k < K; k += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < r; j++) acc += dus[j] * A[(long)j * K + k];
    dx[n * K + k] += acc;
  }
}

// out[i,c] = mul · Σ_n P[n,i]·Q[n,c], P [N,I], Q [N,Cc] (dA: P=du, Q=x; dB: P=dy, Q=u).
__global__ void sgLoraWeightGrad(const float *__restrict__ P, const float *__restrict__ Q, int N, int I, int Cc, float mul,
                                 float *__restrict__ out) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)I * Cc) return;
  const int i = (int)(idx / Cc), c = (int)(idx % Cc);
  float acc = 0.0f;
  for (long n = 0; n < N; n++) acc += P[n * I + i] * Q[n * Cc + c];
  out[idx] = acc * mul;
}

void sg_lora_fwd(const float *x, const float *A, const float *B, int N, int K, int M, int r, float scale, float *y, float *u,
                 void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgLoraFwd, N, 128, stream, x, A, B, K, M, r, scale, y, u);
}

void sg_lora_bwd(const float *x, const float *A, const float *B, const float *u, const float *dy, int N, int K, int M, int r,
                 float scale, float *dx, float *du, float *dA, float *dB, void *stream) {
  if (N > 0) SG_LAUNCH(sgLoraBwdRows, N, 128, stream, A, B, dy, K, M, r, scale, dx, du);
  SG_LAUNCH(sgLoraWeightGrad, sgCeilDiv((long)r * K, 256), 256, stream, du, x, N, r, K, 1.0f, dA);
  SG_LAUNCH(sgLoraWeightGrad, sgCeilDiv((long)M * r, 256), 256, stream, dy, u, N, M, r, scale, dB);
}
