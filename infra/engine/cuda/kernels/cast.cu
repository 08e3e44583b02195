// infra/engine/cuda/kernels/cast.cu: fp32 → bf16 conversion (activations into the bf16 GEMM inputs). [n] → [n].
#include "common.cuh"

__global__ void sgCastF32Bf16(const float *__restrict__ x, bf16 *__restrict__ y, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(x[i]);
}

void sg_cast_f32_bf16(const float *x, sg_bf16 *y, long n, void *stream) {
  if (n <= 0) return;
  SG_LAUNCH(sgCastF32Bf16, sgCeilDiv(n, 256), 256, stream, x, (bf16 *)y, n);
}
