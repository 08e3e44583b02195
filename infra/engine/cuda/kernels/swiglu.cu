// infra/engine/cuda/kernels/swiglu.cu: SwiGLU out = silu(gate)·up and its backward
// (dgate = dy·up·σ(g)·(1 + g·(1−σ(g))), dup = dy·silu(g)). Element-wise over [N,F] flattened to n.
#include "common.cuh"

__global__ void sgSwigluFwd(const float *__restrict__ g, const float *__restrict__ u, long n, float *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = g[i], sig = 1.0f / (1.0f + expf(-x));
  out[i] = x * sig * u[i];
}

__global__ void sgSwigluBwd(const float *__restrict__ g, const float *__restrict__ u, const float *__restrict__ dy, long n,
                            float *__restrict__ dg, float *__restrict__ du) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = g[i], sig = 1.0f / (1.0f + expf(-x));
  dg[i] = dy[i] * u[i] * sig * (1.0f + x * (1.0f - sig));
  du[i] = dy[i] * x * sig;
}

void sg_swiglu_fwd(const float *gate, const float *up, long n, float *out, void *stream) {
  if (n <= 0) return;
  SG_LAUNCH(sgSwigluFwd, sgCeilDiv(n, 256), 256, stream, gate, up, n, out);
}

void sg_swiglu_bwd(const float *gate, const float *up, const float *dy, long n, float *dgate, float *dup, void *stream) {
  if (n <= 0) return;
  SG_LAUNCH(sgSwigluBwd, sgCeilDiv(n, 256), 256, stream, gate, up, dy, n, dgate, dup);
}
