// infra/engine/cuda/kernels/rope.cu: rotary position embedding, rotate-half convention (Hugging Face), forward and
// backward (the rotation by the negative angle). x/y [N,H,D], positions [N]; one thread per (row, head, pair i < D/2).
#include "common.cuh"

__global__ void sgRope(const float *__restrict__ x, const int *__restrict__ pos, int N, int H, int D, float theta, float sign,
                       float *__restrict__ y) {
  const int half = D / 2;
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)N * H * half) return;
  const int i = (int)(idx % half);
  const long nh = idx / half;
  const long n = nh / H;
  // Angle in double like the reference: fp32 angles lose ~1e-4 rad at positions in the thousands.
  const double freq = pow((double)theta, -2.0 * i / (double)D);
  const double ang = (double)pos[n] * freq;
  const float c = (float)cos(ang), s = sign * (float)sin(ang);
  const float *xr = x + nh * D;
  float *yr = y + nh * D;
  const float a = xr[i], b = xr[i + half];
  yr[i] = a * c - b * s;
  yr[i + half] = b * c + a * s;
}

void sg_rope(const float *x, const int *pos, int N, int H, int D, float theta, int inverse, float *y, void *stream) {
  const long n = (long)N * H * (D / 2);
  if (n <= 0) return;
  SG_LAUNCH(sgRope, sgCeilDiv(n, 256), 256, stream, x, pos, N, H, D, theta, inverse ? -1.0f : 1.0f, y);
}
