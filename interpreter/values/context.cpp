#include "context.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "stdlib/runtime/thread_pool.h"

namespace weft {
namespace {

// Counters no context holds and no storage counts in; they never go back to the heap.
struct CounterPool {
  std::mutex lock;
  std::vector<LiveBytes*> free;
  std::vector<LiveBytes*> retired;  // let go of by a context while storages still counted in them
};
CounterPool& pool() {
  static CounterPool* p = new CounterPool;  // outlives every thread's context
  return *p;
}

ExecutionContext* current() {
  thread_local ExecutionContext own;
  return &own;
}
thread_local ExecutionContext* tCurrent = nullptr;

}  // namespace

ExecutionContext::ExecutionContext(const MemoryLimits& l) : limits(l) {
  CounterPool& p = pool();
  std::lock_guard<std::mutex> held(p.lock);
  for (size_t i = 0; i < p.retired.size(); ++i)  // storages that outlived their context have gone
    if (p.retired[i]->bytes == 0) {
      p.free.push_back(p.retired[i]);
      p.retired.erase(p.retired.begin() + long(i--));
    }
  if (p.free.empty()) {
    liveBytes = new LiveBytes;
  } else {
    liveBytes = p.free.back();
    p.free.pop_back();
  }
}

ExecutionContext::~ExecutionContext() {
  CounterPool& p = pool();
  std::lock_guard<std::mutex> held(p.lock);
  (liveBytes->bytes == 0 ? p.free : p.retired).push_back(liveBytes);
}

ExecutionContext& context() { return tCurrent ? *tCurrent : *current(); }

int64_t threadsToUse() {
  // Ranks that mpirun started on one machine share its cores (unless it bound each to its own).
  static const int64_t cores = [] {
    int64_t all = rt::usableCores(), ranks = 1;
    if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) ranks = std::max(1L, std::atol(local));
    return std::max<int64_t>(1, all / ranks);
  }();
  const int64_t n = context().threads;
  return n > 0 ? n : cores;
}

void enterKernelThreads() {
  static rt::ThreadPool pool(rt::poolThreads(threadsToUse()));
  rt::currentPool() = &pool;
}

ContextScope::ContextScope(ExecutionContext& c) : outer_(tCurrent) { tCurrent = &c; }
ContextScope::~ContextScope() { tCurrent = outer_; }

}  // namespace weft
