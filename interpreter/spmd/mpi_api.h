// What `weft` asks of MPI, as the MPI plugin (plugins/mpi_ranks) provides it: Open MPI and its
// libraries load only in a process that mpirun started as one of several ranks (ranks.cpp loads
// the plugin then), so that every other `weft` process starts without them. Every call is on
// MPI_COMM_WORLD, from the thread that started MPI.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft::rt {
class Comm;
}

namespace weft::spmd {

struct MpiApi {
  void (*start)(int& ranks, int& rank);  // MPI_Init_thread (funneled), then the world's size and rank
  void (*finish)();
  void (*abort)(int status);
  void (*barrier)();
  void (*broadcast)(double& v);                                      // rank 0's v
  std::string (*allGather)(const void* in, void* out, int64_t bytes);  // why it cannot, or ""
  // The devices' communicator of a mesh of these sizes, one device per rank (comm_mpi.h).
  std::unique_ptr<rt::Comm> (*meshComm)(const std::vector<int64_t>& sizes);
};

}  // namespace weft::spmd
