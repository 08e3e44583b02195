// infra/engine/cuda/kernels/adamw.cu: one fused AdamW update (decoupled weight decay, bias correction, gradient
// pre-scaled for global-norm clipping) over the flat fp32 arena that holds every LoRA parameter, as the ts backend's
// adamwStep: p ← p − lr·wd·p − lr·m̂/(sqrt(v̂)+eps). p, g, m, v [n].
#include "common.cuh"

__global__ void sgAdamw(float *__restrict__ p, const float *__restrict__ g, float *__restrict__ m, float *__restrict__ v, long n,
                        float lr, float b1, float b2, float eps, float wd, float bc1, float bc2, float gs) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float gi = g[i] * gs;
  const float mi = b1 * m[i] + (1.0f - b1) * gi;
  const float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
  m[i] = mi;
  v[i] = vi;
  const float mhat = mi / bc1, vhat = vi / bc2;
  p[i] = p[i] - lr * wd * p[i] - lr * mhat / (sqrtf(vhat) + eps);
}

void sg_adamw(float *p, const float *g, float *m, float *v, long n, float lr, float beta1, float beta2, float eps,
              float weightDecay, int step, float gradScale, void *stream) {
  if (n <= 0) return;
  const float bc1 = (float)(1.0 - pow((double)beta1, step)), bc2 = (float)(1.0 - pow((double)beta2, step));
  SG_LAUNCH(sgAdamw, sgCeilDiv(n, 256), 256, stream, p, g, m, v, n, lr, beta1, beta2, eps, weightDecay, bc1, bc2, gradScale);
}
