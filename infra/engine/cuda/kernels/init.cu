// infra/engine/cuda/kernels/init.cu: counter-based random fill on the device (splitmix64 of seed and index → a
// uniform in [−scale, scale)), fp32 or bf16 — the random-weight models of the GPU benchmarks, without generating
// billions of values on the host. [n] → [n]. Same seed, same values, on any grid.
#include "common.cuh"

__device__ __forceinline__ float sgUniformAt(unsigned long long seed, unsigned long long i) {
  unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)((z >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

__global__ void sgFillRandom(float *__restrict__ f32, bf16 *__restrict__ b16, long n, unsigned long long seed, float scale) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = sgUniformAt(seed, (unsigned long long)i) * scale;
  if (f32) f32[i] = v;
  else b16[i] = __float2bfloat16(v);
}

void sg_fill_random(float *f32, sg_bf16 *b16, long n, unsigned long long seed, float scale, void *stream) {
  if (n > 0) SG_LAUNCH(sgFillRandom, sgCeilDiv(n, 256), 256, stream, f32, (bf16 *)b16, n, seed, scale);
}
