// infra/engine/cuda/kernels/attention_tiles.cuh: what attention_fwd.cu and attention_bwd.cu share — the kernel
// generation switch (SG_CUDA_ATTN=v2 selects the FA2-style kernels; read once; default 1, the one-warp kernels — the
// generation measured on a GPU; v2 has passed only the host checks so far),
// dynamic shared memory that reads the same on nvcc and in the emulation layer, the tile sizes, and fp32→bf16 tile
// staging (four floats per thread step, 16-byte loads on a GPU). It does not know the attention math.
#pragma once
#include <cstdlib>
#include <cstring>

#include "common.cuh"

// Queries per forward block, keys per backward block; warps per block (each owns 16 of those rows).
constexpr int kAttnTile = 64;
constexpr int kAttnWarps = 4;
constexpr int kAttnThreads = kAttnWarps * 32;
// Query rows per backward inner step (smaller than kAttnTile so two blocks fit on an SM).
constexpr int kAttnBwdQ = 32;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

static inline int sgAttnDefaultVersion() {
  static const int v = [] {
    const char *e = std::getenv("SG_CUDA_ATTN");
    return (e && std::strcmp(e, "v2") == 0) ? 2 : 1;
  }();
  return v;
}

#ifdef SG_EMU
#define SG_ATTN_DYN_SMEM(name) char *name = emu::dynamicSmem()
#define SG_LAUNCH_DYN(kernel, grid, block, bytes, stream, ...) \
  (emu::setDynamicSmem(bytes), emu::launch(dim3(grid), dim3(block), [&] { kernel(__VA_ARGS__); }))
#define SG_ALLOW_DYN_SMEM(kernel, bytes) ((void)0)
#else
#define SG_ATTN_DYN_SMEM(name) extern __shared__ __align__(128) char name[]
#define SG_LAUNCH_DYN(kernel, grid, block, bytes, stream, ...) \
  kernel<<<dim3(grid), dim3(block), (bytes), (cudaStream_t)(stream)>>>(__VA_ARGS__)
#define SG_ALLOW_DYN_SMEM(kernel, bytes) \
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(bytes))
#endif

// Four consecutive floats (p 16-byte aligned on a GPU) → four bf16 at dst (8-byte aligned); zeros when !ok.
__device__ __forceinline__ void sgStage4(const float *__restrict__ p, bool ok, bf16 *dst) {
#ifdef SG_EMU
  for (int i = 0; i < 4; i++) dst[i] = __float2bfloat16(ok ? p[i] : 0.0f);
#else
  float4 x = ok ? __ldg(reinterpret_cast<const float4 *>(p)) : make_float4(0.f, 0.f, 0.f, 0.f);
  __nv_bfloat162 a = __floats2bfloat162_rn(x.x, x.y), b = __floats2bfloat162_rn(x.z, x.w);
  uint2 u;
  u.x = *reinterpret_cast<unsigned *>(&a);
  u.y = *reinterpret_cast<unsigned *>(&b);
  *reinterpret_cast<uint2 *>(dst) = u;
#endif
}

// ROWS × D fp32 rows (row r at src + r·rowStride, only r < valid are read) → bf16 tile with stride ld, by the block.
// The trip count is a constant, so the loads are unrolled and in flight together.
template <int D, int ROWS>
__device__ __forceinline__ void sgStageTile(const float *__restrict__ src, long rowStride, int valid, bf16 *dst, int ld) {
  static_assert((ROWS * D) % (kAttnThreads * 4) == 0, "a tile is a whole number of block-wide float4 steps");
#pragma unroll
  for (int it = 0; it < ROWS * D / (kAttnThreads * 4); it++) {
    const int i = (it * kAttnThreads + (int)threadIdx.x) * 4;
    const int r = i / D, c = i % D;
    sgStage4(src + (long)r * rowStride + c, r < valid, dst + r * ld + c);
  }
}
