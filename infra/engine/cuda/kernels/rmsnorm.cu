// infra/engine/cuda/kernels/rmsnorm.cu: RMSNorm forward (y = x·rstd·w, rstd kept) and backward (dx per row in one
// block; dw per column over rows, deterministic). x [N,C], w [C], rstd [N]. One block of 256 threads per row.
// The bf16-activation variant (issue 37, the first op of it): x kept in bf16 (half the bytes saved for backward), y
// written in bf16 (the next bf16 GEMM's input, no separate cast), all sums and rstd in fp32; the same loops as the fp32
// kernels, so on the same (bf16-rounded) x its y is the fp32 kernel's y rounded to bf16, bit for bit.
#include "common.cuh"

__global__ void sgRmsnormFwd(const float *__restrict__ x, const float *__restrict__ w, int C, float eps, float *__restrict__ y,
                             float *__restrict__ rstd) {
  __shared__ float scratch[33];
  const long row = blockIdx.x;
  const float *xr = x + row * C;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) ss += xr[c] * xr[c];
  ss = sgBlockSum(ss, scratch);
  const float rs = rsqrtf(ss / (float)C + eps);
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[row * C + c] = xr[c] * rs * w[c];
  if (threadIdx.x == 0 && rstd) rstd[row] = rs;
}

// dx_c = rstd·w_c·dy_c − x_c·rstd³/C · Σ_j w_j·dy_j·x_j
__global__ void sgRmsnormBwdDx(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ rstd,
                               const float *__restrict__ dy, int C, float *__restrict__ dx) {
  __shared__ float scratch[33];
  const long row = blockIdx.x;
  const float *xr = x + row * C, *dyr = dy + row * C;
  float dot = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dot += w[c] * dyr[c] * xr[c];
  dot = sgBlockSum(dot, scratch);
  const float rs = rstd[row];
  const float k = rs * rs * rs * dot / (float)C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dx[row * C + c] = rs * w[c] * dyr[c] - xr[c] * k;
}

__global__ void sgRmsnormBwdDw(const float *__restrict__ x, const float *__restrict__ rstd, const float *__restrict__ dy, int N,
                               int C, float *__restrict__ dw) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float acc = 0.0f;
  for (long n = 0; n < N; n++) acc += dy[n * C + c] * x[n * C + c] * rstd[n];
  dw[c] = acc;
}

__device__ __forceinline__ float sgLd(const bf16 *p, long i) { return __bfloat162float(p[i]); }

__global__ void sgRmsnormFwdBf16(const bf16 *__restrict__ x, const float *__restrict__ w, int C, float eps, bf16 *__restrict__ y,
                                 float *__restrict__ rstd) {
  __shared__ float scratch[33];
  const long row = blockIdx.x;
  const bf16 *xr = x + row * C;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float v = sgLd(xr, c);
    ss += v * v;
  }
  ss = sgBlockSum(ss, scratch);
  const float rs = rsqrtf(ss / (float)C + eps);
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[row * C + c] = __float2bfloat16(sgLd(xr, c) * rs * w[c]);
  if (threadIdx.x == 0 && rstd) rstd[row] = rs;
}

__global__ void sgRmsnormBwdDxBf16(const bf16 *__restrict__ x, const float *__restrict__ w, const float *__restrict__ rstd,
                                   const float *__restrict__ dy, int C, float *__restrict__ dx) {
  __shared__ float scratch[33];
  const long row = blockIdx.x;
  const bf16 *xr = x + row * C;
  const float *dyr = dy + row * C;
  float dot = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dot += w[c] * dyr[c] * sgLd(xr, c);
  dot = sgBlockSum(dot, scratch);
  const float rs = rstd[row];
  const float k = rs * rs * rs * dot / (float)C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dx[row * C + c] = rs * w[c] * dyr[c] - sgLd(xr, c) * k;
}

__global__ void sgRmsnormBwdDwBf16(const bf16 *__restrict__ x, const float *__restrict__ rstd, const float *__restrict__ dy, int N,
                                   int C, float *__restrict__ dw) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float acc = 0.0f;
  for (long n = 0; n < N; n++) acc += dy[n * C + c] * sgLd(x, n * C + c) * rstd[n];
  dw[c] = acc;
}

void sg_rmsnorm_fwd(const float *x, const float *w, int N, int C, float eps, float *y, float *rstd, void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgRmsnormFwd, N, 256, stream, x, w, C, eps, y, rstd);
}

void sg_rmsnorm_bwd(const float *x, const float *w, const float *rstd, const float *dy, int N, int C, float *dx, float *dw,
                    void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgRmsnormBwdDx, N, 256, stream, x, w, rstd, dy, C, dx);
  if (dw) SG_LAUNCH(sgRmsnormBwdDw, sgCeilDiv(C, 128), 128, stream, x, rstd, dy, N, C, dw);
}

void sg_rmsnorm_fwd_bf16(const sg_bf16 *x, const float *w, int N, int C, float eps, sg_bf16 *y, float *rstd, void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgRmsnormFwdBf16, N, 256, stream, (const bf16 *)x, w, C, eps, (bf16 *)y, rstd);
}

void sg_rmsnorm_bwd_bf16(const sg_bf16 *x, const float *w, const float *rstd, const float *dy, int N, int C, float *dx, float *dw,
                         void *stream) {
  if (N <= 0) return;
  SG_LAUNCH(sgRmsnormBwdDxBf16, N, 256, stream, (const bf16 *)x, w, rstd, dy, C, dx);
  if (dw) SG_LAUNCH(sgRmsnormBwdDwBf16, sgCeilDiv(C, 128), 128, stream, (const bf16 *)x, rstd, dy, N, C, dw);
}
