// infra/engine/cuda/kernels/sample.cu: batched sampling on the device — temperature, top-k, top-p over the last
// logits → token ids and log-probs, so only ids cross to the host. One block of 256 threads per row; each thread
// owns a contiguous id range. Tokens are ranked by a 64-bit key (scaled logit's ordered bits, then lower id first),
// which is exactly samplingSupport's order in infra/engine/sample.ts; the top-k and top-p cut-offs are found by
// bisection over that key (64 block-wide counts / masses each), never sorting V. The draw walks the support in id
// order with the caller's uniform. logits [B,V], uniforms [B] → ids, logprobs, modelLogprobs [B].
#include "common.cuh"

#define SG_SAMPLE_THREADS 256

__device__ __forceinline__ unsigned long long sgKey(float x, int id) {
  unsigned u = __float_as_uint(x);
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);  // order-preserving map of floats onto unsigned ints
  return ((unsigned long long)u << 32) | (unsigned long long)(0xFFFFFFFFu - (unsigned)id);
}

__device__ __forceinline__ double sgBlockSumD(double v, double *sh) {
  __syncthreads();
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  return sh[0];
}

__global__ void __launch_bounds__(SG_SAMPLE_THREADS) sgSample(const float *__restrict__ logits, int V, float temperature, int topK,
                                                              float topP, const float *__restrict__ uniforms,
                                                              int *__restrict__ ids, float *__restrict__ logprobs,
                                                              float *__restrict__ modelLogprobs) {
  __shared__ double sh[SG_SAMPLE_THREADS];
  __shared__ float scratch[33];
  __shared__ int chosen;
  const int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
  const float *row = logits + (long)b * V;
  const int per = (V + nt - 1) / nt, lo = min(V, tid * per), hi = min(V, lo + per);

  // Raw (temperature 1) log-softmax normaliser, for modelLogprobs.
  float mx = -FLT_MAX;
  for (int i = lo; i < hi; i++) mx = fmaxf(mx, row[i]);
  mx = sgBlockMax(mx, scratch);
  double z = 0.0;
  for (int i = lo; i < hi; i++) z += exp((double)row[i] - mx);
  z = sgBlockSumD(z, sh);
  const double rawLse = mx + log(z);

  if (temperature <= 0.0f) {  // greedy: the largest logit, lowest id on ties
    unsigned long long best = 0;
    for (int i = lo; i < hi; i++) {
      unsigned long long k = sgKey(row[i], i);
      if (k > best) best = k;
    }
    // Max of keys through the double scratch is lossy; reduce the keys in two 32-bit halves instead.
    __shared__ unsigned long long kbest[SG_SAMPLE_THREADS];
    kbest[tid] = best;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
      if (tid < s && kbest[tid + s] > kbest[tid]) kbest[tid] = kbest[tid + s];
      __syncthreads();
    }
    if (tid == 0) {
      const int id = (int)(0xFFFFFFFFu - (unsigned)(kbest[0] & 0xFFFFFFFFu));
      ids[b] = id;
      logprobs[b] = 0.0f;
      modelLogprobs[b] = (float)(row[id] - rawLse);
    }
    return;
  }

  const float invT = 1.0f / temperature;
  const float smx = mx * invT;  // max of the scaled logits (temperature > 0 keeps the order)
  // cut = the smallest key still in the support; start with every token.
  unsigned long long cut = 0;
  if (topK > 0 && topK < V) {  // the k-th largest key: the largest t with count(key ≥ t) ≥ k
    unsigned long long t = 0;
    for (int bit = 63; bit >= 0; bit--) {
      const unsigned long long cand = t | (1ull << bit);
      double c = 0.0;
      for (int i = lo; i < hi; i++) c += sgKey(row[i] * invT, i) >= cand ? 1.0 : 0.0;
      c = sgBlockSumD(c, sh);
      if (c >= (double)topK) t = cand;
    }
    cut = t;
  }
  // Mass of the top-k support (the distribution top-p renormalises).
  double zk = 0.0;
  for (int i = lo; i < hi; i++) {
    const float x = row[i] * invT;
    if (sgKey(x, i) >= cut) zk += exp((double)x - smx);
  }
  zk = sgBlockSumD(zk, sh);
  if (topP < 1.0f) {  // the smallest prefix (by key) whose mass reaches topP·zk: the largest t with mass(≥ t) ≥ topP·zk
    const double target = (double)topP * zk;
    unsigned long long t = 0;  // every key below cut already satisfies the test (its mass is zk)
    for (int bit = 63; bit >= 0; bit--) {
      const unsigned long long cand = t | (1ull << bit);
      double m = 0.0;
      for (int i = lo; i < hi; i++) {
        const float x = row[i] * invT;
        const unsigned long long k = sgKey(x, i);
        if (k >= cand && k >= cut) m += exp((double)x - smx);
      }
      m = sgBlockSumD(m, sh);
      if (m >= target) t = cand;
    }
    cut = t;
  }
  // Support mass, each thread's share, and the draw in id order.
  double mine = 0.0;
  for (int i = lo; i < hi; i++) {
    const float x = row[i] * invT;
    if (sgKey(x, i) >= cut) mine += exp((double)x - smx);
  }
  __syncthreads();
  sh[tid] = mine;
  __syncthreads();
  if (tid == 0) {
    double zs = 0.0;
    for (int i = 0; i < nt; i++) zs += sh[i];
    double u = (double)uniforms[b] * zs;
    int owner = -1;
    for (int i = 0; i < nt; i++) {
      if (sh[i] > 0.0 && u < sh[i]) {
        owner = i;
        break;
      }
      u -= sh[i];
    }
    chosen = -1;
    sh[0] = zs;  // keep the total for the log-prob
    if (owner < 0) {  // rounding ran past the end: the last support token, as sample.ts does
      for (int i = V - 1; i >= 0; i--)
        if (sgKey(row[i] * invT, i) >= cut) {
          chosen = i;
          break;
        }
    } else {
      const int olo = min(V, owner * per), ohi = min(V, olo + per);
      int last = -1;
      for (int i = olo; i < ohi && chosen < 0; i++) {
        const float x = row[i] * invT;
        if (sgKey(x, i) < cut) continue;
        last = i;
        u -= exp((double)x - smx);
        if (u < 0.0) chosen = i;
      }
      if (chosen < 0) chosen = last;
    }
    const int id = chosen;
    ids[b] = id;
    logprobs[b] = (float)((double)row[id] * invT - smx - log(sh[0]));
    modelLogprobs[b] = (float)(row[id] - rawLse);
  }
}

void sg_sample(const float *logits, int B, int V, float temperature, int topK, float topP, const float *uniforms, int *ids,
               float *logprobs, float *modelLogprobs, void *stream) {
  if (B <= 0 || V <= 0) return;
  SG_LAUNCH(sgSample, B, SG_SAMPLE_THREADS, stream, logits, V, temperature, topK, topP, uniforms, ids, logprobs, modelLogprobs);
}
