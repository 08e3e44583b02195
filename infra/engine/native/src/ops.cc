// infra/engine/native/src/ops: every non-gemm kernel of the native backend (see ops.h for the op list and shapes).
// Parallel loops split rows / heads / columns statically and keep each output's reduction inside one task in a
// fixed order, so results are bit-identical across runs and thread counts. Where the ts reference computes in
// float64 (norm statistics, rope angles, softmax sums, AdamW, sampling) these do too.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "ops.h"
#include "pool.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define SG_X86 1
#endif

namespace sg {
namespace {
inline float dot(const float* a, const float* b, int64_t n) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) s[j] += a[i + j] * b[i + j];
  float r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  for (; i < n; i++) r += a[i] * b[i];
  return r;
}
inline void axpyRow(float* y, const float* x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}
/** Grain for elementwise loops: below this, one thread. */
constexpr int64_t GRAIN = 1 << 15;
template <class F>
void elementwise(int64_t n, F f) {
  if (n < GRAIN) return f(0, n);
  parallelFor((n + GRAIN - 1) / GRAIN, (double)n * 8, [&](int64_t b, int64_t e) { f(b * GRAIN, std::min(n, e * GRAIN)); });
}

/** One query row of one head against keys [0, count): softmax(q·k/√D) · v into out (overwritten). */
void attendRow(const float* q, const float* k, const float* v, int64_t count, int64_t stride, int64_t D, float scale, float* p,
               float* out) {
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < count; j++) {
    p[j] = dot(q, k + j * stride, D) * scale;
    if (p[j] > max) max = p[j];
  }
  float sum = 0;
  for (int64_t j = 0; j < count; j++) {
    p[j] = std::exp(p[j] - max);
    sum += p[j];
  }
  const float inv = 1.f / sum;
  std::memset(out, 0, sizeof(float) * D);
  for (int64_t j = 0; j < count; j++) axpyRow(out, v + j * stride, p[j] * inv, D);
}

#ifdef SG_X86
/** e^x for x ≤ 0-ish (Cephes expf: x = n·ln2 + r, degree-6 polynomial; ~2 ulp), 16 lanes. */
__attribute__((target("avx512f"))) inline __m512 exp512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.3365447505531f));
  x = _mm512_min_ps(x, _mm512_set1_ps(88.3762626647949f));
  const __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 y = _mm512_set1_ps(1.9875691500E-4f);
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507E-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073E-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894E-2f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459E-1f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201E-1f));
  y = _mm512_fmadd_ps(y, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.f)));
  const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fx), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(y, _mm512_castsi512_ps(e));
}

/** Lane q of the result = the sum of v[q]'s 16 lanes (a transpose-and-add tree: 15 adds, no per-vector reduction). */
__attribute__((target("avx512f"))) inline __m512 sum16(const __m512* v) {
  __m512 t[8], u[4];
  for (int p = 0; p < 8; p++)
    t[p] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0x44), _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0xEE));
  for (int m = 0; m < 4; m++)
    u[m] = _mm512_add_ps(_mm512_shuffle_f32x4(t[2 * m], t[2 * m + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(t[2 * m], t[2 * m + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 w0 = _mm512_add_ps(_mm512_unpacklo_ps(u[0], u[1]), _mm512_unpackhi_ps(u[0], u[1]));
  const __m512 w1 = _mm512_add_ps(_mm512_unpacklo_ps(u[2], u[3]), _mm512_unpackhi_ps(u[2], u[3]));
  const __m512 x = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(w0), _mm512_castps_pd(w1))),
                                 _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(w0), _mm512_castps_pd(w1))));
  // x's lane 4j + i holds v[4i + j]'s sum; put v[q]'s in lane q.
  const __m512i idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  return _mm512_permutexvar_ps(idx, x);
}

/** attendRow512's first two passes for one (row, head): the scaled scores of keys [0, count) into p, then their
 *  exponentials (shifted by the max); returns 1 / Σ exp. NV = D / 16 at compile time (the query stays in registers). */
template <int NV>
__attribute__((target("avx512f"))) float attendScoresT512(const float* q, const float* k, int64_t count, int64_t stride, float scale,
                                                           float* p) {
  constexpr int64_t nv = NV;
  __m512 qv[NV];
  for (int64_t i = 0; i < nv; i++) qv[i] = _mm512_mul_ps(_mm512_loadu_ps(q + 16 * i), _mm512_set1_ps(scale));
  float max = -std::numeric_limits<float>::infinity();
  int64_t j0 = 0;
  if (count >= 16) {
    // 16 keys at a time: 16 partial-product vectors, summed together by one transpose-and-add tree.
    __m512 vmax = _mm512_set1_ps(max);
    for (; j0 + 16 <= count; j0 += 16) {
      __m512 acc[16];
      for (int jj = 0; jj < 16; jj++) {
        const float* kr = k + (j0 + jj) * stride;
        __m512 a = _mm512_mul_ps(qv[0], _mm512_loadu_ps(kr));
        for (int64_t i = 1; i < nv; i++) a = _mm512_fmadd_ps(qv[i], _mm512_loadu_ps(kr + 16 * i), a);
        acc[jj] = a;
      }
      const __m512 sc = sum16(acc);
      _mm512_storeu_ps(p + j0, sc);
      vmax = _mm512_max_ps(vmax, sc);
    }
    max = _mm512_reduce_max_ps(vmax);
  }
  for (int64_t j = j0; j < count; j++) {
    const float* kr = k + j * stride;
    __m512 acc = _mm512_mul_ps(qv[0], _mm512_loadu_ps(kr));
    for (int64_t i = 1; i < nv; i++) acc = _mm512_fmadd_ps(qv[i], _mm512_loadu_ps(kr + 16 * i), acc);
    const float sc = _mm512_reduce_add_ps(acc);
    p[j] = sc;
    max = sc > max ? sc : max;
  }
  const __m512 vm = _mm512_set1_ps(max);
  __m512 vs = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 16 <= count; j += 16) {
    const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(p + j), vm));
    _mm512_storeu_ps(p + j, e);
    vs = _mm512_add_ps(vs, e);
  }
  if (j < count) {
    const __mmask16 m = (__mmask16)((1u << (count - j)) - 1);
    const __m512 e = exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, p + j), vm));
    _mm512_mask_storeu_ps(p + j, m, e);
    vs = _mm512_mask_add_ps(vs, m, vs, e);
  }
  return 1.f / _mm512_reduce_add_ps(vs);
}

/** attendScoresT512 for a head dim D known at run time (a multiple of 16, ≤ 128). */
__attribute__((target("avx512f"))) float attendScores512(const float* q, const float* k, int64_t count, int64_t stride, int64_t D,
                                                          float scale, float* p) {
  switch (D / 16) {
    case 1: return attendScoresT512<1>(q, k, count, stride, scale, p);
    case 2: return attendScoresT512<2>(q, k, count, stride, scale, p);
    case 3: return attendScoresT512<3>(q, k, count, stride, scale, p);
    case 4: return attendScoresT512<4>(q, k, count, stride, scale, p);
    case 5: return attendScoresT512<5>(q, k, count, stride, scale, p);
    case 6: return attendScoresT512<6>(q, k, count, stride, scale, p);
    case 7: return attendScoresT512<7>(q, k, count, stride, scale, p);
    default: return attendScoresT512<8>(q, k, count, stride, scale, p);
  }
}

/** attendRow for D a multiple of 16 (≤ 128) with AVX-512: scores per key (one reduction each), the exponentials 16 keys
 *  at a time, the weighted sum of values in registers. Fixed order, so deterministic; rounding differs from the
 *  scalar row (both are within the contract's tolerance of the float64 reference). */
__attribute__((target("avx512f"))) void attendRow512(const float* q, const float* k, const float* v, int64_t count, int64_t stride,
                                                      int64_t D, float scale, float* p, float* out) {
  const int64_t nv = D / 16;
  const float inv = attendScores512(q, k, count, stride, D, scale, p);
  __m512 o[8];
  for (int64_t i = 0; i < nv; i++) o[i] = _mm512_setzero_ps();
  for (int64_t jj = 0; jj < count; jj++) {
    const __m512 w = _mm512_set1_ps(p[jj] * inv);
    const float* vr = v + jj * stride;
    for (int64_t i = 0; i < nv; i++) o[i] = _mm512_fmadd_ps(w, _mm512_loadu_ps(vr + 16 * i), o[i]);
  }
  for (int64_t i = 0; i < nv; i++) _mm512_storeu_ps(out + 16 * i, o[i]);
}

/** Heads [h0, h0 + G) of one query row at once, each with exactly attendRow512's arithmetic (so the same bits): the
 *  scores and exponentials head by head, then ONE pass over the keys that advances every head's weighted sum of
 *  values together — G·NV independent FMA chains held in registers (NV, G compile-time, so nothing spills) instead of
 *  nv, which is what a short head (D = 16: one chain, each FMA waiting for the last) needs. q: the row's [H, D]; k, v:
 *  the sequence's rows (stride KV·D); p: G·count floats. */
template <int NV, int G>
__attribute__((target("avx512f"))) void attendHeads512(const float* q, const float* k, const float* v, int64_t count, int64_t stride,
                                                        int64_t group, int64_t h0, float scale, float* p, float* out) {
  constexpr int64_t D = 16 * NV;
  float inv[G];
  const float* vh[G];
  for (int g = 0; g < G; g++) {
    const int64_t h = h0 + g, kvh = h / group;
    inv[g] = attendScoresT512<NV>(q + h * D, k + kvh * D, count, stride, scale, p + g * count);
    vh[g] = v + kvh * D;
  }
  __m512 o[G][NV];
  for (int g = 0; g < G; g++)
    for (int i = 0; i < NV; i++) o[g][i] = _mm512_setzero_ps();
  for (int64_t jj = 0; jj < count; jj++)
    for (int g = 0; g < G; g++) {
      const __m512 w = _mm512_set1_ps(p[g * count + jj] * inv[g]);
      const float* vr = vh[g] + jj * stride;
      for (int i = 0; i < NV; i++) o[g][i] = _mm512_fmadd_ps(w, _mm512_loadu_ps(vr + 16 * i), o[g][i]);
    }
  for (int g = 0; g < G; g++)
    for (int i = 0; i < NV; i++) _mm512_storeu_ps(out + (h0 + g) * D + 16 * i, o[g][i]);
}

/** Every head of a row with attendHeads512: groups of G heads (G·NV ≤ 16 accumulators), the rest one by one. */
template <int NV, int G>
void attendHeadsAll512(const float* q, const float* k, const float* v, int64_t count, int64_t stride, int64_t H, int64_t group,
                       float scale, std::vector<float>& p, float* out) {
  p.resize((size_t)(G * count));
  int64_t h0 = 0;
  for (; h0 + G <= H; h0 += G) attendHeads512<NV, G>(q, k, v, count, stride, group, h0, scale, p.data(), out);
  for (; h0 < H; h0++) attendHeads512<NV, 1>(q, k, v, count, stride, group, h0, scale, p.data(), out);
}
#endif

#ifdef SG_X86
/** The largest of x[0, V/16·16) (V ≥ 16). */
__attribute__((target("avx512f"))) float rowMax512(const float* x, int64_t V) {
  __m512 m = _mm512_loadu_ps(x);
  for (int64_t i = 16; i + 16 <= V; i += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + i));
  return _mm512_reduce_max_ps(m);
}

/** expShifted (below) for the whole 16-blocks of x with AVX-512; returns their float64 sum. */
__attribute__((target("avx512f"))) double expShifted512(const float* x, int64_t V, float max, float s, float* e, double* blocks) {
  const __m512 vm = _mm512_set1_ps(max), vs = _mm512_set1_ps(s);
  double z = 0;
  for (int64_t i = 0; i + 16 <= V; i += 16) {
    const __m512 ev = exp512(_mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vs));
    _mm512_storeu_ps(e + i, ev);
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(ev));
    const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(ev), 1)));
    const double bs = _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
    blocks[i / 16] = bs;
    z += bs;
  }
  return z;
}
#endif

#ifdef SG_X86
/** out[j] = x · rows[j] for j in [0, count) (x as nv vectors of 16; rows `stride` apart): 16 rows at a time summed by
 *  one transpose-and-add tree, the tail one reduction each. Fixed order, so deterministic. */
__attribute__((target("avx512f"))) void rowDots512(const __m512* x, int64_t nv, const float* rows, int64_t stride, int64_t count,
                                                    float* out) {
  int64_t j0 = 0;
  for (; j0 + 16 <= count; j0 += 16) {
    __m512 acc[16];
    for (int jj = 0; jj < 16; jj++) {
      const float* r = rows + (j0 + jj) * stride;
      __m512 a = _mm512_mul_ps(x[0], _mm512_loadu_ps(r));
      for (int64_t i = 1; i < nv; i++) a = _mm512_fmadd_ps(x[i], _mm512_loadu_ps(r + 16 * i), a);
      acc[jj] = a;
    }
    _mm512_storeu_ps(out + j0, sum16(acc));
  }
  for (int64_t j = j0; j < count; j++) {
    const float* r = rows + j * stride;
    __m512 a = _mm512_mul_ps(x[0], _mm512_loadu_ps(r));
    for (int64_t i = 1; i < nv; i++) a = _mm512_fmadd_ps(x[i], _mm512_loadu_ps(r + 16 * i), a);
    out[j] = _mm512_reduce_add_ps(a);
  }
}

/** attentionBackwardHead (below) for D a multiple of 16 (≤ 128) with AVX-512: scores and dp by rowDots512, the
 *  softmax 16 keys at a time, dq accumulated in registers, dk/dv rows updated with one FMA per 16 lanes. The same
 *  math in a fixed order (deterministic); rounding differs from the scalar head, within the contract's tolerance. */
template <int NV>
__attribute__((target("avx512f"))) void attentionBackwardHeadT512(const float* q, const float* k, const float* v, const float* dy,
                                                                   int64_t T, int64_t qStart, int64_t H, int64_t KV, int64_t kvh,
                                                                   float* dq, float* dk, float* dv) {
  constexpr int64_t D = 16 * NV, nv = NV;  // compile-time: the query, dy and dq vectors stay in registers
  const int64_t group = H / KV, stride = KV * D;
  const float scale = 1.f / std::sqrt((float)D);
  std::vector<float> p(qStart + T + 16), dp(qStart + T + 16);
  const float* kb = k + kvh * D;
  const float* vb = v + kvh * D;
  float* dkb = dk + kvh * D;
  float* dvb = dv + kvh * D;
  for (int64_t i = 0; i < T; i++) {
    const int64_t count = qStart + i + 1;
    for (int64_t h = kvh * group; h < (kvh + 1) * group; h++) {
      const float* qr = q + (i * H + h) * D;
      const float* g = dy + (i * H + h) * D;
      __m512 qs[NV], qv[NV], gv[NV], dqa[NV];
      for (int64_t c = 0; c < nv; c++) {
        qv[c] = _mm512_loadu_ps(qr + 16 * c);
        qs[c] = _mm512_mul_ps(qv[c], _mm512_set1_ps(scale));
        gv[c] = _mm512_loadu_ps(g + 16 * c);
        dqa[c] = _mm512_setzero_ps();
      }
      rowDots512(qs, nv, kb, stride, count, p.data());
      rowDots512(gv, nv, vb, stride, count, dp.data());
      __m512 vmax = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
      int64_t j = 0;
      for (; j + 16 <= count; j += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(p.data() + j));
      const __mmask16 tail = (__mmask16)((1u << (count - j)) - 1);
      if (j < count) vmax = _mm512_mask_max_ps(vmax, tail, vmax, _mm512_maskz_loadu_ps(tail, p.data() + j));
      const __m512 vm = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));
      __m512 vs = _mm512_setzero_ps();
      for (j = 0; j + 16 <= count; j += 16) {
        const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(p.data() + j), vm));
        _mm512_storeu_ps(p.data() + j, e);
        vs = _mm512_add_ps(vs, e);
      }
      if (j < count) {
        const __m512 e = exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, p.data() + j), vm));
        _mm512_mask_storeu_ps(p.data() + j, tail, e);
        vs = _mm512_mask_add_ps(vs, tail, vs, e);
      }
      const __m512 inv = _mm512_set1_ps(1.f / _mm512_reduce_add_ps(vs));
      // p ← p / Σ; pdp = Σ p·dp
      __m512 vpdp = _mm512_setzero_ps();
      for (j = 0; j + 16 <= count; j += 16) {
        const __m512 pj = _mm512_mul_ps(_mm512_loadu_ps(p.data() + j), inv);
        _mm512_storeu_ps(p.data() + j, pj);
        vpdp = _mm512_fmadd_ps(pj, _mm512_loadu_ps(dp.data() + j), vpdp);
      }
      if (j < count) {
        const __m512 pj = _mm512_maskz_mul_ps(tail, _mm512_maskz_loadu_ps(tail, p.data() + j), inv);
        _mm512_mask_storeu_ps(p.data() + j, tail, pj);
        vpdp = _mm512_mask3_fmadd_ps(pj, _mm512_maskz_loadu_ps(tail, dp.data() + j), vpdp, tail);
      }
      const float pdp = _mm512_reduce_add_ps(vpdp);
      for (j = 0; j < count; j++) {
        const float pj = p[j];
        const __m512 wp = _mm512_set1_ps(pj);
        float* dvr = dvb + j * stride;
        for (int64_t c = 0; c < nv; c++) _mm512_storeu_ps(dvr + 16 * c, _mm512_fmadd_ps(wp, gv[c], _mm512_loadu_ps(dvr + 16 * c)));
        const float ds = pj * (dp[j] - pdp) * scale;
        if (ds == 0.f) continue;
        const __m512 wd = _mm512_set1_ps(ds);
        const float* kr = kb + j * stride;
        float* dkr = dkb + j * stride;
        for (int64_t c = 0; c < nv; c++) {
          dqa[c] = _mm512_fmadd_ps(wd, _mm512_loadu_ps(kr + 16 * c), dqa[c]);
          _mm512_storeu_ps(dkr + 16 * c, _mm512_fmadd_ps(wd, qv[c], _mm512_loadu_ps(dkr + 16 * c)));
        }
      }
      float* dqr = dq + (i * H + h) * D;
      for (int64_t c = 0; c < nv; c++) _mm512_storeu_ps(dqr + 16 * c, _mm512_add_ps(_mm512_loadu_ps(dqr + 16 * c), dqa[c]));
    }
  }
}

/** attentionBackwardHeadT512 for a head dim D known at run time (a multiple of 16, ≤ 128). */
__attribute__((target("avx512f"))) void attentionBackwardHead512(const float* q, const float* k, const float* v, const float* dy,
                                                                  int64_t T, int64_t qStart, int64_t H, int64_t KV, int64_t D,
                                                                  int64_t kvh, float* dq, float* dk, float* dv) {
  switch (D / 16) {
    case 1: return attentionBackwardHeadT512<1>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 2: return attentionBackwardHeadT512<2>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 3: return attentionBackwardHeadT512<3>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 4: return attentionBackwardHeadT512<4>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 5: return attentionBackwardHeadT512<5>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 6: return attentionBackwardHeadT512<6>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    case 7: return attentionBackwardHeadT512<7>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
    default: return attentionBackwardHeadT512<8>(q, k, v, dy, T, qStart, H, KV, kvh, dq, dk, dv);
  }
}
#endif

using AttendFn = void (*)(const float*, const float*, const float*, int64_t, int64_t, int64_t, float, float*, float*);
/** The row kernel every attention forward uses for head dim D: AVX-512 when the gemm kernel is avx512 (so
 *  SEARCHGYM_NATIVE_GEMM=portable also selects the scalar row) and D fits, else the scalar attendRow. */
AttendFn pickAttend(int64_t D) {
#ifdef SG_X86
  if (D % 16 == 0 && D <= 128 && std::strcmp(gemmKernel(), "avx512") == 0) return attendRow512;
#endif
  return attendRow;
}

/** Every head of one query row: q [H, D], keys/values rows of stride KV·D from position 0 (count of them), out [H, D].
 *  Each head's values are attendFn's bit for bit; with the AVX-512 row, heads go in groups whose FMA chains overlap. */
void attendAllHeads(AttendFn attendFn, const float* q, const float* k, const float* v, int64_t count, int64_t H, int64_t KV,
                    int64_t D, float scale, std::vector<float>& p, float* out) {
  const int64_t group = H / KV, stride = KV * D;
#ifdef SG_X86
  if (attendFn == attendRow512) switch (D) {
      case 16: return attendHeadsAll512<1, 4>(q, k, v, count, stride, H, group, scale, p, out);
      case 32: return attendHeadsAll512<2, 4>(q, k, v, count, stride, H, group, scale, p, out);
      case 64: return attendHeadsAll512<4, 2>(q, k, v, count, stride, H, group, scale, p, out);
      case 128: return attendHeadsAll512<8, 1>(q, k, v, count, stride, H, group, scale, p, out);
      default: break;
    }
#endif
  p.resize((size_t)count);
  for (int64_t h = 0; h < H; h++) attendFn(q + h * D, k + (h / group) * D, v + (h / group) * D, count, stride, D, scale, p.data(), out + h * D);
}
}  // namespace

void embedding(const void* table, DType dt, int64_t V, int64_t C, const int32_t* ids, int64_t N, float* out) {
  parallelFor(N, (double)N * C * 2, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      const int64_t id = ids[n];
      if (dt == DType::F32) std::memcpy(out + n * C, static_cast<const float*>(table) + id * C, sizeof(float) * C);
      else {
        const uint16_t* src = static_cast<const uint16_t*>(table) + id * C;
        for (int64_t c = 0; c < C; c++) out[n * C + c] = bf16ToF32(src[c]);
      }
    }
  });
  (void)V;
}

void embeddingBackward(const float* dy, const int32_t* ids, int64_t N, int64_t C, float* dtable) {
  // Column blocks: each table element is summed by one task, over n in order.
  const int64_t CB = 16, blocks = (C + CB - 1) / CB;
  parallelFor(blocks, (double)N * C * 2, [&](int64_t b, int64_t e) {
    const int64_t c0 = b * CB, c1 = std::min(C, e * CB);
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = c0; c < c1; c++) dtable[(int64_t)ids[n] * C + c] += dy[n * C + c];
  });
}

void rmsnorm(const float* x, const float* w, int64_t N, int64_t C, float eps, float* out) {
  parallelFor(N, (double)N * C * 6, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      const float* xr = x + n * C;
      double ss = 0;
      for (int64_t c = 0; c < C; c++) ss += (double)xr[c] * xr[c];
      const double inv = 1 / std::sqrt(ss / C + eps);
      for (int64_t c = 0; c < C; c++) out[n * C + c] = (float)(xr[c] * inv * w[c]);
    }
  });
}

void rmsnormBackward(const float* x, const float* w, const float* dy, int64_t N, int64_t C, float eps, float* dx, float* dw) {
  std::vector<double> inv(N);
  parallelFor(N, (double)N * C * 10, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      const float *xr = x + n * C, *g = dy + n * C;
      double ss = 0, dotv = 0;
      for (int64_t c = 0; c < C; c++) {
        ss += (double)xr[c] * xr[c];
        dotv += (double)g[c] * w[c] * xr[c];
      }
      const double iv = 1 / std::sqrt(ss / C + eps);
      inv[n] = iv;
      const double k = dotv * iv * iv * iv / C;
      for (int64_t c = 0; c < C; c++) dx[n * C + c] = (float)(g[c] * w[c] * iv - xr[c] * k);
    }
  });
  const int64_t CB = 16, blocks = (C + CB - 1) / CB;
  parallelFor(blocks, (double)N * C * 4, [&](int64_t b, int64_t e) {
    const int64_t c0 = b * CB, c1 = std::min(C, e * CB);
    double acc[16];
    std::fill(acc, acc + 16, 0.0);
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = c0; c < c1; c++) acc[c - c0] += (double)dy[n * C + c] * x[n * C + c] * inv[n];
    for (int64_t c = c0; c < c1; c++) dw[c] = (float)acc[c - c0];
  });
}

void ropeTable(const int32_t* pos, int64_t N, int64_t D, double theta, int sign, double* cs, double* sn) {
  const int64_t half = D / 2;
  std::vector<double> f(half);
  for (int64_t i = 0; i < half; i++) f[i] = 1 / std::pow(theta, (2.0 * i) / D);
  parallelFor(N, (double)N * half * 40, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++)
      for (int64_t i = 0; i < half; i++) {
        const double ang = pos[n] * f[i];
        cs[n * half + i] = std::cos(ang);
        sn[n * half + i] = sign * std::sin(ang);
      }
  });
}

void ropeApply(const float* x, const double* cs, const double* sn, int64_t N, int64_t H, int64_t D, float* out) {
  const int64_t half = D / 2;
  parallelFor(N, (double)N * H * D * 6, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      const double* c = cs + n * half;
      const double* s = sn + n * half;
      for (int64_t h = 0; h < H; h++) {
        const int64_t o = (n * H + h) * D;
        for (int64_t i = 0; i < half; i++) {
          const double x1 = x[o + i], x2 = x[o + i + half];
          out[o + i] = (float)(x1 * c[i] - x2 * s[i]);
          out[o + i + half] = (float)(x2 * c[i] + x1 * s[i]);
        }
      }
    }
  });
}

void rope(const float* x, const int32_t* pos, int64_t N, int64_t H, int64_t D, double theta, int sign, float* out) {
  std::vector<double> cs(N * (D / 2)), sn(N * (D / 2));
  ropeTable(pos, N, D, theta, sign, cs.data(), sn.data());
  ropeApply(x, cs.data(), sn.data(), N, H, D, out);
}

void attention(const float* q, const float* k, const float* v, const int32_t* cu, int64_t B, int64_t H, int64_t KV, int64_t D,
               float* out) {
  const int64_t N = cu[B], group = H / KV, stride = KV * D;
  const float scale = 1.f / std::sqrt((float)D);
  std::vector<int32_t> seqOf(N);
  for (int64_t s = 0; s < B; s++)
    for (int64_t n = cu[s]; n < cu[s + 1]; n++) seqOf[n] = (int32_t)s;
  const AttendFn attendRow = pickAttend(D);
  (void)group;
  parallelFor(N, (double)N * H * D * 4 * (N / (B > 0 ? B : 1) / 2 + 1), [&](int64_t b, int64_t e) {
    std::vector<float> p;
    for (int64_t n = b; n < e; n++) {
      const int64_t s0 = cu[seqOf[n]];
      attendAllHeads(attendRow, q + n * H * D, k + s0 * stride, v + s0 * stride, n - s0 + 1, H, KV, D, scale, p, out + n * H * D);
    }
  });
}

void attentionCached(const float* q, const float* k, const float* v, int64_t T, int64_t S, int64_t H, int64_t KV, int64_t D,
                     int64_t qStart, float* out) {
  const int64_t group = H / KV, stride = KV * D;
  const float scale = 1.f / std::sqrt((float)D);
  (void)S;
  const AttendFn attendRow = pickAttend(D);
  (void)group;
  (void)stride;
  parallelFor(T, (double)T * H * D * 4 * (qStart + T), [&](int64_t b, int64_t e) {
    std::vector<float> p;
    for (int64_t i = b; i < e; i++) attendAllHeads(attendRow, q + i * H * D, k, v, qStart + i + 1, H, KV, D, scale, p, out + i * H * D);
  });
}

void attentionSegments(const float* q, const float* const* kc, const float* const* vc, const int32_t* cu, const int32_t* starts, int64_t B,
                       int64_t H, int64_t KV, int64_t D, float* out) {
  const int64_t group = H / KV, stride = KV * D, N = cu[B];
  const float scale = 1.f / std::sqrt((float)D);
  std::vector<int32_t> seqOf(N);
  double keys = 0;
  for (int64_t s = 0; s < B; s++)
    for (int64_t n = cu[s]; n < cu[s + 1]; n++) {
      seqOf[n] = (int32_t)s;
      keys += starts[s] + (n - cu[s]) + 1;
    }
  const AttendFn attendRow = pickAttend(D);
  (void)group;
  (void)stride;
  parallelFor(N, keys * H * D * 4, [&](int64_t b, int64_t e) {
    std::vector<float> p;
    for (int64_t n = b; n < e; n++) {
      const int64_t s = seqOf[n], count = starts[s] + (n - cu[s]) + 1;
      attendAllHeads(attendRow, q + n * H * D, kc[s], vc[s], count, H, KV, D, scale, p, out + n * H * D);
    }
  });
}

namespace {
/** Backward of one sequence's queries [T,H,D] (absolute positions qStart..) for the query heads of kv head kvh;
 *  keys/values [S,KV,D] from position 0. Adds into dq (rows of those heads), dk and dv (rows of kvh). */
void attentionBackwardHeadScalar(const float* q, const float* k, const float* v, const float* dy, int64_t T, int64_t qStart,
                                 int64_t H, int64_t KV, int64_t D, int64_t kvh, float* dq, float* dk, float* dv) {
  const int64_t group = H / KV, stride = KV * D;
  const float scale = 1.f / std::sqrt((float)D);
  std::vector<float> p(qStart + T), dp(qStart + T);
  const float* kb = k + kvh * D;
  const float* vb = v + kvh * D;
  float* dkb = dk + kvh * D;
  float* dvb = dv + kvh * D;
  for (int64_t i = 0; i < T; i++) {
    const int64_t count = qStart + i + 1;
    for (int64_t h = kvh * group; h < (kvh + 1) * group; h++) {
      const float* qr = q + (i * H + h) * D;
      const float* g = dy + (i * H + h) * D;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < count; j++) {
        p[j] = dot(qr, kb + j * stride, D) * scale;
        if (p[j] > max) max = p[j];
      }
      float sum = 0;
      for (int64_t j = 0; j < count; j++) {
        p[j] = std::exp(p[j] - max);
        sum += p[j];
      }
      const float inv = 1.f / sum;
      float pdp = 0;
      for (int64_t j = 0; j < count; j++) {
        p[j] *= inv;
        dp[j] = dot(g, vb + j * stride, D);
        pdp += p[j] * dp[j];
        axpyRow(dvb + j * stride, g, p[j], D);
      }
      float* dqr = dq + (i * H + h) * D;
      for (int64_t j = 0; j < count; j++) {
        const float ds = p[j] * (dp[j] - pdp) * scale;
        if (ds == 0.f) continue;
        axpyRow(dqr, kb + j * stride, ds, D);
        axpyRow(dkb + j * stride, qr, ds, D);
      }
    }
  }
}
/** One (sequence, kv head) of the attention backward: the AVX-512 head where the forward uses attendRow512 (same
 *  selection rule: gemm kernel avx512, D a multiple of 16 up to 128), else the scalar one. */
void attentionBackwardHead(const float* q, const float* k, const float* v, const float* dy, int64_t T, int64_t qStart, int64_t H,
                           int64_t KV, int64_t D, int64_t kvh, float* dq, float* dk, float* dv) {
#ifdef SG_X86
  if (pickAttend(D) != attendRow) return attentionBackwardHead512(q, k, v, dy, T, qStart, H, KV, D, kvh, dq, dk, dv);
#endif
  attentionBackwardHeadScalar(q, k, v, dy, T, qStart, H, KV, D, kvh, dq, dk, dv);
}
}  // namespace

void attentionBackward(const float* q, const float* k, const float* v, const float* dy, const int32_t* cu, int64_t B, int64_t H,
                       int64_t KV, int64_t D, float* dq, float* dk, float* dv) {
  const int64_t stride = KV * D, N = cu[B];
  std::memset(dq, 0, sizeof(float) * N * H * D);
  std::memset(dk, 0, sizeof(float) * N * stride);
  std::memset(dv, 0, sizeof(float) * N * stride);
  // One task per (sequence, kv head): it alone writes that head's dk/dv rows and its query heads' dq rows.
  parallelFor(B * KV, (double)N * H * D * 10 * (N / (B > 0 ? B : 1) / 2 + 1), [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; it++) {
      const int64_t s = it / KV, kvh = it % KV, o = cu[s], T = cu[s + 1] - cu[s];
      attentionBackwardHead(q + o * H * D, k + o * stride, v + o * stride, dy + o * H * D, T, 0, H, KV, D, kvh, dq + o * H * D,
                            dk + o * stride, dv + o * stride);
    }
  });
}

void attentionCachedBackward(const float* q, const float* k, const float* v, const float* dy, int64_t T, int64_t S, int64_t H,
                             int64_t KV, int64_t D, int64_t qStart, float* dq, float* dk, float* dv) {
  std::memset(dq, 0, sizeof(float) * T * H * D);
  std::memset(dk, 0, sizeof(float) * S * KV * D);
  std::memset(dv, 0, sizeof(float) * S * KV * D);
  parallelFor(KV, (double)T * H * D * 10 * (qStart + T), [&](int64_t b, int64_t e) {
    for (int64_t kvh = b; kvh < e; kvh++) attentionBackwardHead(q, k, v, dy, T, qStart, H, KV, D, kvh, dq, dk, dv);
  });
}

namespace {
#ifdef SG_X86
/** σ(g) = 1 / (1 + e^−g) on 16 lanes with the vector exp (its clamp keeps e^−g finite; σ then rounds to 0 or 1). */
__attribute__((target("avx512f"))) inline __m512 sigmoid512(__m512 g) {
  const __m512 one = _mm512_set1_ps(1.f);
  return _mm512_div_ps(one, _mm512_add_ps(one, exp512(_mm512_sub_ps(_mm512_setzero_ps(), g))));
}
/** swiglu over [b, e) in blocks of 16, the tail masked: every element gets the same arithmetic wherever a range
 *  starts or ends (decode splits rows by columns per thread). Returns e. */
__attribute__((target("avx512f"))) int64_t swiglu512(const float* g, const float* u, int64_t b, int64_t e, float* out) {
  for (int64_t i = b; i < e; i += 16) {
    const __mmask16 m = e - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (e - i)) - 1);
    const __m512 gv = _mm512_maskz_loadu_ps(m, g + i);
    _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(_mm512_mul_ps(gv, sigmoid512(gv)), _mm512_maskz_loadu_ps(m, u + i)));
  }
  return e;
}
__attribute__((target("avx512f"))) int64_t swigluBackward512(const float* g, const float* u, const float* dy, int64_t b, int64_t e, float* dg,
                                                              float* du) {
  const __m512 one = _mm512_set1_ps(1.f);
  for (int64_t i = b; i < e; i += 16) {
    const __mmask16 m = e - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (e - i)) - 1);
    const __m512 gv = _mm512_maskz_loadu_ps(m, g + i), uv = _mm512_maskz_loadu_ps(m, u + i), d = _mm512_maskz_loadu_ps(m, dy + i);
    const __m512 sv = sigmoid512(gv);
    _mm512_mask_storeu_ps(du + i, m, _mm512_mul_ps(_mm512_mul_ps(d, gv), sv));
    _mm512_mask_storeu_ps(dg + i, m, _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(d, uv), sv), _mm512_fmadd_ps(gv, _mm512_sub_ps(one, sv), one)));
  }
  return e;
}
#endif
bool vectorExp() { return std::strcmp(gemmKernel(), "avx512") == 0; }
}  // namespace

// SwiGLU's sigmoid on the vector exp where the gemm kernel is avx512 (a scalar expf per element was most of the
// block's elementwise time), else the scalar loop; each element's arithmetic is the same whichever thread runs it.
void swiglu(const float* g, const float* u, int64_t n, float* out) {
  const bool vec = vectorExp();
  elementwise(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
#ifdef SG_X86
    if (vec) i = swiglu512(g, u, b, e, out);
#endif
    for (; i < e; i++) out[i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
  });
}

void swigluBackward(const float* g, const float* u, const float* dy, int64_t n, float* dg, float* du) {
  const bool vec = vectorExp();
  elementwise(n, [&](int64_t b, int64_t e) {
    int64_t i = b;
#ifdef SG_X86
    if (vec) i = swigluBackward512(g, u, dy, b, e, dg, du);
#endif
    for (; i < e; i++) {
      const float s = 1.f / (1.f + std::exp(-g[i]));
      du[i] = dy[i] * g[i] * s;
      dg[i] = dy[i] * u[i] * s * (1.f + g[i] * (1.f - s));
    }
  });
}

namespace {
float rowMax(const float* x, int64_t V);

#ifdef SG_X86
/** x[i] = exp(x[i] − m) for the first n / 16 · 16 values (float32 vector exp), returning their float64 sum (each block
 *  of 16 summed in float64, blocks in order). */
__attribute__((target("avx512f"))) double expInPlace512(float* x, int64_t n, float m) {
  const __m512 vm = _mm512_set1_ps(m);
  double z = 0;
  for (int64_t i = 0; i + 16 <= n; i += 16) {
    const __m512 ev = exp512(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    _mm512_storeu_ps(x + i, ev);
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(ev));
    const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(ev), 1)));
    z += _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
  }
  return z;
}
#endif

/** x[i] = exp(x[i] − m) for i < n, in place; returns Σ x[i] in float64. The vector exp (~2 ulp, float32) where the
 *  gemm kernel is avx512 — the head's softmax was scalar float64 exp, 3–4× its own gemm at vocabulary 4,096 — else
 *  float64 exp rounded to float32. */
double expInPlace(float* x, int64_t n, float m) {
  int64_t i = 0;
  double z = 0;
#ifdef SG_X86
  if (std::strcmp(gemmKernel(), "avx512") == 0) {
    z = expInPlace512(x, n, m);
    i = n / 16 * 16;
  }
#endif
  for (; i < n; i++) z += (x[i] = (float)std::exp((double)x[i] - m));
  return z;
}

#ifdef SG_X86
/** Σ exp(x[i] − m) over the first n / 16 · 16 values (float32 vector exp, each block of 16 summed in float64). */
__attribute__((target("avx512f"))) double expSum512(const float* x, int64_t n, float m) {
  const __m512 vm = _mm512_set1_ps(m);
  double z = 0;
  for (int64_t i = 0; i + 16 <= n; i += 16) {
    const __m512 ev = exp512(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(ev));
    const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(ev), 1)));
    z += _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
  }
  return z;
}
#endif

/** Σ exp(x[i] − m) for i < n in float64, with expInPlace's exponentials (not stored). */
double expSum(const float* x, int64_t n, float m) {
  int64_t i = 0;
  double z = 0;
#ifdef SG_X86
  if (std::strcmp(gemmKernel(), "avx512") == 0) {
    z = expSum512(x, n, m);
    i = n / 16 * 16;
  }
#endif
  for (; i < n; i++) z += (float)std::exp((double)x[i] - m);
  return z;
}

double logSumExp(const float* x, int64_t V) {
  const float max = rowMax(x, V);
  return max + std::log(expSum(x, V, max));
}
}  // namespace

void logSoftmax(const float* x, int64_t N, int64_t V, float* out) {
  parallelFor(N, (double)N * V * 20, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      const double lse = logSumExp(x + n * V, V);
      for (int64_t c = 0; c < V; c++) out[n * V + c] = (float)(x[n * V + c] - lse);
    }
  });
}

int64_t targetLogprobs(const float* x, const int32_t* t, int64_t N, int64_t V, float* out) {
  for (int64_t n = 0; n < N; n++)
    if (t[n] < 0 || t[n] >= V) return n;
  parallelFor(N, (double)N * V * 20, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) out[n] = (float)(x[n * V + t[n]] - logSumExp(x + n * V, V));
  });
  return -1;
}

void targetLogprobsBackward(const float* x, const int32_t* t, const float* g, int64_t N, int64_t V, float* out) {
  parallelFor(N, (double)N * V * 40, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; n++) {
      float* o = out + n * V;
      if (g[n] == 0.f) {
        std::memset(o, 0, sizeof(float) * V);
        continue;
      }
      // softmax = exp(x − max) / Σ: the exponentials written into o once, then scaled.
      const float* x_n = x + n * V;
      const float max = rowMax(x_n, V);
      std::memcpy(o, x_n, sizeof(float) * V);
      const float f = (float)(-g[n] / expInPlace(o, V, max));
      for (int64_t c = 0; c < V; c++) o[c] *= f;
      o[t[n]] += g[n];
    }
  });
}

// ---- fused output head ----
namespace {
constexpr int64_t HEAD_ROWS = 256;   // hidden rows per chunk
constexpr int64_t HEAD_VOCAB = 4096; // vocabulary columns per tile
inline const void* rowPtr(const void* w, DType dt, int64_t row, int64_t C) {
  return dt == DType::BF16 ? (const void*)(static_cast<const uint16_t*>(w) + row * C) : (const void*)(static_cast<const float*>(w) + row * C);
}
}  // namespace

int64_t headLogprobs(const float* h, const void* w, DType wt, const int32_t* t, int64_t N, int64_t C, int64_t V, float* logp) {
  for (int64_t n = 0; n < N; n++)
    if (t[n] < 0 || t[n] >= V) return n;
  std::vector<float> tile(HEAD_ROWS * HEAD_VOCAB);
  std::vector<double> m(HEAD_ROWS), s(HEAD_ROWS), tl(HEAD_ROWS);
  for (int64_t r0 = 0; r0 < N; r0 += HEAD_ROWS) {
    const int64_t rb = std::min(HEAD_ROWS, N - r0);
    std::fill(m.begin(), m.end(), -std::numeric_limits<double>::infinity());
    std::fill(s.begin(), s.end(), 0.0);
    for (int64_t v0 = 0; v0 < V; v0 += HEAD_VOCAB) {
      const int64_t vb = std::min(HEAD_VOCAB, V - v0);
      gemm(rb, vb, C, 1.f, Mat{h + r0 * C, DType::F32, C, 1}, Mat{rowPtr(w, wt, v0, C), wt, 1, C}, 0.f, tile.data(), vb);
      parallelFor(rb, (double)rb * vb * 20, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; r++) {
          float* x = tile.data() + r * vb;
          const float mt = rowMax(x, vb);
          if (mt > m[r]) {
            s[r] *= std::exp(m[r] - mt);
            m[r] = mt;
          }
          const int64_t tg = t[r0 + r] - v0;
          if (tg >= 0 && tg < vb) tl[r] = x[tg];
          s[r] += expInPlace(x, vb, (float)m[r]);  // the tile is scratch: its logits are not read again
        }
      });
    }
    for (int64_t r = 0; r < rb; r++) logp[r0 + r] = (float)(tl[r] - (m[r] + std::log(s[r])));
  }
  return -1;
}

void headLogprobsBackward(const float* h, const void* w, DType wt, const int32_t* t, const float* dlogp, int64_t N, int64_t C, int64_t V,
                          float* dh) {
  // dh_r = g_r·(w[t_r] − Σ_v softmax_rv·w_v). One pass over the vocabulary with an online max: acc_r holds
  // Σ_v exp(l_rv − m_r)·w_v and is rescaled when m_r grows; s_r the matching normaliser.
  std::vector<float> tile(HEAD_ROWS * HEAD_VOCAB), acc(HEAD_ROWS * C);
  std::vector<double> m(HEAD_ROWS), s(HEAD_ROWS);
  for (int64_t r0 = 0; r0 < N; r0 += HEAD_ROWS) {
    const int64_t rb = std::min(HEAD_ROWS, N - r0);
    bool any = false;
    for (int64_t r = 0; r < rb; r++) any = any || dlogp[r0 + r] != 0.f;
    if (!any) {
      std::memset(dh + r0 * C, 0, sizeof(float) * rb * C);
      continue;
    }
    std::fill(m.begin(), m.end(), -std::numeric_limits<double>::infinity());
    std::fill(s.begin(), s.end(), 0.0);
    std::fill(acc.begin(), acc.end(), 0.f);
    for (int64_t v0 = 0; v0 < V; v0 += HEAD_VOCAB) {
      const int64_t vb = std::min(HEAD_VOCAB, V - v0);
      gemm(rb, vb, C, 1.f, Mat{h + r0 * C, DType::F32, C, 1}, Mat{rowPtr(w, wt, v0, C), wt, 1, C}, 0.f, tile.data(), vb);
      parallelFor(rb, (double)rb * vb * 20, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; r++) {
          float* x = tile.data() + r * vb;
          const float mt = rowMax(x, vb);
          if (mt > m[r]) {
            const double f = std::exp(m[r] - mt);
            s[r] *= f;
            for (int64_t c = 0; c < C; c++) acc[r * C + c] = (float)(acc[r * C + c] * f);
            m[r] = mt;
          }
          s[r] += expInPlace(x, vb, (float)m[r]);
        }
      });
      gemm(rb, C, vb, 1.f, Mat{tile.data(), DType::F32, vb, 1}, Mat{rowPtr(w, wt, v0, C), wt, C, 1}, 1.f, acc.data(), C);
    }
    parallelFor(rb, (double)rb * C * 4, [&](int64_t b, int64_t e) {
      std::vector<float> wt_row(C);
      for (int64_t r = b; r < e; r++) {
        const float g = dlogp[r0 + r];
        const int64_t tg = t[r0 + r];
        for (int64_t c = 0; c < C; c++)
          wt_row[c] = wt == DType::BF16 ? bf16ToF32(static_cast<const uint16_t*>(w)[tg * C + c]) : static_cast<const float*>(w)[tg * C + c];
        const double inv = 1 / s[r];
        for (int64_t c = 0; c < C; c++) dh[(r0 + r) * C + c] = (float)(g * (wt_row[c] - acc[r * C + c] * inv));
      }
    });
  }
}

// ---- sampling (the rules of infra/engine/sample.ts sampleToken / samplingSupport, in float64) ----
namespace {
void logSoftmaxRow(const float* x, int64_t V, double scale, std::vector<double>& out) {
  double max = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < V; i++) max = x[i] * scale > max ? x[i] * scale : max;
  double s = 0;
  for (int64_t i = 0; i < V; i++) s += std::exp(x[i] * scale - max);
  const double lse = max + std::log(s);
  out.resize(V);
  for (int64_t i = 0; i < V; i++) out[i] = x[i] * scale - lse;
}

std::vector<int32_t> support(const std::vector<double>& lp, int64_t topK, double topP) {
  const int64_t V = (int64_t)lp.size();
  std::vector<int32_t> cand;
  if (topK == 0 && topP == 1) {
    cand.resize(V);
    std::iota(cand.begin(), cand.end(), 0);
    return cand;
  }
  auto byProb = [&](int32_t a, int32_t b) { return lp[a] != lp[b] ? lp[a] > lp[b] : a < b; };
  auto all = [&] {
    std::vector<int32_t> c(V);
    std::iota(c.begin(), c.end(), 0);
    std::sort(c.begin(), c.end(), byProb);
    return c;
  };
  double max = -std::numeric_limits<double>::infinity();
  for (double x : lp) max = x > max ? x : max;
  for (int64_t i = 0; i < V; i++)
    if (lp[i] > max - 30) cand.push_back((int32_t)i);
  std::sort(cand.begin(), cand.end(), byProb);
  double total = 0;
  for (int64_t i = 0; i < V; i++) total += std::exp(lp[i]);
  if (topK > 0) {
    if ((int64_t)cand.size() < topK && (int64_t)cand.size() < V) cand = all();
    if ((int64_t)cand.size() > topK) cand.resize(topK);
    total = 0;
    for (int32_t i : cand) total += std::exp(lp[i]);
  }
  if (topP < 1) {
    auto prefix = [&](const std::vector<int32_t>& c, double& cum) {
      cum = 0;
      size_t keep = 0;
      while (keep < c.size()) {
        cum += std::exp(lp[c[keep]]) / total;
        keep++;
        if (cum >= topP) break;
      }
      return keep;
    };
    double cum;
    size_t keep = prefix(cand, cum);
    if (cum < topP && (int64_t)cand.size() < V && topK == 0) {
      cand = all();
      keep = prefix(cand, cum);
    }
    cand.resize(keep);
  }
  return cand;
}
}  // namespace

namespace {
constexpr int64_t SAMPLE_BLOCK = 16;
/** e[i] = exp((x[i] − max)·s) for i < V (float32, vector exp where the kernel is avx512), and the sum of each block of
 *  SAMPLE_BLOCK values (float64, in order) into blocks; returns the float64 sum of all of them (blocks in order). */
double expShifted(const float* x, int64_t V, float max, float s, float* e, double* blocks) {
  int64_t i = 0;
  double z = 0;
#ifdef SG_X86
  if (std::strcmp(gemmKernel(), "avx512") == 0) {
    z = expShifted512(x, V, max, s, e, blocks);
    i = V / SAMPLE_BLOCK * SAMPLE_BLOCK;
  }
#endif
  for (; i < V; i += SAMPLE_BLOCK) {
    double bs = 0;
    for (int64_t j = i; j < std::min(V, i + SAMPLE_BLOCK); j++) bs += (e[j] = std::exp((x[j] - max) * s));
    blocks[i / SAMPLE_BLOCK] = bs;
    z += bs;
  }
  return z;
}

float rowMax(const float* x, int64_t V) {
  int64_t i = 0;
  float m = x[0];
#ifdef SG_X86
  if (V >= 16 && std::strcmp(gemmKernel(), "avx512") == 0) {
    m = rowMax512(x, V);
    i = V / 16 * 16;
  }
#endif
  for (; i < V; i++) m = x[i] > m ? x[i] : m;
  return m;
}

/** The index drawn by target t ∈ [0, z) from the values e with block sums: the first i whose running sum exceeds t
 *  (the last index when rounding leaves t ≥ the total). */
int64_t drawIndex(const float* e, const double* blocks, int64_t V, double t) {
  const int64_t nb = (V + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK;
  for (int64_t b = 0; b < nb; b++) {
    if (t - blocks[b] >= 0 && b + 1 < nb) {
      t -= blocks[b];
      continue;
    }
    for (int64_t i = b * SAMPLE_BLOCK; i < std::min(V, (b + 1) * SAMPLE_BLOCK); i++) {
      t -= e[i];
      if (t < 0) return i;
    }
  }
  return V - 1;
}
}  // namespace

void sampleRows(const float* logits, int64_t R, int64_t V, SampleParams p, const double* uniforms, int32_t* ids, double* logprob,
                double* modelLogprob) {
  if (p.topK == 0 && p.topP == 1) {
    // The full distribution (the common case): the exponentials once per row in float32 (vector exp), their sums in
    // float64, the draw by a scan of block sums. Same rule as sample-row.ts (cumulative probabilities in id order);
    // the probabilities differ from its float64 ones by float32 rounding (~1e-7 relative), so a draw can differ
    // only when its uniform falls within that distance of a boundary.
    parallelFor(R, (double)R * V * 20, [&](int64_t b, int64_t e) {
      std::vector<float> ex(V);
      std::vector<double> blocks((V + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK);
      for (int64_t r = b; r < e; r++) {
        const float* row = logits + r * V;
        const float max = rowMax(row, V);
        const double zRaw = expShifted(row, V, max, 1.f, ex.data(), blocks.data());
        const double lseRaw = (double)max + std::log(zRaw);
        if (p.temperature == 0) {
          int64_t best = 0;  // the first maximum (ties: lower id), as sample-row.ts
          while (best + 1 < V && !(row[best] == max)) best++;
          ids[r] = (int32_t)best;
          logprob[r] = 0;
          modelLogprob[r] = (double)row[best] - lseRaw;
          continue;
        }
        double z = zRaw;
        const double s = 1 / p.temperature;
        if (p.temperature != 1) z = expShifted(row, V, max, (float)s, ex.data(), blocks.data());
        const int64_t id = drawIndex(ex.data(), blocks.data(), V, uniforms[r] * z);
        ids[r] = (int32_t)id;
        logprob[r] = ((double)row[id] - max) * s - std::log(z);
        modelLogprob[r] = (double)row[id] - lseRaw;
      }
    });
    return;
  }
  parallelFor(R, (double)R * V * 40, [&](int64_t b, int64_t e) {
    std::vector<double> raw, scaled, ex;
    for (int64_t r = b; r < e; r++) {
      const float* row = logits + r * V;
      logSoftmaxRow(row, V, 1, raw);
      if (p.temperature == 0) {
        int64_t best = 0;
        for (int64_t i = 1; i < V; i++)
          if (row[i] > row[best]) best = i;
        ids[r] = (int32_t)best;
        logprob[r] = 0;
        modelLogprob[r] = raw[best];
        continue;
      }
      const std::vector<double>* lp = &raw;
      if (p.temperature != 1) {
        logSoftmaxRow(row, V, 1 / p.temperature, scaled);
        lp = &scaled;
      }
      const std::vector<int32_t> cand = support(*lp, p.topK, p.topP);
      // Each candidate's probability once (the same exp values sample-row.ts computes twice).
      ex.resize(cand.size());
      double z = 0;
      for (size_t c = 0; c < cand.size(); c++) z += (ex[c] = std::exp((*lp)[cand[c]]));
      double u = uniforms[r] * z;
      int32_t id = cand.back();
      for (size_t c = 0; c < cand.size(); c++) {
        u -= ex[c];
        if (u < 0) {
          id = cand[c];
          break;
        }
      }
      ids[r] = id;
      logprob[r] = (*lp)[id] - std::log(z);
      modelLogprob[r] = raw[id];
    }
  });
}

void adamw(float* p, const float* g, float* m, float* v, int64_t n, double lr, double b1, double b2, double eps, double wd, double bc1,
           double bc2) {
  elementwise(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) {
      const double gi = g[i];
      m[i] = (float)(b1 * m[i] + (1 - b1) * gi);
      v[i] = (float)(b2 * v[i] + (1 - b2) * gi * gi);
      const double mhat = m[i] / bc1, vhat = v[i] / bc2;
      p[i] = (float)(p[i] - lr * wd * p[i] - (lr * mhat) / (std::sqrt(vhat) + eps));
    }
  });
}

double sumSquares(const float* x, int64_t n) {
  const int64_t chunks = (n + GRAIN - 1) / GRAIN;
  std::vector<double> part(chunks, 0.0);
  parallelFor(chunks, (double)n * 2, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; c++) {
      double s = 0;
      for (int64_t i = c * GRAIN; i < std::min(n, (c + 1) * GRAIN); i++) s += (double)x[i] * x[i];
      part[c] = s;
    }
  });
  double s = 0;
  for (double v : part) s += v;
  return s;
}

void axpy(float* dst, const float* src, float alpha, int64_t n) {
  elementwise(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) dst[i] += alpha * src[i];
  });
}

void add(const float* a, const float* b, float* out, int64_t n) {
  elementwise(n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) out[i] = a[i] + b[i];
  });
}

void scale(float* x, float s, int64_t n) {
  elementwise(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) x[i] *= s;
  });
}
}  // namespace sg
