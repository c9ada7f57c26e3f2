// The processes a generated SPMD program runs on (SPEC §7.1, docs/distributed.md). Started by
// mpirun on N ranks (N > 1 dividing the mesh's D devices), in a program built with MPI
// (WEFT_RT_MPI, which the generated CMakeLists defines when CMake finds MPI), rank r runs devices
// r*k .. r*k+k-1 (k = D/N), each on a thread of its own, and their collectives cross ranks
// (comm_mpi.h for one device per rank, comm_rank_devices.h for several); otherwise the one
// process runs every device, each on a thread of its own (comm_threads.h), and everything here
// but ranks() and localDevices() does nothing. Rank 0 is the caller's view: it holds the global
// inputs and receives the global outputs (unless every rank holds them); the helpers below move
// blocks and errors between it and the other ranks. Errors agree: every rank returns the same status, so every rank takes the
// same path after a call. Only the caller's thread, which runs a rank's first device, calls MPI.
#ifndef WEFT_RT_RANKS_H
#define WEFT_RT_RANKS_H
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef WEFT_RT_MPI
#include "comm_mpi.h"
#endif
#include "comm_rank_devices.h"
#include "compiled.h"
#include "shards.h"

namespace weft::rt {

struct Ranks {
  int count = 1, index = 0;  // mpirun's ranks and this one's (1 and 0 without mpirun)
  bool mpi = false;          // whether MPI carries the devices' collectives
  std::string error;         // why these ranks cannot run the program (built without MPI), or ""
};

namespace detail {
inline void finishMpi() {
#ifdef WEFT_RT_MPI
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
#endif
}
}  // namespace detail

// This process's rank, MPI started at the first call when mpirun started several (and ended at
// exit, unless the program started it itself).
inline const Ranks& ranks() {
  static const Ranks started = [] {
    Ranks r;
    // mpirun tells each process it starts how many there are; a process it did not start is alone.
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!size || std::atoi(size) <= 1) return r;
#ifdef WEFT_RT_MPI
    (void)rank;
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) {
      int provided = 0;
      yieldWhileWaiting();
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      std::atexit(detail::finishMpi);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &r.count);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.index);
    r.mpi = true;
#else
    r.count = std::atoi(size);
    r.index = rank ? std::atoi(rank) : 0;  // so that one rank says why
    r.error = std::string("mpirun started ") + size +
              " ranks, but this program was built without MPI (install an MPI library, such as Debian's "
              "libopenmpi-dev, and configure and build it again)";
#endif
    return r;
  }();
  return started;
}

// The devices of a mesh of `devices` this process runs: first .. first + count - 1.
inline Status localDevices(int64_t devices, int64_t& first, int64_t& count) {
  const Ranks& r = ranks();
  if (!r.error.empty()) return Status::error(r.error);
  first = 0;
  count = devices;
  if (!r.mpi) return {};
  if (devices % r.count != 0)
    return Status::error("the mesh has " + std::to_string(devices) + " devices and mpirun started " +
                         std::to_string(r.count) + " ranks, which do not divide them: run with a number of ranks " +
                         "that divides " + std::to_string(devices));
  count = devices / r.count;
  first = r.index * count;
  return {};
}

// Each rank's `bytes` at `in`, in rank order at `out`.
inline void allGatherRanks(const void* in, void* out, int64_t bytes);

// The communicators of this rank's devices under MPI: one device's is MPI's own (comm_mpi.h);
// several meet in memory and exchange with the other ranks (comm_rank_devices.h). Every rank
// makes them at the same point.
class RankComms {
 public:
  RankComms(const int64_t* sizes, int rank, int64_t first, int64_t count, Cores* cores) : first_(first) {
    const std::vector<int64_t> mesh(sizes, sizes + rank);
#ifdef WEFT_RT_MPI
    if (count == 1) {
      comms_.push_back(std::make_unique<MpiComm>(mesh, MPI_COMM_WORLD));
      return;
    }
#endif
    local_ = std::make_unique<Rendezvous>(std::vector<int64_t>{count}, cores);
    exchange_ = RankExchange{&allGatherRanks, ranks().count, {}, {}};
    for (int64_t d = first; d < first + count; ++d)
      comms_.push_back(std::make_unique<RankDeviceComm>(mesh, *local_, exchange_, d, first));
  }
  Comm& of(int64_t device) { return *comms_[size_t(device - first_)]; }
  // A device stopped: this rank's others fail at their next collective rather than wait for it.
  void abort(const std::string& why) {
    if (local_) local_->abort(why);
  }
  void reset() {
    if (local_) local_->reset();
  }

 private:
  int64_t first_;
  std::unique_ptr<Rendezvous> local_;  // between this rank's devices, when it has several
  RankExchange exchange_{};
  std::vector<std::unique_ptr<Comm>> comms_;  // by device - first_
};

// This rank's devices' communicators, under MPI (else null: the devices meet in one process,
// through a comm_threads.h rendezvous of the export's). A device waiting at a collective between
// this rank's devices gives its core in `cores` to another.
inline std::unique_ptr<RankComms> meshComms(const int64_t* sizes, int rank, int64_t first, int64_t count,
                                            Cores* cores) {
  if (!ranks().mpi) return nullptr;
  return std::make_unique<RankComms>(sizes, rank, first, count, cores);
}

// Ends every rank at once with status 1 after saying why on this one: for an error the other
// ranks may not see (one device's, or rank 0's files), which must not leave them waiting.
// Without MPI it returns 1 (the caller returns it).
inline int stopRanks(const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
#ifdef WEFT_RT_MPI
  if (ranks().mpi) {
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#endif
  return 1;
}

#ifdef WEFT_RT_MPI
namespace detail {
inline int byteCount(int64_t bytes) {
  if (bytes > INT_MAX) stopRanks("a block of " + std::to_string(bytes) + " bytes is past MPI's int counts");
  return int(bytes);
}
// The status rank `from` has, on every rank.
inline Status statusOf(int from, const Status& mine) {
  int64_t length = int64_t(mine.message().size());
  MPI_Bcast(&length, 1, MPI_INT64_T, from, MPI_COMM_WORLD);
  if (length == 0) return {};
  std::string why = mine.message();
  why.resize(size_t(length));
  MPI_Bcast(&why[0], byteCount(length), MPI_CHAR, from, MPI_COMM_WORLD);
  return Status::error(why);
}
}  // namespace detail
#endif

// Rank 0's status, on every rank (for what only rank 0 checks: the caller's inputs and buffers).
inline Status fromRoot(const Status& mine) {
#ifdef WEFT_RT_MPI
  if (ranks().mpi) return detail::statusOf(0, mine);
#endif
  return mine;
}

// The status of the first rank that failed, on every rank (ok when none did), naming the rank
// when it is not rank 0.
inline Status agree(const Status& mine) {
#ifdef WEFT_RT_MPI
  const Ranks& r = ranks();
  if (r.mpi) {
    int first = mine.ok() ? r.count : r.index;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == r.count) return {};
    const Status s = detail::statusOf(first, mine);
    return first == 0 ? s : Status::error("rank " + std::to_string(first) + ": " + s.message());
  }
#endif
  return mine;
}

// Rank 0's `bytes` at `data`, on every rank.
inline void broadcast(void* data, int64_t bytes) {
#ifdef WEFT_RT_MPI
  if (ranks().mpi) MPI_Bcast(data, detail::byteCount(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
  (void)data;
  (void)bytes;
}

inline void allGatherRanks(const void* in, void* out, int64_t bytes) {
#ifdef WEFT_RT_MPI
  if (ranks().mpi) {
    const int n = detail::byteCount(bytes);
    MPI_Allgather(in, n, MPI_BYTE, out, n, MPI_BYTE, MPI_COMM_WORLD);
    return;
  }
#endif
  std::memcpy(out, in, size_t(bytes));
}

// Each local device's block of a global tensor (`global`, of `shape`), for d = first .. first +
// count - 1: at[d] points to it. When every rank holds the tensor (`everyRank`, or a single
// process), each points into `global` where its block is one run of memory, else at block(d),
// where it is cut. Otherwise rank 0 alone holds it: rank 0 cuts every device's block into
// `stage` and scatters each rank its devices' (`stage` holds every device's blocks of
// `blockBytes` on rank 0, and this rank's on the others when they are several).
template <class Block>
void spreadBlocks(const MeshPlace& m, const void* global, const Shape& shape, size_t elem, int64_t first, int64_t count,
                  Block&& block, int64_t blockBytes, char* stage, bool everyRank, const char** at) {
#ifdef WEFT_RT_MPI
  if (ranks().mpi && !everyRank) {
    const bool root = ranks().index == 0;
    if (root)
      for (int64_t d = 0; d < ranks().count * count; ++d) cutBlock(m, global, shape, elem, d, stage + d * blockBytes);
    const int n = detail::byteCount(count * blockBytes);
    if (count == 1) {
      MPI_Scatter(stage, n, MPI_BYTE, block(first), n, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
      MPI_Scatter(stage, n, MPI_BYTE, root ? MPI_IN_PLACE : stage, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      for (int64_t i = 0; i < count; ++i) std::memcpy(block(first + i), stage + i * blockBytes, size_t(blockBytes));
    }
    for (int64_t d = first; d < first + count; ++d) at[d] = block(d);
    return;
  }
#endif
  (void)blockBytes;
  (void)stage;
  (void)everyRank;
  for (int64_t d = first; d < first + count; ++d) {
    at[d] = blockInPlace(m, global, shape, elem, d);
    if (!at[d]) {
      cutBlock(m, global, shape, elem, d, block(d));
      at[d] = block(d);
    }
  }
}

// Whether `value` is the same on every rank (every rank gets the same answer).
inline bool sameOnEveryRank(uint64_t value) {
#ifdef WEFT_RT_MPI
  if (ranks().mpi) {  // the least value and the least complement: equal iff min == max
    uint64_t v[2] = {value, ~value};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    return v[0] == ~v[1];
  }
#endif
  (void)value;
  return true;
}

// The global tensor (`global`, of `shape`) put together from every device's block: the local
// ones at block(d), the others gathered into `stage` (as for spreadBlocks), on rank 0 alone or,
// with `everyRank`, on every rank. Split dimensions are joined, partial sums added in device
// order, replicas taken from device 0.
template <class Block>
void collectBlocks(const MeshPlace& m, void* global, const Shape& shape, DType dtype, int64_t first, int64_t count,
                   Block&& block, int64_t blockBytes, char* stage, bool everyRank) {
  const bool holds = everyRank || ranks().index == 0;
  if (holds && isPartial(m)) std::memset(global, 0, size_t(shape.numel()) * dtypeSize(dtype));
#ifdef WEFT_RT_MPI
  if (ranks().mpi) {
    const bool root = ranks().index == 0;
    const int n = detail::byteCount(count * blockBytes);
    if (everyRank) {
      char* mine = stage + first * blockBytes;
      for (int64_t i = 0; i < count; ++i) std::memcpy(mine + i * blockBytes, block(first + i), size_t(blockBytes));
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage, n, MPI_BYTE, MPI_COMM_WORLD);
    } else if (count == 1) {
      MPI_Gather(block(first), n, MPI_BYTE, stage, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
      for (int64_t i = 0; i < count; ++i) std::memcpy(stage + i * blockBytes, block(first + i), size_t(blockBytes));
      MPI_Gather(root ? MPI_IN_PLACE : stage, n, MPI_BYTE, stage, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    if (holds)
      for (int64_t d = 0; d < ranks().count * count; ++d) placeBlock(m, global, shape, dtype, d, stage + d * blockBytes);
    return;
  }
#endif
  (void)blockBytes;
  (void)stage;
  for (int64_t d = first; d < first + count; ++d) placeBlock(m, global, shape, dtype, d, block(d));
}

}  // namespace weft::rt

#endif
