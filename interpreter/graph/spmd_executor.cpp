#include "spmd_executor.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <streambuf>
#include <system_error>
#include <utility>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/device_threads.h"
#include "../spmd/blocks.h"
#include "../spmd/device_comms.h"
#include "../spmd/ranks.h"
#include "../spmd/sharded_tensor.h"
#include "../values/context.h"
#include "passes.h"
#include "pipeline.h"

namespace weft::graph {

namespace {

// What devices other than the first print to.
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};

}  // namespace

std::shared_ptr<rt::DeviceThreads> deviceThreads(int64_t devices) {
  try {
    return std::make_shared<rt::DeviceThreads>(devices);
  } catch (const std::system_error& e) {
    throw WeftError("a mesh of " + std::to_string(devices) + " devices needs a thread for each, and the system " +
                    "would not start them (" + e.what() + "); use a mesh of fewer devices");
  }
}

struct SpmdExecutor::Device {
  ExecutionContext context;
  std::vector<std::shared_ptr<VariableObj>> vars;  // its blocks of the variables
  NullBuffer nothing;
  std::ostream silent{&nothing};
  std::unique_ptr<Executor> executor;
};

SpmdExecutor::SpmdExecutor(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables, std::ostream& out,
                           std::function<void()> onLoop, std::shared_ptr<rt::DeviceThreads> threads)
    : placed_(runPipelineUntil(g, Target::Executor, "propagate-placements")),
      local_(bucketCollectives(partition(placed_))),
      vars_(std::move(variables)) {
  if (context().noImplicitComm)
    if (std::string why = implicitCommError(placed_, placed_.name); !why.empty()) throw WeftError(why);
  // This process's devices: all of them, or under mpirun its rank's (spmd/ranks.h).
  first_ = spmd::firstOwnedDevice(placed_.mesh);
  for (int64_t d = first_, n = first_ + spmd::devicesHeld(placed_.mesh); d < n; ++d) {
    auto dev = std::make_unique<Device>();
    for (const auto& v : vars_) {
      auto block = std::make_shared<VariableObj>();
      block->name = v->name;
      block->trainable = v->trainable;
      dev->vars.push_back(std::move(block));
    }
    // The first device prints and runs the caller's checks between loop turns (its time and step
    // limits).
    dev->executor = std::make_unique<Executor>(local_, dev->vars, d == first_ ? out : dev->silent,
                                               d == first_ ? onLoop : std::function<void()>());
    devices_.push_back(std::move(dev));
  }
  assigned_.assign(vars_.size(), 0);
  std::function<void(const Block&)> findAssigns = [&](const Block& b) {
    for (const Node& n : b.nodes) {
      for (const Block& inner : n.blocks) findAssigns(inner);
      if (n.op == ops::OpId::AssignVariable) assigned_[size_t(n.attrs.i("var"))] = 1;
    }
  };
  findAssigns(local_.body);
  threads_ = threads ? std::move(threads) : deviceThreads(int64_t(devices_.size()));
}

SpmdExecutor::~SpmdExecutor() = default;

std::vector<Tensor> SpmdExecutor::run(std::span<const Tensor> inputs) {
  const spmd::MeshAxes& mesh = placed_.mesh;
  const size_t n = devices_.size();
  const int64_t all = spmd::deviceCount(mesh);
  ExecutionContext& caller = context();
  // Each device's blocks of the variables and the inputs: those stored as the graph places them
  // are used as they lie; others are cut here, on the caller's thread.
  // A variable the graph assigns lets go of its value for the call: when nothing else holds its
  // blocks, they are the devices' alone, and the update computes into them as the unsharded
  // executor's does into a whole variable (Executor::placeInVariable) — no fresh buffers per
  // step. It gets the devices' blocks back after the call, whether or not it failed.
  // A replicated variable's devices share its one buffer (localOf cuts nothing): when nothing but
  // them and the devices' last values holds it, a collective assigned to it writes it in place,
  // each device its part (Executor::shareReplicas). Only between device threads: a rank's
  // devices under mpirun each write a collective's whole result (comm_rank_devices.h).
  std::vector<char> shared(vars_.size(), 0);
  for (size_t k = 0; k < vars_.size(); ++k) {
    const Tensor value = assigned_[k] ? std::exchange(vars_[k]->value, Tensor()) : vars_[k]->value;
    const spmd::Placements& ps = placed_.variables[k].placements;
    if (assigned_[k] && n > 1 && !spmd::acrossRanks() && value.isWhole() &&
        std::all_of(ps.begin(), ps.end(), [](const spmd::Placement& p) { return p.replicated(); })) {
      long held = 1;
      for (const auto& dev : devices_) held += dev->executor->holds(value);
      shared[k] = value.storageUsers() == held;
    }
    for (size_t d = 0; d < n; ++d) devices_[d]->vars[k]->value = spmd::localOf(value, mesh, ps, first_ + int64_t(d));
  }
  for (const auto& dev : devices_) dev->executor->shareReplicas(shared, int64_t(n));
  std::vector<std::vector<Tensor>> localInputs(n), results(n);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const spmd::Placements ps = placed_.placementsOf(placed_.body.params[i]);
    for (size_t d = 0; d < n; ++d) localInputs[d].push_back(spmd::localOf(inputs[i], mesh, ps, first_ + int64_t(d)));
  }
  // At most --threads devices compute at once; one waiting at a collective gives its core back.
  // With a core for every device there is nothing to hand out.
  std::optional<rt::Cores> cores;
  if (threadsToUse() < int64_t(n)) cores.emplace(threadsToUse());
  rt::Cores* bound = cores ? &*cores : nullptr;
  spmd::DeviceComms comms(mesh, bound);
  std::mutex failed;
  std::exception_ptr error;
  threads_->run([&](int64_t i) {
    Device& dev = *devices_[size_t(i)];
    const int64_t d = first_ + i;
    if (bound) bound->acquire();
    dev.context.limits = caller.limits;
    dev.context.randomKey = caller.randomKey;
    dev.context.randomCounter = caller.randomCounter;
    dev.context.threads = caller.threads;
    dev.context.comm = &comms.of(d);
    dev.context.commCounts = i == 0 ? caller.commCounts : nullptr;
    {
      ContextScope scope(dev.context);
      try {
        results[size_t(i)] = dev.executor->run(localInputs[size_t(i)]);
      } catch (...) {  // a user error, a limit, an interrupt
        // The first failure is the one to report; the others are devices it left waiting.
        std::lock_guard<std::mutex> lock(failed);
        if (!error) error = std::current_exception();
        comms.abort("device " + std::to_string(d) + " stopped");
      }
    }
    dev.context.comm = nullptr;
    if (bound) bound->release();
  }, !bound);
  // Variables the graph assigns keep the devices' blocks as their value; results leave sharded.
  for (size_t k = 0; k < vars_.size(); ++k) {
    std::vector<Tensor> blocks(static_cast<size_t>(all));  // other ranks' devices' stay empty
    for (size_t d = 0; d < n; ++d) blocks[size_t(first_) + d] = std::exchange(devices_[d]->vars[k]->value, Tensor());
    if (!assigned_[k]) continue;
    const spmd::Placements& ps = placed_.variables[k].placements;
    writeVariable(*vars_[k], spmd::wholeIfReplicated(spmd::fromLocals(
                                 mesh, ps.empty() ? spmd::Placements(size_t(mesh.rank())) : ps, std::move(blocks))));
  }
  if (error) std::rethrow_exception(error);
  caller.randomKey = devices_[0]->context.randomKey;
  caller.randomCounter = devices_[0]->context.randomCounter;
  std::vector<Tensor> out;
  for (size_t r = 0; r < placed_.body.results.size(); ++r) {
    std::vector<Tensor> blocks(static_cast<size_t>(all));
    for (size_t d = 0; d < n; ++d) blocks[size_t(first_) + d] = std::move(results[d][r]);
    out.push_back(spmd::fromLocals(mesh, placed_.placementsOf(placed_.body.results[r]), std::move(blocks), meshObject));
  }
  return out;
}

std::unique_ptr<GraphRunner> makeRunner(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables,
                                        std::ostream& out, std::function<void()> onLoop) {
  if (g.mesh.empty()) return std::make_unique<Executor>(g, std::move(variables), out, std::move(onLoop));
  return std::make_unique<SpmdExecutor>(g, std::move(variables), out, std::move(onLoop));
}

}  // namespace weft::graph
