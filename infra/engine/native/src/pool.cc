// infra/engine/native/src/pool: the thread pool behind parallelFor (see pool.h). One job at a time; the
// caller runs share 0 and waits for the others. Both sides spin briefly before sleeping on a condition variable
// (POOL_SPIN_US): a worker that just finished a job finds the next one of a run of small jobs (the decode steps of a
// sampling call come every ~0.1–1 ms) without a futex wake-up, and the caller sees the last share end without one.
#include "pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace sg {
namespace {
/** True on a thread while it runs a share of a pool job: a parallelFor inside one runs inline (a nested job would
 *  wait for the pool it is part of). */
thread_local bool inJob = false;

/** How long a worker spins for the next job after finishing one, and the caller for the last share, before sleeping. */
constexpr double POOL_SPIN_US = 50;
inline void cpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
/** Spin until pred() or POOL_SPIN_US have passed; returns pred(). */
template <class P>
bool spinFor(P pred) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 1;; i++) {
    if (pred()) return true;
    cpuPause();
    if (i % 32 == 0 && std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() > POOL_SPIN_US) return pred();
  }
}

struct Pool {
  std::mutex mu;
  std::condition_variable cv, done;
  std::vector<std::thread> workers;
  const std::function<void(int, int)>* job = nullptr;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> pending{0};
  int size = 1;  // threads including the caller
  bool stop = false;

  void start(int n) {
    size = n < 1 ? 1 : n;
    const uint64_t gen = generation.load();  // new workers must not rerun the last (finished) job
    for (int t = 1; t < size; t++) workers.emplace_back([this, t, gen] { loop(t, gen); });
  }
  void shutdown() {
    {
      std::lock_guard<std::mutex> g(mu);
      stop = true;
    }
    cv.notify_all();
    for (auto& w : workers) w.join();
    workers.clear();
    stop = false;
  }
  void loop(int t, uint64_t seen) {
    for (;;) {
      const std::function<void(int, int)>* j;
      int T;
      spinFor([&] { return generation.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> g(mu);
        cv.wait(g, [&] { return stop || generation.load() != seen; });
        if (stop) return;
        seen = generation;
        j = job;
        T = size;
      }
      inJob = true;
      (*j)(t, T);
      inJob = false;
      {
        std::lock_guard<std::mutex> g(mu);
        if (--pending == 0) done.notify_one();
      }
    }
  }
  std::mutex runMu;  // one job at a time (several Node threads may call in)
  void run(const std::function<void(int, int)>& fn) {
    std::lock_guard<std::mutex> serial(runMu);
    if (size == 1) {
      fn(0, 1);
      return;
    }
    {
      std::lock_guard<std::mutex> g(mu);
      job = &fn;
      pending = size - 1;
      generation++;
    }
    cv.notify_all();
    inJob = true;
    fn(0, size);
    inJob = false;
    if (spinFor([&] { return pending.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> g(mu);
    done.wait(g, [&] { return pending.load() == 0; });
  }
};

Pool& pool() {
  static Pool* p = [] {
    auto* q = new Pool();
    int n = (int)std::thread::hardware_concurrency();
    if (const char* e = std::getenv("SEARCHGYM_NATIVE_THREADS")) n = std::atoi(e);
    q->start(n < 1 ? 1 : n);
    return q;
  }();
  return *p;
}
}  // namespace

int numThreads() { return pool().size; }

void setNumThreads(int n) {
  Pool& p = pool();
  if (n < 1) n = 1;
  if (n == p.size) return;
  p.shutdown();
  p.start(n);
}

void parallelThreads(const std::function<void(int, int)>& fn) {
  if (inJob) {  // nested: this thread is one share of an outer job; run every share here, in order
    for (int t = 0, T = pool().size; t < T; t++) fn(t, T);
    return;
  }
  pool().run(fn);
}

bool inParallelJob() { return inJob; }

void parallelFor(int64_t n, double work, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || work < MIN_PARALLEL_WORK || inJob || numThreads() == 1) {
    fn(0, n);
    return;
  }
  parallelThreads([&](int t, int T) {
    int64_t b = n * t / T, e = n * (t + 1) / T;
    if (b < e) fn(b, e);
  });
}
}  // namespace sg
