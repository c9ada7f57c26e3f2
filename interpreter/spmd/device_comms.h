// The communicators of this process's devices for one run of a graph on a mesh (SPEC §7.1). In
// one process the devices are threads that meet in memory (stdlib/runtime/comm_threads.h). Under
// mpirun (ranks.h), a rank holding one device calls MPI for each collective
// (stdlib/runtime/comm_mpi.h); a rank holding several meets its devices in memory, and its first
// device, on the thread that started MPI, exchanges all of their data with the other ranks
// (stdlib/runtime/comm_rank_devices.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../../stdlib/runtime/comm_threads.h"
#include "placement.h"

namespace weft::rt {
struct RankExchange;
}

namespace weft::spmd {

class DeviceComms {
 public:
  // `cores` bounds how many of this process's devices compute at once (device_threads.h).
  DeviceComms(const MeshAxes& mesh, rt::Cores* cores);
  ~DeviceComms();
  // The communicator of `device`, one of this process's.
  rt::Comm& of(int64_t device);
  // A device stopped: the others fail at their next collective rather than wait for it.
  void abort(const std::string& why);

 private:
  int64_t first_;                                // this process's first device
  std::unique_ptr<rt::Rendezvous> rendezvous_;   // between this process's devices
  std::unique_ptr<rt::RankExchange> exchange_;   // across ranks, for a rank of several devices
  std::vector<std::unique_ptr<rt::Comm>> own_;   // by device - first_
  rt::Comm* shared_ = nullptr;                   // a rank's one device's, across ranks
};

}  // namespace weft::spmd
