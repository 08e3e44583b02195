// infra/engine/cuda/emu/cuda_emu.h: a CUDA device-emulation layer so the same kernel sources compile with g++ and
// run on the host (define SG_EMU). It knows grids, blocks, threads, static __shared__ memory, __syncthreads, warp
// shuffles/__syncwarp, atomics and the nvcuda::wmma fragment ops (bf16/f16 16x16x16 → f32), and one dynamic shared
// memory buffer (setDynamicSmem/dynamicSmem, for kernels/attention_tiles.cuh). It does not know streams, cooperative
// groups or timing. Correct before fast:
//  - a block's threads are fibers (own stacks, cooperative switches) on one OS thread; blocks of a grid run one after another, so
//    `__shared__` (= function-static storage) is the block's shared memory and atomics need no locks;
//  - __syncthreads parks a fiber until every live thread of the block has arrived (threads that returned count
//    as arrived); warp ops park it until every live lane of its warp has arrived — real concurrency inside a
//    block, so a missing barrier shows up as a wrong answer here as it would on a GPU;
//  - a wmma fragment holds the whole tile in every lane (the element layout is opaque in CUDA too): loads,
//    mma and stores are computed per lane with f32 accumulation; element-wise loops over x[num_elements] with
//    the same op for every element behave as on the device.
#pragma once
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>
#include <algorithm>
using std::max;
using std::min;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef void *cudaStream_t;

// Fiber switch: a hand-written x86-64 switch (callee-saved registers + stack pointer, no signal-mask syscall as in
// swapcontext, which made the checks 10x slower); ucontext elsewhere.
#if defined(__x86_64__)
#define SG_EMU_FAST_SWITCH 1
extern "C" void sg_emu_switch(void **saveSp, void *newSp);
asm(R"(
.text
.weak sg_emu_switch
.type sg_emu_switch,@function
sg_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
)");
#endif

namespace emu {

enum class Wait { None, Block, Warp, Done };

struct Fiber {
  ucontext_t ctx;
  void *sp = nullptr;
  std::vector<char> stack;
  dim3 tid;
  unsigned linear = 0;
  Wait wait = Wait::None;
};

struct BlockState {
  dim3 grid, block, bid;
  std::vector<Fiber> fibers;
  ucontext_t sched;
  void *schedSp = nullptr;
  Fiber *cur = nullptr;
  const std::function<void()> *body = nullptr;
  // Warp exchange slots: one 8-byte value per thread.
  std::vector<uint64_t> xchg;
};

inline BlockState &state() {
  static BlockState s;
  return s;
}

inline void toScheduler() {
  BlockState &s = state();
#ifdef SG_EMU_FAST_SWITCH
  sg_emu_switch(&s.cur->sp, s.schedSp);
#else
  swapcontext(&s.cur->ctx, &s.sched);
#endif
}

inline void toFiber(Fiber &f) {
  BlockState &s = state();
  s.cur = &f;
#ifdef SG_EMU_FAST_SWITCH
  sg_emu_switch(&s.schedSp, f.sp);
#else
  swapcontext(&s.sched, &f.ctx);
#endif
}

inline void fiberEntry() {
  BlockState &s = state();
  (*s.body)();
  s.cur->wait = Wait::Done;
  toScheduler();
  std::abort();  // a finished fiber is never resumed
}

inline void park(Wait w) {
  state().cur->wait = w;
  toScheduler();
}

inline void initFiber(Fiber &f) {
#ifdef SG_EMU_FAST_SWITCH
  // Stack top (16-aligned): [fake return address 0][fiberEntry][six callee-saved registers] ← sp
  uintptr_t top = ((uintptr_t)f.stack.data() + f.stack.size()) & ~(uintptr_t)15;
  void **p = (void **)top;
  *--p = nullptr;
  *--p = (void *)&fiberEntry;
  for (int i = 0; i < 6; i++) *--p = nullptr;
  f.sp = p;
#else
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.stack.data();
  f.ctx.uc_stack.ss_size = f.stack.size();
  f.ctx.uc_link = nullptr;
  makecontext(&f.ctx, fiberEntry, 0);
#endif
}

inline unsigned nthreads() {
  const BlockState &s = state();
  return s.block.x * s.block.y * s.block.z;
}

// SG_EMU_SCHEDULE: 0 lockstep passes over all threads (default), 1 lowest warp first, 2 highest warp first.
inline int schedule() {
  static const int v = std::getenv("SG_EMU_SCHEDULE") ? std::atoi(std::getenv("SG_EMU_SCHEDULE")) : 0;
  return v;
}

// Run one block: resume fibers until all are done, releasing barriers when every live participant arrived.
inline void runBlock() {
  BlockState &s = state();
  const unsigned n = nthreads();
  const unsigned nwarps = (n + 31) / 32;
  const int sched = schedule();
  for (;;) {
    bool progressed = false;
    for (unsigned j = 0; j < n; j++) {
      // schedule 1/2: only one warp (the lowest / highest that can) runs per pass, so warps drift apart as far as
      // the barriers allow and a missing __syncthreads between warps shows (lockstep passes hide it).
      if (sched != 0 && progressed && j % 32 == 0) break;
      const unsigned i = sched == 2 ? (nwarps - 1 - j / 32) * 32 + j % 32 : j;
      if (i >= n) continue;
      Fiber &f = s.fibers[i];
      if (f.wait != Wait::None) continue;
      toFiber(f);
      progressed = true;
    }
    bool allDone = true, anyBlock = false, allBlockOrDone = true;
    for (unsigned i = 0; i < n; i++) {
      Wait w = s.fibers[i].wait;
      if (w != Wait::Done) allDone = false;
      if (w == Wait::Block) anyBlock = true;
      if (w != Wait::Block && w != Wait::Done) allBlockOrDone = false;
    }
    if (allDone) return;
    bool released = false;
    for (unsigned w = 0; w < nwarps; w++) {
      unsigned lo = w * 32, hi = lo + 32 < n ? lo + 32 : n;
      bool any = false, all = true;
      for (unsigned i = lo; i < hi; i++) {
        Wait x = s.fibers[i].wait;
        if (x == Wait::Warp) any = true;
        if (x != Wait::Warp && x != Wait::Done) all = false;
      }
      if (any && all) {
        for (unsigned i = lo; i < hi; i++)
          if (s.fibers[i].wait == Wait::Warp) s.fibers[i].wait = Wait::None;
        released = true;
      }
    }
    if (!released && anyBlock && allBlockOrDone) {
      for (unsigned i = 0; i < n; i++)
        if (s.fibers[i].wait == Wait::Block) s.fibers[i].wait = Wait::None;
      released = true;
    }
    if (!released && !progressed) {
      std::fprintf(stderr, "cuda_emu: deadlock in block (%u,%u,%u): a barrier that not every thread reaches\n", s.bid.x, s.bid.y, s.bid.z);
      std::abort();
    }
  }
}

inline size_t &stackBytes() {
  static size_t b = 256 * 1024;
  return b;
}

// Launch a kernel body over grid × block; synchronous.
inline void launch(dim3 grid, dim3 block, const std::function<void()> &body) {
  BlockState &s = state();
  const unsigned n = block.x * block.y * block.z;
  if (n == 0 || n > 1024) {
    std::fprintf(stderr, "cuda_emu: block of %u threads (1..1024 allowed)\n", n);
    std::abort();
  }
  s.grid = grid;
  s.block = block;
  s.body = &body;
  if (s.fibers.size() < n) s.fibers.resize(n);
  s.xchg.assign(n, 0);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        s.bid = dim3(bx, by, bz);
        unsigned i = 0;
        for (unsigned tz = 0; tz < block.z; tz++)
          for (unsigned ty = 0; ty < block.y; ty++)
            for (unsigned tx = 0; tx < block.x; tx++, i++) {
              Fiber &f = s.fibers[i];
              if (f.stack.size() != stackBytes()) f.stack.assign(stackBytes(), 0);
              f.tid = dim3(tx, ty, tz);
              f.linear = i;
              f.wait = Wait::None;
              initFiber(f);
            }
        runBlock();
      }
}

// Dynamic shared memory (`extern __shared__` on a GPU): one buffer for the launch, sized by the launcher; blocks run
// one at a time. Filled with 0xff bytes (NaN as fp32 and bf16) so a read of shared memory never written shows.
inline std::vector<uint64_t> &dynamicSmemBuf() {
  static std::vector<uint64_t> b;
  return b;
}
inline void setDynamicSmem(size_t bytes) { dynamicSmemBuf().assign((bytes + 7) / 8, ~(uint64_t)0); }
inline char *dynamicSmem() { return (char *)dynamicSmemBuf().data(); }

inline unsigned lane() { return state().cur->linear & 31u; }

// Exchange one value among the live lanes of the caller's warp: every lane publishes `v`, then reads lane `src`.
template <class T>
inline T exchange(T v, int src, bool valid) {
  static_assert(sizeof(T) <= 8, "warp exchange of values up to 8 bytes");
  BlockState &s = state();
  unsigned me = s.cur->linear, base = me & ~31u;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  s.xchg[me] = bits;
  park(Wait::Warp);
  T out = v;
  unsigned from = base + (unsigned)src;
  if (valid && src >= 0 && src < 32 && from < nthreads() && s.fibers[from].wait != Wait::Done) {
    uint64_t b = s.xchg[from];
    std::memcpy(&out, &b, sizeof(T));
  }
  park(Wait::Warp);  // nobody overwrites a slot before every lane has read
  return out;
}

}  // namespace emu

#define threadIdx (emu::state().cur->tid)
#define blockIdx (emu::state().bid)
#define blockDim (emu::state().block)
#define gridDim (emu::state().grid)
#define warpSize 32

// SG_EMU_DROP_SYNC=1 turns __syncthreads into a no-op: a fault injection that the host checks must catch (the
// attention kernels depend on their barriers), proving the emulation runs a block's threads concurrently.
inline bool sgEmuDropSync() {
  static const bool drop = std::getenv("SG_EMU_DROP_SYNC") && std::getenv("SG_EMU_DROP_SYNC")[0] == '1';
  return drop;
}
inline void __syncthreads() {
  if (!sgEmuDropSync()) emu::park(emu::Wait::Block);
}
inline void __syncwarp(unsigned = 0xffffffffu) { emu::park(emu::Wait::Warp); }
inline void __threadfence() {}

template <class T>
inline T __shfl_xor_sync(unsigned, T v, int laneMask, int width = 32) {
  int l = (int)emu::lane();
  int src = l ^ laneMask;
  return emu::exchange(v, src, (src / width) == (l / width));
}
template <class T>
inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  int l = (int)emu::lane();
  int src = l + (int)delta;
  return emu::exchange(v, src, (src / width) == (l / width));
}
template <class T>
inline T __shfl_sync(unsigned, T v, int srcLane, int width = 32) {
  int l = (int)emu::lane();
  int src = (l / width) * width + (srcLane % width);
  return emu::exchange(v, src, true);
}

template <class T>
inline T atomicAdd(T *p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}

inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
template <class T>
inline T __ldg(const T *p) { return *p; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }

// ---- bf16 / f16 storage types (round-to-nearest-even, as __float2bfloat16) ----
struct __nv_bfloat16 {
  uint16_t x;
};
inline __nv_bfloat16 __float2bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  __nv_bfloat16 r;
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    r.x = (uint16_t)((u >> 16) | 0x40);  // quiet NaN
    return r;
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  r.x = (uint16_t)(u >> 16);
  return r;
}
inline float __bfloat162float(__nv_bfloat16 b) {
  uint32_t u = (uint32_t)b.x << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---- tensor-core fragments (nvcuda::wmma subset: 16x16x16, bf16 inputs, f32 accumulators) ----
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment;

// matrix_a stores the logical M×K tile row-major; matrix_b the logical K×N tile row-major.
template <int M, int N, int K, class T, class Layout>
struct fragment<matrix_a, M, N, K, T, Layout> {
  static constexpr int num_elements = M * K;
  T x[M * K];
};
template <int M, int N, int K, class T, class Layout>
struct fragment<matrix_b, M, N, K, T, Layout> {
  static constexpr int num_elements = K * N;
  T x[K * N];
};
template <int M, int N, int K, class T>
struct fragment<accumulator, M, N, K, T, void> {
  static constexpr int num_elements = M * N;
  T x[M * N];
};

template <class F, class V>
inline void fill_fragment(F &f, V v) {
  for (int i = 0; i < F::num_elements; i++) f.x[i] = v;
}

template <int M, int N, int K, class T, class Layout>
inline void load_matrix_sync(fragment<matrix_a, M, N, K, T, Layout> &f, const T *p, unsigned ldm) {
  for (int m = 0; m < M; m++)
    for (int k = 0; k < K; k++)
      f.x[m * K + k] = std::is_same<Layout, row_major>::value ? p[m * ldm + k] : p[k * ldm + m];
  __syncwarp();
}
template <int M, int N, int K, class T, class Layout>
inline void load_matrix_sync(fragment<matrix_b, M, N, K, T, Layout> &f, const T *p, unsigned ldm) {
  for (int k = 0; k < K; k++)
    for (int n = 0; n < N; n++)
      f.x[k * N + n] = std::is_same<Layout, row_major>::value ? p[k * ldm + n] : p[n * ldm + k];
  __syncwarp();
}
template <int M, int N, int K>
inline void load_matrix_sync(fragment<accumulator, M, N, K, float> &f, const float *p, unsigned ldm, layout_t l) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) f.x[m * N + n] = l == mem_row_major ? p[m * ldm + n] : p[n * ldm + m];
  __syncwarp();
}
template <int M, int N, int K>
inline void store_matrix_sync(float *p, const fragment<accumulator, M, N, K, float> &f, unsigned ldm, layout_t l) {
  __syncwarp();
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) (l == mem_row_major ? p[m * ldm + n] : p[n * ldm + m]) = f.x[m * N + n];
  __syncwarp();
}

inline float toF(__nv_bfloat16 v) { return __bfloat162float(v); }
inline float toF(float v) { return v; }

template <int M, int N, int K, class T, class LA, class LB>
inline void mma_sync(fragment<accumulator, M, N, K, float> &d, const fragment<matrix_a, M, N, K, T, LA> &a,
                     const fragment<matrix_b, M, N, K, T, LB> &b, const fragment<accumulator, M, N, K, float> &c) {
  float out[M * N];
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float acc = c.x[m * N + n];
      for (int k = 0; k < K; k++) acc += toF(a.x[m * K + k]) * toF(b.x[k * N + n]);
      out[m * N + n] = acc;
    }
  std::memcpy(d.x, out, sizeof(out));
  __syncwarp();
}
}  // namespace wmma
}  // namespace nvcuda
