// The collectives for devices that are threads of one process: the members of a group meet at a
// rendezvous, each posts where its data is and where its result goes, and each reads its peers'
// data straight from their buffers (no copies through a channel). An all-reduce splits the work:
// member j sums the j-th part of the elements, in coordinate order, and writes that part of
// every member's result, so each element is summed once, the same way every run. Members whose
// results are one shared buffer (the replicas of a variable) write each part of it once. A
// member waits at two barriers per collective: after
// all have posted (then sizes are checked: members that disagree all fail with one message),
// and after all have read (so no buffer changes while a peer reads it). A member that stops
// with an error aborts the rendezvous, and every member waiting in it, or arriving later, fails
// instead of waiting forever. With `cores` (device_threads.h), a member gives its core back while
// it waits at a barrier and takes one again before it goes on.
#ifndef WEFT_RT_COMM_THREADS_H
#define WEFT_RT_COMM_THREADS_H
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "comm.h"
#include "device_threads.h"

namespace weft::rt {

class Rendezvous {
 public:
  explicit Rendezvous(std::vector<int64_t> meshSizes, Cores* cores = nullptr)
      : sizes_(std::move(meshSizes)), cores_(cores) {
    for (int64_t n : sizes_) devices_ *= n;
  }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  int64_t devices() const { return devices_; }

  // Makes every waiting and later collective fail with `why` (a device stopped).
  void abort(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!aborted_) reason_ = why;
    aborted_ = true;
    for (auto& entry : groups_) entry.second->arrived.notify_all();
  }

  // Ready for the next call after one that aborted: every member has left (none waits).
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = false;
    for (auto& entry : groups_) entry.second->waiting = 0;
  }

  int64_t coordinate(int64_t device, int k) const {
    for (int d = int(sizes_.size()) - 1; d > k; --d) device /= sizes_[size_t(d)];
    return device % sizes_[size_t(k)];
  }

  // What one member sees of a collective: its peers' posted buffers, in coordinate order.
  struct Posted {
    std::vector<const void*> in;
    std::vector<void*> out;
    std::vector<int64_t> bytes;
  };

  // Posts `in` (of `bytes`) for `device` in its group along meshDim and waits for the others;
  // then `work` runs with every member's post; then waits until every member's work is done.
  template <class Work>
  void meet(int64_t device, int k, const char* op, const void* in, void* out, int64_t bytes, Work&& work) {
    Group& g = group(device, k);
    const int64_t me = coordinate(device, k);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      g.posted.in[size_t(me)] = in;
      g.posted.out[size_t(me)] = out;
      g.posted.bytes[size_t(me)] = bytes;
      wait(g, lock);
    }
    for (int64_t b : g.posted.bytes)
      if (b != bytes) {
        std::string sizes;
        for (size_t j = 0; j < g.posted.bytes.size(); ++j)
          sizes += (j ? ", " : "") + std::to_string(g.posted.bytes[j]);
        fail(g, std::string(op) + ": the devices of a group gave different sizes (" + sizes + " bytes)");
      }
    work(g.posted);
    std::unique_lock<std::mutex> lock(mutex_);
    wait(g, lock);
  }

 private:
  struct Group {
    explicit Group(int64_t members) : members(members) {
      posted.in.resize(size_t(members));
      posted.out.resize(size_t(members));
      posted.bytes.resize(size_t(members));
    }
    int64_t members;
    int64_t waiting = 0;
    std::atomic<uint64_t> generation{0};
    std::condition_variable arrived;
    Posted posted;
  };

  Group& group(int64_t device, int k) {
    // The group's key: the device with coordinate 0 along k.
    int64_t stride = 1;
    for (int d = int(sizes_.size()) - 1; d > k; --d) stride *= sizes_[size_t(d)];
    const int64_t first = device - coordinate(device, k) * stride;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = groups_[{k, first}];
    if (!slot) slot = std::make_unique<Group>(sizes_[size_t(k)]);
    return *slot;
  }

  // A barrier over the group's members (the caller holds the lock). When every device has a core
  // of its own, a member spins a little before it sleeps (spinUntil): the others usually come
  // within microseconds.
  void wait(Group& g, std::unique_lock<std::mutex>& lock) {
    if (aborted_) throw CommError(reason_);
    const uint64_t generation = g.generation.load();
    if (++g.waiting == g.members) {
      g.waiting = 0;
      g.generation.store(generation + 1);
      g.arrived.notify_all();
      return;
    }
    auto met = [&] { return g.generation.load(std::memory_order_acquire) != generation; };
    if (!cores_ || cores_->total() >= devices_) {
      lock.unlock();
      const bool came = spinUntil(met);
      lock.lock();
      if (came) return;
    }
    swapCore(lock, &Cores::release);  // no core is held while waiting for the others
    g.arrived.wait(lock, [&] { return met() || aborted_; });
    const bool ok = met();
    swapCore(lock, &Cores::acquire);
    if (!ok) throw CommError(reason_);
  }

  // Gives back or takes a core outside the rendezvous' lock (Cores has a lock of its own).
  void swapCore(std::unique_lock<std::mutex>& lock, void (Cores::*what)()) {
    if (!cores_) return;
    lock.unlock();
    (cores_->*what)();
    lock.lock();
  }

  [[noreturn]] void fail(Group&, const std::string& why) {
    abort(why);
    throw CommError(why);
  }

  std::vector<int64_t> sizes_;
  Cores* cores_;
  int64_t devices_ = 1;
  std::mutex mutex_;
  bool aborted_ = false;
  std::string reason_;
  std::map<std::pair<int, int64_t>, std::unique_ptr<Group>> groups_;
};

// One device's view of a rendezvous.
class ThreadComm final : public Comm {
 public:
  ThreadComm(Rendezvous& r, int64_t device) : r_(r), device_(device) {}
  int meshRank() const override { return int(r_.sizes().size()); }
  int64_t groupSize(int k) const override { return r_.sizes()[size_t(k)]; }
  int64_t coordinate(int k) const override { return r_.coordinate(device_, k); }
  int64_t device() const override { return device_; }

  void allGather(int k, const void* in, void* out, int64_t bytes) override {
    r_.meet(device_, k, "all_gather", in, out, bytes, [&](const Rendezvous::Posted& p) {
      if (oneResult(p)) {  // each member writes its own block of the buffer they share
        char* mine = static_cast<char*>(out) + coordinate(k) * bytes;
        if (mine != in) std::memcpy(mine, in, size_t(bytes));
        return;
      }
      for (size_t j = 0; j < p.in.size(); ++j) std::memcpy(static_cast<char*>(out) + int64_t(j) * bytes, p.in[j], size_t(bytes));
    });
  }
  void allReduce(int k, DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t members = groupSize(k), me = coordinate(k), size = int64_t(dtypeSize(dtype));
    r_.meet(device_, k, "all_reduce", in, out, n * size, [&](const Rendezvous::Posted& p) {
      const int64_t from = n * me / members, to = n * (me + 1) / members;
      char* mine = static_cast<char*>(out) + from * size;
      sumBlocks(dtype, p, from * size, mine, to - from);
      for (size_t j = 0; j < p.out.size(); ++j)
        if (p.out[j] != out) std::memcpy(static_cast<char*>(p.out[j]) + from * size, mine, size_t((to - from) * size));
    });
  }
  void reduceScatter(int k, DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t members = groupSize(k), me = coordinate(k);
    r_.meet(device_, k, "reduce_scatter", in, out, members * n * int64_t(dtypeSize(dtype)), [&](const Rendezvous::Posted& p) {
      sumBlocks(dtype, p, me * n * int64_t(dtypeSize(dtype)), out, n);
    });
  }
  void allToAll(int k, const void* in, void* out, int64_t bytes) override {
    const int64_t members = groupSize(k), me = coordinate(k);
    r_.meet(device_, k, "all_to_all", in, out, members * bytes, [&](const Rendezvous::Posted& p) {
      for (size_t j = 0; j < p.in.size(); ++j)
        std::memcpy(static_cast<char*>(out) + int64_t(j) * bytes, static_cast<const char*>(p.in[j]) + me * bytes,
                    size_t(bytes));
    });
  }
  // Each member copies its blocks straight from its peers' inputs into place: no staging.
  bool allToAllApart(int k, const void* in, int64_t splitOuter, int64_t splitChunk, int64_t /*concatOuter*/,
                     int64_t concatChunk, void* out) override {
    const int64_t members = groupSize(k), me = coordinate(k), block = splitOuter * splitChunk;
    r_.meet(device_, k, "all_to_all", in, out, members * block, [&](const Rendezvous::Posted& p) {
      char* to = static_cast<char*>(out);
      for (size_t j = 0; j < p.in.size(); ++j) {
        const char* from = static_cast<const char*>(p.in[j]);
        for (int64_t b = 0; b < block;) {  // runs contiguous in both views
          const int64_t sc = b % splitChunk, cc = b % concatChunk, run = std::min(splitChunk - sc, concatChunk - cc);
          std::memcpy(to + (b / concatChunk * members + int64_t(j)) * concatChunk + cc,
                      from + (b / splitChunk * members + me) * splitChunk + sc, size_t(run));
          b += run;
        }
      }
    });
    return true;
  }

 private:
  // The members write one buffer (a replicated variable's, which the devices of one process
  // share): each writes its part once.
  static bool oneResult(const Rendezvous::Posted& p) {
    return std::all_of(p.out.begin(), p.out.end(), [&](void* o) { return o == p.out[0]; });
  }

  // out = the members' n elements at byte `offset`, summed in coordinate order.
  static void sumBlocks(DType dtype, const Rendezvous::Posted& p, int64_t offset, void* out, int64_t n) {
    auto at = [&](size_t j) { return static_cast<const char*>(p.in[j]) + offset; };
    if (p.in.size() == 1) {
      std::memcpy(out, at(0), size_t(n) * dtypeSize(dtype));
      return;
    }
    addInto(dtype, at(0), at(1), out, n);
    for (size_t j = 2; j < p.in.size(); ++j) addInto(dtype, out, at(j), out, n);
  }

  Rendezvous& r_;
  int64_t device_;
};

}  // namespace weft::rt

#endif
