// Intra-op threads (SPEC §9): a kernel splits its work into chunks and parallelFor runs them on
// the pool the calling thread has entered (PoolScope), or one after another when it has none.
// The chunks are fixed by the kernel's sizes (and a GEMM's by the machine's core count), never by
// the thread count, and each chunk computes the same sums whichever thread runs it: results are
// bit-identical at any --threads.
// The interpreter enters one pool per process on the thread that runs the program; generated code
// one per State. A pool serves one parallelFor at a time: a kernel called inside a chunk, or from a
// second thread while the pool is busy, runs its chunks itself, so nesting cannot oversubscribe or
// deadlock. Workers spin briefly after each job before they sleep (the next kernel usually follows
// within microseconds; waking a sleeping thread costs tens of them on a virtual machine).
#ifndef WEFT_RT_THREAD_POOL_H
#define WEFT_RT_THREAD_POOL_H
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

#include "compiled.h"

namespace weft::rt {

// Spins up to `limit` for done() before the caller sleeps: a peer's next step usually comes within
// microseconds, and waking a sleeping thread costs tens of them on a virtual machine. It yields
// now and then, so that on a loaded machine a peer waiting for this core gets it. True when
// done() came.
template <class Done>
bool spinUntil(Done&& done, std::chrono::microseconds limit = std::chrono::microseconds(100)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (int spins = 1;; ++spins) {
    if (done()) return true;
    if ((spins & 63) != 0) continue;
    if (std::chrono::steady_clock::now() > until) return false;
    if ((spins & 1023) == 0) std::this_thread::yield();
  }
}

class ThreadPool {
 public:
  // `threads` counts the caller: threads - 1 workers are made now and parked.
  explicit ThreadPool(int64_t threads)
      : scratch_(size_t(threads < 1 ? 1 : threads)), cursors_(std::make_unique<Cursor[]>(scratch_.size())) {
    for (int64_t w = 1; w < threads; ++w) workers_.emplace_back([this, w] { serve(int(w)); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int64_t size() const { return int64_t(workers_.size()) + 1; }

  // Scratch memory of worker `worker` (1 and up; the caller, worker 0, uses its own workspace),
  // for kernels that need a workspace per thread (gemm's packing): at least the bytes the job
  // asked for. It only grows, and it grows for every worker before a job starts, whichever
  // chunks each then takes: a steady state allocates nothing.
  Buffer& scratch(int worker) { return scratch_[size_t(worker)]; }

  // Runs fn(chunk, worker) for every chunk in [0, chunks) on the caller and the workers, and
  // returns when all have run; false (nothing run) when the pool is busy. A chunk that throws
  // stops the chunks not yet started; the first exception is rethrown here.
  template <class F>
  bool tryRun(int64_t chunks, F& fn, size_t scratchBytes) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    struct Reset {
      std::atomic<bool>& busy;
      ~Reset() { busy.store(false, std::memory_order_release); }
    } reset{busy_};
    for (size_t w = 1; w < scratch_.size(); ++w)
      if (scratchBytes && !scratch_[w].reserve(scratchBytes)) throw std::bad_alloc();
    job_.call = [](void* f, int64_t chunk, int worker) { (*static_cast<F*>(f))(chunk, worker); };
    job_.fn = &fn;
    job_.chunks = chunks;
    const int64_t threads = size();
    for (int64_t w = 0; w < threads; ++w) {
      cursors_[w].next.store(w * chunks / threads, std::memory_order_relaxed);
      cursors_[w].end = (w + 1) * chunks / threads;
    }
    job_.failed.store(false, std::memory_order_relaxed);
    job_.error = nullptr;
    pending_.store(int64_t(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1);  // seq_cst: ordered against a worker announcing its sleep
    if (sleeping_.load() > 0) {
      std::lock_guard<std::mutex> lock(m_);
      wake_.notify_all();
    }
    work(0);
    for (int spins = 0; pending_.load(std::memory_order_acquire) > 0; ++spins)
      if (spins > 1000) std::this_thread::yield();
    if (job_.error) std::rethrow_exception(job_.error);
    return true;
  }

 private:
  struct Job {
    void (*call)(void*, int64_t, int) = nullptr;
    void* fn = nullptr;
    int64_t chunks = 0;
    std::atomic<bool> failed{false};
    std::mutex errorLock;
    std::exception_ptr error;
  };

  // Worker w's share of a job's chunks, [next, end): one contiguous run, the same run at every
  // call of a kernel, so that a thread computes on what it wrote the call before (Adam's moments
  // of its part of a weight) and on the rows it wrote the kernel before, in its own core's cache.
  // Handing chunks out in turn interleaved them: on a machine whose two cores have L3 caches of
  // their own, the train step's elementwise loops then took 2-3x their one-thread time.
  struct alignas(64) Cursor {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  // Runs worker's own share, then helps with the others' (a thread that starts late, or is
  // preempted, leaves its chunks to whoever is free).
  void work(int worker) {
    const int64_t threads = size();
    for (int64_t k = 0; k < threads; ++k) {
      Cursor& share = cursors_[(worker + k) % threads];
      for (;;) {
        const int64_t c = share.next.fetch_add(1, std::memory_order_relaxed);
        if (c >= share.end || job_.failed.load(std::memory_order_relaxed)) break;
        try {
          job_.call(job_.fn, c, worker);
        } catch (...) {
          std::lock_guard<std::mutex> lock(job_.errorLock);
          if (!job_.failed.exchange(true)) job_.error = std::current_exception();
        }
      }
    }
  }

  void serve(int worker) {
    uint64_t seen = 0;
    for (;;) {
      if (!spinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; })) {
        std::unique_lock<std::mutex> lock(m_);
        sleeping_.fetch_add(1);
        wake_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
        sleeping_.fetch_sub(1);
        if (stop_) return;
      }
      seen = generation_.load(std::memory_order_acquire);
      work(worker);
      pending_.fetch_sub(1, std::memory_order_release);
    }
  }

  std::vector<Buffer> scratch_;
  std::unique_ptr<Cursor[]> cursors_;  // one per thread, the caller's first
  std::vector<std::thread> workers_;
  Job job_;
  std::atomic<bool> busy_{false};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> pending_{0}, sleeping_{0};
  std::mutex m_;
  std::condition_variable wake_;
  bool stop_ = false;
};

// The pool the calling thread's kernels split their work on (null: none, they run on this thread).
inline ThreadPool*& currentPool() {
  static thread_local ThreadPool* pool = nullptr;
  return pool;
}

// Enters `pool` (or none) for the scope's lifetime.
class PoolScope {
 public:
  explicit PoolScope(ThreadPool* pool) : outer_(currentPool()) { currentPool() = pool; }
  ~PoolScope() { currentPool() = outer_; }
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;

 private:
  ThreadPool* outer_;
};

// Runs fn(chunk, worker) for chunk in [0, chunks): on the current pool when there is one and it
// is free, else in order on this thread (worker 0). `worker` says whose scratch a chunk may use:
// worker 0 the caller's own, the others pool->scratch(worker), of `scratchBytes` at least.
template <class F>
void parallelFor(int64_t chunks, F&& fn, size_t scratchBytes = 0) {
  ThreadPool* pool = currentPool();
  if (chunks > 1 && pool && pool->size() > 1) {
    // A chunk that calls another kernel runs that kernel's chunks itself.
    PoolScope inside(nullptr);
    if (pool->tryRun(chunks, fn, scratchBytes)) return;
  }
  for (int64_t c = 0; c < chunks; ++c) fn(c, 0);
}

// The most threads a pool may have (more than the cores is allowed: they share them).
inline constexpr int64_t kMostThreads = 4096;

// The cores this process may run on: the CPUs of its affinity mask (taskset, a container's
// cpuset, mpirun's binding), fewer when its cgroup's CPU quota (cpu.max: `docker --cpus=2`) allows
// fewer. std::thread::hardware_concurrency() counts the machine's CPUs whatever the process may
// use: two threads per allowed core would spin beside each other. Asked once (the files are read
// once per process).
inline int64_t usableCores() {
  static const int64_t cores = [] {
    int64_t n = std::max<int64_t>(1, int64_t(std::thread::hardware_concurrency()));
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) n = std::min<int64_t>(n, CPU_COUNT(&set));
#endif
    // cgroup v2: the process's group ("0::/PATH" in /proc/self/cgroup) and each above it may cap
    // it, in cpu.max: "QUOTA PERIOD" in microseconds, or "max PERIOD" for no cap.
    std::string group;
    if (std::FILE* f = std::fopen("/proc/self/cgroup", "r")) {
      char line[4096];
      while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "0::", 3) == 0) group.assign(line + 3, std::strcspn(line + 3, "\n"));
      std::fclose(f);
    }
    for (;;) {
      if (std::FILE* f = std::fopen(("/sys/fs/cgroup" + group + "/cpu.max").c_str(), "r")) {
        char quota[32] = {};
        long long period = 0;
        if (std::fscanf(f, "%31s %lld", quota, &period) == 2 && period > 0 && std::strcmp(quota, "max") != 0) {
          const long long q = std::atoll(quota);
          if (q > 0) n = std::min<int64_t>(n, std::max<int64_t>(1, (q + period - 1) / period));
        }
        std::fclose(f);
      }
      const size_t up = group.find_last_of('/');
      if (group.empty() || up == std::string::npos) break;
      group.resize(up);  // "/a/b" -> "/a" -> "" (the root, which has no cpu.max)
    }
    return n;
  }();
  return cores;
}

// The threads a pool asked for `threads` makes: no more than twice the usable cores (at least
// 8). Chunks do not depend on it, and many more threads than cores would only spin beside each
// other (--threads 4096 on two cores asks for them).
inline int64_t poolThreads(int64_t threads) {
  return std::max<int64_t>(1, std::min(threads, std::max<int64_t>(8, 2 * usableCores())));
}

// WEFT_NUM_THREADS's count in `n` (0 when it is not set), or what is wrong with it.
inline std::string threadsVariable(int64_t& n) {
  n = 0;
  const char* text = std::getenv("WEFT_NUM_THREADS");
  if (!text) return "";
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (*text < '0' || *text > '9' || *end || errno || v < 1 || v > kMostThreads)
    return "WEFT_NUM_THREADS must be a number of threads, 1 to " + std::to_string(kMostThreads);
  n = v;
  return "";
}

// Why `threads` is not a thread count Weft takes, or "".
inline std::string threadsMisfit(int64_t threads) {
  if (threads >= 1 && threads <= kMostThreads) return "";
  return "a thread count must be 1 to " + std::to_string(kMostThreads) + ", not " + std::to_string(threads);
}

// `threads` when set (not 0), else WEFT_NUM_THREADS's count, else one per usable core.
inline int64_t threadsOrDefault(int64_t threads) {
  if (threads == 0 && !threadsVariable(threads).empty()) threads = 0;  // State::load reported it
  return threads ? threads : usableCores();
}

// The pool a generated program's State owns: made at the first call that asks for it, with the
// count set() gave, else WEFT_NUM_THREADS's, else one per usable core; made again only when set() changes it.
class OwnedPool {
 public:
  Status set(int64_t threads) {
    if (std::string why = threadsMisfit(threads); !why.empty()) return Status::error(why);
    if (threads != threads_) pool_.reset();
    threads_ = threads;
    return {};
  }
  ThreadPool* get() {
    if (!pool_) pool_ = std::make_unique<ThreadPool>(poolThreads(threadsOrDefault(threads_)));
    return pool_.get();
  }

 private:
  std::unique_ptr<ThreadPool> pool_;
  int64_t threads_ = 0;
};

// The chunks of n items at `size` items a chunk.
inline int64_t chunkCount(int64_t n, int64_t size) { return n <= 0 ? 0 : (n + size - 1) / size; }

// Elementwise loops split into blocks of this many values (128 KiB of f32: a hand-off's cost is
// small beside it; a multiple of every packet size, so blocks start as aligned as the buffer).
inline constexpr int64_t kElementwiseBlock = 32768;

// Runs fn(begin, end) over [0, n) in blocks of `block` items, on the current pool.
template <class F>
void parallelRange(int64_t n, int64_t block, F&& fn) {
  parallelFor(chunkCount(n, block), [&](int64_t chunk, int) {
    const int64_t begin = chunk * block;
    fn(begin, std::min(n, begin + block));
  });
}

}  // namespace weft::rt

#endif  // WEFT_RT_THREAD_POOL_H
