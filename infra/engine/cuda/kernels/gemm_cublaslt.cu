// infra/engine/cuda/kernels/gemm_cublaslt.cu: the frozen-base GEMMs (bf16 inputs, fp32 accumulate and output) through
// cuBLASLt, opened with dlopen at run time so nothing of cuBLAS is needed to build (the entry points and enum values
// used are declared here). Row-major C[M,N] = alpha·op(A)op(B) + beta·C is issued as the column-major Cᵀ = op(B)ᵀop(A)ᵀ.
// In the emulated build (SG_EMU) the same call goes to the host reference GEMM (host/reference.cpp), as the issue asks.
#include "common.cuh"

#ifdef SG_EMU
void sg_ref_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                      float *C);
static const char *gLastError = "";
int sg_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                 float *C, void *stream) {
  (void)stream;
  if (M < 0 || N < 0 || K < 0) {
    gLastError = "negative GEMM dimension";
    return -1;
  }
  sg_ref_gemm_bf16(transA, transB, M, N, K, alpha, A, B, beta, C);
  return 0;
}
const char *sg_gemm_error() { return gLastError; }
int sg_gemm_f32_cublaslt(int, int, int, int, int, float, const float *, const float *, float, float *, void *) { return -1; }
#else
#include <dlfcn.h>

#include <cstdio>
#include <mutex>

namespace {
typedef void *LtHandle;
typedef void *LtDesc;
typedef void *LtLayout;
typedef int (*FnCreate)(LtHandle *);
typedef int (*FnDescCreate)(LtDesc *, int computeType, int scaleType);
typedef int (*FnDescSet)(LtDesc, int attr, const void *buf, size_t size);
typedef int (*FnDescDestroy)(LtDesc);
typedef int (*FnLayoutCreate)(LtLayout *, int type, uint64_t rows, uint64_t cols, int64_t ld);
typedef int (*FnLayoutDestroy)(LtLayout);
typedef int (*FnMatmul)(LtHandle, LtDesc, const void *alpha, const void *A, LtLayout, const void *B, LtLayout, const void *beta,
                        const void *C, LtLayout, void *D, LtLayout, const void *algo, void *ws, size_t wsSize, cudaStream_t);
// Values from cublasLt.h / library_types.h (stable across CUDA 11–13).
const int kCompute32F = 68, kR32F = 0, kR16BF = 14, kOpN = 0, kOpT = 1, kTransA = 3, kTransB = 4;
const size_t kWorkspace = 32u << 20;

struct Lt {
  bool tried = false, ok = false;
  char err[256] = "";
  LtHandle handle = nullptr;
  void *ws = nullptr;
  FnCreate create;
  FnDescCreate descCreate;
  FnDescSet descSet;
  FnDescDestroy descDestroy;
  FnLayoutCreate layoutCreate;
  FnLayoutDestroy layoutDestroy;
  FnMatmul matmul;
} gLt;
std::mutex gMu;
char gErr[256] = "";

bool loadLt() {
  std::lock_guard<std::mutex> lock(gMu);
  if (gLt.tried) return gLt.ok;
  gLt.tried = true;
  const char *names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", "/usr/local/cuda/lib64/libcublasLt.so"};
  void *lib = nullptr;
  for (const char *n : names)
    if ((lib = dlopen(n, RTLD_NOW | RTLD_GLOBAL))) break;
  if (!lib) {
    std::snprintf(gLt.err, sizeof gLt.err, "cuBLASLt not found (dlopen libcublasLt.so.13/.12): %s", dlerror());
    return false;
  }
#define SG_SYM(field, name)                                                                    \
  if (!(gLt.field = (decltype(gLt.field))dlsym(lib, name))) {                                  \
    std::snprintf(gLt.err, sizeof gLt.err, "cuBLASLt lacks %s", name);                         \
    return false;                                                                              \
  }
  SG_SYM(create, "cublasLtCreate")
  SG_SYM(descCreate, "cublasLtMatmulDescCreate")
  SG_SYM(descSet, "cublasLtMatmulDescSetAttribute")
  SG_SYM(descDestroy, "cublasLtMatmulDescDestroy")
  SG_SYM(layoutCreate, "cublasLtMatrixLayoutCreate")
  SG_SYM(layoutDestroy, "cublasLtMatrixLayoutDestroy")
  SG_SYM(matmul, "cublasLtMatmul")
#undef SG_SYM
  int st = gLt.create(&gLt.handle);
  if (st != 0) {
    std::snprintf(gLt.err, sizeof gLt.err, "cublasLtCreate failed (status %d)", st);
    return false;
  }
  if (cudaMalloc(&gLt.ws, kWorkspace) != cudaSuccess) {
    std::snprintf(gLt.err, sizeof gLt.err, "cudaMalloc of the %zu-byte cuBLASLt workspace failed", kWorkspace);
    return false;
  }
  gLt.ok = true;
  return true;
}
}  // namespace

static int ltMatmul(int inType, int transA, int transB, int M, int N, int K, float alpha, const void *A, const void *B, float beta,
                    float *C, void *stream) {
  if (M == 0 || N == 0) return 0;
  if (!loadLt()) {
    std::snprintf(gErr, sizeof gErr, "%s", gLt.err);
    return -1;
  }
  // Column-major view: Cᶜ [N,M] = X [N,K] · Y [K,M] with X = op(B)ᵀ, Y = op(A)ᵀ.
  const int opX = transB ? kOpT : kOpN, opY = transA ? kOpT : kOpN;
  LtDesc desc = nullptr;
  LtLayout lx = nullptr, ly = nullptr, lc = nullptr;
  int st = gLt.descCreate(&desc, kCompute32F, kR32F);
  if (!st) st = gLt.descSet(desc, kTransA, &opX, sizeof opX);
  if (!st) st = gLt.descSet(desc, kTransB, &opY, sizeof opY);
  if (!st) st = transB ? gLt.layoutCreate(&lx, inType, K, N, K) : gLt.layoutCreate(&lx, inType, N, K, N);
  if (!st) st = transA ? gLt.layoutCreate(&ly, inType, M, K, M) : gLt.layoutCreate(&ly, inType, K, M, K);
  if (!st) st = gLt.layoutCreate(&lc, kR32F, N, M, N);
  if (!st)
    st = gLt.matmul(gLt.handle, desc, &alpha, B, lx, A, ly, &beta, C, lc, C, lc, nullptr, gLt.ws, kWorkspace,
                    (cudaStream_t)stream);
  if (st) std::snprintf(gErr, sizeof gErr, "cublasLtMatmul M=%d N=%d K=%d failed (status %d)", M, N, K, st);
  if (lc) gLt.layoutDestroy(lc);
  if (ly) gLt.layoutDestroy(ly);
  if (lx) gLt.layoutDestroy(lx);
  if (desc) gLt.descDestroy(desc);
  return st ? -1 : 0;
}

int sg_gemm_bf16(int transA, int transB, int M, int N, int K, float alpha, const sg_bf16 *A, const sg_bf16 *B, float beta,
                 float *C, void *stream) {
  return ltMatmul(kR16BF, transA, transB, M, N, K, alpha, A, B, beta, C, stream);
}

int sg_gemm_f32_cublaslt(int transA, int transB, int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                         float *C, void *stream) {
  return ltMatmul(kR32F, transA, transB, M, N, K, alpha, A, B, beta, C, stream);
}

const char *sg_gemm_error() { return gErr; }
#endif
