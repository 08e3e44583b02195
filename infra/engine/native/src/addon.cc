// infra/engine/native/src/addon: the N-API surface of the native backend (node-addon-api, no V8 API, so one
// build serves Node 20/22/24). Tensor memory is allocated here (64-byte aligned, outside the JS heap) and handed to
// JavaScript as external ArrayBuffers; release() frees it at once and detaches the buffer (views read as empty),
// otherwise the GC finaliser frees it. Live and peak bytes are counted. Every compute entry takes typed arrays
// and plain numbers; shapes are checked by the TypeScript wrapper (infra/engine/native/native-backend.ts).
#include <napi.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops.h"
#include "pool.h"

namespace {
using namespace sg;

// ---- memory ----
// Freed blocks go to a cache keyed by their (4 KiB-rounded) size and are handed out again: training steps and
// decode steps allocate the same sizes over and over, and fresh large blocks cost an mmap plus a page fault per
// 4 KiB on first touch. The cache is bounded (SEARCHGYM_NATIVE_CACHE_MB, default 1024); trim() empties it.
struct Block {
  void* data;
  size_t bytes;
};
std::mutex memMu;
std::unordered_map<void*, Block*> blocks;
std::unordered_map<size_t, std::vector<void*>> cache;
size_t cachedBytes = 0;
std::atomic<int64_t> liveBytes{0}, peakBytes{0};

size_t cacheLimit() {
  static size_t lim = [] {
    const char* e = std::getenv("SEARCHGYM_NATIVE_CACHE_MB");
    return (size_t)(e ? std::atoll(e) : 1024) << 20;
  }();
  return lim;
}

void account(int64_t delta) {
  const int64_t now = liveBytes.fetch_add(delta) + delta;
  int64_t p = peakBytes.load();
  while (now > p && !peakBytes.compare_exchange_weak(p, now)) {
  }
}

void* takeBlock(size_t bytes) {
  {
    std::lock_guard<std::mutex> g(memMu);
    auto it = cache.find(bytes);
    if (it != cache.end() && !it->second.empty()) {
      void* d = it->second.back();
      it->second.pop_back();
      cachedBytes -= bytes;
      return d;
    }
  }
  return std::aligned_alloc(64, bytes);
}

/** Called with memMu held. */
void giveBlock(void* d, size_t bytes) {
  if (cachedBytes + bytes <= cacheLimit()) {
    cache[bytes].push_back(d);
    cachedBytes += bytes;
  } else {
    std::free(d);
  }
}

/** Frees b's memory once; tells V8 (so its GC paces itself by the off-heap bytes too). */
void freeBlock(Napi::Env env, Block* b) {
  {
    std::lock_guard<std::mutex> g(memMu);
    if (!b->data) return;
    blocks.erase(b->data);
    giveBlock(b->data, b->bytes);
    b->data = nullptr;
  }
  account(-(int64_t)b->bytes);
  Napi::MemoryManagement::AdjustExternalMemory(env, -(int64_t)b->bytes);
}

Napi::Value Trim(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> g(memMu);
  for (auto& kv : cache)
    for (void* d : kv.second) std::free(d);
  cache.clear();
  cachedBytes = 0;
  return info.Env().Undefined();
}

Napi::Value Alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t n = info[0].As<Napi::Number>().Int64Value();
  const bool bf16 = info[1].ToBoolean().Value();
  const bool zero = info.Length() > 2 && info[2].ToBoolean().Value();
  const size_t elt = bf16 ? 2 : 4;
  size_t bytes = (size_t)(n < 1 ? 1 : n) * elt;
  bytes = (bytes + 4095) / 4096 * 4096;
  void* data = takeBlock(bytes);
  if (!data) {
    Napi::Error::New(env, "native backend: out of memory allocating " + std::to_string(bytes) + " bytes").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (zero) std::memset(data, 0, (size_t)(n < 1 ? 1 : n) * elt);
  Block* b = new Block{data, bytes};
  {
    std::lock_guard<std::mutex> g(memMu);
    blocks[data] = b;
  }
  account((int64_t)bytes);
  Napi::MemoryManagement::AdjustExternalMemory(env, (int64_t)bytes);
  Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(env, data, bytes, [](Napi::Env e, void*, Block* blk) {
    freeBlock(e, blk);
    delete blk;
  }, b);
  if (bf16) return Napi::TypedArrayOf<uint16_t>::New(env, (size_t)n, ab, 0, napi_uint16_array);
  return Napi::TypedArrayOf<float>::New(env, (size_t)n, ab, 0, napi_float32_array);
}

Napi::Value Release(const Napi::CallbackInfo& info) {
  Napi::TypedArray ta = info[0].As<Napi::TypedArray>();
  Napi::ArrayBuffer ab = ta.ArrayBuffer();
  void* data = ab.Data();
  Block* b = nullptr;
  {
    std::lock_guard<std::mutex> g(memMu);
    auto it = blocks.find(data);
    if (it != blocks.end()) b = it->second;
  }
  if (!b) return Napi::Boolean::New(info.Env(), false);
  freeBlock(info.Env(), b);
  if (!ab.IsDetached()) ab.Detach();
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value MemStats(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("liveBytes", Napi::Number::New(info.Env(), (double)liveBytes.load()));
  o.Set("peakBytes", Napi::Number::New(info.Env(), (double)peakBytes.load()));
  {
    std::lock_guard<std::mutex> g(memMu);
    o.Set("cachedBytes", Napi::Number::New(info.Env(), (double)cachedBytes));
  }
  if (info.Length() > 0 && info[0].ToBoolean().Value()) peakBytes.store(liveBytes.load());
  return o;
}

// ---- argument helpers ----
template <class T>
T* ptr(const Napi::Value& v) {
  Napi::TypedArray ta = v.As<Napi::TypedArray>();
  return reinterpret_cast<T*>(static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset());
}
float* F(const Napi::CallbackInfo& i, size_t k) { return ptr<float>(i[k]); }
const int32_t* I(const Napi::CallbackInfo& i, size_t k) { return ptr<int32_t>(i[k]); }
int64_t N(const Napi::CallbackInfo& i, size_t k) { return i[k].As<Napi::Number>().Int64Value(); }
double D(const Napi::CallbackInfo& i, size_t k) { return i[k].As<Napi::Number>().DoubleValue(); }
/** A weight operand: Float32Array (f32) or Uint16Array (bf16). */
DType dtypeOf(const Napi::Value& v) {
  return v.As<Napi::TypedArray>().TypedArrayType() == napi_uint16_array ? DType::BF16 : DType::F32;
}
const void* W(const Napi::CallbackInfo& i, size_t k) { return ptr<uint8_t>(i[k]); }

#define FN(name) Napi::Value name(const Napi::CallbackInfo& a)
#define VOID return a.Env().Undefined()

FN(Threads) {
  if (a.Length() > 0 && a[0].IsNumber()) setNumThreads((int)N(a, 0));
  return Napi::Number::New(a.Env(), numThreads());
}
// decodeThreads(n?, forceRows?) → the decode-thread override (0 = per step from its size)
FN(DecodeThreads) {
  if (a.Length() > 0 && a[0].IsNumber()) setDecodeThreads((int)N(a, 0), a.Length() > 1 && a[1].IsBoolean() && a[1].As<Napi::Boolean>().Value());
  return Napi::Number::New(a.Env(), decodeThreads());
}
// decodeStepCounts() → [one thread, columns, rows]: decode steps this process ran each way
FN(DecodeStepCounts) {
  int64_t c[3];
  decodeStepCounts(c);
  Napi::Array out = Napi::Array::New(a.Env(), 3);
  for (uint32_t i = 0; i < 3; i++) out.Set(i, Napi::Number::New(a.Env(), (double)c[i]));
  return out;
}
FN(GemmKernel) {
  if (a.Length() > 0 && a[0].IsString()) setGemmKernel(a[0].As<Napi::String>().Utf8Value().c_str());
  return Napi::String::New(a.Env(), gemmKernel());
}
FN(PeakGflops) { return Napi::Number::New(a.Env(), measurePeakGflops(D(a, 0), (int)N(a, 1))); }

// gemm(M, N, K, alpha, A, aRs, aCs, B, bRs, bCs, beta, C, ldc)
FN(Gemm) {
  Mat A{W(a, 4), dtypeOf(a[4]), N(a, 5), N(a, 6)};
  Mat B{W(a, 7), dtypeOf(a[7]), N(a, 8), N(a, 9)};
  gemm(N(a, 0), N(a, 1), N(a, 2), (float)D(a, 3), A, B, (float)D(a, 10), F(a, 11), N(a, 12));
  VOID;
}
// embedding(table, V, C, ids, N, out)
FN(Embedding) { embedding(W(a, 0), dtypeOf(a[0]), N(a, 1), N(a, 2), I(a, 3), N(a, 4), F(a, 5)); VOID; }
// embeddingBackward(dy, ids, N, C, dtable)
FN(EmbeddingBackward) { embeddingBackward(F(a, 0), I(a, 1), N(a, 2), N(a, 3), F(a, 4)); VOID; }
// rmsnorm(x, w, N, C, eps, out)
FN(Rmsnorm) { rmsnorm(F(a, 0), F(a, 1), N(a, 2), N(a, 3), (float)D(a, 4), F(a, 5)); VOID; }
// rmsnormBackward(x, w, dy, N, C, eps, dx, dw)
FN(RmsnormBackward) { rmsnormBackward(F(a, 0), F(a, 1), F(a, 2), N(a, 3), N(a, 4), (float)D(a, 5), F(a, 6), F(a, 7)); VOID; }
// rope(x, pos, N, H, D, theta, sign, out)
FN(Rope) { rope(F(a, 0), I(a, 1), N(a, 2), N(a, 3), N(a, 4), D(a, 5), (int)N(a, 6), F(a, 7)); VOID; }
// attention(q, k, v, cu, B, H, KV, D, out)
FN(Attention) { attention(F(a, 0), F(a, 1), F(a, 2), I(a, 3), N(a, 4), N(a, 5), N(a, 6), N(a, 7), F(a, 8)); VOID; }
// attentionCached(q, k, v, T, S, H, KV, D, qStart, out)
FN(AttentionCached) {
  attentionCached(F(a, 0), F(a, 1), F(a, 2), N(a, 3), N(a, 4), N(a, 5), N(a, 6), N(a, 7), N(a, 8), F(a, 9));
  VOID;
}
// attentionBackward(q, k, v, dy, cu, B, H, KV, D, dq, dk, dv)
FN(AttentionBackward) {
  attentionBackward(F(a, 0), F(a, 1), F(a, 2), F(a, 3), I(a, 4), N(a, 5), N(a, 6), N(a, 7), N(a, 8), F(a, 9), F(a, 10), F(a, 11));
  VOID;
}
// attentionCachedBackward(q, k, v, dy, T, S, H, KV, D, qStart, dq, dk, dv)
FN(AttentionCachedBackward) {
  attentionCachedBackward(F(a, 0), F(a, 1), F(a, 2), F(a, 3), N(a, 4), N(a, 5), N(a, 6), N(a, 7), N(a, 8), N(a, 9), F(a, 10), F(a, 11),
                          F(a, 12));
  VOID;
}
// swiglu(g, u, n, out) / swigluBackward(g, u, dy, n, dg, du)
FN(Swiglu) { swiglu(F(a, 0), F(a, 1), N(a, 2), F(a, 3)); VOID; }
FN(SwigluBackward) { swigluBackward(F(a, 0), F(a, 1), F(a, 2), N(a, 3), F(a, 4), F(a, 5)); VOID; }
// logSoftmax(x, N, V, out)
FN(LogSoftmax) { logSoftmax(F(a, 0), N(a, 1), N(a, 2), F(a, 3)); VOID; }
// targetLogprobs(x, t, N, V, out) → first bad target index or -1
FN(TargetLogprobs) { return Napi::Number::New(a.Env(), (double)targetLogprobs(F(a, 0), I(a, 1), N(a, 2), N(a, 3), F(a, 4))); }
// targetLogprobsBackward(x, t, g, N, V, out)
FN(TargetLogprobsBackward) { targetLogprobsBackward(F(a, 0), I(a, 1), F(a, 2), N(a, 3), N(a, 4), F(a, 5)); VOID; }
// headLogprobs(h, w, t, N, C, V, out) → first bad target index or -1
FN(HeadLogprobs) {
  return Napi::Number::New(a.Env(), (double)headLogprobs(F(a, 0), W(a, 1), dtypeOf(a[1]), I(a, 2), N(a, 3), N(a, 4), N(a, 5), F(a, 6)));
}
// headLogprobsBackward(h, w, t, dlogp, N, C, V, dh)
FN(HeadLogprobsBackward) {
  headLogprobsBackward(F(a, 0), W(a, 1), dtypeOf(a[1]), I(a, 2), F(a, 3), N(a, 4), N(a, 5), N(a, 6), F(a, 7));
  VOID;
}
// sampleRows(logits, R, V, temperature, topK, topP, uniforms f64, ids i32, logprob f64, modelLogprob f64)
FN(SampleRows) {
  sampleRows(F(a, 0), N(a, 1), N(a, 2), SampleParams{D(a, 3), N(a, 4), D(a, 5)}, ptr<double>(a[6]), ptr<int32_t>(a[7]),
             ptr<double>(a[8]), ptr<double>(a[9]));
  VOID;
}
// adamw(p, g, m, v, n, lr, b1, b2, eps, wd, bc1, bc2)
FN(Adamw) {
  adamw(F(a, 0), F(a, 1), F(a, 2), F(a, 3), N(a, 4), D(a, 5), D(a, 6), D(a, 7), D(a, 8), D(a, 9), D(a, 10), D(a, 11));
  VOID;
}
FN(SumSquares) { return Napi::Number::New(a.Env(), sumSquares(F(a, 0), N(a, 1))); }
FN(Axpy) { axpy(F(a, 0), F(a, 1), (float)D(a, 2), N(a, 3)); VOID; }
FN(Add) { add(F(a, 0), F(a, 1), F(a, 2), N(a, 3)); VOID; }
FN(Scale) { scale(F(a, 0), (float)D(a, 1), N(a, 2)); VOID; }
// toBf16(src f32, dst u16, n) / fromBf16(src u16, dst f32, n)
FN(ToBf16) {
  const float* s = F(a, 0);
  uint16_t* d = ptr<uint16_t>(a[1]);
  for (int64_t i = 0, n = N(a, 2); i < n; i++) d[i] = f32ToBf16(s[i]);
  VOID;
}
FN(FromBf16) {
  const uint16_t* s = ptr<uint16_t>(a[0]);
  float* d = F(a, 1);
  for (int64_t i = 0, n = N(a, 2); i < n; i++) d[i] = bf16ToF32(s[i]);
  VOID;
}

// ---- the fused cached forward ----
// bindStack(embed, norm, dims [V, C, H, KV, D], eps, theta, layers, head|null, headV) → an External holding the stack's
// pointers (and packed copies of its f32 weights for the few-row kernel: the weights must not change while bound).
// layers[l] = [inputNorm, postNorm, qNorm|null, kNorm|null, then per linear q,k,v,o,gate,up,down:
//              w, M, K, bias|null, loraA|null, loraB|null, loraScale, r]. The JavaScript side keeps every tensor alive
// while the External is in use (and checks none was released before each call).
const void* optPtr(const Napi::Value& v) { return v.IsNull() || v.IsUndefined() ? nullptr : (const void*)ptr<uint8_t>(v); }
FN(BindStack) {
  auto* s = new Stack();
  s->embed = W(a, 0);
  s->embedDt = dtypeOf(a[0]);
  s->norm = F(a, 1);
  Napi::Array dims = a[2].As<Napi::Array>();
  s->V = dims.Get(0u).As<Napi::Number>().Int64Value();
  s->C = dims.Get(1u).As<Napi::Number>().Int64Value();
  s->H = dims.Get(2u).As<Napi::Number>().Int64Value();
  s->KV = dims.Get(3u).As<Napi::Number>().Int64Value();
  s->D = dims.Get(4u).As<Napi::Number>().Int64Value();
  s->eps = (float)D(a, 3);
  s->theta = D(a, 4);
  Napi::Array layers = a[5].As<Napi::Array>();
  for (uint32_t l = 0; l < layers.Length(); l++) {
    Napi::Array e = layers.Get(l).As<Napi::Array>();
    StackLayer lw;
    lw.inputNorm = (const float*)optPtr(e.Get(0u));
    lw.postNorm = (const float*)optPtr(e.Get(1u));
    lw.qNorm = (const float*)optPtr(e.Get(2u));
    lw.kNorm = (const float*)optPtr(e.Get(3u));
    StackLinear* lins[7] = {&lw.q, &lw.k, &lw.v, &lw.o, &lw.gate, &lw.up, &lw.down};
    for (uint32_t j = 0; j < 7; j++) {
      const uint32_t o = 4 + 8 * j;
      StackLinear& li = *lins[j];
      li.w = optPtr(e.Get(o));
      li.dt = dtypeOf(e.Get(o));
      li.M = e.Get(o + 1).As<Napi::Number>().Int64Value();
      li.K = e.Get(o + 2).As<Napi::Number>().Int64Value();
      li.bias = (const float*)optPtr(e.Get(o + 3));
      li.loraA = (const float*)optPtr(e.Get(o + 4));
      li.loraB = (const float*)optPtr(e.Get(o + 5));
      li.loraScale = (float)e.Get(o + 6).As<Napi::Number>().DoubleValue();
      li.r = e.Get(o + 7).As<Napi::Number>().Int64Value();
    }
    s->layers.push_back(lw);
  }
  // The output head bound with the stack (optional): head, V.
  if (a.Length() > 7 && !a[6].IsNull() && !a[6].IsUndefined()) {
    s->head = W(a, 6);
    s->headDt = dtypeOf(a[6]);
    s->headV = N(a, 7);
  }
  // Copies of the f32 weights in the few-row kernel's layout, while they are small (SEARCHGYM_NATIVE_PACK_MB, default 64).
  static const double packLimit = [] {
    const char* e = std::getenv("SEARCHGYM_NATIVE_PACK_MB");
    return (e ? std::atof(e) : 64.0) * 1048576.0;
  }();
  packStack(*s, packLimit);
  return Napi::External<Stack>::New(a.Env(), s, [](Napi::Env, Stack* p) { delete p; });
}
// forwardCached(stack, ids, cu, B, starts, caches [for b, for l: k, v], out [B,C])
FN(ForwardCached) {
  const Stack& s = *a[0].As<Napi::External<Stack>>().Data();
  const int64_t B = N(a, 3), L = (int64_t)s.layers.size();
  Napi::Array caches = a[5].As<Napi::Array>();
  std::vector<float*> kc(B * L), vc(B * L);
  for (int64_t i = 0; i < B * L; i++) {
    kc[i] = ptr<float>(caches.Get((uint32_t)(2 * i)));
    vc[i] = ptr<float>(caches.Get((uint32_t)(2 * i + 1)));
  }
  forwardCached(s, I(a, 1), I(a, 2), B, I(a, 4), kc.data(), vc.data(), F(a, 6));
  VOID;
}

// decodeSample(stack, head, V, ids, B, starts, caches, temperature, topK, topP, uniforms f64, ids i32, logprob f64, modelLogprob f64)
FN(DecodeSample) {
  const Stack& s = *a[0].As<Napi::External<Stack>>().Data();
  const int64_t B = N(a, 4), L = (int64_t)s.layers.size();
  Napi::Array caches = a[6].As<Napi::Array>();
  std::vector<float*> kc(B * L), vc(B * L);
  for (int64_t i = 0; i < B * L; i++) {
    kc[i] = ptr<float>(caches.Get((uint32_t)(2 * i)));
    vc[i] = ptr<float>(caches.Get((uint32_t)(2 * i + 1)));
  }
  decodeSample(s, W(a, 1), dtypeOf(a[1]), N(a, 2), I(a, 3), B, I(a, 5), kc.data(), vc.data(), SampleParams{D(a, 7), N(a, 8), D(a, 9)},
               ptr<double>(a[10]), ptr<int32_t>(a[11]), ptr<double>(a[12]), ptr<double>(a[13]));
  VOID;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
#define EXPORT(js, fn) exports.Set(js, Napi::Function::New(env, fn, js))
  EXPORT("alloc", Alloc);
  EXPORT("release", Release);
  EXPORT("memStats", MemStats);
  EXPORT("trim", Trim);
  EXPORT("threads", Threads);
  EXPORT("decodeThreads", DecodeThreads);
  EXPORT("decodeStepCounts", DecodeStepCounts);
  EXPORT("gemmKernel", GemmKernel);
  EXPORT("peakGflops", PeakGflops);
  EXPORT("gemm", Gemm);
  EXPORT("embedding", Embedding);
  EXPORT("embeddingBackward", EmbeddingBackward);
  EXPORT("rmsnorm", Rmsnorm);
  EXPORT("rmsnormBackward", RmsnormBackward);
  EXPORT("rope", Rope);
  EXPORT("attention", Attention);
  EXPORT("attentionCached", AttentionCached);
  EXPORT("attentionBackward", AttentionBackward);
  EXPORT("attentionCachedBackward", AttentionCachedBackward);
  EXPORT("swiglu", Swiglu);
  EXPORT("swigluBackward", SwigluBackward);
  EXPORT("logSoftmax", LogSoftmax);
  EXPORT("targetLogprobs", TargetLogprobs);
  EXPORT("targetLogprobsBackward", TargetLogprobsBackward);
  EXPORT("headLogprobs", HeadLogprobs);
  EXPORT("headLogprobsBackward", HeadLogprobsBackward);
  EXPORT("sampleRows", SampleRows);
  EXPORT("adamw", Adamw);
  EXPORT("sumSquares", SumSquares);
  EXPORT("axpy", Axpy);
  EXPORT("add", Add);
  EXPORT("scale", Scale);
  EXPORT("toBf16", ToBf16);
  EXPORT("fromBf16", FromBf16);
  EXPORT("bindStack", BindStack);
  EXPORT("forwardCached", ForwardCached);
  EXPORT("decodeSample", DecodeSample);
  return exports;
}
}  // namespace

NODE_API_MODULE(searchgym_native, Init)
