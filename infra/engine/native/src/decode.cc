// infra/engine/native/src/decode: forwardCached — the decoder stack over a packed batch of sequences that continue
// their own KV caches, in ONE addon call (prefill of prompts / appended observations, and each batched decode step).
// It runs the same kernels in the same order as the op-by-op path (infra/engine/forward-cached.ts, model.forward with
// caches): same gemm shapes, same attendRow per (row, head), same norms — so its results equal that path's bit for
// bit on this machine, without a JavaScript round trip per op. Scratch buffers are per call. A decode step (one token
// per sequence) of ≤ 8 rows on a packed stack runs on one thread or split by output columns over the threads (ColsStep),
// chosen per step from measured step times (runColsStep; SEARCHGYM_DECODE_THREADS overrides); otherwise in chunks of
// rows, one thread per group of chunks, in passes of ≤ 8 rows: equal to the op-by-op path for up to 8 rows; over more
// rows the few-row gemm per pass rounds differently from one gemm over all rows (within the contracts' tolerances).
// decodeSample adds the head and the draw.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ops.h"
#include "pool.h"

namespace sg {
namespace {
/** y [N,M] = x [N,K] wᵀ (+ bias) (+ scale · (x Aᵀ) Bᵀ) — NativeBackend.linear's exact gemm calls. */
void linear(const float* x, int64_t N, const StackLinear& l, float* y, std::vector<float>& xa) {
  const int64_t M = l.M, K = l.K;
  float beta = 0;
  if (l.bias) {
    for (int64_t n = 0; n < N; n++) std::memcpy(y + n * M, l.bias, sizeof(float) * M);
    beta = 1;
  }
  if (!l.packed.empty() && N <= 8) gemvPacked(N, M, K, x, K, l.packed.data(), beta, y, M);
  else gemm(N, M, K, 1.f, Mat{x, DType::F32, K, 1}, Mat{l.w, l.dt, 1, K}, beta, y, M);
  if (l.loraA) {
    const int64_t r = l.r;
    xa.resize((size_t)(N * r));
    gemm(N, r, K, l.loraScale, Mat{x, DType::F32, K, 1}, Mat{l.loraA, DType::F32, 1, K}, 0.f, xa.data(), r);
    gemm(N, M, r, 1.f, Mat{xa.data(), DType::F32, r, 1}, Mat{l.loraB, DType::F32, 1, r}, 1.f, y, M);
  }
}

/** A grow-only raw buffer (no value-initialisation: the caller writes before it reads). */
template <class T>
struct RawBuf {
  std::unique_ptr<T[]> p;
  int64_t cap = 0;
  T* get() const { return p.get(); }
  void need(int64_t n) {
    if (n <= cap) return;
    p.reset(new T[(size_t)n]);
    cap = n;
  }
};

/** forwardStack's working buffers for N rows (x, h, q, qt, k, kt, v, att, o, gate, up), the positions and the rope table. */
struct StackScratch {
  RawBuf<float> f[11];
  RawBuf<int32_t> pos;
  RawBuf<double> ropeCos, ropeSin;
  struct View {
    float* p;
    float* data() const { return p; }
  };
  void reserve(int64_t N, int64_t C, int64_t HD, int64_t W, int64_t F, int64_t D) {
    const int64_t sizes[11] = {N * C, N * C, N * HD, N * HD, N * W, N * W, N * W, N * HD, N * C, N * F, N * F};
    for (int i = 0; i < 11; i++) f[i].need(std::max<int64_t>(1, sizes[i]));
    pos.need(std::max<int64_t>(1, N));
    ropeCos.need(std::max<int64_t>(1, N * (D / 2)));
    ropeSin.need(std::max<int64_t>(1, N * (D / 2)));
  }
  /** Kept between calls only up to maxBytes (a rare huge prefill does not hold its buffers for the process's life). */
  void trim(double maxBytes) {
    double bytes = 4.0 * pos.cap + 8.0 * (ropeCos.cap + ropeSin.cap);
    for (const RawBuf<float>& b : f) bytes += 4.0 * b.cap;
    if (bytes <= maxBytes) return;
    for (RawBuf<float>& b : f) b = RawBuf<float>();
    pos = RawBuf<int32_t>();
    ropeCos = RawBuf<double>();
    ropeSin = RawBuf<double>();
  }
  View view(int i) const { return View{f[i].get()}; }
};

/** The stack over B sequences in one pass (every op over all rows; the ops split their own loops over threads). */
void forwardStack(const Stack& s, const int32_t* ids, const int32_t* cu, int64_t B, const int32_t* starts, float* const* kc,
                  float* const* vc, float* out) {
  const int64_t N = cu[B], C = s.C, H = s.H, KV = s.KV, D = s.D, L = (int64_t)s.layers.size(), W = KV * D;
  int64_t F = 0;
  for (const StackLayer& lw : s.layers) F = std::max(F, lw.gate.M);
  // Every buffer is written before it is read, so they come uninitialised from this thread's scratch (kept between
  // calls): a prefill of ~20k rows otherwise zero-fills and page-faults ~60 MB of fresh vectors per call.
  thread_local StackScratch scratch;
  scratch.reserve(N, C, H * D, W, F, D);
  int32_t* pos = scratch.pos.get();
  for (int64_t b = 0; b < B; b++)
    for (int64_t i = cu[b]; i < cu[b + 1]; i++) pos[i] = (int32_t)(starts[b] + i - cu[b]);
  auto x = scratch.view(0), h = scratch.view(1), q = scratch.view(2), qt = scratch.view(3), k = scratch.view(4), kt = scratch.view(5),
       v = scratch.view(6), att = scratch.view(7), o = scratch.view(8), gate = scratch.view(9), up = scratch.view(10);
  std::vector<float> xa;
  std::vector<const float*> kl(B), vl(B);
  double* ropeCos = scratch.ropeCos.get();  // the same angles for q and k in every layer
  double* ropeSin = scratch.ropeSin.get();
  ropeTable(pos, N, D, s.theta, 1, ropeCos, ropeSin);
  embedding(s.embed, s.embedDt, s.V, C, ids, N, x.data());
  for (int64_t l = 0; l < L; l++) {
    const StackLayer& lw = s.layers[l];
    rmsnorm(x.data(), lw.inputNorm, N, C, s.eps, h.data());
    linear(h.data(), N, lw.q, q.data(), xa);
    linear(h.data(), N, lw.k, k.data(), xa);
    linear(h.data(), N, lw.v, v.data(), xa);
    const float* qn = q.data();
    const float* kn = k.data();
    if (lw.qNorm) {
      rmsnorm(q.data(), lw.qNorm, N * H, D, s.eps, qt.data());
      qn = qt.data();
    }
    if (lw.kNorm) {
      rmsnorm(k.data(), lw.kNorm, N * KV, D, s.eps, kt.data());
      kn = kt.data();
    }
    // rope into the buffers not holding the input (q/qt, k/kt alternate).
    float* qr = qn == q.data() ? qt.data() : q.data();
    float* kr = kn == k.data() ? kt.data() : k.data();
    ropeApply(qn, ropeCos, ropeSin, N, H, D, qr);
    ropeApply(kn, ropeCos, ropeSin, N, KV, D, kr);
    for (int64_t b = 0; b < B; b++) {
      const int64_t T = cu[b + 1] - cu[b];
      float* kcache = kc[b * L + l];
      float* vcache = vc[b * L + l];
      std::memcpy(kcache + starts[b] * W, kr + cu[b] * W, sizeof(float) * T * W);
      std::memcpy(vcache + starts[b] * W, v.data() + cu[b] * W, sizeof(float) * T * W);
      kl[b] = kcache;
      vl[b] = vcache;
    }
    attentionSegments(qr, kl.data(), vl.data(), cu, starts, B, H, KV, D, att.data());
    linear(att.data(), N, lw.o, o.data(), xa);
    add(x.data(), o.data(), x.data(), N * C);
    rmsnorm(x.data(), lw.postNorm, N, C, s.eps, h.data());
    const int64_t Fl = lw.gate.M;
    linear(h.data(), N, lw.gate, gate.data(), xa);
    linear(h.data(), N, lw.up, up.data(), xa);
    swiglu(gate.data(), up.data(), N * Fl, gate.data());
    linear(gate.data(), N, lw.down, o.data(), xa);
    add(x.data(), o.data(), x.data(), N * C);
  }
  for (int64_t b = 0; b < B; b++) rmsnorm(x.data() + (cu[b + 1] - 1) * C, s.norm, 1, C, s.eps, out + b * C);
  scratch.trim(256.0 * (1 << 20));
}
}  // namespace

/** Rows per decode chunk: the few-row gemm groups rows by 4 from its first row, so a row's arithmetic is the same in
 *  any run of whole chunks — chunks can go to different threads without changing a bit. */
constexpr int64_t DECODE_CHUNK = 4;
/** Below this many flops a row-split decode step (B > 8 rows, or unpacked weights) stays on one thread. */
constexpr double DECODE_PARALLEL_FLOPS = 5e5;
/** Decode steps run on the calling thread alone after one whose other shares lagged (see forEachDecodeRun). */
constexpr int DECODE_SOLO_STEPS = 64;
/** Panel width of packPanels (gemm.cc): a column split at panel boundaries leaves every output's FMA chain as it is. */
constexpr int64_t PANEL = 16;

namespace {
int envDecodeThreads() {
  const char* e = std::getenv("SEARCHGYM_DECODE_THREADS");
  return e ? std::max(0, std::atoi(e)) : 0;
}
/** The decode-thread override: 0 = chosen per call (decodeThreadsFor), n ≥ 1 = min(n, pool threads). */
std::atomic<int> decodeThreadsOverride{envDecodeThreads()};
/** Only for measurement (bench/perf/decode-threads.ts): 1 = always the row split (the path before the column split). */
std::atomic<int> decodeForceRows{0};

/** Flops of one decode row through the stack's linears (2 per weight) plus extra (head and draw). */
double stackRowFlops(const Stack& s, double extra) {
  double params = (double)s.V * s.C;
  for (const StackLayer& lw : s.layers)
    for (const StackLinear* li : {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down}) params += (double)li->M * li->K;
  return 2.0 * params + extra;
}

/** Spin, then sleep: the threads of a column-split decode step meet here between phases (27 times a step on the
 *  small preset). Waiting threads spin up to DECODE_SPIN_US (a partner on another core arrives within microseconds),
 *  then sleep on a condition variable (a partner that lost its core may take milliseconds; spinning would burn the CPU
 *  it needs). */
constexpr double DECODE_SPIN_US = 30;
struct Barrier {
  explicit Barrier(int n) : T(n) {}
  const int T;
  std::atomic<int> arrived{0}, sleepers{0};
  std::atomic<uint32_t> gen{0};
  std::mutex mu;
  std::condition_variable cv;
  void wait() {
    if (T == 1) return;
    const uint32_t g = gen.load();
    if (arrived.fetch_add(1) == T - 1) {
      arrived.store(0);
      gen.fetch_add(1);
      if (sleepers.load() > 0) {
        std::lock_guard<std::mutex> l(mu);
        cv.notify_all();
      }
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 1;; i++) {
      if (gen.load(std::memory_order_acquire) != g) return;
      pause();
      if (i % 32 == 0 && std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() > DECODE_SPIN_US) break;
    }
    std::unique_lock<std::mutex> l(mu);
    sleepers.fetch_add(1);
    cv.wait(l, [&] { return gen.load() != g; });
    sleepers.fetch_sub(1);
  }
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
};

/** Output panels [p0, p1) of a packed linear: y[:, cols] = x · w[cols]ᵀ (+ bias[cols]) — the same FMA chain per output
 *  as gemvPacked over all panels. */
void linearPanels(const float* x, int64_t N, const StackLinear& l, float* y, int64_t p0, int64_t p1) {
  const int64_t M = l.M, K = l.K, c0 = p0 * PANEL, c1 = std::min(M, p1 * PANEL);
  if (c0 >= c1) return;
  float beta = 0;
  if (l.bias) {
    for (int64_t n = 0; n < N; n++) std::memcpy(y + n * M + c0, l.bias + c0, sizeof(float) * (c1 - c0));
    beta = 1;
  }
  gemvPacked(N, c1 - c0, K, x, K, l.packed.data() + p0 * PANEL * K, beta, y + c0, M);
}
int64_t panelsOf(int64_t M) { return (M + PANEL - 1) / PANEL; }
/** Share t of T of [0, n): a static split. */
inline int64_t shareBegin(int64_t n, int t, int T) { return n * t / T; }

/** A decode step over B ≤ 8 rows split by OUTPUT COLUMNS: every thread runs every phase, on its share of the output
 *  panels of each linear (all B rows: each packed weight read once per step, by one thread) or of the rows (norms,
 *  rope, cache append, attention, the draw), with a barrier between phases — one hand-off per step, six meetings per
 *  layer. Every output is computed by the same kernel call on the same inputs as on one thread (one FMA chain per
 *  output, per-row norms / attention / draw), so the bits do not depend on T. head: null for forwardCached (out gets
 *  the final-normed hidden rows) or the bound packed head (out gets nothing; the draw writes outIds…). */
struct ColsStep {
  const Stack& s;
  int64_t B;
  const int32_t* ids;
  const int32_t* starts;
  float* const* kc;
  float* const* vc;
  float* hiddenOut;  // [B, C] when not sampling
  // sampling (head != nullptr)
  const float* headPacked = nullptr;
  int64_t V = 0;
  SampleParams p{};
  const double* uniforms = nullptr;
  int32_t* outIds = nullptr;
  double* logprob = nullptr;
  double* modelLogprob = nullptr;

  void run(int T) {
    const int64_t C = s.C, H = s.H, KV = s.KV, D = s.D, L = (int64_t)s.layers.size(), W = KV * D;
    int64_t F = 0;
    for (const StackLayer& lw : s.layers) F = std::max(F, lw.gate.M);
    std::vector<float> x(B * C), h(B * C), q(B * H * D), qt(B * H * D), k(B * W), kt(B * W), v(B * W), att(B * H * D), o(B * C);
    std::vector<float> gate(B * F), up(B * F), hidden(B * C), logits(headPacked ? B * V : 0);
    std::vector<int32_t> pos(B), cuLocal(B + 1);
    for (int64_t b = 0; b < B; b++) pos[b] = starts[b];
    for (int64_t i = 0; i <= B; i++) cuLocal[i] = (int32_t)i;
    std::vector<double> ropeCos(B * (D / 2)), ropeSin(B * (D / 2));
    ropeTable(pos.data(), B, D, s.theta, 1, ropeCos.data(), ropeSin.data());
    Barrier bar(T);
    auto share = [&](int t, int T_) {
      if (t >= T) return;
      (void)T_;
      const int64_t r0 = shareBegin(B, t, T), r1 = shareBegin(B, t + 1, T), nr = r1 - r0;
      // Phase helpers: a row share [r0, r1) and panel shares.
      if (nr > 0) embedding(s.embed, s.embedDt, s.V, C, ids + r0, nr, x.data() + r0 * C);
      for (int64_t l = 0; l < L; l++) {
        const StackLayer& lw = s.layers[l];
        if (nr > 0) rmsnorm(x.data() + r0 * C, lw.inputNorm, nr, C, s.eps, h.data() + r0 * C);
        bar.wait();
        {  // q, k, v: one split over their panels together
          const int64_t pq = panelsOf(lw.q.M), pk = panelsOf(lw.k.M), pv = panelsOf(lw.v.M), G = pq + pk + pv;
          const int64_t g0 = shareBegin(G, t, T), g1 = shareBegin(G, t + 1, T);
          linearPanels(h.data(), B, lw.q, q.data(), std::clamp<int64_t>(g0, 0, pq), std::clamp<int64_t>(g1, 0, pq));
          linearPanels(h.data(), B, lw.k, k.data(), std::clamp<int64_t>(g0 - pq, 0, pk), std::clamp<int64_t>(g1 - pq, 0, pk));
          linearPanels(h.data(), B, lw.v, v.data(), std::clamp<int64_t>(g0 - pq - pk, 0, pv), std::clamp<int64_t>(g1 - pq - pk, 0, pv));
        }
        bar.wait();
        if (nr > 0) {  // my rows: QK-norm, rope, cache append, attention
          const float* qn = q.data();
          const float* kn = k.data();
          if (lw.qNorm) {
            rmsnorm(q.data() + r0 * H * D, lw.qNorm, nr * H, D, s.eps, qt.data() + r0 * H * D);
            qn = qt.data();
          }
          if (lw.kNorm) {
            rmsnorm(k.data() + r0 * W, lw.kNorm, nr * KV, D, s.eps, kt.data() + r0 * W);
            kn = kt.data();
          }
          float* qr = qn == q.data() ? qt.data() : q.data();
          float* kr = kn == k.data() ? kt.data() : k.data();
          ropeApply(qn + r0 * H * D, ropeCos.data() + r0 * (D / 2), ropeSin.data() + r0 * (D / 2), nr, H, D, qr + r0 * H * D);
          ropeApply(kn + r0 * W, ropeCos.data() + r0 * (D / 2), ropeSin.data() + r0 * (D / 2), nr, KV, D, kr + r0 * W);
          const float* kl[8];
          const float* vl[8];
          for (int64_t b = r0; b < r1; b++) {
            float* kcache = kc[b * L + l];
            float* vcache = vc[b * L + l];
            std::memcpy(kcache + starts[b] * W, kr + b * W, sizeof(float) * W);
            std::memcpy(vcache + starts[b] * W, v.data() + b * W, sizeof(float) * W);
            kl[b - r0] = kcache;
            vl[b - r0] = vcache;
          }
          attentionSegments(qr + r0 * H * D, kl, vl, cuLocal.data(), starts + r0, nr, H, KV, D, att.data() + r0 * H * D);
        }
        bar.wait();
        {  // o and the residual, my columns
          const int64_t P = panelsOf(lw.o.M), p0 = shareBegin(P, t, T), p1 = shareBegin(P, t + 1, T);
          linearPanels(att.data(), B, lw.o, o.data(), p0, p1);
          const int64_t c0 = std::min(C, p0 * PANEL), c1 = std::min(C, p1 * PANEL);
          for (int64_t n = 0; n < B && c0 < c1; n++) add(x.data() + n * C + c0, o.data() + n * C + c0, x.data() + n * C + c0, c1 - c0);
        }
        bar.wait();
        if (nr > 0) rmsnorm(x.data() + r0 * C, lw.postNorm, nr, C, s.eps, h.data() + r0 * C);
        bar.wait();
        const int64_t Fl = lw.gate.M;
        {  // gate and up on the same panels, then silu(gate)·up on those columns
          const int64_t P = panelsOf(Fl), p0 = shareBegin(P, t, T), p1 = shareBegin(P, t + 1, T);
          linearPanels(h.data(), B, lw.gate, gate.data(), p0, p1);
          linearPanels(h.data(), B, lw.up, up.data(), p0, p1);
          const int64_t c0 = std::min(Fl, p0 * PANEL), c1 = std::min(Fl, p1 * PANEL);
          for (int64_t n = 0; n < B && c0 < c1; n++) swiglu(gate.data() + n * Fl + c0, up.data() + n * Fl + c0, c1 - c0, gate.data() + n * Fl + c0);
        }
        bar.wait();
        {  // down and the residual, my columns
          const int64_t P = panelsOf(lw.down.M), p0 = shareBegin(P, t, T), p1 = shareBegin(P, t + 1, T);
          linearPanels(gate.data(), B, lw.down, o.data(), p0, p1);
          const int64_t c0 = std::min(C, p0 * PANEL), c1 = std::min(C, p1 * PANEL);
          for (int64_t n = 0; n < B && c0 < c1; n++) add(x.data() + n * C + c0, o.data() + n * C + c0, x.data() + n * C + c0, c1 - c0);
        }
        bar.wait();
      }
      float* hid = headPacked ? hidden.data() : hiddenOut;
      if (nr > 0) rmsnorm(x.data() + r0 * C, s.norm, nr, C, s.eps, hid + r0 * C);
      if (!headPacked) return;
      bar.wait();
      {
        const int64_t P = panelsOf(V), p0 = shareBegin(P, t, T), p1 = shareBegin(P, t + 1, T), c0 = p0 * PANEL, c1 = std::min(V, p1 * PANEL);
        if (c0 < c1) gemvPacked(B, c1 - c0, C, hidden.data(), C, headPacked + p0 * PANEL * C, 0.f, logits.data() + c0, V);
      }
      bar.wait();
      if (nr > 0) sampleRows(logits.data() + r0 * V, nr, V, p, uniforms + r0, outIds + r0, logprob + r0, modelLogprob + r0);
    };
    if (T == 1) return share(0, 1);
    parallelThreads(share);
  }
};

/** Whether the column split can run this step: every linear packed (f32, AVX-512), no unmerged LoRA, ≤ 8 rows. */
bool colsSplitPossible(const Stack& s, int64_t B) {
  if (B < 1 || B > 8) return false;
  for (const StackLayer& lw : s.layers)
    for (const StackLinear* li : {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down})
      if (li->packed.empty() || li->loraA) return false;
  return true;
}

/** Below this many flops per step (rows × flops per row, head and draw included) a column-split step is not even
 *  tried: its ~6 barriers per layer cannot pay for themselves (tiny, 1 row: 0.4 M). */
constexpr double DECODE_COLS_MIN_FLOPS = 1e6;

thread_local int soloSteps = 0;  // row-split decode steps this thread still runs alone (see forEachDecodeRun)

/** The per-step choice between one thread and the column split over all of them, by measurement: for each kind of
 *  step (row count, flops, threads) the wall seconds of the last DECODE_TUNE_KEEP steps each way are kept and compared
 *  by median. Each way runs DECODE_TUNE_KEEP steps first (alternating); then the split runs only while its median is
 *  under DECODE_TUNE_MARGIN × one thread's (the second core must save at least 20 % of the step, else one thread, which
 *  costs less CPU), and the other way is re-tried for one step whenever the steps since its last try took
 *  1/DECODE_TUNE_PROBE times that try (so re-trying costs about 3 % of the time however slow the other way is, and a
 *  machine whose load changes is followed within a few hundred milliseconds). Which threads compute a step never
 *  changes its bits, so this only moves time. */
constexpr int DECODE_TUNE_KEEP = 3;
constexpr double DECODE_TUNE_MARGIN = 0.8;
constexpr double DECODE_TUNE_PROBE = 0.03;
struct TuneState {
  double last[2][DECODE_TUNE_KEEP] = {};  // the last step times of [0]: one thread, [1]: the column split
  int n[2] = {0, 0};
  int best = 0;
  double untilProbe = 0;  // seconds of steps the best way still runs before the other is re-tried
  double est(int mode) const {
    double v[DECODE_TUNE_KEEP];
    std::copy(last[mode], last[mode] + DECODE_TUNE_KEEP, v);
    std::sort(v, v + DECODE_TUNE_KEEP);
    return v[DECODE_TUNE_KEEP / 2];
  }
  bool exploring() const { return n[0] < DECODE_TUNE_KEEP || n[1] < DECODE_TUNE_KEEP; }
};
std::mutex tuneMu;
std::map<int64_t, TuneState> tuneStates;
const bool tuneLog = std::getenv("SEARCHGYM_DECODE_TUNE_LOG") != nullptr;

int64_t tuneKey(int64_t B, double flops, int T) { return (B * 64 + T) * 256 + (int64_t)std::lround(4 * std::log2(std::max(1.0, flops))); }
/** 0: one thread; 1: the column split. */
int tuneChoose(int64_t key) {
  std::lock_guard<std::mutex> g(tuneMu);
  TuneState& st = tuneStates[key];
  if (st.exploring()) return st.n[1] <= st.n[0] ? 1 : 0;
  return st.untilProbe <= 0 ? 1 - st.best : st.best;
}
void tuneRecord(int64_t key, int mode, double seconds) {
  std::lock_guard<std::mutex> g(tuneMu);
  TuneState& st = tuneStates[key];
  const bool wasExploring = st.exploring();
  st.last[mode][st.n[mode]++ % DECODE_TUNE_KEEP] = seconds;
  if (st.exploring()) return;
  const bool probe = !wasExploring && mode != st.best;
  st.best = st.est(1) < DECODE_TUNE_MARGIN * st.est(0) ? 1 : 0;
  if (wasExploring) st.untilProbe = st.est(1 - st.best) / DECODE_TUNE_PROBE;
  else if (probe) st.untilProbe = seconds / DECODE_TUNE_PROBE;
  else st.untilProbe -= seconds;
  if (tuneLog && (probe || wasExploring))
    std::fprintf(stderr, "decode tune key %lld: one thread %.1f us, columns %.1f us (n %d / %d) -> %s\n", (long long)key, st.est(0) * 1e6, st.est(1) * 1e6,
                 st.n[0], st.n[1], st.best ? "columns" : "one thread");
}

/** Decode steps run so far: [0] on one thread, [1] split by columns, [2] split by rows (decodeStepCounts). */
std::atomic<int64_t> stepCounts[3];

/** Runs one decode step of B ≤ 8 rows (all linears packed) with the threads chosen as above, or as the override says. */
void runColsStep(ColsStep& step, double flops) {
  const int T = numThreads(), o = decodeThreadsOverride.load();
  if (inParallelJob() || T == 1 || o == 1 || (o == 0 && flops < DECODE_COLS_MIN_FLOPS)) {
    stepCounts[0]++;
    return step.run(1);
  }
  if (o > 1) {
    stepCounts[1]++;
    return step.run(std::min(o, T));
  }
  const int64_t key = tuneKey(step.B, flops, T);
  const int mode = tuneChoose(key);
  stepCounts[mode]++;
  const auto t0 = std::chrono::steady_clock::now();
  step.run(mode == 1 ? T : 1);
  tuneRecord(key, mode, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

/** A decode step (one new token per sequence) over B rows, split by rows: the rows go in chunks to the threads and
 *  fn(r0, r1) runs on runs of at most two chunks (≤ 8 rows: the few-row gemm, each weight tile read once for all of
 *  them) — one hand-off per step instead of one per op. Used for B > 8 rows (every thread gets whole 8-row runs) and
 *  for stacks the column split cannot run (unpacked weights, unmerged LoRA). headFlops: extra flops per row. */
template <class Fn>
void forEachDecodeRun(const Stack& s, int64_t B, double headFlops, Fn fn) {
  const int64_t chunks = (B + DECODE_CHUNK - 1) / DECODE_CHUNK;
  auto run = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c += 2) fn(c * DECODE_CHUNK, std::min(B, std::min(c1, c + 2) * DECODE_CHUNK));
  };
  const int o = decodeThreadsOverride.load();
  if (chunks < 2 || numThreads() == 1 || o == 1 || inParallelJob() || B * stackRowFlops(s, headFlops) < DECODE_PARALLEL_FLOPS) {
    stepCounts[0]++;
    return run(0, chunks);
  }
  // On a loaded machine the other threads' shares often start late (their thread waits for a CPU), and the step then
  // takes longer than on this thread alone and costs more CPU. So: when the caller, done with its own share, waited
  // for the others longer than half its share took, the next DECODE_SOLO_STEPS steps of this thread run alone, then
  // it tries again. Which rows a thread computes never changes a value (see above), so this only moves time.
  if (soloSteps > 0 && o == 0) {
    soloSteps--;
    stepCounts[0]++;
    return run(0, chunks);
  }
  stepCounts[2]++;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point mineDone = t0;
  parallelThreads([&](int t, int T) {
    const int64_t c0 = chunks * t / T, c1 = chunks * (t + 1) / T;
    if (c0 < c1) run(c0, c1);
    if (t == 0) mineDone = Clock::now();
  });
  const double mine = std::chrono::duration<double>(mineDone - t0).count(), waited = std::chrono::duration<double>(Clock::now() - mineDone).count();
  if (waited > 0.5 * mine && o == 0) soloSteps = DECODE_SOLO_STEPS;
}
}  // namespace

void setDecodeThreads(int n, bool forceRows) {
  decodeThreadsOverride.store(std::max(0, n));
  decodeForceRows.store(forceRows ? 1 : 0);
}
int decodeThreads() { return decodeThreadsOverride.load(); }
void decodeStepCounts(int64_t out[3]) {
  for (int i = 0; i < 3; i++) out[i] = stepCounts[i].load();
}

void packStack(Stack& s, double maxBytes) {
  if (!packedGemvAvailable()) return;
  double bytes = s.head && s.headDt == DType::F32 ? 4.0 * packedSize(s.headV, s.C) : 0;
  for (StackLayer& lw : s.layers)
    for (StackLinear* li : {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down})
      if (li->dt == DType::F32) bytes += 4.0 * packedSize(li->M, li->K);
  if (bytes > maxBytes) return;
  for (StackLayer& lw : s.layers)
    for (StackLinear* li : {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down})
      if (li->dt == DType::F32) {
        li->packed.resize(packedSize(li->M, li->K));
        packPanels(static_cast<const float*>(li->w), li->M, li->K, li->packed.data());
      }
  if (s.head && s.headDt == DType::F32) {
    s.headPacked.resize(packedSize(s.headV, s.C));
    packPanels(static_cast<const float*>(s.head), s.headV, s.C, s.headPacked.data());
  }
}

void forwardCached(const Stack& s, const int32_t* ids, const int32_t* cu, int64_t B, const int32_t* starts, float* const* kc,
                   float* const* vc, float* out) {
  bool decode = B > DECODE_CHUNK;
  for (int64_t b = 0; b < B && decode; b++) decode = cu[b + 1] - cu[b] == 1;
  if (!decode) return forwardStack(s, ids, cu, B, starts, kc, vc, out);
  const int64_t L = (int64_t)s.layers.size();
  if (!decodeForceRows.load() && colsSplitPossible(s, B)) {
    ColsStep st{s, B, ids, starts, kc, vc, out};
    return runColsStep(st, B * stackRowFlops(s, 0));
  }
  forEachDecodeRun(s, B, 0, [&](int64_t r0, int64_t r1) {
    int32_t cuLocal[2 * DECODE_CHUNK + 1];
    for (int64_t i = 0; i <= r1 - r0; i++) cuLocal[i] = (int32_t)i;
    forwardStack(s, ids + r0, cuLocal, r1 - r0, starts + r0, kc + r0 * L, vc + r0 * L, out + r0 * s.C);
  });
}

void decodeSample(const Stack& s, const void* head, DType headDt, int64_t V, const int32_t* ids, int64_t B, const int32_t* starts,
                  float* const* kc, float* const* vc, SampleParams p, const double* uniforms, int32_t* outIds, double* logprob,
                  double* modelLogprob) {
  const int64_t L = (int64_t)s.layers.size(), C = s.C;
  if (!decodeForceRows.load() && head == s.head && !s.headPacked.empty() && V == s.headV && colsSplitPossible(s, B)) {
    ColsStep st{s, B, ids, starts, kc, vc, nullptr, s.headPacked.data(), V, p, uniforms, outIds, logprob, modelLogprob};
    return runColsStep(st, B * stackRowFlops(s, 2.0 * V * C + 20.0 * V));
  }
  forEachDecodeRun(s, B, 2.0 * V * C + 20.0 * V, [&](int64_t r0, int64_t r1) {
    const int64_t n = r1 - r0;
    int32_t cuLocal[2 * DECODE_CHUNK + 1];
    for (int64_t i = 0; i <= n; i++) cuLocal[i] = (int32_t)i;
    std::vector<float> hidden(n * C), logits(n * V);
    forwardStack(s, ids + r0, cuLocal, n, starts + r0, kc + r0 * L, vc + r0 * L, hidden.data());
    // The head (x · wᵀ; packed when it is the stack's bound head), then the draw of each row.
    if (head == s.head && !s.headPacked.empty() && V == s.headV) gemvPacked(n, V, C, hidden.data(), C, s.headPacked.data(), 0.f, logits.data(), V);
    else gemm(n, V, C, 1.f, Mat{hidden.data(), DType::F32, C, 1}, Mat{head, headDt, 1, C}, 0.f, logits.data(), V);
    sampleRows(logits.data(), n, V, p, uniforms + r0, outIds + r0, logprob + r0, modelLogprob + r0);
  });
}
}  // namespace sg
