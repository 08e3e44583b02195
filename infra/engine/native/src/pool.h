// infra/engine/native/src/pool: a fixed thread pool with static partitioning. parallelFor(n, fn) gives task
// range [t·n/T, (t+1)·n/T) to thread t (thread 0 is the caller), so which thread computes which output is a
// pure function of n and T — and every kernel keeps each output's reduction inside one task, in a fixed order,
// so results are bit-identical whatever the thread count.
#pragma once
#include <cstdint>
#include <functional>

namespace sg {
/** Worker threads including the caller (default: hardware concurrency, env SEARCHGYM_NATIVE_THREADS). */
int numThreads();
void setNumThreads(int n);
/** fn(begin, end) over [0, n) split into numThreads() contiguous static ranges; returns when all are done.
 *  work: an estimate of the whole loop's cost in flops (or bytes); below MIN_PARALLEL_WORK it runs inline, since
 *  waking a worker costs more than small ops (and much more on a loaded machine). */
void parallelFor(int64_t n, double work, const std::function<void(int64_t, int64_t)>& fn);
constexpr double MIN_PARALLEL_WORK = 4e6;
/** fn(t, T) once per thread t of T (for per-thread scratch). Inside a share of another job every share runs on the
 *  calling thread, in order. */
void parallelThreads(const std::function<void(int, int)>& fn);
/** True while the calling thread runs a share of a pool job (nested parallel loops run inline). */
bool inParallelJob();
}  // namespace sg
