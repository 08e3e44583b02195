// infra/engine/cuda/host/check.cpp: the host checks — every kernel of ../kernels, built with g++ through the emulation
// layer (../emu/cuda_emu.h), against the fp64 reference (reference.cpp) on small shapes that are not tile multiples
// (LoRA rank 1 and 8–128, odd sequence lengths, GQA ratios 1–8, head dims 64 and 128). One line per comparison with
// its max difference and tolerance; exit 1 if any fails. Draws come from a seeded splitmix64 (seed on argv[1]).
// Usage: check [seed] [filter-substring]  (filters: cast lora rmsnorm rope swiglu attention head token_loss adamw
// decode sample fp32; attention_v1 / attention_v2: one attention kernel generation)
#include <cstdarg>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "reference.h"

namespace {
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  float range(float lo, float hi) { return (float)(lo + (hi - lo) * uniform()); }
  int below(int n) { return (int)(uniform() * n); }
};

int gFails = 0, gChecks = 0;
const char *gFilter = "";

std::vector<float> randv(Rng &r, long n, float lo = -1, float hi = 1) {
  std::vector<float> v(n);
  for (auto &x : v) x = r.range(lo, hi);
  return v;
}

// max |got − ref| / max(floor, max |ref|): a relative-to-scale error that stays meaningful near zeros.
void compare(const std::string &op, const std::string &shape, const float *got, const float *ref, long n, double tol,
             double floor = 1e-6) {
  double md = 0, mr = 0;
  bool nan = false;
  for (long i = 0; i < n; i++) {
    if (!std::isfinite(got[i])) nan = true;
    md = std::max(md, (double)std::fabs(got[i] - ref[i]));
    mr = std::max(mr, (double)std::fabs(ref[i]));
  }
  const double rel = md / std::max(floor, mr);
  const bool ok = !nan && rel <= tol;
  gChecks++;
  if (!ok) gFails++;
  std::printf("%s %-22s %-44s max|Δ|/max|ref| %.3e (tol %.0e)%s\n", ok ? "PASS" : "FAIL", op.c_str(), shape.c_str(), rel, tol,
              nan ? " non-finite output" : "");
}

bool want(const char *op) { return std::strstr(op, gFilter) != nullptr; }

std::string fmt(const char *f, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

void checkCast(Rng &r) {
  const long n = 1001;
  auto x = randv(r, n, -300, 300);
  std::vector<sg_bf16> y(n);
  sg_cast_f32_bf16(x.data(), y.data(), n, nullptr);
  std::vector<float> got(n), ref(n);
  for (long i = 0; i < n; i++) {
    got[i] = sg_bf16_to_f32(y[i]);
    ref[i] = sg_round_bf16(x[i]);
  }
  compare("cast_f32_bf16", "n=1001", got.data(), ref.data(), n, 0.0);
}

void checkLora(Rng &r) {
  const int shapes[][4] = {{1, 5, 3, 1}, {9, 17, 19, 1}, {7, 33, 17, 8}, {13, 64, 48, 16}, {5, 100, 37, 32},
                           {3, 70, 90, 64}, {4, 130, 40, 128}, {6, 31, 45, 24}};
  for (auto &s : shapes) {
    const int N = s[0], K = s[1], M = s[2], rk = s[3];
    const float scale = 2.0f / rk * 3.0f;
    auto x = randv(r, (long)N * K), A = randv(r, (long)rk * K, -0.5f, 0.5f), B = randv(r, (long)M * rk, -0.5f, 0.5f);
    auto y0 = randv(r, (long)N * M), dy = randv(r, (long)N * M), dx0 = randv(r, (long)N * K);
    const std::string sh = fmt("N=%d K=%d M=%d r=%d", N, K, M, rk);
    std::vector<float> y = y0, yr = y0, u((long)N * rk), ur((long)N * rk);
    sg_lora_fwd(x.data(), A.data(), B.data(), N, K, M, rk, scale, y.data(), u.data(), nullptr);
    ref_lora_fwd(x.data(), A.data(), B.data(), N, K, M, rk, scale, yr.data(), ur.data());
    compare("lora_fwd y", sh, y.data(), yr.data(), y.size(), 1e-5);
    compare("lora_fwd u", sh, u.data(), ur.data(), u.size(), 1e-5);
    std::vector<float> dx = dx0, dxr = dx0, du((long)N * rk), dA((long)rk * K), dB((long)M * rk), dAr(dA.size()), dBr(dB.size());
    sg_lora_bwd(x.data(), A.data(), B.data(), u.data(), dy.data(), N, K, M, rk, scale, dx.data(), du.data(), dA.data(), dB.data(),
                nullptr);
    ref_lora_bwd(x.data(), A.data(), B.data(), dy.data(), N, K, M, rk, scale, dxr.data(), dAr.data(), dBr.data());
    compare("lora_bwd dx", sh, dx.data(), dxr.data(), dx.size(), 1e-5);
    compare("lora_bwd dA", sh, dA.data(), dAr.data(), dA.size(), 1e-5);
    compare("lora_bwd dB", sh, dB.data(), dBr.data(), dB.size(), 1e-5);
  }
}

sg_bf16 toBf16Bits(float f) {  // f rounded to bf16 (round-to-nearest-even), as its 16 bits
  const float g = sg_round_bf16(f);
  uint32_t u;
  std::memcpy(&u, &g, 4);
  return (sg_bf16)(u >> 16);
}
float fromBf16Bits(sg_bf16 b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The bf16-activation RMSNorm (x saved and y written in bf16, fp32 sums) against the fp32 kernel: bit-exact on the same
// bf16-rounded x (y = bf16 of the fp32 kernel's y; rstd, dx, dw equal), and within the stated bf16 tolerance of the
// fp32 path on the unrounded x — 8e-3 of max |ref| for y (x and y each rounded once to 8 significant bits: ≤ 2^-8
// relative each), 2e-2 for dx and dw (the rounded x enters both terms of dx and the product of dw).
void checkRmsnormBf16(const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &dy, int N, int C, float eps,
                      const std::string &sh, const float *y32, const float *dx32, const float *dw32) {
  std::vector<sg_bf16> xb(x.size()), yb(x.size());
  std::vector<float> xr(x.size()), y(x.size()), yRounded(x.size()), rs(N), rsRounded(N), dx(x.size()), dw(C), dxR(x.size()), dwR(C),
      yR(x.size());
  for (size_t i = 0; i < x.size(); i++) xb[i] = toBf16Bits(x[i]), xr[i] = fromBf16Bits(xb[i]);
  sg_rmsnorm_fwd_bf16(xb.data(), w.data(), N, C, eps, yb.data(), rs.data(), nullptr);
  for (size_t i = 0; i < x.size(); i++) y[i] = fromBf16Bits(yb[i]);
  sg_rmsnorm_fwd(xr.data(), w.data(), N, C, eps, yR.data(), rsRounded.data(), nullptr);
  for (size_t i = 0; i < x.size(); i++) yRounded[i] = sg_round_bf16(yR[i]);
  compare("rmsnorm_fwd_bf16 =", sh, y.data(), yRounded.data(), y.size(), 0);
  compare("rmsnorm_fwd_bf16 rstd =", sh, rs.data(), rsRounded.data(), N, 0);
  compare("rmsnorm_fwd_bf16 ~fp32", sh, y.data(), y32, y.size(), 8e-3);
  sg_rmsnorm_bwd_bf16(xb.data(), w.data(), rs.data(), dy.data(), N, C, dx.data(), dw.data(), nullptr);
  sg_rmsnorm_bwd(xr.data(), w.data(), rsRounded.data(), dy.data(), N, C, dxR.data(), dwR.data(), nullptr);
  compare("rmsnorm_bwd_bf16 dx =", sh, dx.data(), dxR.data(), dx.size(), 0);
  compare("rmsnorm_bwd_bf16 dw =", sh, dw.data(), dwR.data(), C, 0);
  // Floor 1 for dx as in the fp32 check (C=1: dx is cancellation noise of O(1) terms).
  compare("rmsnorm_bwd_bf16 dx~fp32", sh, dx.data(), dx32, dx.size(), 2e-2, 1.0);
  compare("rmsnorm_bwd_bf16 dw~fp32", sh, dw.data(), dw32, C, 2e-2);
}

void checkRmsnorm(Rng &r) {
  const int shapes[][2] = {{1, 1}, {3, 7}, {5, 64}, {2, 1000}, {4, 257}};
  for (auto &s : shapes) {
    const int N = s[0], C = s[1];
    const float eps = 1e-6f;
    auto x = randv(r, (long)N * C, -2, 2), w = randv(r, C, 0.5f, 1.5f), dy = randv(r, (long)N * C);
    std::vector<float> y(x.size()), yr(x.size()), rs(N), dx(x.size()), dxr(x.size()), dw(C), dwr(C);
    const std::string sh = fmt("N=%d C=%d", N, C);
    sg_rmsnorm_fwd(x.data(), w.data(), N, C, eps, y.data(), rs.data(), nullptr);
    ref_rmsnorm_fwd(x.data(), w.data(), N, C, eps, yr.data());
    compare("rmsnorm_fwd", sh, y.data(), yr.data(), y.size(), 1e-5);
    sg_rmsnorm_bwd(x.data(), w.data(), rs.data(), dy.data(), N, C, dx.data(), dw.data(), nullptr);
    ref_rmsnorm_bwd(x.data(), w.data(), dy.data(), N, C, eps, dxr.data(), dwr.data());
    // Floor 1: at C=1 the exact dx is ~eps-small and both sides are fp32 cancellation noise of O(1) terms.
    compare("rmsnorm_bwd dx", sh, dx.data(), dxr.data(), dx.size(), 1e-5, 1.0);
    compare("rmsnorm_bwd dw", sh, dw.data(), dwr.data(), dw.size(), 1e-5);
    checkRmsnormBf16(x, w, dy, N, C, eps, sh, y.data(), dx.data(), dw.data());
  }
}

void checkRope(Rng &r) {
  const int shapes[][3] = {{3, 2, 64}, {5, 3, 128}, {1, 1, 2}, {7, 4, 16}};
  for (auto &s : shapes) {
    const int N = s[0], H = s[1], D = s[2];
    auto x = randv(r, (long)N * H * D);
    std::vector<int> pos(N);
    for (auto &p : pos) p = r.below(40000);
    for (int inv = 0; inv < 2; inv++) {
      std::vector<float> y(x.size()), yr(x.size());
      sg_rope(x.data(), pos.data(), N, H, D, 1e6f, inv, y.data(), nullptr);
      ref_rope(x.data(), pos.data(), N, H, D, 1e6f, inv, yr.data());
      compare(inv ? "rope_bwd" : "rope_fwd", fmt("N=%d H=%d D=%d pos<40000", N, H, D), y.data(), yr.data(), y.size(), 1e-5);
    }
  }
}

void checkSwiglu(Rng &r) {
  for (long n : {1L, 1001L}) {
    auto g = randv(r, n, -6, 6), u = randv(r, n, -2, 2), dy = randv(r, n);
    std::vector<float> o(n), orf(n), dg(n), du(n), dgr(n), dur(n);
    sg_swiglu_fwd(g.data(), u.data(), n, o.data(), nullptr);
    ref_swiglu_fwd(g.data(), u.data(), n, orf.data());
    compare("swiglu_fwd", fmt("n=%ld", n), o.data(), orf.data(), n, 1e-6);
    sg_swiglu_bwd(g.data(), u.data(), dy.data(), n, dg.data(), du.data(), nullptr);
    ref_swiglu_bwd(g.data(), u.data(), dy.data(), n, dgr.data(), dur.data());
    compare("swiglu_bwd dgate", fmt("n=%ld", n), dg.data(), dgr.data(), n, 1e-6);
    compare("swiglu_bwd dup", fmt("n=%ld", n), du.data(), dur.data(), n, 1e-6);
  }
}

struct AttnCase {
  int H, KV, D;
  std::vector<int> T, S, qStart;
};

void checkAttention(Rng &r) {
  std::vector<AttnCase> cases = {
      {1, 1, 64, {1, 17, 33}, {1, 17, 33}, {0, 0, 0}},   // ratio 1, packed odd lengths
      {2, 1, 128, {31}, {31}, {0}},                      // ratio 2, D=128
      {3, 1, 64, {16, 5}, {16, 5}, {0, 0}},              // ratio 3, a full tile then a short one
      {4, 1, 128, {7, 19}, {20, 19}, {13, 0}},           // ratio 4, queries after a cached prefix
      {5, 1, 64, {9}, {9}, {0}},                         // ratio 5
      {12, 2, 64, {23, 2}, {23, 2}, {0, 0}},             // ratio 6
      {7, 1, 128, {3, 40}, {3, 40}, {0, 0}},             // ratio 7
      {16, 2, 64, {18}, {18}, {0}},                      // ratio 8
      {8, 1, 128, {5}, {30}, {10}},                      // ratio 8, keys the queries never see (qStart + T < S)
      // 64-row tile edges (the v2 kernels' tiles): T and S not multiples of 64, S > T, queries after a prefix that is
      // not a tile multiple, key tiles no query sees, exact multiples, several sequences of different lengths.
      {2, 1, 64, {130}, {130}, {0}},                     // three query tiles, the last of 2 rows
      {4, 2, 128, {65, 63}, {100, 63}, {35, 0}},         // S > T, a prefix of 35 keys; 63 rows
      {8, 1, 64, {1, 64, 70}, {1, 64, 90}, {0, 0, 20}},  // ratio 8: 1 row, one exact tile, 70 rows after 20 keys
      {2, 2, 128, {128}, {128}, {0}},                    // exact tile multiples
      {6, 3, 64, {40}, {170}, {130}},                    // three key tiles before the first query row
      {4, 4, 64, {20}, {150}, {10}},                     // key tiles 1 and 2 are seen by no query (dk, dv = 0)
  };
  for (int version = 1; version <= 2; version++)
  for (auto &c : cases) {
    if (std::strncmp(gFilter, "attention_v", 11) == 0 && gFilter[11] - '0' != version) continue;
    const int B = (int)c.T.size();
    std::vector<int> cuQ(B + 1, 0), cuK(B + 1, 0);
    int maxT = 0, maxS = 0;
    for (int b = 0; b < B; b++) {
      cuQ[b + 1] = cuQ[b] + c.T[b];
      cuK[b + 1] = cuK[b] + c.S[b];
      maxT = std::max(maxT, c.T[b]);
      maxS = std::max(maxS, c.S[b]);
    }
    const int NQ = cuQ[B], NK = cuK[B], H = c.H, KV = c.KV, D = c.D;
    // Inputs already on the bf16 grid, so the reference sees what the tensor cores see.
    auto q = randv(r, (long)NQ * H * D, -2, 2), k = randv(r, (long)NK * KV * D, -2, 2), v = randv(r, (long)NK * KV * D),
         dout = randv(r, (long)NQ * H * D);
    for (auto *t : {&q, &k, &v, &dout})
      for (auto &x : *t) x = sg_round_bf16(x);
    std::string sh = fmt("v%d H=%d KV=%d D=%d T=", version, H, KV, D);
    for (int b = 0; b < B; b++) sh += fmt("%s%d/%d@%d", b ? "," : "", c.T[b], c.S[b], c.qStart[b]);
    std::vector<float> o(q.size()), orf(q.size()), lse((long)NQ * H);
    int st = sg_attention_fwd_v(version, q.data(), k.data(), v.data(), cuQ.data(), cuK.data(), c.qStart.data(), B, maxT, H, KV, D, o.data(),
                              lse.data(), nullptr);
    if (st) std::printf("FAIL attention_fwd returned %d\n", st), gFails++;
    ref_attention_fwd(q.data(), k.data(), v.data(), cuQ.data(), cuK.data(), c.qStart.data(), B, H, KV, D, orf.data());
    compare("attention_fwd o", sh, o.data(), orf.data(), o.size(), 1e-2);
    {  // lse against an fp64 log-sum-exp of the scaled scores (the backward rests on it)
      std::vector<float> lser((long)NQ * H);
      const int group = H / KV;
      for (int b = 0; b < B; b++)
        for (int i = 0; i < c.T[b]; i++)
          for (int h = 0; h < H; h++) {
            const float *qi = &q[((long)(cuQ[b] + i) * H + h) * D];
            const int last = std::min(c.S[b] - 1, c.qStart[b] + i);
            std::vector<double> sc(last + 1);
            double mx = -1e300, z = 0;
            for (int j = 0; j <= last; j++) {
              const float *kj = &k[((long)(cuK[b] + j) * KV + h / group) * D];
              double d = 0;
              for (int e = 0; e < D; e++) d += (double)qi[e] * kj[e];
              sc[j] = d / std::sqrt((double)D);
              mx = std::max(mx, sc[j]);
            }
            for (int j = 0; j <= last; j++) z += std::exp(sc[j] - mx);
            lser[(long)(cuQ[b] + i) * H + h] = (float)(mx + std::log(z));
          }
      compare("attention_fwd lse", sh, lse.data(), lser.data(), lse.size(), 1e-3);
    }
    std::vector<float> dq(q.size()), dk(k.size(), 7.0f), dv(v.size(), 7.0f), dvec((long)NQ * H), dqr(q.size()), dkr(k.size()),
        dvr(v.size());
    st = sg_attention_bwd_v(version, q.data(), k.data(), v.data(), o.data(), lse.data(), dout.data(), cuQ.data(), cuK.data(), c.qStart.data(),
                          B, NQ, maxS, H, KV, D, dq.data(), dk.data(), dv.data(), dvec.data(), nullptr);
    if (st) std::printf("FAIL attention_bwd returned %d\n", st), gFails++;
    ref_attention_bwd(q.data(), k.data(), v.data(), dout.data(), cuQ.data(), cuK.data(), c.qStart.data(), B, H, KV, D, dqr.data(),
                      dkr.data(), dvr.data());
    compare("attention_bwd dq", sh, dq.data(), dqr.data(), dq.size(), 2e-2);
    compare("attention_bwd dk", sh, dk.data(), dkr.data(), dk.size(), 2e-2);
    compare("attention_bwd dv", sh, dv.data(), dvr.data(), dv.size(), 2e-2);
  }
}

void checkHead(Rng &r) {
  const int shapes[][5] = {{37, 48, 203, 16, 64}, {5, 33, 97, 3, 50}, {1, 16, 10, 1, 10}};
  for (auto &s : shapes) {
    const int N = s[0], C = s[1], V = s[2], rc = s[3], vc = s[4];
    auto h = randv(r, (long)N * C, -2, 2);
    for (auto &x : h) x = sg_round_bf16(x);
    std::vector<sg_bf16> W((long)V * C);
    for (auto &w : W) w = sg_f32_to_bf16(r.range(-1, 1));
    std::vector<int> t(N);
    for (auto &x : t) x = r.below(V);
    auto dlogp = randv(r, N);
    std::vector<float> logp(N), lse(N), ref(N), chunk((long)rc * vc), runM(N), runL(N), tgt(N);
    std::vector<sg_bf16> hb((long)N * C), chunkb((long)rc * vc);
    const std::string sh = fmt("N=%d C=%d V=%d chunks %dx%d", N, C, V, rc, vc);
    int st = sg_head_logprobs(h.data(), W.data(), t.data(), N, C, V, rc, vc, logp.data(), lse.data(), hb.data(), chunk.data(),
                              runM.data(), runL.data(), tgt.data(), nullptr);
    if (st) std::printf("FAIL head_logprobs returned %d\n", st), gFails++;
    ref_head_logprobs(h.data(), W.data(), t.data(), N, C, V, ref.data());
    compare("head_logprobs", sh, logp.data(), ref.data(), N, 1e-5);
    std::vector<float> dh((long)N * C, 5.0f), dhr((long)N * C);
    st = sg_head_logprobs_bwd(h.data(), W.data(), t.data(), lse.data(), dlogp.data(), N, C, V, rc, vc, dh.data(), hb.data(),
                              chunk.data(), chunkb.data(), nullptr);
    if (st) std::printf("FAIL head_logprobs_bwd returned %d\n", st), gFails++;
    ref_head_logprobs_bwd(h.data(), W.data(), t.data(), dlogp.data(), N, C, V, dhr.data());
    compare("head_logprobs_bwd dh", sh, dh.data(), dhr.data(), dh.size(), 1e-2);
  }
}

void checkTokenLoss(Rng &r) {
  const int N = 257;
  auto logp = randv(r, N, -3, 0), adv = randv(r, N, -2, 2), w = randv(r, N, 0, 1), ref = randv(r, N, -3, 0);
  std::vector<float> old(N);
  for (int i = 0; i < N; i++) old[i] = logp[i] + r.range(-0.8f, 0.8f);  // ratios on both sides of the clip range
  const char *names[] = {"importance_sampling", "ppo", "cross_entropy"};
  for (int kind = 0; kind < 3; kind++)
    for (float beta : {0.0f, 0.1f}) {
      std::vector<float> l(N), d(N), lr(N), dr(N);
      sg_token_loss(logp.data(), old.data(), adv.data(), w.data(), beta > 0 ? ref.data() : nullptr, N, kind, 0.2f, 0.28f, beta,
                    l.data(), d.data(), nullptr);
      ref_token_loss(logp.data(), old.data(), adv.data(), w.data(), ref.data(), N, kind, 0.2f, 0.28f, beta, lr.data(), dr.data());
      const std::string sh = fmt("%s N=%d klBeta=%.1f", names[kind], N, beta);
      compare("token_loss loss", sh, l.data(), lr.data(), N, 1e-5);
      compare("token_loss dlogp", sh, d.data(), dr.data(), N, 1e-5);
    }
}

void checkAdamw(Rng &r) {
  const long n = 1001;
  auto p = randv(r, n), m = randv(r, n, -0.01f, 0.01f), v = randv(r, n, 0, 0.01f);
  auto pr = p, mr = m, vr = v;
  for (int step = 1; step <= 3; step++) {
    auto g = randv(r, n);
    sg_adamw(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, step, 0.5f, nullptr);
    ref_adamw(pr.data(), g.data(), mr.data(), vr.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, step, 0.5f);
  }
  compare("adamw p", "n=1001 3 steps", p.data(), pr.data(), n, 1e-6);
  compare("adamw m", "n=1001 3 steps", m.data(), mr.data(), n, 1e-6);
  compare("adamw v", "n=1001 3 steps", v.data(), vr.data(), n, 1e-6);
}

void checkDecode(Rng &r) {
  const int B = 3, Smax = 40, H = 8, KV = 2, D = 64;
  std::vector<int> lens = {0, 16, 39};  // rows already cached; the new row goes at lens[b]
  auto kc = randv(r, (long)B * Smax * KV * D), vc = randv(r, (long)B * Smax * KV * D);
  auto k = randv(r, (long)B * KV * D), v = randv(r, (long)B * KV * D), q = randv(r, (long)B * H * D);
  auto kcr = kc, vcr = vc;
  sg_kv_append(kc.data(), vc.data(), k.data(), v.data(), lens.data(), B, Smax, KV, D, nullptr);
  for (int b = 0; b < B; b++)
    for (int i = 0; i < KV * D; i++) {
      kcr[((long)b * Smax + lens[b]) * KV * D + i] = k[(long)b * KV * D + i];
      vcr[((long)b * Smax + lens[b]) * KV * D + i] = v[(long)b * KV * D + i];
    }
  compare("kv_append k", "B=3 Smax=40 KV=2 D=64", kc.data(), kcr.data(), kc.size(), 0.0);
  compare("kv_append v", "B=3 Smax=40 KV=2 D=64", vc.data(), vcr.data(), vc.size(), 0.0);
  std::vector<int> seen = {1, 17, 40};
  std::vector<float> scores((long)B * H * Smax), o(q.size()), orf(q.size());
  sg_decode_attention(q.data(), kc.data(), vc.data(), seen.data(), B, Smax, H, KV, D, scores.data(), o.data(), nullptr);
  ref_decode_attention(q.data(), kcr.data(), vcr.data(), seen.data(), B, Smax, H, KV, D, orf.data());
  compare("decode_attention", "B=3 H=8 KV=2 D=64 lens 1,17,40", o.data(), orf.data(), o.size(), 1e-5);
}

void checkSample(Rng &r) {
  struct SCase {
    float T;
    int k;
    float p;
    bool ties;
  };
  const SCase cases[] = {{1, 0, 1, false}, {0.7f, 50, 1, false}, {1, 0, 0.9f, false}, {1.3f, 20, 0.8f, false},
                         {0, 0, 1, false}, {1, 7, 1, true},      {0.9f, 0, 0.5f, true}, {1, 1, 1, false}};
  for (int V : {997, 1000}) {
    for (auto &c : cases) {
      const int B = 3;
      auto logits = randv(r, (long)B * V, -4, 4);
      if (c.ties)
        for (auto &x : logits) x = std::round(x * 2) / 2;  // many equal logits: the lower id must win
      auto u = randv(r, B, 0, 1);
      std::vector<int> ids(B);
      std::vector<float> lp(B), mlp(B), lpr(B), mlpr(B), idg(B), idr(B);
      sg_sample(logits.data(), B, V, c.T, c.k, c.p, u.data(), ids.data(), lp.data(), mlp.data(), nullptr);
      for (int b = 0; b < B; b++) {
        int id;
        ref_sample(logits.data() + (long)b * V, V, c.T, c.k, c.p, u[b], &id, &lpr[b], &mlpr[b]);
        idg[b] = (float)ids[b];
        idr[b] = (float)id;
      }
      const std::string sh = fmt("V=%d B=3 T=%.1f k=%d p=%.1f%s", V, c.T, c.k, c.p, c.ties ? " ties" : "");
      compare("sample ids", sh, idg.data(), idr.data(), B, 0.0);
      compare("sample logprob", sh, lp.data(), lpr.data(), B, 1e-5, 1.0);
      compare("sample modelLogprob", sh, mlp.data(), mlpr.data(), B, 1e-5, 1.0);
    }
  }
}
void checkFp32Ops(Rng &r) {
  for (int tA = 0; tA < 2; tA++)
    for (int tB = 0; tB < 2; tB++) {
      const int M = 19, N = 33, K = 17;
      auto A = randv(r, (long)M * K), B = randv(r, (long)K * N), C0 = randv(r, (long)M * N);
      std::vector<float> C = C0, Cr = C0;
      sg_gemm_f32(tA, tB, M, N, K, 0.7f, A.data(), B.data(), 0.5f, C.data(), nullptr);
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double a = 0;
          for (int k = 0; k < K; k++) a += (double)(tA ? A[(long)k * M + m] : A[(long)m * K + k]) * (tB ? B[(long)n * K + k] : B[(long)k * N + n]);
          Cr[(long)m * N + n] = (float)(0.7 * a + 0.5 * C0[(long)m * N + n]);
        }
      compare("gemm_f32", fmt("M=%d N=%d K=%d transA=%d transB=%d", M, N, K, tA, tB), C.data(), Cr.data(), C.size(), 1e-5);
    }
  {  // log-softmax family
    const int N = 5, V = 301;
    auto x = randv(r, (long)N * V, -6, 6), dl = randv(r, N);
    std::vector<int> t = {0, 300, 7, 150, 7};
    std::vector<float> ls((long)N * V), lsr((long)N * V), tl(N), tlr(N), g((long)N * V), gr((long)N * V);
    sg_row_softmax(x.data(), N, V, t.data(), dl.data(), 0, ls.data(), nullptr);
    sg_row_softmax(x.data(), N, V, t.data(), dl.data(), 1, tl.data(), nullptr);
    sg_row_softmax(x.data(), N, V, t.data(), dl.data(), 2, g.data(), nullptr);
    for (int n = 0; n < N; n++) {
      double mx = -1e300, z = 0;
      for (int j = 0; j < V; j++) mx = std::max(mx, (double)x[(long)n * V + j]);
      for (int j = 0; j < V; j++) z += std::exp(x[(long)n * V + j] - mx);
      const double lse = mx + std::log(z);
      for (int j = 0; j < V; j++) {
        lsr[(long)n * V + j] = (float)(x[(long)n * V + j] - lse);
        gr[(long)n * V + j] = (float)(dl[n] * ((j == t[n]) - std::exp(x[(long)n * V + j] - lse)));
      }
      tlr[n] = lsr[(long)n * V + t[n]];
    }
    compare("log_softmax", "N=5 V=301", ls.data(), lsr.data(), ls.size(), 1e-5, 1.0);
    compare("target_logprobs", "N=5 V=301", tl.data(), tlr.data(), N, 1e-5, 1.0);
    compare("target_logprobs_bwd", "N=5 V=301", g.data(), gr.data(), g.size(), 1e-5);
  }
  {  // embedding
    const int V = 11, C = 7, N = 6;
    auto tab = randv(r, (long)V * C), dy = randv(r, (long)N * C);
    std::vector<int> ids = {2, 0, 2, 10, 5, 2};
    std::vector<float> out((long)N * C), outr((long)N * C), dt((long)V * C, 0.0f), dtr((long)V * C, 0.0f);
    sg_embedding(tab.data(), ids.data(), N, C, out.data(), nullptr);
    sg_embedding_bwd(dy.data(), ids.data(), N, C, dt.data(), nullptr);
    for (int n = 0; n < N; n++)
      for (int c = 0; c < C; c++) {
        outr[(long)n * C + c] = tab[(long)ids[n] * C + c];
        dtr[(long)ids[n] * C + c] += dy[(long)n * C + c];
      }
    compare("embedding", "V=11 C=7 ids repeat", out.data(), outr.data(), out.size(), 0.0);
    compare("embedding_bwd", "V=11 C=7 ids repeat", dt.data(), dtr.data(), dt.size(), 1e-6);
  }
  const int acases[][6] = {{5, 5, 4, 2, 8, 0}, {2, 6, 4, 2, 8, 4}, {1, 6, 3, 1, 16, 5}, {7, 20, 8, 1, 64, 13}, {9, 9, 6, 2, 128, 0}};
  for (auto &a : acases) {
    const int T = a[0], S = a[1], H = a[2], KV = a[3], D = a[4], qs = a[5];
    auto q = randv(r, (long)T * H * D), k = randv(r, (long)S * KV * D), v = randv(r, (long)S * KV * D), dout = randv(r, (long)T * H * D);
    std::vector<int> cuQ = {0, T}, cuK = {0, S}, qStart = {qs};
    std::vector<float> o(q.size()), orf(q.size()), dq(q.size()), dk(k.size()), dv(v.size()), dqr(q.size()), dkr(k.size()), dvr(v.size());
    const std::string sh = fmt("T=%d S=%d H=%d KV=%d D=%d qStart=%d", T, S, H, KV, D, qs);
    sg_attention_simple(q.data(), k.data(), v.data(), T, S, H, KV, D, qs, o.data(), nullptr);
    ref_attention_fwd(q.data(), k.data(), v.data(), cuQ.data(), cuK.data(), qStart.data(), 1, H, KV, D, orf.data());
    compare("attention_simple_fwd", sh, o.data(), orf.data(), o.size(), 1e-5);
    sg_attention_simple_bwd(q.data(), k.data(), v.data(), dout.data(), T, S, H, KV, D, qs, dq.data(), dk.data(), dv.data(), nullptr);
    ref_attention_bwd(q.data(), k.data(), v.data(), dout.data(), cuQ.data(), cuK.data(), qStart.data(), 1, H, KV, D, dqr.data(), dkr.data(), dvr.data());
    compare("attention_simple_bwd dq", sh, dq.data(), dqr.data(), dq.size(), 1e-5);
    compare("attention_simple_bwd dk", sh, dk.data(), dkr.data(), dk.size(), 1e-5);
    compare("attention_simple_bwd dv", sh, dv.data(), dvr.data(), dv.size(), 1e-5);
  }
}
}  // namespace

int main(int argc, char **argv) {
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1234;
  if (argc > 2) gFilter = argv[2];
  Rng r(seed);
  std::printf("cuda host checks (emulated kernels vs fp64 reference), seed %llu\n", (unsigned long long)seed);
  if (want("cast")) checkCast(r);
  if (want("lora")) checkLora(r);
  if (want("rmsnorm")) checkRmsnorm(r);
  if (want("rope")) checkRope(r);
  if (want("swiglu")) checkSwiglu(r);
  if (want("attention") || !std::strcmp(gFilter, "attention_v1") || !std::strcmp(gFilter, "attention_v2")) checkAttention(r);
  if (want("head")) checkHead(r);
  if (want("token_loss")) checkTokenLoss(r);
  if (want("adamw")) checkAdamw(r);
  if (want("decode")) checkDecode(r);
  if (want("sample")) checkSample(r);
  if (want("fp32")) checkFp32Ops(r);
  std::printf("%d of %d comparisons passed\n", gChecks - gFails, gChecks);
  return gFails ? 1 : 0;
}
