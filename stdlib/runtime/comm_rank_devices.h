// The collectives of a device of a rank that holds several devices of a mesh (SPEC §7.1), for the
// interpreter under mpirun (interpreter/spmd/device_comms.h) and generated code (ranks.h): the
// rank's devices meet in memory (a comm_threads.h rendezvous of their own), and its first device,
// on the thread that calls MPI, exchanges all of their data with the other ranks in one
// all-gather; then each device computes its result from its group's data, summing in coordinate
// order as the threads do. (That moves every device's data to every rank: correct for any mesh
// and any division of it, not the least traffic.) The exchange's buffers only grow, so a
// collective of a size seen before allocates nothing.
#ifndef WEFT_RT_COMM_RANK_DEVICES_H
#define WEFT_RT_COMM_RANK_DEVICES_H
#include <cstring>
#include <vector>

#include "comm_threads.h"

namespace weft::rt {

// What a rank's devices share: the all-gather across ranks, and its buffers.
struct RankExchange {
  // Each rank's `bytes` at `in`, in rank order at `out` (ranks * bytes).
  void (*allGather)(const void* in, void* out, int64_t bytes);
  int64_t ranks;
  std::vector<char> mine, gathered;  // this rank's devices' data; every rank's
};

class RankDeviceComm final : public Comm {
 public:
  // `local` is a rendezvous of this rank's devices alone (a 1-D mesh of them); `first` its first.
  RankDeviceComm(std::vector<int64_t> meshSizes, Rendezvous& local, RankExchange& exchange, int64_t device,
                 int64_t first)
      : sizes_(std::move(meshSizes)), local_(local), x_(exchange), device_(device), first_(first) {}

  int meshRank() const override { return int(sizes_.size()); }
  int64_t groupSize(int k) const override { return sizes_[size_t(k)]; }
  int64_t coordinate(int k) const override { return device_ / stride(k) % sizes_[size_t(k)]; }
  int64_t device() const override { return device_; }

  void allGather(int k, const void* in, void* out, int64_t bytes) override {
    const char* all = exchange("all_gather", in, bytes);
    for (int64_t j = 0; j < groupSize(k); ++j)
      std::memcpy(static_cast<char*>(out) + j * bytes, all + member(k, j) * bytes, size_t(bytes));
  }
  void allReduce(int k, DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t bytes = n * int64_t(dtypeSize(dtype));
    sum(k, dtype, exchange("all_reduce", in, bytes), bytes, 0, out, n);
  }
  void reduceScatter(int k, DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t block = n * int64_t(dtypeSize(dtype)), bytes = groupSize(k) * block;
    sum(k, dtype, exchange("reduce_scatter", in, bytes), bytes, coordinate(k) * block, out, n);
  }
  void allToAll(int k, const void* in, void* out, int64_t bytes) override {
    const int64_t total = groupSize(k) * bytes;
    const char* all = exchange("all_to_all", in, total);
    for (int64_t j = 0; j < groupSize(k); ++j)
      std::memcpy(static_cast<char*>(out) + j * bytes, all + member(k, j) * total + coordinate(k) * bytes,
                  size_t(bytes));
  }

 private:
  int64_t stride(int k) const {
    int64_t s = 1;
    for (size_t d = size_t(k) + 1; d < sizes_.size(); ++d) s *= sizes_[d];
    return s;
  }
  // The device at coordinate j of this device's group along k.
  int64_t member(int k, int64_t j) const { return device_ + (j - coordinate(k)) * stride(k); }

  // Every device's `bytes` from `in`, in device order: this rank's devices meet (and check their
  // sizes agree), and the first sends theirs to every rank and receives the others'. The buffer
  // stays as it is until every device of the rank has come to the next collective.
  const char* exchange(const char* op, const void* in, int64_t bytes) {
    local_.meet(device_ - first_, 0, op, in, nullptr, bytes, [&](const Rendezvous::Posted& p) {
      if (device_ != first_) return;
      x_.mine.resize(p.in.size() * size_t(bytes));
      for (size_t j = 0; j < p.in.size(); ++j) std::memcpy(x_.mine.data() + j * size_t(bytes), p.in[j], size_t(bytes));
      x_.gathered.resize(x_.mine.size() * size_t(x_.ranks));
      x_.allGather(x_.mine.data(), x_.gathered.data(), int64_t(x_.mine.size()));
    });
    return x_.gathered.data();
  }

  // out = the group's n elements at byte `offset` of each member's `bytes`, summed in coordinate order.
  void sum(int k, DType dtype, const char* all, int64_t bytes, int64_t offset, void* out, int64_t n) const {
    auto at = [&](int64_t j) { return all + member(k, j) * bytes + offset; };
    if (groupSize(k) == 1) {
      std::memcpy(out, at(0), size_t(n) * dtypeSize(dtype));
      return;
    }
    addInto(dtype, at(0), at(1), out, n);
    for (int64_t j = 2; j < groupSize(k); ++j) addInto(dtype, out, at(j), out, n);
  }

  std::vector<int64_t> sizes_;
  Rendezvous& local_;
  RankExchange& x_;
  int64_t device_, first_;
};

}  // namespace weft::rt

#endif
