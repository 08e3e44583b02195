// infra/engine/cuda/host/reference.cpp: the fp64 host reference of every CUDA op (see reference.h). Slow and plain
// on purpose: each function is the formula, no tiling, no fusion.
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

float sg_bf16_to_f32(sg_bf16 b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
sg_bf16 sg_f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (sg_bf16)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (sg_bf16)(u >> 16);
}
float sg_round_bf16(float x) { return sg_bf16_to_f32(sg_f32_to_bf16(x)); }

void sg_ref_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                      float *C) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double acc = 0.0;
      for (int k = 0; k < K; k++) {
        const double a = sg_bf16_to_f32(transA ? A[(long)k * M + m] : A[(long)m * K + k]);
        const double b = sg_bf16_to_f32(transB ? B[(long)n * K + k] : B[(long)k * N + n]);
        acc += a * b;
      }
      float &c = C[(long)m * N + n];
      c = (float)(alpha * acc + (beta == 0.0f ? 0.0 : (double)beta * c));
    }
}

void ref_lora_fwd(const float *x, const float *A, const float *B, int N, int K, int M, int r, float scale, float *y, float *u) {
  std::vector<double> uu(r);
  for (int n = 0; n < N; n++) {
    for (int j = 0; j < r; j++) {
      double a = 0;
      for (int k = 0; k < K; k++) a += (double)x[(long)n * K + k] * A[(long)j * K + k];
      uu[j] = a;
      u[(long)n * r + j] = (float)a;
    }
    for (int m = 0; m < M; m++) {
      double a = 0;
      for (int j = 0; j < r; j++) a += uu[j] * B[(long)m * r + j];
      y[(long)n * M + m] = (float)(y[(long)n * M + m] + scale * a);
    }
  }
}

void ref_lora_bwd(const float *x, const float *A, const float *B, const float *dy, int N, int K, int M, int r, float scale,
                  float *dx, float *dA, float *dB) {
  std::vector<double> u((long)N * r), du((long)N * r), gA((long)r * K, 0.0), gB((long)M * r, 0.0);
  for (int n = 0; n < N; n++)
    for (int j = 0; j < r; j++) {
      double a = 0, d = 0;
      for (int k = 0; k < K; k++) a += (double)x[(long)n * K + k] * A[(long)j * K + k];
      for (int m = 0; m < M; m++) d += (double)dy[(long)n * M + m] * B[(long)m * r + j];
      u[(long)n * r + j] = a;
      du[(long)n * r + j] = scale * d;
    }
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) {
      double a = 0;
      for (int j = 0; j < r; j++) a += du[(long)n * r + j] * A[(long)j * K + k];
      dx[(long)n * K + k] = (float)(dx[(long)n * K + k] + a);
    }
  for (int n = 0; n < N; n++) {
    for (int j = 0; j < r; j++)
      for (int k = 0; k < K; k++) gA[(long)j * K + k] += du[(long)n * r + j] * x[(long)n * K + k];
    for (int m = 0; m < M; m++)
      for (int j = 0; j < r; j++) gB[(long)m * r + j] += scale * (double)dy[(long)n * M + m] * u[(long)n * r + j];
  }
  for (long i = 0; i < (long)r * K; i++) dA[i] = (float)gA[i];
  for (long i = 0; i < (long)M * r; i++) dB[i] = (float)gB[i];
}

static double rstdOf(const float *x, int C, float eps) {
  double ss = 0;
  for (int c = 0; c < C; c++) ss += (double)x[c] * x[c];
  return 1.0 / std::sqrt(ss / C + eps);
}

void ref_rmsnorm_fwd(const float *x, const float *w, int N, int C, float eps, float *y) {
  for (int n = 0; n < N; n++) {
    const double rs = rstdOf(x + (long)n * C, C, eps);
    for (int c = 0; c < C; c++) y[(long)n * C + c] = (float)(x[(long)n * C + c] * rs * w[c]);
  }
}

void ref_rmsnorm_bwd(const float *x, const float *w, const float *dy, int N, int C, float eps, float *dx, float *dw) {
  std::vector<double> gw(C, 0.0);
  for (int n = 0; n < N; n++) {
    const float *xr = x + (long)n * C, *dr = dy + (long)n * C;
    const double rs = rstdOf(xr, C, eps);
    double dot = 0;
    for (int c = 0; c < C; c++) dot += (double)w[c] * dr[c] * xr[c];
    for (int c = 0; c < C; c++) {
      dx[(long)n * C + c] = (float)(rs * w[c] * dr[c] - xr[c] * rs * rs * rs * dot / C);
      gw[c] += (double)dr[c] * xr[c] * rs;
    }
  }
  for (int c = 0; c < C; c++) dw[c] = (float)gw[c];
}

void ref_rope(const float *x, const int *pos, int N, int H, int D, float theta, int inverse, float *y) {
  const int half = D / 2;
  for (int n = 0; n < N; n++)
    for (int h = 0; h < H; h++)
      for (int i = 0; i < half; i++) {
        const double ang = pos[n] * std::pow((double)theta, -2.0 * i / D) * (inverse ? -1.0 : 1.0);
        const long o = ((long)n * H + h) * D;
        const double a = x[o + i], b = x[o + i + half];
        y[o + i] = (float)(a * std::cos(ang) - b * std::sin(ang));
        y[o + i + half] = (float)(b * std::cos(ang) + a * std::sin(ang));
      }
}

void ref_swiglu_fwd(const float *g, const float *u, long n, float *out) {
  for (long i = 0; i < n; i++) {
    const double s = 1.0 / (1.0 + std::exp(-(double)g[i]));
    out[i] = (float)(g[i] * s * u[i]);
  }
}
void ref_swiglu_bwd(const float *g, const float *u, const float *dy, long n, float *dg, float *du) {
  for (long i = 0; i < n; i++) {
    const double x = g[i], s = 1.0 / (1.0 + std::exp(-x));
    dg[i] = (float)(dy[i] * u[i] * s * (1.0 + x * (1.0 - s)));
    du[i] = (float)(dy[i] * x * s);
  }
}

// One (sequence, head): probabilities P [T][S] in double.
static void attnProbs(const float *q, const float *k, int q0, int T, int k0, int S, int qs, int H, int KV, int D, int h,
                      std::vector<double> &P) {
  const int g = h / (H / KV);
  const double scale = 1.0 / std::sqrt((double)D);
  P.assign((long)T * S, 0.0);
  for (int i = 0; i < T; i++) {
    const int last = std::min(S - 1, qs + i);
    double mx = -1e300;
    for (int j = 0; j <= last; j++) {
      double s = 0;
      for (int d = 0; d < D; d++) s += (double)q[((long)(q0 + i) * H + h) * D + d] * k[((long)(k0 + j) * KV + g) * D + d];
      P[(long)i * S + j] = s * scale;
      mx = std::max(mx, s * scale);
    }
    double z = 0;
    for (int j = 0; j <= last; j++) z += (P[(long)i * S + j] = std::exp(P[(long)i * S + j] - mx));
    for (int j = 0; j <= last; j++) P[(long)i * S + j] /= z;
  }
}

void ref_attention_fwd(const float *q, const float *k, const float *v, const int *cuQ, const int *cuK, const int *qStart, int B,
                       int H, int KV, int D, float *o) {
  std::vector<double> P;
  for (int b = 0; b < B; b++) {
    const int q0 = cuQ[b], T = cuQ[b + 1] - q0, k0 = cuK[b], S = cuK[b + 1] - k0;
    for (int h = 0; h < H; h++) {
      const int g = h / (H / KV);
      attnProbs(q, k, q0, T, k0, S, qStart[b], H, KV, D, h, P);
      for (int i = 0; i < T; i++)
        for (int d = 0; d < D; d++) {
          double a = 0;
          for (int j = 0; j < S; j++) a += P[(long)i * S + j] * v[((long)(k0 + j) * KV + g) * D + d];
          o[((long)(q0 + i) * H + h) * D + d] = (float)a;
        }
    }
  }
}

void ref_attention_bwd(const float *q, const float *k, const float *v, const float *dout, const int *cuQ, const int *cuK,
                       const int *qStart, int B, int H, int KV, int D, float *dq, float *dk, float *dv) {
  const double scale = 1.0 / std::sqrt((double)D);
  std::vector<double> P, dP;
  const long nq = (long)cuQ[B] * H * D, nk = (long)cuK[B] * KV * D;
  std::vector<double> gq(nq, 0.0), gk(nk, 0.0), gv(nk, 0.0);
  for (int b = 0; b < B; b++) {
    const int q0 = cuQ[b], T = cuQ[b + 1] - q0, k0 = cuK[b], S = cuK[b + 1] - k0;
    for (int h = 0; h < H; h++) {
      const int g = h / (H / KV);
      attnProbs(q, k, q0, T, k0, S, qStart[b], H, KV, D, h, P);
      dP.assign((long)T * S, 0.0);
      for (int i = 0; i < T; i++) {
        const float *dor = dout + ((long)(q0 + i) * H + h) * D;
        double rowdot = 0;
        for (int j = 0; j < S; j++) {
          double s = 0;
          for (int d = 0; d < D; d++) s += (double)dor[d] * v[((long)(k0 + j) * KV + g) * D + d];
          dP[(long)i * S + j] = s;
          rowdot += s * P[(long)i * S + j];
          for (int d = 0; d < D; d++) gv[((long)(k0 + j) * KV + g) * D + d] += P[(long)i * S + j] * dor[d];
        }
        for (int j = 0; j < S; j++) {
          const double ds = P[(long)i * S + j] * (dP[(long)i * S + j] - rowdot) * scale;
          if (ds == 0.0) continue;
          for (int d = 0; d < D; d++) {
            gq[((long)(q0 + i) * H + h) * D + d] += ds * k[((long)(k0 + j) * KV + g) * D + d];
            gk[((long)(k0 + j) * KV + g) * D + d] += ds * q[((long)(q0 + i) * H + h) * D + d];
          }
        }
      }
    }
  }
  for (long i = 0; i < nq; i++) dq[i] = (float)gq[i];
  for (long i = 0; i < nk; i++) {
    dk[i] = (float)gk[i];
    dv[i] = (float)gv[i];
  }
}

static void headRow(const float *h, const sg_bf16 *W, int C, int V, std::vector<double> &logit, double &lse) {
  logit.assign(V, 0.0);
  double mx = -1e300;
  for (int v = 0; v < V; v++) {
    double a = 0;
    for (int c = 0; c < C; c++) a += (double)h[c] * sg_bf16_to_f32(W[(long)v * C + c]);
    logit[v] = a;
    mx = std::max(mx, a);
  }
  double z = 0;
  for (int v = 0; v < V; v++) z += std::exp(logit[v] - mx);
  lse = mx + std::log(z);
}

void ref_head_logprobs(const float *h, const sg_bf16 *W, const int *targets, int N, int C, int V, float *logp) {
  std::vector<double> logit;
  double lse;
  for (int n = 0; n < N; n++) {
    headRow(h + (long)n * C, W, C, V, logit, lse);
    logp[n] = (float)(logit[targets[n]] - lse);
  }
}

void ref_head_logprobs_bwd(const float *h, const sg_bf16 *W, const int *targets, const float *dlogp, int N, int C, int V,
                           float *dh) {
  std::vector<double> logit;
  double lse;
  for (int n = 0; n < N; n++) {
    headRow(h + (long)n * C, W, C, V, logit, lse);
    for (int c = 0; c < C; c++) {
      double a = sg_bf16_to_f32(W[(long)targets[n] * C + c]);
      for (int v = 0; v < V; v++) a -= std::exp(logit[v] - lse) * sg_bf16_to_f32(W[(long)v * C + c]);
      dh[(long)n * C + c] = (float)(dlogp[n] * a);
    }
  }
}

void ref_token_loss(const float *logp, const float *oldLogp, const float *adv, const float *weight, const float *refLogp, int N,
                    int kind, float epsLow, float epsHigh, float klBeta, float *loss, float *dlogp) {
  for (int n = 0; n < N; n++) {
    double l, d;
    if (kind == SG_LOSS_CE) {
      l = -logp[n];
      d = -1;
    } else {
      const double ratio = std::exp((double)logp[n] - oldLogp[n]), a = adv[n];
      if (kind == SG_LOSS_IS) {
        l = -ratio * a;
        d = -ratio * a;
      } else {
        const double un = ratio * a, cl = std::min(std::max(ratio, 1.0 - epsLow), 1.0 + epsHigh) * a, obj = std::min(un, cl);
        l = -obj;
        d = obj < un ? 0.0 : -un;
      }
      if (klBeta > 0) {
        const double diff = (double)refLogp[n] - logp[n];
        l += klBeta * (std::exp(diff) - diff - 1);
        d += klBeta * (1 - std::exp(diff));
      }
    }
    loss[n] = (float)(l * weight[n]);
    dlogp[n] = (float)(d * weight[n]);
  }
}

void ref_adamw(float *p, const float *g, float *m, float *v, long n, float lr, float b1, float b2, float eps, float wd, int step,
               float gradScale) {
  const double bc1 = 1 - std::pow((double)b1, step), bc2 = 1 - std::pow((double)b2, step);
  for (long i = 0; i < n; i++) {
    const double gi = (double)g[i] * gradScale;
    const double mi = b1 * (double)m[i] + (1 - (double)b1) * gi, vi = b2 * (double)v[i] + (1 - (double)b2) * gi * gi;
    m[i] = (float)mi;
    v[i] = (float)vi;
    p[i] = (float)(p[i] - (double)lr * wd * p[i] - lr * (mi / bc1) / (std::sqrt(vi / bc2) + eps));
  }
}

void ref_decode_attention(const float *q, const float *kc, const float *vc, const int *lens, int B, int Smax, int H, int KV, int D,
                          float *o) {
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++) {
      const int g = h / (H / KV), S = lens[b];
      std::vector<double> p(S);
      double mx = -1e300;
      for (int j = 0; j < S; j++) {
        double s = 0;
        for (int d = 0; d < D; d++) s += (double)q[((long)b * H + h) * D + d] * kc[(((long)b * Smax + j) * KV + g) * D + d];
        p[j] = s / std::sqrt((double)D);
        mx = std::max(mx, p[j]);
      }
      double z = 0;
      for (int j = 0; j < S; j++) z += (p[j] = std::exp(p[j] - mx));
      for (int d = 0; d < D; d++) {
        double a = 0;
        for (int j = 0; j < S; j++) a += p[j] * vc[(((long)b * Smax + j) * KV + g) * D + d];
        o[((long)b * H + h) * D + d] = (float)(S ? a / z : 0.0);
      }
    }
}

void ref_sample(const float *row, int V, float temperature, int topK, float topP, float u, int *id, float *logprob,
                float *modelLogprob) {
  double mx = -1e300;
  for (int i = 0; i < V; i++) mx = std::max(mx, (double)row[i]);
  double z = 0;
  for (int i = 0; i < V; i++) z += std::exp(row[i] - mx);
  const double rawLse = mx + std::log(z);
  if (temperature <= 0) {
    int best = 0;
    for (int i = 1; i < V; i++)
      if (row[i] > row[best]) best = i;
    *id = best;
    *logprob = 0;
    *modelLogprob = (float)(row[best] - rawLse);
    return;
  }
  // Scaled logits as the device forms them (fp32 product), then samplingSupport's order: by value, lower id first.
  std::vector<double> x(V);
  for (int i = 0; i < V; i++) x[i] = (double)(row[i] * (1.0f / temperature));
  std::vector<int> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[a] > x[b]; });
  int keep = V;
  if (topK > 0 && topK < V) keep = topK;
  const double smx = x[order[0]];
  double total = 0;
  for (int i = 0; i < keep; i++) total += std::exp(x[order[i]] - smx);
  if (topP < 1) {
    double cum = 0;
    int k = 0;
    while (k < keep) {
      cum += std::exp(x[order[k]] - smx) / total;
      k++;
      if (cum >= topP) break;
    }
    keep = k;
  }
  std::vector<char> in(V, 0);
  for (int i = 0; i < keep; i++) in[order[i]] = 1;
  double zs = 0;
  for (int i = 0; i < V; i++)
    if (in[i]) zs += std::exp(x[i] - smx);
  double t = (double)u * zs;
  int pick = -1, last = -1;
  for (int i = 0; i < V; i++) {
    if (!in[i]) continue;
    last = i;
    t -= std::exp(x[i] - smx);
    if (t < 0) {
      pick = i;
      break;
    }
  }
  if (pick < 0) pick = last;
  *id = pick;
  *logprob = (float)(x[pick] - smx - std::log(zs));
  *modelLogprob = (float)(row[pick] - rawLse);
}
