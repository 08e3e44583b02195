// infra/engine/native/src/gemm: the matrix kernel — BLIS-style blocking (KC × NC panels of B packed once and
// shared, MC × KC blocks of A packed per task), register-tiled micro-kernels (AVX-512 12×32, AVX2+FMA 6×16,
// a portable 4×8 fallback), picked at run time from the CPU's features. Packing widens bf16 operands to f32.
// Work is split over (row block × column split) tasks statically; each C element's K-sum runs in one task in a
// fixed order (KC passes in order, k in order inside), so results do not depend on the thread count.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "ops.h"
#include "pool.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define SG_X86 1
#endif

namespace sg {
namespace {
constexpr int64_t KC = 256;
constexpr int64_t MC = 96;    // rows of A per task (a multiple of every MR)
constexpr int64_t NC = 4096;  // columns of B packed at once (a multiple of every NR)

using KernelFn = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha, float beta);

template <int MR, int NR>
void kernelPortable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha, float beta) {
  float acc[MR][NR] = {};
  for (int64_t k = 0; k < kc; k++) {
    for (int i = 0; i < MR; i++) {
      const float ai = a[i];
      for (int j = 0; j < NR; j++) acc[i][j] += ai * b[j];
    }
    a += MR;
    b += NR;
  }
  for (int i = 0; i < MR; i++)
    for (int j = 0; j < NR; j++) c[i * ldc + j] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c[i * ldc + j];
}

#ifdef SG_X86
__attribute__((target("avx2,fma"))) void kernelAvx2(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha,
                                                     float beta) {
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += 6;
    b += 16;
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++)
    for (int h = 0; h < 2; h++) {
      float* p = c + i * ldc + 8 * h;
      __m256 r = _mm256_mul_ps(va, acc[i][h]);
      if (beta != 0.f) r = _mm256_add_ps(r, _mm256_mul_ps(vb, _mm256_loadu_ps(p)));
      _mm256_storeu_ps(p, r);
    }
}

__attribute__((target("avx512f"))) void kernelAvx512(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha,
                                                      float beta) {
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < 12; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += 12;
    b += 32;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 12
  for (int i = 0; i < 12; i++)
    for (int h = 0; h < 2; h++) {
      float* p = c + i * ldc + 16 * h;
      __m512 r = _mm512_mul_ps(va, acc[i][h]);
      if (beta != 0.f) r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_loadu_ps(p)));
      _mm512_storeu_ps(p, r);
    }
}
#endif

inline float ld(const Mat& m, int64_t i, int64_t j) {
  const int64_t o = i * m.rs + j * m.cs;
  return m.dtype == DType::BF16 ? bf16ToF32(static_cast<const uint16_t*>(m.data)[o]) : static_cast<const float*>(m.data)[o];
}

/** Rows [i0, i0+mr) × k [p0, p0+kc) of A into panels of MR rows, k-major inside a panel, zero-padded. */
template <int MR>
void packA(const Mat& A, int64_t i0, int64_t mr, int64_t p0, int64_t kc, float* out) {
  for (int64_t ip = 0; ip < mr; ip += MR) {
    float* dst = out + ip * kc;
    const int64_t rows = std::min<int64_t>(MR, mr - ip);
    if (rows < MR) std::memset(dst, 0, sizeof(float) * MR * kc);
    if (A.cs == 1 && A.dtype == DType::F32) {
      for (int64_t i = 0; i < rows; i++) {
        const float* src = static_cast<const float*>(A.data) + (i0 + ip + i) * A.rs + p0;
        for (int64_t k = 0; k < kc; k++) dst[k * MR + i] = src[k];
      }
    } else {
      for (int64_t k = 0; k < kc; k++)
        for (int64_t i = 0; i < rows; i++) dst[k * MR + i] = ld(A, i0 + ip + i, p0 + k);
    }
  }
}

/** k [p0, p0+kc) × one NR-column panel starting at j of B, k-major, zero-padded. */
template <int NR>
void packBPanel(const Mat& B, int64_t p0, int64_t kc, int64_t j, int64_t cols, float* dst) {
  if (cols < NR) std::memset(dst, 0, sizeof(float) * NR * kc);
  if (B.cs == 1 && B.dtype == DType::F32) {
    for (int64_t k = 0; k < kc; k++) {
      const float* src = static_cast<const float*>(B.data) + (p0 + k) * B.rs + j;
      for (int64_t c = 0; c < cols; c++) dst[k * NR + c] = src[c];
    }
  } else if (B.rs == 1 && B.dtype == DType::F32) {
    for (int64_t c = 0; c < cols; c++) {
      const float* src = static_cast<const float*>(B.data) + (j + c) * B.cs + p0;
      for (int64_t k = 0; k < kc; k++) dst[k * NR + c] = src[k];
    }
  } else if (B.rs == 1) {
    for (int64_t c = 0; c < cols; c++) {
      const uint16_t* src = static_cast<const uint16_t*>(B.data) + (j + c) * B.cs + p0;
      for (int64_t k = 0; k < kc; k++) dst[k * NR + c] = bf16ToF32(src[k]);
    }
  } else {
    for (int64_t k = 0; k < kc; k++)
      for (int64_t c = 0; c < cols; c++) dst[k * NR + c] = ld(B, p0 + k, j + c);
  }
}

template <int MR, int NR>
void gemmImpl(KernelFn kern, int64_t M, int64_t N, int64_t K, float alpha, const Mat& A, const Mat& B, float beta, float* C,
              int64_t ldc) {
  thread_local std::vector<float> bpack;
  const int T = numThreads();
  for (int64_t jc = 0; jc < N; jc += NC) {
    const int64_t nc = std::min(NC, N - jc);
    const int64_t npanels = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < K; pc += KC) {
      const int64_t kc = std::min(KC, K - pc);
      const float betaEff = pc == 0 ? beta : 1.f;
      bpack.resize((size_t)(npanels * NR * kc));
      float* bp = bpack.data();
      parallelFor(npanels, (double)npanels * NR * kc * 4, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; p++) packBPanel<NR>(B, pc, kc, jc + p * NR, std::min<int64_t>(NR, nc - p * NR), bp + p * NR * kc);
      });
      const int64_t mblocks = (M + MC - 1) / MC;
      const int64_t splits = std::max<int64_t>(1, std::min<int64_t>(npanels, (T + mblocks - 1) / mblocks));
      parallelFor(mblocks * splits, 2.0 * M * nc * kc, [&](int64_t b, int64_t e) {
        thread_local std::vector<float> apack;
        apack.resize((size_t)(MC * kc));
        int64_t packed = -1;
        float tile[MR * NR];
        for (int64_t task = b; task < e; task++) {
          const int64_t mb = task / splits, sp = task % splits;
          const int64_t i0 = mb * MC, mc = std::min(MC, M - i0);
          if (packed != mb) {
            packA<MR>(A, i0, mc, pc, kc, apack.data());
            packed = mb;
          }
          const int64_t p0 = npanels * sp / splits, p1 = npanels * (sp + 1) / splits;
          for (int64_t p = p0; p < p1; p++) {
            const int64_t j = jc + p * NR, nr = std::min<int64_t>(NR, N - j);
            for (int64_t ir = 0; ir < mc; ir += MR) {
              const int64_t mr = std::min<int64_t>(MR, mc - ir);
              float* c = C + (i0 + ir) * ldc + j;
              if (mr == MR && nr == NR) {
                kern(kc, apack.data() + ir * kc, bp + p * NR * kc, c, ldc, alpha, betaEff);
              } else {
                kern(kc, apack.data() + ir * kc, bp + p * NR * kc, tile, NR, 1.f, 0.f);
                for (int64_t i = 0; i < mr; i++)
                  for (int64_t jj = 0; jj < nr; jj++) {
                    float* o = c + i * ldc + jj;
                    *o = betaEff == 0.f ? alpha * tile[i * NR + jj] : alpha * tile[i * NR + jj] + betaEff * *o;
                  }
              }
            }
          }
        }
      });
    }
  }
}

// ---- few rows (decode): C[m,n] = dot(A row m, B column n) with B's columns contiguous (a linear's weight rows);
// no packing, each weight row read once from memory and reused for all rows of A from L1. ----
constexpr int64_t GEMV_MAX_ROWS = 8;
#ifdef SG_X86
/** An MB × NB block of outputs: MB rows of A against NB weight rows, 16 k at a time (MB·NB accumulators; each
 *  weight vector is reused by MB rows, each A vector by NB weight rows), scalar tail for K % 16. */
template <int MB, int NB, bool BF>
__attribute__((target("avx512f"))) inline void gemvTile(int64_t K, const float* A, int64_t lda, const void* B, int64_t ldb, int64_t n,
                                                        float alpha, float beta, float* C, int64_t ldc) {
  __m512 acc[MB][NB];
  for (int i = 0; i < MB; i++)
    for (int j = 0; j < NB; j++) acc[i][j] = _mm512_setzero_ps();
  const float* wf[NB];
  const uint16_t* wh[NB];
  for (int j = 0; j < NB; j++) {
    wf[j] = static_cast<const float*>(B) + (n + j) * ldb;
    wh[j] = static_cast<const uint16_t*>(B) + (n + j) * ldb;
  }
  int64_t k = 0;
  for (; k + 16 <= K; k += 16) {
    __m512 w[NB];
    for (int j = 0; j < NB; j++)
      w[j] = BF ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(wh[j] + k))), 16))
                : _mm512_loadu_ps(wf[j] + k);
    for (int i = 0; i < MB; i++) {
      const __m512 a = _mm512_loadu_ps(A + i * lda + k);
      for (int j = 0; j < NB; j++) acc[i][j] = _mm512_fmadd_ps(a, w[j], acc[i][j]);
    }
  }
  float sums[MB][NB];
  if constexpr (MB == 4 && NB == 4) {
    // All 16 horizontal sums at once (a transpose-and-add tree: 15 adds, no per-accumulator reduction), lane 4j + i
    // holding acc[i][j]'s total.
    __m512 t[8], u[4];
    for (int p = 0; p < 8; p++) {
      const __m512 a = acc[(2 * p) / 4][(2 * p) % 4], b = acc[(2 * p + 1) / 4][(2 * p + 1) % 4];
      t[p] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE));
    }
    for (int m = 0; m < 4; m++)
      u[m] = _mm512_add_ps(_mm512_shuffle_f32x4(t[2 * m], t[2 * m + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                           _mm512_shuffle_f32x4(t[2 * m], t[2 * m + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 w0 = _mm512_add_ps(_mm512_unpacklo_ps(u[0], u[1]), _mm512_unpackhi_ps(u[0], u[1]));
    const __m512 w1 = _mm512_add_ps(_mm512_unpacklo_ps(u[2], u[3]), _mm512_unpackhi_ps(u[2], u[3]));
    const __m512 x = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(w0), _mm512_castps_pd(w1))),
                                   _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(w0), _mm512_castps_pd(w1))));
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, x);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) sums[i][j] = lanes[4 * j + i];
  } else {
    for (int i = 0; i < MB; i++)
      for (int j = 0; j < NB; j++) sums[i][j] = _mm512_reduce_add_ps(acc[i][j]);
  }
  for (int i = 0; i < MB; i++)
    for (int j = 0; j < NB; j++) {
      float s = sums[i][j];
      for (int64_t kk = k; kk < K; kk++) s += A[i * lda + kk] * (BF ? bf16ToF32(wh[j][kk]) : wf[j][kk]);
      float* c = C + i * ldc + n + j;
      *c = beta == 0.f ? alpha * s : alpha * s + beta * *c;
    }
}

/** Outputs [n0, n1) for all M rows: each tile of 4 weight rows is read from memory once and used for every group of
 *  4 rows of A while it is in L1 (rows in groups of 4 from row 0, so a row's arithmetic depends only on M mod 4). */
template <int NB, bool BF>
__attribute__((target("avx512f"))) inline void gemvColumns(int64_t M, int64_t n, int64_t K, float alpha, const float* A, int64_t lda,
                                                          const void* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  for (int64_t m = 0; m < M; m += 4) {
    const float* a = A + m * lda;
    float* c = C + m * ldc;
    switch (M - m < 4 ? M - m : 4) {
      case 4: gemvTile<4, NB, BF>(K, a, lda, B, ldb, n, alpha, beta, c, ldc); break;
      case 3: gemvTile<3, NB, BF>(K, a, lda, B, ldb, n, alpha, beta, c, ldc); break;
      case 2: gemvTile<2, NB, BF>(K, a, lda, B, ldb, n, alpha, beta, c, ldc); break;
      default: gemvTile<1, NB, BF>(K, a, lda, B, ldb, n, alpha, beta, c, ldc); break;
    }
  }
}

template <bool BF>
__attribute__((target("avx512f"))) void gemvAvx512(int64_t M, int64_t n0, int64_t n1, int64_t K, float alpha, const float* A, int64_t lda,
                                                    const void* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  int64_t n = n0;
  for (; n + 4 <= n1; n += 4) gemvColumns<4, BF>(M, n, K, alpha, A, lda, B, ldb, beta, C, ldc);
  for (; n < n1; n++) gemvColumns<1, BF>(M, n, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
#endif

enum class Kern { Portable, Avx2, Avx512 };

Kern detect() {
#ifdef SG_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Kern::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Kern::Avx2;
#endif
  return Kern::Portable;
}

Kern& current() {
  static Kern k = [] {
    Kern best = detect();
    if (const char* e = std::getenv("SEARCHGYM_NATIVE_GEMM")) {
      std::string s(e);
      if (s == "portable") return Kern::Portable;
      if (s == "avx2" && best != Kern::Portable) return Kern::Avx2;
    }
    return best;
  }();
  return k;
}
}  // namespace

const char* gemmKernel() {
  switch (current()) {
    case Kern::Avx512: return "avx512";
    case Kern::Avx2: return "avx2";
    default: return "portable";
  }
}

void setGemmKernel(const char* name) {
  std::string s(name);
  Kern best = detect();
  if (s == "portable") current() = Kern::Portable;
  else if (s == "avx2" && best != Kern::Portable) current() = Kern::Avx2;
  else current() = best;
}

void gemm(int64_t M, int64_t N, int64_t K, float alpha, Mat A, Mat B, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
    return;
  }
#ifdef SG_X86
  if (current() == Kern::Avx512 && M <= GEMV_MAX_ROWS && A.dtype == DType::F32 && A.cs == 1 && B.rs == 1) {
    const bool bf = B.dtype == DType::BF16;
    // Split at multiples of 4 columns, so which columns share a tile (and so each output's rounding) does not depend
    // on the thread count.
    parallelFor((N + 3) / 4, 2.0 * M * N * K, [&](int64_t b, int64_t e) {
      const int64_t n0 = 4 * b, n1 = std::min(N, 4 * e);
      if (bf) gemvAvx512<true>(M, n0, n1, K, alpha, static_cast<const float*>(A.data), A.rs, B.data, B.cs, beta, C, ldc);
      else gemvAvx512<false>(M, n0, n1, K, alpha, static_cast<const float*>(A.data), A.rs, B.data, B.cs, beta, C, ldc);
    });
    return;
  }
#endif
  switch (current()) {
#ifdef SG_X86
    case Kern::Avx512: return gemmImpl<12, 32>(kernelAvx512, M, N, K, alpha, A, B, beta, C, ldc);
    case Kern::Avx2: return gemmImpl<6, 16>(kernelAvx2, M, N, K, alpha, A, B, beta, C, ldc);
#endif
    default: return gemmImpl<4, 8>(kernelPortable<4, 8>, M, N, K, alpha, A, B, beta, C, ldc);
  }
}

// ---- few rows on packed weights (decode with a bound stack): panels of 16 columns, k-major ----
namespace {
constexpr int64_t PANEL = 16;
#ifdef SG_X86
/** MB rows × NP panels: per k, NP weight vectors and MB broadcasts, MB·NP FMAs; masked store of the last panel. */
template <int MB, int NP>
__attribute__((target("avx512f"))) inline void packedTile(int64_t K, const float* A, int64_t lda, const float* P, int64_t p, int64_t M,
                                                         float beta, float* C, int64_t ldc) {
  __m512 acc[MB][NP];
  for (int i = 0; i < MB; i++)
    for (int j = 0; j < NP; j++) acc[i][j] = _mm512_setzero_ps();
  const float* w[NP];
  for (int j = 0; j < NP; j++) w[j] = P + (p + j) * K * PANEL;
  for (int64_t k = 0; k < K; k++) {
    __m512 wv[NP];
    for (int j = 0; j < NP; j++) wv[j] = _mm512_loadu_ps(w[j] + k * PANEL);
    for (int i = 0; i < MB; i++) {
      const __m512 a = _mm512_set1_ps(A[i * lda + k]);
      for (int j = 0; j < NP; j++) acc[i][j] = _mm512_fmadd_ps(a, wv[j], acc[i][j]);
    }
  }
  const __m512 vb = _mm512_set1_ps(beta);
  for (int j = 0; j < NP; j++) {
    const int64_t col = (p + j) * PANEL, n = std::min<int64_t>(PANEL, M - col);
    const __mmask16 mask = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
    for (int i = 0; i < MB; i++) {
      float* c = C + i * ldc + col;
      __m512 r = acc[i][j];
      if (beta != 0.f) r = _mm512_add_ps(r, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(mask, c)));
      _mm512_mask_storeu_ps(c, mask, r);
    }
  }
}

template <int MB>
__attribute__((target("avx512f"))) void packedRows(int64_t K, const float* A, int64_t lda, const float* P, int64_t p0, int64_t p1, int64_t M,
                                                    float beta, float* C, int64_t ldc) {
  int64_t p = p0;
  for (; p + 2 <= p1; p += 2) packedTile<MB, 2>(K, A, lda, P, p, M, beta, C, ldc);
  if (p < p1) packedTile<MB, 1>(K, A, lda, P, p, M, beta, C, ldc);
}
#endif
}  // namespace

bool packedGemvAvailable() {
#ifdef SG_X86
  return current() == Kern::Avx512;
#else
  return false;
#endif
}

size_t packedSize(int64_t M, int64_t K) { return (size_t)((M + PANEL - 1) / PANEL * PANEL * K); }

void packPanels(const float* w, int64_t M, int64_t K, float* out) {
  const int64_t panels = (M + PANEL - 1) / PANEL;
  for (int64_t p = 0; p < panels; p++) {
    float* dst = out + p * K * PANEL;
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < PANEL; c++) {
        const int64_t m = p * PANEL + c;
        dst[k * PANEL + c] = m < M ? w[m * K + k] : 0.f;
      }
  }
}

void gemvPacked(int64_t N, int64_t M, int64_t K, const float* A, int64_t lda, const float* packed, float beta, float* C, int64_t ldc) {
#ifdef SG_X86
  const int64_t panels = (M + PANEL - 1) / PANEL;
  parallelFor((panels + 1) / 2, 2.0 * N * M * K, [&](int64_t b, int64_t e) {
    const int64_t p0 = 2 * b, p1 = std::min(panels, 2 * e);
    switch (N) {
      case 1: packedRows<1>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 2: packedRows<2>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 3: packedRows<3>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 4: packedRows<4>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 5: packedRows<5>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 6: packedRows<6>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      case 7: packedRows<7>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
      default: packedRows<8>(K, A, lda, packed, p0, p1, M, beta, C, ldc); break;
    }
  });
#else
  (void)N, (void)M, (void)K, (void)A, (void)lda, (void)packed, (void)beta, (void)C, (void)ldc;
#endif
}

// ---- peak: independent FMA chains (enough to cover latency × pipes), per thread ----
namespace {
#ifdef SG_X86
__attribute__((target("avx512f"))) double fmaLoop512(int64_t iters) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_ps(1.f + i * 1e-3f);
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; it++)
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  __m512 s = acc[0];
  for (int i = 1; i < 16; i++) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
__attribute__((target("avx2,fma"))) double fmaLoop256(int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; i++) acc[i] = _mm256_set1_ps(1.f + i * 1e-3f);
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; it++)
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  float out[8];
  __m256 s = acc[0];
  for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, acc[i]);
  _mm256_storeu_ps(out, s);
  return out[0];
}
#endif
}  // namespace

double measurePeakGflops(double seconds, int threads) {
  // One timed loop per thread, no barriers between rounds: the sum of what each thread achieved over the window.
  const Kern k = current();
  const int64_t iters = 1 << 16;
  const double flopsPerIter = k == Kern::Avx512 ? 16 * 16 * 2 : k == Kern::Avx2 ? 12 * 8 * 2 : 0;
  if (flopsPerIter == 0) return 0;
  const int saved = numThreads();
  setNumThreads(threads);
  std::vector<double> flops(threads, 0.0), sink(threads, 0.0);
  std::vector<double> secs(threads, 0.0);
  parallelThreads([&](int t, int) {
    const auto t0 = std::chrono::steady_clock::now();
    double el = 0;
    int64_t rounds = 0;
    do {
#ifdef SG_X86
      sink[t] += k == Kern::Avx512 ? fmaLoop512(iters) : fmaLoop256(iters);
#endif
      rounds++;
      el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (el < seconds);
    flops[t] = rounds * (double)iters * flopsPerIter;
    secs[t] = el;
  });
  setNumThreads(saved);
  volatile double keep = sink[0];
  (void)keep;
  double total = 0;
  for (int t = 0; t < threads; t++) total += flops[t] / secs[t];
  return total / 1e9;
}
}  // namespace sg
