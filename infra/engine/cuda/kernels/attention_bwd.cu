// infra/engine/cuda/kernels/attention_bwd.cu: flash-style causal GQA attention backward over packed variable-length
// sequences on tensor cores (FlashAttention-2 order; wmma bf16 16x16x16, fp32 accumulation). A first kernel forms
// dvec = rowsum(dO ∘ O) [ΣT,H] and zeroes dq; then, per key tile, every query head of its kv group and every query
// tile that can see the keys: S = Q Kᵀ, P = exp(S·scale − lse), dV += Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − dvec)·scale,
// dK += dSᵀ Q, dQ += dS K (fp32 atomics into dq). Shapes as attention_fwd.cu; dq [ΣT,H,D], dk/dv [ΣS,KV,D].
// Two generations, chosen by sg_attention_bwd_v (sg_attention_bwd: SG_CUDA_ATTN=v2 → 2, else 1):
//  v2: a block of 4 warps per (64-key tile, query head, sequence); K, V (of the head's kv head) staged once as bf16;
//     each warp owns 16 keys and keeps their dK, dV in wmma accumulator registers for the whole block (added into
//     dk, dv with fp32 atomics over the heads of a GQA group, stored when a group is one head); query tiles of 32 rows (Q, dO, lse, dvec)
//     are staged in shared memory and shared by the 4 warps; each warp forms Sᵀ and dPᵀ for its keys (16 × 32), then
//     the block forms dQ (32 × D) = dS K over all 64 keys, split over the warps, and adds it with fp32 atomics —
//     one atomic per dq element per 64 keys (v1: per 16), cheaper than a second pass that would recompute S and dP.
//     Query tiles before the key tile's first visible query are never visited. Dynamic shared memory (~81 KB at D=128).
//  v1: one warp per (16-key tile, kv head, sequence), dK/dV in shared fp32, dQ atomics per 16 keys.
#include "attention_tiles.cuh"

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


// ---- v2 ----
// Shared-memory layout of the v2 backward (byte offsets; every wmma pointer on a 32-byte boundary; padded strides).
// dk, dv rows cuK[b]..cuK[b+1] of sequence b = blockIdx.y (rowElems floats per key row) ← 0.
__global__ void sgZeroKeyRows(const int *__restrict__ cuK, long rowElems, float *__restrict__ dk, float *__restrict__ dv) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const long lo = (long)cuK[blockIdx.y] * rowElems, n = (long)(cuK[blockIdx.y + 1] - cuK[blockIdx.y]) * rowElems;
  if (i < n) {
    dk[lo + i] = 0.0f;
    dv[lo + i] = 0.0f;
  }
}

// A warp's 16×16 fp32 staging tile (ldm 16) → rows 0..rows-1 of dst (row stride ld): stored, or added (fp32 atomics).
__device__ __forceinline__ void sgPutTile16(const float *tile, float *dst, long ld, int rows, bool add) {
  const int lane = threadIdx.x & 31;
  for (int i = lane; i < rows * 16; i += 32) {
    float *at = dst + (long)(i / 16) * ld + i % 16;
    if (add)
      atomicAdd(at, tile[i]);
    else
      *at = tile[i];
  }
}

template <int D>
struct AttnBwdLayout {
  static constexpr int BQ = kAttnBwdQ;
  static constexpr int LDK = D + 8;   // bf16 stride of K, V (64 rows) and Q, dO (BQ rows)
  static constexpr int LDS = BQ + 4;  // fp32 stride of a warp's Sᵀ / dPᵀ tiles (16 keys × BQ queries)
  static constexpr int LDP = BQ + 8;  // bf16 stride of Pᵀ (per warp) and dSᵀ (64 keys × BQ, the block's)
  static constexpr size_t k = 0;
  static constexpr size_t v = k + (size_t)kAttnTile * LDK * 2;
  static constexpr size_t q = v + (size_t)kAttnTile * LDK * 2;
  static constexpr size_t dO = q + (size_t)BQ * LDK * 2;
  static constexpr size_t s = dO + (size_t)BQ * LDK * 2;
  static constexpr size_t dP = s + (size_t)kAttnWarps * 16 * LDS * 4;
  static constexpr size_t p = dP + (size_t)kAttnWarps * 16 * LDS * 4;
  static constexpr size_t dS = p + (size_t)kAttnWarps * 16 * LDP * 2;
  static constexpr size_t lse = dS + (size_t)kAttnTile * LDP * 2;
  static constexpr size_t dvec = lse + (size_t)BQ * 4;
  static constexpr size_t bytes = dvec + (size_t)BQ * 4;
  static_assert(16 * LDS >= 256, "a warp's Sᵀ tile doubles as a 16×16 fp32 staging");
};

template <int D>
__global__ void __launch_bounds__(kAttnThreads) sgAttnBwd2(const float *__restrict__ q, const float *__restrict__ k,
                                                           const float *__restrict__ v, const float *__restrict__ lse,
                                                           const float *__restrict__ dout, const float *__restrict__ dvec,
                                                           const int *__restrict__ cuQ, const int *__restrict__ cuK,
                                                           const int *__restrict__ qStartArr, int H, int KV, float scale,
                                                           float *__restrict__ dq, float *__restrict__ dk, float *__restrict__ dv) {
  using L = AttnBwdLayout<D>;
  constexpr int BQ = L::BQ;
  using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
  using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
  using FragAc = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major>;
  using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major>;
  using FragBc = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major>;
  SG_ATTN_DYN_SMEM(smem);
  bf16 *Ks = (bf16 *)(smem + L::k), *Vs = (bf16 *)(smem + L::v), *Qs = (bf16 *)(smem + L::q), *dOs = (bf16 *)(smem + L::dO);
  bf16 *dSs = (bf16 *)(smem + L::dS);
  float *lseS = (float *)(smem + L::lse), *dvecS = (float *)(smem + L::dvec);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  float *Sw = (float *)(smem + L::s) + warp * 16 * L::LDS;
  float *dPw = (float *)(smem + L::dP) + warp * 16 * L::LDS;
  bf16 *Pw = (bf16 *)(smem + L::p) + warp * 16 * L::LDP;
  bf16 *dSw = dSs + warp * 16 * L::LDP;

  // One query head per block (blockIdx.y), so the heads of a GQA group run in parallel (more, shorter blocks: a
  // smaller tail at the end of the grid); their dK, dV meet in fp32 atomics. Key tiles ascending: the first (most
  // queries) start first.
  const int b = blockIdx.z, h = blockIdx.y, kt = blockIdx.x;
  const int q0 = cuQ[b], T = cuQ[b + 1] - q0;
  const int k0 = cuK[b], S = cuK[b + 1] - k0;
  const int key0 = kt * kAttnTile;
  if (key0 >= S) return;  // uniform over the block
  const int qs = qStartArr[b];
  const int group = H / KV, g = h / group;
  const int krows = min(kAttnTile, S - key0);
  const long kvStride = (long)KV * D, qStride = (long)H * D;

  sgStageTile<D, kAttnTile>(k + ((long)(k0 + key0) * KV + g) * D, kvStride, krows, Ks, L::LDK);
  sgStageTile<D, kAttnTile>(v + ((long)(k0 + key0) * KV + g) * D, kvStride, krows, Vs, L::LDK);

  Acc dKf[D / 16], dVf[D / 16];
  for (int j = 0; j < D / 16; j++) {
    wmma::fill_fragment(dKf[j], 0.0f);
    wmma::fill_fragment(dVf[j], 0.0f);
  }
  const int wkey0 = key0 + warp * 16;  // this warp's first key
  const bool warpKeys = warp * 16 < krows;
  const int r = lane >> 1, half = lane & 1;  // two lanes per key row
  const int key = wkey0 + r;
  // The first query row that sees key0 sits at index key0 − qs.
  const int qt0 = max(0, key0 - qs) / BQ, nqt = (T + BQ - 1) / BQ;

  {
    for (int qt = qt0; qt < nqt; qt++) {
      const int qrow0 = qt * BQ, qrows = min(BQ, T - qrow0);
      const long src = ((long)(q0 + qrow0) * H + h) * D;
      __syncthreads();  // the previous step's readers of Q, dO, dSᵀ, lse, dvec are done
      sgStageTile<D, BQ>(q + src, qStride, qrows, Qs, L::LDK);
      sgStageTile<D, BQ>(dout + src, qStride, qrows, dOs, L::LDK);
      for (int i = tid; i < BQ; i += kAttnThreads) {
        const long row = (long)(q0 + qrow0 + i) * H + h;
        lseS[i] = i < qrows ? lse[row] * kLog2e : 0.0f;
        dvecS[i] = i < qrows ? dvec[row] : 0.0f;
      }
      __syncthreads();
      const int lastPos = qs + qrow0 + qrows - 1;
      if (warpKeys && wkey0 <= lastPos) {  // warp-uniform: some query of the tile sees some key of the warp
        {  // Sᵀ = K_w Qᵀ and dPᵀ = V_w dOᵀ (16 keys × BQ queries)
          Acc sacc[BQ / 16], pacc[BQ / 16];
          for (int n = 0; n < BQ / 16; n++) {
            wmma::fill_fragment(sacc[n], 0.0f);
            wmma::fill_fragment(pacc[n], 0.0f);
          }
          for (int d0 = 0; d0 < D; d0 += 16) {
            FragA fk, fv;
            wmma::load_matrix_sync(fk, Ks + warp * 16 * L::LDK + d0, L::LDK);
            wmma::load_matrix_sync(fv, Vs + warp * 16 * L::LDK + d0, L::LDK);
            for (int n = 0; n < BQ / 16; n++) {
              FragBc fq, fo;  // Qᵀ, dOᵀ: element (d, query) = Qs[query·LDK + d]
              wmma::load_matrix_sync(fq, Qs + n * 16 * L::LDK + d0, L::LDK);
              wmma::mma_sync(sacc[n], fk, fq, sacc[n]);
              wmma::load_matrix_sync(fo, dOs + n * 16 * L::LDK + d0, L::LDK);
              wmma::mma_sync(pacc[n], fv, fo, pacc[n]);
            }
          }
          for (int n = 0; n < BQ / 16; n++) {
            wmma::store_matrix_sync(Sw + n * 16, sacc[n], L::LDS, wmma::mem_row_major);
            wmma::store_matrix_sync(dPw + n * 16, pacc[n], L::LDS, wmma::mem_row_major);
          }
        }
        __syncwarp();
        for (int j = 0; j < BQ / 2; j++) {  // Pᵀ and dSᵀ, lane (r, half) takes query columns half, half+2, …
          const int c = half + 2 * j, qi = qrow0 + c;
          const bool ok = qi < T && key < S && key <= qs + qi;
          const float pv = ok ? exp2f(Sw[r * L::LDS + c] * (scale * kLog2e) - lseS[c]) : 0.0f;
          Pw[r * L::LDP + c] = __float2bfloat16(pv);
          dSw[r * L::LDP + c] = __float2bfloat16(pv * (dPw[r * L::LDS + c] - dvecS[c]) * scale);
        }
        __syncwarp();
        for (int kk = 0; kk < BQ / 16; kk++) {  // dV_w += Pᵀ dO, dK_w += dSᵀ Q
          FragA fp, fs;
          wmma::load_matrix_sync(fp, Pw + kk * 16, L::LDP);
          wmma::load_matrix_sync(fs, dSw + kk * 16, L::LDP);
          for (int j = 0; j < D / 16; j++) {
            FragB fo, fq;
            wmma::load_matrix_sync(fo, dOs + kk * 16 * L::LDK + j * 16, L::LDK);
            wmma::mma_sync(dVf[j], fp, fo, dVf[j]);
            wmma::load_matrix_sync(fq, Qs + kk * 16 * L::LDK + j * 16, L::LDK);
            wmma::mma_sync(dKf[j], fs, fq, dKf[j]);
          }
        }
      } else {
        for (int i = lane; i < 16 * BQ; i += 32) dSw[(i / BQ) * L::LDP + i % BQ] = __float2bfloat16(0.0f);
      }
      __syncthreads();  // dSᵀ of all 64 keys is in place
      // dQ (BQ × D) += dS K: output fragment f = (row block, column block), spread over the warps; staged through
      // the warp's own Sᵀ tile (free now), then fp32 atomics for the rows that exist.
      for (int f = warp; f < (BQ / 16) * (D / 16); f += kAttnWarps) {
        const int rb = f / (D / 16), cb = f % (D / 16);
        Acc acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int kk = 0; kk < kAttnTile / 16; kk++) {
          FragAc fs;  // dS: element (query, key) = dSs[key·LDP + query]
          FragB fk;
          wmma::load_matrix_sync(fs, dSs + kk * 16 * L::LDP + rb * 16, L::LDP);
          wmma::load_matrix_sync(fk, Ks + kk * 16 * L::LDK + cb * 16, L::LDK);
          wmma::mma_sync(acc, fs, fk, acc);
        }
        wmma::store_matrix_sync(Sw, acc, 16, wmma::mem_row_major);
        __syncwarp();
        for (int i = lane; i < 256; i += 32) {
          const int rr = i / 16, cc = i % 16, qi = qrow0 + rb * 16 + rr;
          if (qi < T) atomicAdd(&dq[((long)(q0 + qi) * H + h) * D + cb * 16 + cc], Sw[i]);
        }
        __syncwarp();
      }
    }
  }
  // dK, dV of the warp's keys, staged 16×16 at a time: stored when the group is one head, else added (the launcher
  // zeroed dk, dv) — either way every key row < S ends up written, zeros for keys no query sees.
  const int wrows = min(16, krows - warp * 16);
  // (Two plain unrolled loops: selecting between dKf and dVf at run time would put both arrays in local memory.)
#pragma unroll
  for (int j = 0; j < D / 16; j++) {
    wmma::store_matrix_sync(Sw, dKf[j], 16, wmma::mem_row_major);
    __syncwarp();
    sgPutTile16(Sw, dk + ((long)(wkey0 + k0) * KV + g) * D + j * 16, (long)KV * D, wrows, group > 1);
    __syncwarp();
  }
#pragma unroll
  for (int j = 0; j < D / 16; j++) {
    wmma::store_matrix_sync(Sw, dVf[j], 16, wmma::mem_row_major);
    __syncwarp();
    sgPutTile16(Sw, dv + ((long)(wkey0 + k0) * KV + g) * D + j * 16, (long)KV * D, wrows, group > 1);
    __syncwarp();
  }
}

int sg_attention_bwd_v(int version, const float *q, const float *k, const float *v, const float *o, const float *lse,
                       const float *dout, const int *cuQ, const int *cuK, const int *qStart, int B, int totalQ, int maxS, int H,
                       int KV, int D, float *dq, float *dk, float *dv, float *dvec, void *stream) {
  if (B <= 0 || totalQ <= 0 || maxS <= 0) return 0;
  if (KV <= 0 || H % KV != 0) return -2;
  if (D != 64 && D != 128) return -1;
  const long rows = (long)totalQ * H;
  SG_LAUNCH(sgZero, sgCeilDiv(rows * D, 256), 256, stream, dq, rows * D);
  SG_LAUNCH(sgAttnBwdDot, sgCeilDiv(rows, 4), 128, stream, o, dout, rows, D, dvec);
  const float scale = 1.0f / sqrtf((float)D);
  if (version == 1) {
    const dim3 grid(sgCeilDiv(maxS, 16), KV, B);
    if (D == 64) {
      auto kern = sgAttnBwd<64>;
      SG_LAUNCH(kern, grid, 32, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV, scale, dq, dk, dv);
    } else {
      auto kern = sgAttnBwd<128>;
      SG_LAUNCH(kern, grid, 32, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV, scale, dq, dk, dv);
    }
    return 0;
  }
  if (H != KV) {  // the group's heads add into dk, dv: zero each sequence's key rows first
    const dim3 zgrid(sgCeilDiv((long)maxS * KV * D, 256), B);
    SG_LAUNCH(sgZeroKeyRows, zgrid, 256, stream, cuK, (long)KV * D, dk, dv);
  }
  const dim3 grid(sgCeilDiv(maxS, kAttnTile), H, B);
  if (D == 64) {
    auto kern = sgAttnBwd2<64>;
    static const bool allowed = (SG_ALLOW_DYN_SMEM(kern, AttnBwdLayout<64>::bytes), true);
    (void)allowed;
    SG_LAUNCH_DYN(kern, grid, kAttnThreads, AttnBwdLayout<64>::bytes, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV,
                  scale, dq, dk, dv);
  } else {
    auto kern = sgAttnBwd2<128>;
    static const bool allowed = (SG_ALLOW_DYN_SMEM(kern, AttnBwdLayout<128>::bytes), true);
    (void)allowed;
    SG_LAUNCH_DYN(kern, grid, kAttnThreads, AttnBwdLayout<128>::bytes, stream, q, k, v, lse, dout, dvec, cuQ, cuK, qStart, H, KV,
                  scale, dq, dk, dv);
  }
  return 0;
}

int sg_attention_bwd(const float *q, const float *k, const float *v, const float *o, const float *lse, const float *dout,
                     const int *cuQ, const int *cuK, const int *qStart, int B, int totalQ, int maxS, int H, int KV, int D,
                     float *dq, float *dk, float *dv, float *dvec, void *stream) {
  return sg_attention_bwd_v(sgAttnDefaultVersion(), q, k, v, o, lse, dout, cuQ, cuK, qStart, B, totalQ, maxS, H, KV, D, dq, dk, dv,
                            dvec, stream);
}
