// infra/engine/cuda/kernels/common.cuh: what every kernel file includes — the CUDA headers on nvcc, the emulation
// layer (../emu/cuda_emu.h) on g++ with SG_EMU, the launch macro that reads the same in both, and block/warp
// reductions. It does not know any op.
#pragma once
#ifdef SG_EMU
#include "../emu/cuda_emu.h"
#define SG_LAUNCH(kernel, grid, block, stream, ...) emu::launch(dim3(grid), dim3(block), [&] { kernel(__VA_ARGS__); })
#else
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>
#define SG_LAUNCH(kernel, grid, block, stream, ...) \
  kernel<<<dim3(grid), dim3(block), 0, (cudaStream_t)(stream)>>>(__VA_ARGS__)
#endif
#include <cfloat>
#include <cstdint>

#include "sg_kernels.h"

typedef __nv_bfloat16 bf16;

__device__ __forceinline__ float sgWarpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float sgWarpMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Sum over a block whose size is a multiple of 32 (≤ 1024); every thread gets the total. `scratch` holds 33 floats.
__device__ __forceinline__ float sgBlockSum(float v, float *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = sgWarpSum(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float t = lane < nw ? scratch[lane] : 0.0f;
  t = sgWarpSum(t);
  return t;
}
__device__ __forceinline__ float sgBlockMax(float v, float *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = sgWarpMax(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float t = lane < nw ? scratch[lane] : -FLT_MAX;
  t = sgWarpMax(t);
  return t;
}

static inline unsigned sgCeilDiv(long a, long b) { return (unsigned)((a + b - 1) / b); }
