// infra/engine/native/src/decode: forwardCached — the decoder stack over a packed batch of sequences that continue
// their own KV caches, in ONE addon call (prefill of prompts / appended observations, and each batched decode step).
// It runs the same kernels in the same order as the op-by-op path (infra/engine/forward-cached.ts, model.forward with
// caches): same gemm shapes, same attendRow per (row, head), same norms — so its results equal that path's bit for
// bit on this machine, without a JavaScript round trip per op. Scratch buffers are per call. A decode step (one token
// per sequence) runs in chunks of rows, one thread per group of chunks, in passes of ≤ 8 rows (see forwardCached
// below): equal to the op-by-op path for up to 8 rows; over more rows the few-row gemm per pass rounds differently
// from one gemm over all rows (within the contracts' tolerances). decodeSample adds the head and the draw per pass.
#include <algorithm>
#include <chrono>
#include <cstring>
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

/** The stack over B sequences in one pass (every op over all rows; the ops split their own loops over threads). */
void forwardStack(const Stack& s, const int32_t* ids, const int32_t* cu, int64_t B, const int32_t* starts, float* const* kc,
                  float* const* vc, float* out) {
  const int64_t N = cu[B], C = s.C, H = s.H, KV = s.KV, D = s.D, L = (int64_t)s.layers.size(), W = KV * D;
  std::vector<int32_t> pos(N);
  for (int64_t b = 0; b < B; b++)
    for (int64_t i = cu[b]; i < cu[b + 1]; i++) pos[i] = (int32_t)(starts[b] + i - cu[b]);
  int64_t F = 0;
  for (const StackLayer& lw : s.layers) F = std::max(F, lw.gate.M);
  std::vector<float> x(N * C), h(N * C), q(N * H * D), qt(N * H * D), k(N * W), kt(N * W), v(N * W), att(N * H * D), o(N * C);
  std::vector<float> gate(N * F), up(N * F), xa;
  std::vector<const float*> kl(B), vl(B);
  std::vector<double> ropeCos(N * (D / 2)), ropeSin(N * (D / 2));  // the same angles for q and k in every layer
  ropeTable(pos.data(), N, D, s.theta, 1, ropeCos.data(), ropeSin.data());
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
    ropeApply(qn, ropeCos.data(), ropeSin.data(), N, H, D, qr);
    ropeApply(kn, ropeCos.data(), ropeSin.data(), N, KV, D, kr);
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
}
}  // namespace

/** Rows per decode chunk: the few-row gemm groups rows by 4 from its first row, so a row's arithmetic is the same in
 *  any run of whole chunks — chunks can go to different threads without changing a bit. */
constexpr int64_t DECODE_CHUNK = 4;
/** Below this many flops a decode step stays on one thread (waking the other costs more). */
constexpr double DECODE_PARALLEL_FLOPS = 5e5;
/** Decode steps run on the calling thread alone after one whose other shares lagged (see forEachDecodeRun). */
constexpr int DECODE_SOLO_STEPS = 64;

namespace {
/** A decode step (one new token per sequence) over B rows: the rows go in chunks to the threads and fn(r0, r1) runs
 *  on runs of at most two chunks (≤ 8 rows: the few-row gemm, each weight tile read once for all of them) — one
 *  hand-off per step instead of one per op. headFlops: extra flops per row after the stack (head and draw). */
template <class Fn>
void forEachDecodeRun(const Stack& s, int64_t B, double headFlops, Fn fn) {
  const int64_t chunks = (B + DECODE_CHUNK - 1) / DECODE_CHUNK;
  double params = (double)s.V * s.C;
  for (const StackLayer& lw : s.layers)
    for (const StackLinear* li : {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down}) params += (double)li->M * li->K;
  auto run = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c += 2) fn(c * DECODE_CHUNK, std::min(B, std::min(c1, c + 2) * DECODE_CHUNK));
  };
  if (chunks < 2 || numThreads() == 1 || inParallelJob() || B * (2.0 * params + headFlops) < DECODE_PARALLEL_FLOPS) return run(0, chunks);
  // On a loaded machine the other threads' shares often start late (their thread waits for a CPU), and the step then
  // takes longer than on this thread alone and costs more CPU. So: when the caller, done with its own share, waited
  // for the others longer than half its share took, the next DECODE_SOLO_STEPS steps of this thread run alone, then
  // it tries again. Which rows a thread computes never changes a value (see above), so this only moves time.
  thread_local int soloSteps = 0;
  if (soloSteps > 0) {
    soloSteps--;
    return run(0, chunks);
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point mineDone = t0;
  parallelThreads([&](int t, int T) {
    const int64_t c0 = chunks * t / T, c1 = chunks * (t + 1) / T;
    if (c0 < c1) run(c0, c1);
    if (t == 0) mineDone = Clock::now();
  });
  const double mine = std::chrono::duration<double>(mineDone - t0).count(), waited = std::chrono::duration<double>(Clock::now() - mineDone).count();
  if (waited > 0.5 * mine) soloSteps = DECODE_SOLO_STEPS;
}
}  // namespace

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
