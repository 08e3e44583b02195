// infra/engine/cuda/kernels/attention_bwd.cu: flash-style causal GQA attention backward over packed variable-length
// sequences on tensor cores (FlashAttention-2 order). A first kernel forms dvec = rowsum(dO ∘ O) [ΣT,H]; then one warp
// per (16-key tile, kv-head, sequence) keeps dK, dV for its keys in shared fp32 and walks every query head of its
// group and every query tile that can see the keys: S = Q Kᵀ, P = exp(S·scale − lse), dV += Pᵀ dO, dP = dO Vᵀ,
// dS = P ∘ (dP − dvec)·scale, dK += dSᵀ Q, dQ += dS K (fp32 atomics into dq). All five products are wmma bf16
// 16x16x16 with fp32 accumulation. Shapes as attention_fwd.cu; dq [ΣT,H,D], dk/dv [ΣS,KV,D].
#include "common.cuh"

using namespace nvcuda;

__global__ void sgAttnBwdDot(const float *__restrict__ o, const float *__restrict__ dout, long rows, int D, float *__restrict__ dvec) {
  const long row = (long)blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  float acc = 0.0f;
  if (row < rows)
    for (int c = lane; c < D; c += 32) acc += o[row * D + c] * dout[row * D + c];
  acc = sgWarpSum(acc);
  if (row < rows && lane == 0) dvec[row] = acc;
}

__global__ void sgZero(float *p, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}

template <int D>
__global__ void __launch_bounds__(32) sgAttnBwd(const float *__restrict__ q, const float *__restrict__ k, const float *__restrict__ v,
                                                const float *__restrict__ lse, const float *__restrict__ dout,
                                                const float *__restrict__ dvec, const int *__restrict__ cuQ,
                                                const int *__restrict__ cuK, const int *__restrict__ qStartArr, int H, int KV,
                                                float scale, float *__restrict__ dq, float *__restrict__ dk,
                                                float *__restrict__ dv) {
  __shared__ bf16 Ks[16 * D];
  __shared__ bf16 Vs[16 * D];
  __shared__ bf16 Qs[16 * D];
  __shared__ bf16 dOs[16 * D];
  __shared__ float dKs[16 * D];
  __shared__ float dVs[16 * D];
  __shared__ float Ss[16 * 16];
  __shared__ bf16 Ps[16 * 16];
  __shared__ bf16 dSs[16 * 16];
  __shared__ float lses[16], dvs[16];

  const int tid = threadIdx.x;
  const int b = blockIdx.z, g = blockIdx.y, kt = blockIdx.x;
  const int q0 = cuQ[b], T = cuQ[b + 1] - q0;
  const int k0 = cuK[b], S = cuK[b + 1] - k0;
  if (kt * 16 >= S) return;
  const int qs = qStartArr[b];
  const int group = H / KV;
  const int krows = min(16, S - kt * 16);

  for (int i = tid; i < 16 * D; i += 32) {
    const int r = i / D, c = i % D;
    const long src = ((long)(k0 + kt * 16 + r) * KV + g) * D + c;
    Ks[i] = __float2bfloat16(r < krows ? k[src] : 0.0f);
    Vs[i] = __float2bfloat16(r < krows ? v[src] : 0.0f);
    dKs[i] = 0.0f;
    dVs[i] = 0.0f;
  }
  // The first query row that sees key kt·16 sits at index kt·16 − qs.
  const int firstQ = max(0, kt * 16 - qs);
  const int qt0 = firstQ / 16, nqt = (T + 15) / 16;

  for (int hh = 0; hh < group; hh++) {
    const int h = g * group + hh;
    for (int qt = qt0; qt < nqt; qt++) {
      const int qrows = min(16, T - qt * 16);
      __syncthreads();
      for (int i = tid; i < 16 * D; i += 32) {
        const int r = i / D, c = i % D;
        const long src = ((long)(q0 + qt * 16 + r) * H + h) * D + c;
        Qs[i] = __float2bfloat16(r < qrows ? q[src] : 0.0f);
        dOs[i] = __float2bfloat16(r < qrows ? dout[src] : 0.0f);
      }
      if (tid < 16) {
        const long row = (long)(q0 + qt * 16 + tid) * H + h;
        lses[tid] = tid < qrows ? lse[row] : 0.0f;
        dvs[tid] = tid < qrows ? dvec[row] : 0.0f;
      }
      __syncthreads();
      {  // S = Q Kᵀ
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int d0 = 0; d0 < D; d0 += 16) {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb;
          wmma::load_matrix_sync(fa, Qs + d0, D);
          wmma::load_matrix_sync(fb, Ks + d0, D);
          wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::store_matrix_sync(Ss, acc, 16, wmma::mem_row_major);
      }
      __syncthreads();
      if (tid < 16) {  // P, one lane per query row
        const int r = tid, qpos = qs + qt * 16 + r;
        for (int j = 0; j < 16; j++) {
          const int key = kt * 16 + j;
          const bool ok = r < qrows && j < krows && key <= qpos;
          const float p = ok ? expf(Ss[r * 16 + j] * scale - lses[r]) : 0.0f;
          Ss[r * 16 + j] = p;
          Ps[r * 16 + j] = __float2bfloat16(p);
        }
      }
      __syncthreads();
      // dV += Pᵀ dO  (Pᵀ: a col-major view of Ps)
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major> fpt;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fdo;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(fpt, Ps, 16);
        wmma::load_matrix_sync(fdo, dOs + d0, D);
        wmma::load_matrix_sync(acc, dVs + d0, D, wmma::mem_row_major);
        wmma::mma_sync(acc, fpt, fdo, acc);
        wmma::store_matrix_sync(dVs + d0, acc, D, wmma::mem_row_major);
      }
      __shared__ float dPs[16 * 16];
      {  // dP = dO Vᵀ
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int d0 = 0; d0 < D; d0 += 16) {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb;
          wmma::load_matrix_sync(fa, dOs + d0, D);
          wmma::load_matrix_sync(fb, Vs + d0, D);
          wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::store_matrix_sync(dPs, acc, 16, wmma::mem_row_major);
      }
      __syncthreads();
      if (tid < 16) {
        const int r = tid;
        for (int j = 0; j < 16; j++) dSs[r * 16 + j] = __float2bfloat16(Ss[r * 16 + j] * (dPs[r * 16 + j] - dvs[r]) * scale);
      }
      __syncthreads();
      // dK += dSᵀ Q
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major> fdst;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fq;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(fdst, dSs, 16);
        wmma::load_matrix_sync(fq, Qs + d0, D);
        wmma::load_matrix_sync(acc, dKs + d0, D, wmma::mem_row_major);
        wmma::mma_sync(acc, fdst, fq, acc);
        wmma::store_matrix_sync(dKs + d0, acc, D, wmma::mem_row_major);
      }
      // dQ += dS K, through the (now free) Ss tile one 16-column block at a time.
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fds;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fk;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        wmma::load_matrix_sync(fds, dSs, 16);
        wmma::load_matrix_sync(fk, Ks + d0, D);
        wmma::mma_sync(acc, fds, fk, acc);
        __syncthreads();
        wmma::store_matrix_sync(Ss, acc, 16, wmma::mem_row_major);
        __syncthreads();
        for (int i = tid; i < qrows * 16; i += 32) {
          const int r = i / 16, c = i % 16;
          atomicAdd(&dq[((long)(q0 + qt * 16 + r) * H + h) * D + d0 + c], Ss[i]);
        }
      }
    }
  }
  __syncthreads();
  for (int i = tid; i < krows * D; i += 32) {
    const int r = i / D, c = i % D;
    const long dst = ((long)(k0 + kt * 16 + r) * KV + g) * D + c;
    dk[dst] = dKs[i];
    dv[dst] = dVs[i];
  }
}

int sg_attention_bwd(const float *q, const float *k, const float *v, const float *o, const float *lse, const float *dout,
                     const int *cuQ, const int *cuK, const int *qStart, int B, int totalQ, int maxS, int H, int KV, int D,
                     float *dq, float *dk, float *dv, float *dvec, void *stream) {
  if (B <= 0 || totalQ <= 0 || maxS <= 0) return 0;
  if (KV <= 0 || H % KV != 0) return -2;
  if (D != 64 && D != 128) return -1;
  const long rows = (long)totalQ * H;
  SG_LAUNCH(sgZero, sgCeilDiv(rows * D, 256), 256, stream, dq, rows * D);
  SG_LAUNCH(sgAttnBwdDot, sgCeilDiv(rows, 4), 128, stream, o, dout, rows, D, dvec);
  const dim3 grid(sgCeilDiv(maxS, 16), KV, B);
  const float scale = 1.0f / sqrtf((float)D);
  if (D == 64) {
    auto kern = sgAttnBwd<64>;
    SG_LAUNCH(kern, grid, 32, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV, scale, dq, dk, dv);
  } else {
    auto kern = sgAttnBwd<128>;
    SG_LAUNCH(kern, grid, 32, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV, scale, dq, dk, dv);
  }
  return 0;
}
