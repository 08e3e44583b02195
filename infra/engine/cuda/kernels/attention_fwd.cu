// infra/engine/cuda/kernels/attention_fwd.cu: flash-style causal GQA attention forward over packed variable-length
// sequences on tensor cores (wmma bf16 16x16x16, fp32 accumulation). Never materialises [T,S]. q [ΣT,H,D], k/v
// [ΣS,KV,D] (fp32, rounded to bf16 on load), o [ΣT,H,D], lse [ΣT,H]. Head dims 64 and 128 (template D). Two
// generations, chosen by sg_attention_fwd_v (sg_attention_fwd: SG_CUDA_ATTN=v2 → 2, else 1):
//  v2 (FlashAttention-2 order): a block of 4 warps per (64-query tile, head, sequence); each 64-key K/V tile is staged
//     once in shared memory as bf16 and shared by the 4 warps; each warp owns 16 query rows: S = Q Kᵀ (16×64), the
//     online softmax by all 32 lanes (2 per row, exp2 with the scale folded in), O += P V kept in wmma accumulator
//     registers and rescaled element-wise through a row-index fragment (layout-agnostic: the row of each accumulator
//     element is read from a fragment loaded from a table of row numbers). Key tiles above the diagonal are never
//     loaded; a warp whose rows all precede a key tile skips it. Dynamic shared memory (~80 KB at D=128).
//  v1: one warp per (16-query tile, head, sequence), K/V re-read per 16-query tile, one lane per softmax row.
#include "attention_tiles.cuh"

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

static int sgAttnFwdV1(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                       int maxT, int H, int KV, int D, float *o, float *lse, void *stream) {
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

// ---- v2 ----
// Shared-memory layout of the v2 forward (byte offsets; every wmma pointer lands on a 32-byte boundary). Strides are
// padded (+8 bf16, +4 fp32) so the 16 rows of a fragment load do not fall on the same banks.
template <int D>
struct AttnFwdLayout {
  static constexpr int LDQ = D + 8;               // bf16 stride of the Q, K, V tiles
  static constexpr int LDS = kAttnTile + 4;       // fp32 stride of a warp's S tile (16 × 64)
  static constexpr int LDP = kAttnTile + 8;       // bf16 stride of a warp's P tile
  static constexpr int LDO = D + 4;               // fp32 stride of the output staging (over K and V at the end)
  static constexpr size_t q = 0;
  static constexpr size_t k = q + (size_t)kAttnTile * LDQ * 2;
  static constexpr size_t v = k + (size_t)kAttnTile * LDQ * 2;
  static constexpr size_t s = v + (size_t)kAttnTile * LDQ * 2;
  static constexpr size_t p = s + (size_t)kAttnWarps * 16 * LDS * 4;
  static constexpr size_t alpha = p + (size_t)kAttnWarps * 16 * LDP * 2;
  static constexpr size_t rowTab = alpha + (size_t)kAttnWarps * 16 * 4;
  static constexpr size_t bytes = rowTab + 256 * 4;
  static_assert((size_t)kAttnWarps * 16 * LDO * 4 <= s - k, "output staging fits over K and V");
};

template <int D>
__global__ void __launch_bounds__(kAttnThreads) sgAttnFwd2(const float *__restrict__ q, const float *__restrict__ k,
                                                           const float *__restrict__ v, const int *__restrict__ cuQ,
                                                           const int *__restrict__ cuK, const int *__restrict__ qStartArr, int H,
                                                           int KV, float scaleLog2, float *__restrict__ o, float *__restrict__ lse) {
  using L = AttnFwdLayout<D>;
  using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
  constexpr int NE = Acc::num_elements;
  SG_ATTN_DYN_SMEM(smem);
  bf16 *Qs = (bf16 *)(smem + L::q), *Ks = (bf16 *)(smem + L::k), *Vs = (bf16 *)(smem + L::v);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  float *Sw = (float *)(smem + L::s) + warp * 16 * L::LDS;
  bf16 *Pw = (bf16 *)(smem + L::p) + warp * 16 * L::LDP;
  float *alphaW = (float *)(smem + L::alpha) + warp * 16;
  float *rowTab = (float *)(smem + L::rowTab);

  // Block order (blocks start roughly in linear order): sequence slowest, so the blocks in flight share one sequence's
  // K/V in L2; within it the longest (last) query tiles first, so no long tile starts at the end; head fastest.
  const unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned perSeq = gridDim.x * gridDim.y;
  const int b = (int)(lin / perSeq);
  const int tile = (int)(gridDim.x - 1 - (lin % perSeq) / gridDim.y), h = (int)((lin % perSeq) % gridDim.y);
  const int q0 = cuQ[b], T = cuQ[b + 1] - q0;
  const int k0 = cuK[b], S = cuK[b + 1] - k0;
  if (tile * kAttnTile >= T) return;  // uniform over the block
  const int qs = qStartArr[b];
  const int kvh = h / (H / KV);
  const int rows = min(kAttnTile, T - tile * kAttnTile);
  const long qRow0 = (long)q0 + tile * kAttnTile;

  sgStageTile<D, kAttnTile>(q + (qRow0 * H + h) * D, (long)H * D, rows, Qs, L::LDQ);
  for (int i = tid; i < 256; i += kAttnThreads) rowTab[i] = (float)(i / 16);
  __syncthreads();

  Acc of[D / 16];
  for (int j = 0; j < D / 16; j++) wmma::fill_fragment(of[j], 0.0f);
  int ridx[NE];  // the row (0..15) of each accumulator element this lane holds
  {
    Acc rf;
    wmma::load_matrix_sync(rf, rowTab, 16, wmma::mem_row_major);
    for (int i = 0; i < NE; i++) ridx[i] = (int)rf.x[i];
  }
  // Softmax state: two lanes per row (r, half), both keep the row's running max m (log2 units) and sum l.
  const int r = lane >> 1, half = lane & 1;
  const int wrow0 = warp * 16;
  const bool warpLive = wrow0 < rows;
  const int rowPos = qs + tile * kAttnTile + wrow0 + r;  // this lane's query position
  const bool rowOk = wrow0 + r < rows;
  const int warpLastPos = qs + tile * kAttnTile + min(rows, wrow0 + 16) - 1;
  float m = -FLT_MAX, l = 0.0f;

  const int lastKey = min(S - 1, qs + tile * kAttnTile + rows - 1);
  const int nkt = lastKey < 0 ? 0 : lastKey / kAttnTile + 1;
  const long kvStride = (long)KV * D;
  for (int kt = 0; kt < nkt; kt++) {
    const int key0 = kt * kAttnTile;
    __syncthreads();  // every warp is done with the previous K/V tile
    sgStageTile<D, kAttnTile>(k + ((long)(k0 + key0) * KV + kvh) * D, kvStride, S - key0, Ks, L::LDQ);
    sgStageTile<D, kAttnTile>(v + ((long)(k0 + key0) * KV + kvh) * D, kvStride, S - key0, Vs, L::LDQ);
    __syncthreads();
    if (!warpLive || key0 > warpLastPos) continue;  // warp-uniform: every key of the tile is in this warp's future
    {  // S = Q Kᵀ for the warp's 16 rows × 64 keys
      Acc sacc[kAttnTile / 16];
      for (int n = 0; n < kAttnTile / 16; n++) wmma::fill_fragment(sacc[n], 0.0f);
      for (int d0 = 0; d0 < D; d0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa;
        wmma::load_matrix_sync(fa, Qs + wrow0 * L::LDQ + d0, L::LDQ);
        for (int n = 0; n < kAttnTile / 16; n++) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> fb;
          wmma::load_matrix_sync(fb, Ks + n * 16 * L::LDQ + d0, L::LDQ);  // Kᵀ: element (d, key) = Ks[key·LDQ + d]
          wmma::mma_sync(sacc[n], fa, fb, sacc[n]);
        }
      }
      for (int n = 0; n < kAttnTile / 16; n++) wmma::store_matrix_sync(Sw + n * 16, sacc[n], L::LDS, wmma::mem_row_major);
    }
    __syncwarp();
    {  // online softmax: lane (r, half) takes columns half, half+2, …
      float s[kAttnTile / 2];
      float mx = -FLT_MAX;
      for (int j = 0; j < kAttnTile / 2; j++) {
        const int c = half + 2 * j, key = key0 + c;
        s[j] = (rowOk && key < S && key <= rowPos) ? Sw[r * L::LDS + c] * scaleLog2 : -FLT_MAX;
        mx = fmaxf(mx, s[j]);
      }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      const float mNew = fmaxf(m, mx);
      const float alpha = m == -FLT_MAX ? 0.0f : exp2f(m - mNew);
      float sum = 0.0f;
      for (int j = 0; j < kAttnTile / 2; j++) {
        const float p = s[j] == -FLT_MAX ? 0.0f : exp2f(s[j] - mNew);
        sum += p;
        Pw[r * L::LDP + half + 2 * j] = __float2bfloat16(p);
      }
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      l = l * alpha + sum;
      m = mNew;
      if (half == 0) alphaW[r] = alpha;
    }
    __syncwarp();
    {  // O = diag(alpha) O + P V
      float a[NE];
      for (int i = 0; i < NE; i++) a[i] = alphaW[ridx[i]];
      for (int j = 0; j < D / 16; j++)
        for (int i = 0; i < NE; i++) of[j].x[i] *= a[i];
      for (int kk = 0; kk < kAttnTile / 16; kk++) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fp;
        wmma::load_matrix_sync(fp, Pw + kk * 16, L::LDP);
        for (int j = 0; j < D / 16; j++) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fv;
          wmma::load_matrix_sync(fv, Vs + kk * 16 * L::LDQ + j * 16, L::LDQ);
          wmma::mma_sync(of[j], fp, fv, of[j]);
        }
      }
    }
  }
  // o = O / l through a per-warp fp32 staging over K and V (free once every warp has left the loop).
  if (half == 0) alphaW[r] = l > 0.0f ? 1.0f / l : 0.0f;
  __syncthreads();
  float *Ow = (float *)(smem + L::k) + warp * 16 * L::LDO;
  {
    float a[NE];
    for (int i = 0; i < NE; i++) a[i] = alphaW[ridx[i]];
    for (int j = 0; j < D / 16; j++) {
      for (int i = 0; i < NE; i++) of[j].x[i] *= a[i];
      wmma::store_matrix_sync(Ow + j * 16, of[j], L::LDO, wmma::mem_row_major);
    }
  }
  __syncwarp();
  const int wrows = min(16, rows - wrow0);  // ≤ 0 for a warp past the tile's end
  for (int i = lane; i < wrows * D; i += 32) {
    const int rr = i / D, c = i % D;
    o[((qRow0 + wrow0 + rr) * H + h) * D + c] = Ow[rr * L::LDO + c];
  }
  if (half == 0 && rowOk) lse[(qRow0 + wrow0 + r) * H + h] = l > 0.0f ? (m + log2f(l)) * kLn2 : -FLT_MAX;
}

template <int D>
static void sgAttnFwdV2Launch(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart,
                              int B, int maxT, int H, int KV, float *o, float *lse, void *stream) {
  const size_t bytes = AttnFwdLayout<D>::bytes;
  auto kern = sgAttnFwd2<D>;
  static const bool allowed = (SG_ALLOW_DYN_SMEM(kern, bytes), true);
  (void)allowed;
  const dim3 grid(sgCeilDiv(maxT, kAttnTile), H, B);
  const float scaleLog2 = kLog2e / sqrtf((float)D);
  SG_LAUNCH_DYN(kern, grid, kAttnThreads, bytes, stream, q, k, v, cuQ, cuK, qStart, H, KV, scaleLog2, o, lse);
}

int sg_attention_fwd_v(int version, const float *q, const float *k, const float *v, const int *cuQ, const int *cuK,
                       const int *qStart, int B, int maxT, int H, int KV, int D, float *o, float *lse, void *stream) {
  if (B <= 0 || maxT <= 0) return 0;
  if (KV <= 0 || H % KV != 0) return -2;
  if (D != 64 && D != 128) return -1;
  if (version == 1) return sgAttnFwdV1(q, k, v, cuQ, cuK, qStart, B, maxT, H, KV, D, o, lse, stream);
  if (D == 64)
    sgAttnFwdV2Launch<64>(q, k, v, cuQ, cuK, qStart, B, maxT, H, KV, o, lse, stream);
  else
    sgAttnFwdV2Launch<128>(q, k, v, cuQ, cuK, qStart, B, maxT, H, KV, o, lse, stream);
  return 0;
}

int sg_attention_fwd(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                     int maxT, int H, int KV, int D, float *o, float *lse, void *stream) {
  return sg_attention_fwd_v(sgAttnDefaultVersion(), q, k, v, cuQ, cuK, qStart, B, maxT, H, KV, D, o, lse, stream);
}
