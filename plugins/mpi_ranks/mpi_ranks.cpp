// The MPI plugin: interpreter/spmd/mpi_api.h on Open MPI. Loaded by `weft` only under mpirun with
// several ranks (interpreter/spmd/ranks.cpp), so that no other process loads and relocates Open
// MPI, hwloc and libevent at start-up.
#include <climits>

#include "interpreter/spmd/mpi_api.h"
#include "stdlib/runtime/comm_mpi.h"

namespace weft::spmd {
namespace {

void start(int& ranks, int& rank) {
  int provided = 0;
  // Only the interpreter's thread calls MPI: a rank's first device runs on it (device_comms.h).
  rt::yieldWhileWaiting();
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

void finish() { MPI_Finalize(); }
void abort(int status) { MPI_Abort(MPI_COMM_WORLD, status); }
void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
void broadcast(double& v) { MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); }

std::string allGather(const void* in, void* out, int64_t bytes) {
  if (bytes > INT_MAX)
    return "a collective of " + std::to_string(bytes) + " bytes is past what MPI sends in one message";
  MPI_Allgather(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, MPI_COMM_WORLD);
  return "";
}

std::unique_ptr<rt::Comm> meshComm(const std::vector<int64_t>& sizes) {
  return std::make_unique<rt::MpiComm>(sizes, MPI_COMM_WORLD);
}

const MpiApi kApi{start, finish, abort, barrier, broadcast, allGather, meshComm};

}  // namespace
}  // namespace weft::spmd

extern "C" const weft::spmd::MpiApi* weft_mpi_api() { return &weft::spmd::kApi; }
