// Runs a graph on a mesh SPMD (SPEC §7.1): the pipeline places it and partitions it into one
// program (passes/propagate_placements.cpp, passes/partition.cpp), and each device runs that
// program on a thread of its own (made once, parked between calls; at most --threads of them
// compute at once), with its own execution context and communicator, on its
// blocks of the variables and inputs; the devices meet at each collective
// (stdlib/runtime/comm_threads.h). Under mpirun, the devices are this rank's share of the mesh,
// and their collectives cross ranks (spmd/device_comms.h). Variables and inputs stored as blocks the way the graph
// places them are used as they lie (spmd/sharded_tensor.h); results come back as the devices'
// blocks, and a variable a device assigned keeps them as its value. The first device prints; the random
// stream each device draws from starts where the caller's is and the caller's goes on from device
// 0's, so replicated random ops draw what the unsharded program draws.
#pragma once
#include <memory>

#include "executor.h"

namespace weft::rt {
class DeviceThreads;
}

namespace weft::graph {

class SpmdExecutor final : public GraphRunner {
 public:
  // `g` has a mesh, and its variables the placements of their layouts. Runners that never run
  // at once may share `threads` (one per device of the mesh); null: threads of its own.
  SpmdExecutor(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables, std::ostream& out,
               std::function<void()> onLoop, std::shared_ptr<rt::DeviceThreads> threads = nullptr);
  ~SpmdExecutor() override;
  std::vector<Tensor> run(std::span<const Tensor> inputs) override;
  // The user's Mesh object the results lie on (for their `.layout`), when the caller knows it.
  std::shared_ptr<OpaqueObj> meshObject;

 private:
  struct Device;
  Graph placed_;  // over global values, with placements and collectives
  Graph local_;   // each device's program, its small all-reduces bucketed
  std::vector<std::shared_ptr<VariableObj>> vars_;
  std::vector<char> assigned_;  // per variable: the graph assigns it
  int64_t first_ = 0;  // the first device this process computes (under mpirun, its rank's)
  std::vector<std::unique_ptr<Device>> devices_;  // devices first_, first_ + 1, ...
  std::shared_ptr<rt::DeviceThreads> threads_;  // one per device, parked between calls
};

// The threads of a mesh's `devices` devices, or an error saying the system would not start them.
std::shared_ptr<rt::DeviceThreads> deviceThreads(int64_t devices);

// The runner for a traced graph: SPMD on its mesh when it has one.
std::unique_ptr<GraphRunner> makeRunner(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables,
                                        std::ostream& out, std::function<void()> onLoop);

}  // namespace weft::graph
