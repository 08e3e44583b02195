// bench/gpu/attn-bench.cu: a standalone GPU timing of the cuda backend's packed-varlen attention (sg_attention_fwd_v /
// sg_attention_bwd_v of infra/engine/cuda/kernels), the FA2-style v2 kernels against the first v1 kernels, in one
// process. Shapes of the learner bench: Qwen3-0.6B (B=8 × T=2048, H=16, KV=8, D=128) and Qwen3-4B (B=4 × 2048, H=32,
// KV=8, D=128), causal, qStart 0. Per shape and generation: 2 warm-up calls, then `--reps` (10) timed with CUDA events;
// prints ms per call and TFLOP/s (causal FLOPs: forward 4·B·H·D·T²/2, backward 2.5× that). Then checks v2 against v1 on
// the device (v1 matches PyTorch + PEFT in bench/gpu/run.sh's parity step): max |v2 − v1| / max |v1| of o, lse, dq, dk,
// dv (tolerance 2e-2: both round to bf16 in different places); a non-finite value or a larger difference is a FAIL and
// exit 1. Needs only the CUDA runtime (no cuBLASLt). Build and run from the repository root:
//   /usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Iinfra/engine/cuda \
//     bench/gpu/attn-bench.cu infra/engine/cuda/kernels/attention_fwd.cu infra/engine/cuda/kernels/attention_bwd.cu \
//     -o /tmp/attn-bench && /tmp/attn-bench
// Options: --reps N (10), --shape 0.6b|4b (both).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernels/sg_kernels.h"

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "attn-bench: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

__global__ void fillUniform(float *p, long n, unsigned long long seed, float lo, float hi) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (unsigned long long)(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  p[i] = lo + (hi - lo) * (float)((z >> 40) * (1.0 / 16777216.0));
}

// out[0] = max |a − b| and out[1] = max |b| as float bits (non-negative floats order as unsigned); NaN/inf → +inf.
__global__ void maxDiff(const float *a, const float *b, long n, unsigned *out) {
  unsigned md = 0, mb = 0;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    float d = fabsf(a[i] - b[i]), m = fabsf(b[i]);
    if (!isfinite(d)) d = INFINITY;
    if (!isfinite(m)) m = INFINITY;
    md = max(md, __float_as_uint(d));
    mb = max(mb, __float_as_uint(m));
  }
  atomicMax(&out[0], md);
  atomicMax(&out[1], mb);
}

struct Shape {
  const char *name;
  int B, T, H, KV, D;
};

static float *dalloc(long n) {
  float *p = nullptr;
  CK(cudaMalloc(&p, (size_t)n * sizeof(float)));
  return p;
}

static void fill(float *p, long n, unsigned long long seed, float lo, float hi) {
  fillUniform<<<(unsigned)((n + 255) / 256), 256>>>(p, n, seed, lo, hi);
  CK(cudaGetLastError());
}

static int gFails = 0;

static void compare(const char *shape, const char *what, const float *v2, const float *v1, long n, double tol) {
  unsigned *d = nullptr;
  CK(cudaMalloc(&d, 2 * sizeof(unsigned)));
  CK(cudaMemset(d, 0, 2 * sizeof(unsigned)));
  maxDiff<<<1024, 256>>>(v2, v1, n, d);
  CK(cudaGetLastError());
  unsigned h[2];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  float md, mb;
  std::memcpy(&md, &h[0], 4);
  std::memcpy(&mb, &h[1], 4);
  const double rel = md / std::max(1e-6, (double)mb);
  const bool ok = std::isfinite(rel) && std::isfinite(mb) && rel <= tol;
  if (!ok) gFails++;
  std::printf("%s %-11s %-4s v2 vs v1: max|Δ| %.3e, max|v1| %.3e, rel %.3e (tol %.0e)\n", ok ? "PASS" : "FAIL", shape, what, md, mb,
              rel, tol);
}

int main(int argc, char **argv) {
  int reps = 10;
  std::string only;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--shape") && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "attn-bench: unknown argument '%s' (use --reps N, --shape 0.6b|4b)\n", argv[i]);
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "attn-bench: --reps must be ≥ 1\n");
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("attn-bench on %s (sm_%d%d), %d timed reps after 2 warm-up calls\n", prop.name, prop.major, prop.minor, reps);
  const Shape shapes[] = {{"qwen3-0.6b", 8, 2048, 16, 8, 128}, {"qwen3-4b", 4, 2048, 32, 8, 128}};
  for (const Shape &s : shapes) {
    if (!only.empty() && std::string(s.name).find(only) == std::string::npos) continue;
    const long nq = (long)s.B * s.T * s.H * s.D, nk = (long)s.B * s.T * s.KV * s.D, nrow = (long)s.B * s.T * s.H;
    float *q = dalloc(nq), *k = dalloc(nk), *v = dalloc(nk), *dout = dalloc(nq), *dvec = dalloc(nrow);
    float *o[2], *lse[2], *dq[2], *dk[2], *dv[2];
    for (int g = 0; g < 2; g++) o[g] = dalloc(nq), lse[g] = dalloc(nrow), dq[g] = dalloc(nq), dk[g] = dalloc(nk), dv[g] = dalloc(nk);
    fill(q, nq, 1, -2, 2);
    fill(k, nk, 2, -2, 2);
    fill(v, nk, 3, -1, 1);
    fill(dout, nq, 4, -1, 1);
    std::vector<int> cu(s.B + 1), qs(s.B, 0);
    for (int b = 0; b <= s.B; b++) cu[b] = b * s.T;
    int *cuD = nullptr, *qsD = nullptr;
    CK(cudaMalloc(&cuD, cu.size() * sizeof(int)));
    CK(cudaMalloc(&qsD, qs.size() * sizeof(int)));
    CK(cudaMemcpy(cuD, cu.data(), cu.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(qsD, qs.data(), qs.size() * sizeof(int), cudaMemcpyHostToDevice));
    const double fwdFlop = 4.0 * s.B * s.H * s.D * (double)s.T * s.T / 2, bwdFlop = 2.5 * fwdFlop;
    std::printf("%s: B=%d T=%d H=%d KV=%d D=%d, forward %.3f TFLOP, backward %.3f TFLOP per call\n", s.name, s.B, s.T, s.H, s.KV, s.D,
                fwdFlop / 1e12, bwdFlop / 1e12);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int g = 0; g < 2; g++) {
      const int ver = g + 1;
      auto fwd = [&] {
        int st = sg_attention_fwd_v(ver, q, k, v, cuD, cuD, qsD, s.B, s.T, s.H, s.KV, s.D, o[g], lse[g], nullptr);
        if (st) std::fprintf(stderr, "attn-bench: sg_attention_fwd_v returned %d\n", st), std::exit(2);
      };
      auto bwd = [&] {
        int st = sg_attention_bwd_v(ver, q, k, v, o[g], lse[g], dout, cuD, cuD, qsD, s.B, s.B * s.T, s.T, s.H, s.KV, s.D, dq[g], dk[g],
                                    dv[g], dvec, nullptr);
        if (st) std::fprintf(stderr, "attn-bench: sg_attention_bwd_v returned %d\n", st), std::exit(2);
      };
      float msF = 0, msB = 0;
      for (int pass = 0; pass < 2; pass++) {
        auto run = pass == 0 ? std::function<void()>(fwd) : std::function<void()>(bwd);
        for (int w = 0; w < 2; w++) run();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) run();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        (pass == 0 ? msF : msB) = ms / reps;
      }
      std::printf("%-11s v%d forward  %9.3f ms  %7.1f TFLOP/s\n", s.name, ver, msF, fwdFlop / (msF * 1e-3) / 1e12);
      std::printf("%-11s v%d backward %9.3f ms  %7.1f TFLOP/s\n", s.name, ver, msB, bwdFlop / (msB * 1e-3) / 1e12);
      std::fflush(stdout);
    }
    // The last timed forward of each generation left its o/lse, the last backward its dq/dk/dv (same inputs every call).
    compare(s.name, "o", o[1], o[0], nq, 2e-2);
    compare(s.name, "lse", lse[1], lse[0], nrow, 2e-2);
    compare(s.name, "dq", dq[1], dq[0], nq, 2e-2);
    compare(s.name, "dk", dk[1], dk[0], nk, 2e-2);
    compare(s.name, "dv", dv[1], dv[0], nk, 2e-2);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    for (float *p : {q, k, v, dout, dvec}) CK(cudaFree(p));
    for (int g = 0; g < 2; g++)
      for (float *p : {o[g], lse[g], dq[g], dk[g], dv[g]}) CK(cudaFree(p));
    CK(cudaFree(cuD));
    CK(cudaFree(qsD));
  }
  std::printf("%s\n", gFails ? "attn-bench: FAIL (v2 differs from v1)" : "attn-bench: v2 matches v1");
  return gFails ? 1 : 0;
}
