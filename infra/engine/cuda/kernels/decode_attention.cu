// infra/engine/cuda/kernels/decode_attention.cu: the sampler's decode step against a backend-owned KV cache — append
// this step's k/v rows, then attention of one new query row per sequence over its cache (GQA, no mask needed: every
// cached row is in the past). One block per (sequence, head): scores into a scratch row, block max/sum, then one
// thread per output dim. kc/vc [B,Smax,KV,D], q/o [B,H,D], lens [B], scores [B,H,Smax].
#include "common.cuh"

__global__ void sgKvAppend(float *__restrict__ kc, float *__restrict__ vc, const float *__restrict__ k, const float *__restrict__ v,
                           const int *__restrict__ lens, int Smax, int KV, int D) {
  const int b = blockIdx.x;
  const int row = lens[b];
  if (row < 0 || row >= Smax) return;  // the binding checks capacity before launching
  for (int i = threadIdx.x; i < KV * D; i += blockDim.x) {
    const long dst = ((long)b * Smax + row) * KV * D + i;
    kc[dst] = k[(long)b * KV * D + i];
    vc[dst] = v[(long)b * KV * D + i];
  }
}

__global__ void sgDecodeAttn(const float *__restrict__ q, const float *__restrict__ kc, const float *__restrict__ vc,
                             const int *__restrict__ lens, int Smax, int H, int KV, int D, float scale,
                             float *__restrict__ scores, float *__restrict__ o) {
  __shared__ float scratch[33];
  const int b = blockIdx.x, h = blockIdx.y, g = h / (H / KV);
  const int S = lens[b];
  const float *qr = q + ((long)b * H + h) * D;
  float *sc = scores + ((long)b * H + h) * Smax;
  float mx = -FLT_MAX;
  for (int j = threadIdx.x; j < S; j += blockDim.x) {
    const float *kr = kc + (((long)b * Smax + j) * KV + g) * D;
    float s = 0.0f;
    for (int d = 0; d < D; d++) s += qr[d] * kr[d];
    s *= scale;
    sc[j] = s;
    mx = fmaxf(mx, s);
  }
  mx = sgBlockMax(mx, scratch);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < S; j += blockDim.x) {
    const float p = expf(sc[j] - mx);
    sc[j] = p;
    sum += p;
  }
  sum = sgBlockSum(sum, scratch);  // its barriers also publish sc[] to every thread
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < S; j++) acc += sc[j] * vc[(((long)b * Smax + j) * KV + g) * D + d];
    o[((long)b * H + h) * D + d] = S > 0 ? acc / sum : 0.0f;
  }
}

void sg_kv_append(float *kc, float *vc, const float *k, const float *v, const int *lens, int B, int Smax, int KV, int D,
                  void *stream) {
  if (B <= 0) return;
  SG_LAUNCH(sgKvAppend, B, 128, stream, kc, vc, k, v, lens, Smax, KV, D);
}

void sg_decode_attention(const float *q, const float *kc, const float *vc, const int *lens, int B, int Smax, int H, int KV,
                         int D, float *scores, float *o, void *stream) {
  if (B <= 0) return;
  SG_LAUNCH(sgDecodeAttn, dim3(B, H), 128, stream, q, kc, vc, lens, Smax, H, KV, D, 1.0f / sqrtf((float)D), scores, o);
}
