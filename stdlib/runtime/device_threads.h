// The threads a mesh's devices run on, in one process (SPEC §7.1). Each device has a thread of its
// own — device 0 the caller's, the others made once and parked between calls: a device waiting at
// a collective blocks its thread, so devices cannot share one. (The caller computing device 0
// itself saves a hand-off each way: a call wakes one thread fewer, and no thread sits idle.) How many devices compute at once is bounded separately by cores
// (below): a device holds a core while it computes and gives it back while it waits for its
// peers, so a mesh of 8 devices under --threads 2 uses two cores and cannot deadlock.
#ifndef WEFT_RT_DEVICE_THREADS_H
#define WEFT_RT_DEVICE_THREADS_H
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "thread_pool.h"

namespace weft::rt {

// A counting semaphore of cores: acquire() before computing, release() before blocking.
class Cores {
 public:
  explicit Cores(int64_t n) : free_(n), total_(n) {}
  // How many there are from now on (between calls: no device holds or waits for one).
  void reset(int64_t n) {
    std::lock_guard<std::mutex> lock(m_);
    free_ = n;
    total_.store(n);
  }
  int64_t total() const { return total_.load(); }
  void acquire() {
    std::unique_lock<std::mutex> lock(m_);
    freed_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m_);
      ++free_;
    }
    freed_.notify_one();
  }

 private:
  std::mutex m_;
  std::condition_variable freed_;
  int64_t free_;
  std::atomic<int64_t> total_;
};

class DeviceThreads {
 public:
  // Throws std::system_error when the system will not start that many threads (a mesh of tens
  // of thousands of devices), having stopped the ones it started: a joinable thread destroyed
  // with the vector would end the process.
  explicit DeviceThreads(int64_t devices) : devices_(devices) {
    try {
      for (int64_t d = 1; d < devices; ++d) threads_.emplace_back([this, d] { serve(d); });
    } catch (...) {
      stopAll();
      throw;
    }
  }
  ~DeviceThreads() { stopAll(); }
  DeviceThreads(const DeviceThreads&) = delete;
  DeviceThreads& operator=(const DeviceThreads&) = delete;

  int64_t size() const { return devices_; }

  // Runs work(d) for every device d, device 0 on the caller's thread and the others on theirs,
  // and returns when all have returned. `work` must not throw (a device's failure is the
  // caller's to collect). With `spin` (every device has a core of its own), the threads spin a
  // little for the next call and for the last device before they sleep (spinUntil).
  void run(const std::function<void(int64_t)>& work, bool spin) {
    {
      std::lock_guard<std::mutex> lock(m_);
      work_ = &work;
      running_.store(size() - 1);
      spin_.store(spin);
      generation_.fetch_add(1);
    }
    start_.notify_all();
    {
      PoolScope devicesOnly(nullptr);  // the devices hold the cores: no intra-op threads of their own
      work(0);
    }
    if (!spin || !spinUntil([&] { return running_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(m_);
      done_.wait(lock, [&] { return running_.load() == 0; });
    }
    std::lock_guard<std::mutex> lock(m_);
    work_ = nullptr;
  }

 private:
  void stopAll() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void serve(int64_t d) {
    uint64_t seen = 0;
    for (;;) {
      if (spin_.load()) spinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
      const std::function<void(int64_t)>* work;
      {
        std::unique_lock<std::mutex> lock(m_);
        start_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
        if (stop_) return;
        seen = generation_.load();
        work = work_;
      }
      (*work)(d);
      if (running_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(m_);  // the caller is asleep or sees 0 before it sleeps
        done_.notify_one();
      }
    }
  }

  std::mutex m_;
  std::condition_variable start_, done_;
  const std::function<void(int64_t)>* work_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> running_{0};
  std::atomic<bool> spin_{false};
  bool stop_ = false;
  const int64_t devices_;
  std::vector<std::thread> threads_;  // devices 1 .. devices_ - 1
};

}  // namespace weft::rt

#endif
