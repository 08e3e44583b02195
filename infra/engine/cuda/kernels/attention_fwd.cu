// infra/engine/cuda/kernels/attention_fwd.cu: flash-style causal GQA attention forward over packed variable-length
// sequences on tensor cores. One warp per (16-query tile, head, sequence): S = Q Kᵀ and O += P V are wmma bf16
// 16x16x16 products with fp32 accumulation; the online softmax (running max m, sum l) is fp32 in shared memory, one
// lane per query row. Never materialises [T,S]. q [ΣT,H,D], k/v [ΣS,KV,D] (fp32, rounded to bf16 on load),
// o [ΣT,H,D], lse [ΣT,H]. Head dims 64 and 128 (template D).
#include "common.cuh"

using namespace nvcuda;

template <int D>
__global__ void __launch_bounds__(32) sgAttnFwd(const float *__restrict__ q, const float *__restrict__ k, const float *__restrict__ v,
                                                const int *__restrict__ cuQ, const int *__restrict__ cuK,
                                                const int *__restrict__ qStartArr, int H, int KV, float scale,
                                                float *__restrict__ o, float *__restrict__ lse) {
  __shared__ bf16 Qs[16 * D];
  __shared__ bf16 Ks[16 * D];
  __shared__ bf16 Vs[16 * D];
  __shared__ float Os[16 * D];
  __shared__ float Ss[16 * 16];
  __shared__ bf16 Ps[16 * 16];
  __shared__ float ms[16], ls[16];

  const int tid = threadIdx.x;
  const int b = blockIdx.z, h = blockIdx.y, tile = blockIdx.x;
  const int q0 = cuQ[b], T = cuQ[b + 1] - q0;
  const int k0 = cuK[b], S = cuK[b + 1] - k0;
  if (tile * 16 >= T) return;  // uniform over the block
  const int qs = qStartArr[b];
  const int kvh = h / (H / KV);
  const int rows = min(16, T - tile * 16);

  for (int i = tid; i < 16 * D; i += 32) {
    const int r = i / D, c = i % D;
    Qs[i] = __float2bfloat16(r < rows ? q[((long)(q0 + tile * 16 + r) * H + h) * D + c] : 0.0f);
    Os[i] = 0.0f;
  }
  if (tid < 16) {
    ms[tid] = -FLT_MAX;
    ls[tid] = 0.0f;
  }
  // Keys visible to the last query row of the tile.
  const int lastKey = min(S - 1, qs + tile * 16 + rows - 1);
  const int nkt = lastKey / 16 + 1;

  for (int kt = 0; kt < nkt; kt++) {
    __syncthreads();
    for (int i = tid; i < 16 * D; i += 32) {
      const int r = i / D, c = i % D, key = kt * 16 + r;
      const long src = ((long)(k0 + key) * KV + kvh) * D + c;
      Ks[i] = __float2bfloat16(key < S ? k[src] : 0.0f);
      Vs[i] = __float2bfloat16(key < S ? v[src] : 0.0f);
    }
    __syncthreads();
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, Qs + d0, D);
        wmma::load_matrix_sync(fb, Ks + d0, D);  // Kᵀ: element (d, key) = Ks[key·D + d]
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(Ss, acc, 16, wmma::mem_row_major);
    }
    __syncthreads();
    if (tid < 16) {
      const int r = tid, qpos = qs + tile * 16 + r;
      float s[16];
      float mx = ms[r];
      for (int j = 0; j < 16; j++) {
        const int key = kt * 16 + j;
        s[j] = (r < rows && key < S && key <= qpos) ? Ss[r * 16 + j] * scale : -FLT_MAX;
        mx = fmaxf(mx, s[j]);
      }
      const float alpha = ms[r] == -FLT_MAX ? 0.0f : expf(ms[r] - mx);
      float sum = 0.0f;
      for (int j = 0; j < 16; j++) {
        const float p = s[j] == -FLT_MAX ? 0.0f : expf(s[j] - mx);
        sum += p;
        Ps[r * 16 + j] = __float2bfloat16(p);
      }
      ls[r] = ls[r] * alpha + sum;
      ms[r] = mx;
      for (int c = 0; c < D; c++) Os[r * D + c] *= alpha;
    }
    __syncthreads();
    {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fp;
      wmma::load_matrix_sync(fp, Ps, 16);
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fv;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(acc, Os + d0, D, wmma::mem_row_major);
        wmma::load_matrix_sync(fv, Vs + d0, D);
        wmma::mma_sync(acc, fp, fv, acc);
        wmma::store_matrix_sync(Os + d0, acc, D, wmma::mem_row_major);
      }
    }
  }
  __syncthreads();
  for (int i = tid; i < rows * D; i += 32) {
    const int r = i / D, c = i % D;
    const float l = ls[r];
    o[((long)(q0 + tile * 16 + r) * H + h) * D + c] = l > 0.0f ? Os[i] / l : 0.0f;
  }
  if (tid < rows) lse[(long)(q0 + tile * 16 + tid) * H + h] = ls[tid] > 0.0f ? ms[tid] + logf(ls[tid]) : -FLT_MAX;
}

int sg_attention_fwd(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                     int maxT, int H, int KV, int D, float *o, float *lse, void *stream) {
  if (B <= 0 || maxT <= 0) return 0;
  if (KV <= 0 || H % KV != 0) return -2;
  const dim3 grid(sgCeilDiv(maxT, 16), H, B);
  const float scale = 1.0f / sqrtf((float)D);
  if (D == 64) {
    auto kern = sgAttnFwd<64>;
    SG_LAUNCH(kern, grid, 32, stream, q, k, v, cuQ, cuK, qStart, H, KV, scale, o, lse);
  } else if (D == 128) {
    auto kern = sgAttnFwd<128>;
    SG_LAUNCH(kern, grid, 32, stream, q, k, v, cuQ, cuK, qStart, H, KV, scale, o, lse);
  } else {
    return -1;
  }
  return 0;
}
