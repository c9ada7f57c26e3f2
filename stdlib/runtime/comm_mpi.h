// The collectives for devices that are MPI ranks (SPEC §7.1, across processes), one device per
// rank: device d is rank d of `world`, in the mesh's row-major order. Each mesh dimension has a
// communicator of its own, split from `world` by the device's other coordinates and ordered by
// its coordinate along that dimension, so a group's members are the ranks that differ only
// there, in coordinate order, as comm.h asks. Each collective is one MPI call on it — no staging
// copy, no extra message — so it costs what the MPI library's own collective costs
// (bench/mpi_collective_bench.cpp measures the two side by side).
//
// Sizes are not checked across ranks (the threads back-end checks them, comm_threads.h): every
// rank runs the same partitioned program, so its collectives have the same sizes on every rank,
// and a check would be a second message per collective. An MPI error is a CommError.
#ifndef WEFT_RT_COMM_MPI_H
#define WEFT_RT_COMM_MPI_H
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "comm.h"

namespace weft::rt {

// Called before MPI_Init: Open MPI's ranks poll while they wait in a collective unless they yield
// the core at each turn (mpi_yield_when_idle, on by itself only when mpirun starts more ranks than
// slots). On cores shared with other work, a polling rank keeps the core from the rank it waits for
// until the scheduler takes it away: on the 2-core machine of docs/distributed.md ("Speed") a
// data-parallel step under load took 150 ms polling and 31 ms yielding. A value the user gave
// (`mpirun --mca mpi_yield_when_idle 0`, or the environment) is kept.
inline void yieldWhileWaiting() { setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0); }

class MpiComm final : public Comm {
 public:
  // `world`'s size must equal the mesh's device count (a CommError otherwise).
  MpiComm(std::vector<int64_t> meshSizes, MPI_Comm world) : sizes_(std::move(meshSizes)) {
    int rank = 0, ranks = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &ranks);
    int64_t devices = 1;
    for (int64_t n : sizes_) devices *= n;
    if (devices != ranks)
      throw CommError("the mesh has " + std::to_string(devices) + " devices and MPI " + std::to_string(ranks) +
                      " ranks: one device per rank");
    device_ = rank;
    for (int k = 0; k < meshRank(); ++k) {
      // The device with its coordinate along k set to 0 names the group; the coordinate orders it.
      const int64_t color = device_ - coordinate(k) * stride(k);
      MPI_Comm c;
      check(MPI_Comm_split(world, int(color), int(coordinate(k)), &c), "MPI_Comm_split");
      MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
      comms_.push_back(c);
      counts_.emplace_back(size_t(groupSize(k)));
    }
  }
  ~MpiComm() override {
    int done = 0;  // a communicator that outlives MPI (a static's) has nothing left to free
    MPI_Finalized(&done);
    if (!done)
      for (MPI_Comm& c : comms_) MPI_Comm_free(&c);
  }
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int meshRank() const override { return int(sizes_.size()); }
  int64_t groupSize(int k) const override { return sizes_[size_t(k)]; }
  int64_t coordinate(int k) const override { return device_ / stride(k) % sizes_[size_t(k)]; }
  int64_t device() const override { return device_; }

  void allGather(int k, const void* in, void* out, int64_t bytes) override {
    check(MPI_Allgather(in, count(bytes), MPI_BYTE, out, count(bytes), MPI_BYTE, comms_[size_t(k)]),
          "MPI_Allgather");
  }
  void allReduce(int k, DType dtype, const void* in, void* out, int64_t n) override {
    check(MPI_Allreduce(in, out, count(n), type(dtype), op(dtype), comms_[size_t(k)]), "MPI_Allreduce");
  }
  void reduceScatter(int k, DType dtype, const void* in, void* out, int64_t n) override {
    // MPI_Reduce_scatter, not _block: Open MPI's _block is several times slower on large buffers.
    std::vector<int>& counts = counts_[size_t(k)];  // made once: a call allocates nothing
    std::fill(counts.begin(), counts.end(), count(n));
    check(MPI_Reduce_scatter(in, out, counts.data(), type(dtype), op(dtype), comms_[size_t(k)]),
          "MPI_Reduce_scatter");
  }
  void allToAll(int k, const void* in, void* out, int64_t bytes) override {
    check(MPI_Alltoall(in, count(bytes), MPI_BYTE, out, count(bytes), MPI_BYTE, comms_[size_t(k)]), "MPI_Alltoall");
  }

 private:
  int64_t stride(int k) const {
    int64_t s = 1;
    for (int d = meshRank() - 1; d > k; --d) s *= sizes_[size_t(d)];
    return s;
  }
  // MPI counts are ints: a larger block is an error, not a truncated message.
  static int count(int64_t n) {
    if (n < 0 || n > INT_MAX) throw CommError("a collective of " + std::to_string(n) + " elements is past MPI's int counts");
    return int(n);
  }
  static MPI_Datatype type(DType t) {
    switch (t) {
      case DType::F32: return MPI_FLOAT;
      case DType::F64: return MPI_DOUBLE;
      case DType::I32: return MPI_INT32_T;
      case DType::I64: return MPI_INT64_T;
      case DType::Bool: return MPI_C_BOOL;
    }
    return MPI_BYTE;
  }
  static MPI_Op op(DType t) { return t == DType::Bool ? MPI_LOR : MPI_SUM; }  // addInto's bool is "or"
  static void check(int status, const char* call) {
    if (status == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw CommError(std::string(call) + " failed: " + std::string(text, size_t(length)));
  }

  std::vector<int64_t> sizes_;
  int64_t device_ = 0;
  std::vector<MPI_Comm> comms_;  // one per mesh dimension
  std::vector<std::vector<int>> counts_;  // MPI_Reduce_scatter's per member, per mesh dimension
};

}  // namespace weft::rt

#endif
