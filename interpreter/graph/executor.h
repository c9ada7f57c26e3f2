// Runs a graph on the same kernels as eager code (each node's OpDef::run), with the graph-only
// nodes (constants, variables, print, check, cond, while) handled here. It runs the graph as the
// pipeline's executor passes leave it (pipeline.h) — constants folded, variables read once and
// assigned once, transposes read in place by the products, bias and activation in the matmul
// before them, runs of elementwise nodes as fused loops — except while a gradient tape records the call (a loaded model trained further), which
// sees the graph's own nodes. Each block is prepared once as a list of steps.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <unordered_map>

#include "../values/objects.h"
#include "fused_loop.h"
#include "graph.h"

namespace weft::graph {

// What runs a traced graph: the executor on this thread, or the SPMD executor on a mesh's devices
// (spmd_executor.h).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  virtual std::vector<Tensor> run(std::span<const Tensor> inputs) = 0;
};

class Executor final : public GraphRunner {
 public:
  // `variables` back the graph's slots; print nodes write to `out`; `onLoop` runs before every
  // while iteration (the interpreter's step, time and Ctrl-C checks).
  Executor(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables, std::ostream& out,
           std::function<void()> onLoop);
  std::vector<Tensor> run(std::span<const Tensor> inputs) override;
  // Per variable: whether its storage is shared, for the next call, by the replicas of this
  // process's `devices` devices and held by nothing else (SpmdExecutor checks). A collective
  // that all of them meet, assigned to such a variable, computes into that storage: it writes
  // only once every replica has arrived, so none reads the old value any more (the variable
  // plan's promise, on every device alike). A collective of a smaller group (one dimension of a
  // 2-D mesh) does not: the other groups' devices may still read the old value.
  void shareReplicas(std::vector<char> shared, int64_t devices) {
    replicas_ = std::move(shared);
    replicaDevices_ = devices;
  }
  // How many of this executor's slots and spares hold t's storage (values of its last call).
  long holds(const Tensor& t) const;

 private:
  // A block prepared once: each step a node, or a fused group run as one loop at its last node.
  struct Step {
    const Node* node;
    FusedLoop* loop;  // null: the node alone
    // The values it computes straight into a variable's storage (the variable plan's
    // computedInto): pairs of value and variable.
    std::vector<std::pair<int, int>> into;
  };
  void prepare(const Block& b, bool fuse);
  void runBlock(const Block& b) { runSteps(steps_.at(&b)); }
  void runSteps(const std::vector<Step>& steps);
  void runNode(const Node& n);
  // Before a step that computes `value` for variable `var`: gives the value's slot the variable's
  // storage when nothing outside this executor holds it, or when the step is a collective that
  // every replica sharing the variable's storage meets (shareReplicas); records that in inPlace_.
  void placeInVariable(int value, int var, bool everyReplica);
  // Before a kernel writes value `v`: when its last buffer is held elsewhere (assigned to a
  // variable), trades it for the one kept from the call before, which that holder has since let
  // go — two buffers in turn instead of a fresh one (and its page faults) every call.
  void takeSpare(int v);
  void runLoop(const Node& n);
  const Graph& g_;
  Graph optimized_;
  std::map<const Node*, FusedLoop> loops_;  // by the group's last node
  std::unordered_map<const Block*, std::vector<Step>> steps_;  // every block of both graphs
  // Per while node: for each loop value, whether the body computes its next value itself (once),
  // so that it and the value it replaces trade buffers instead of the body allocating each turn.
  std::unordered_map<const Node*, std::vector<char>> swaps_;
  std::vector<std::shared_ptr<VariableObj>> vars_;
  std::ostream& out_;
  std::function<void()> onLoop_;
  // One per graph value. Between calls a slot keeps its last tensor: when nothing else holds it,
  // the next call's kernel writes into it again (an `into` kernel, or any other through pool_),
  // so that steady-state calls allocate nothing there.
  std::vector<Tensor> slots_;
  // Per value: whether its node writes into the slot's buffer, whose shape is known statically
  // or, for an elementwise node with unknown sizes, from each call's inputs.
  // kByOp: the op's `into` decides (OpDef::intoChecks).
  enum : char { kNoReuse, kStatic, kRuntimeShape, kByOp };
  std::vector<char> reuse_;
  bool recorded_ = false;  // this call runs the graph's own nodes for a gradient tape
  // Per value of the optimized graph: its slot holds a variable's storage that the step running
  // now writes in place (shared with the variable, yet to be overwritten).
  std::vector<char> inPlace_;
  std::vector<Tensor> spares_;  // per value: takeSpare's other buffer
  std::vector<char> replicas_;  // per variable: shareReplicas'
  int64_t replicaDevices_ = 0;
  std::vector<int> views_;      // the values of view and cond nodes, which share other values' buffers
  std::vector<std::vector<int>> readsOf_;  // per variable: the values its top-block reads give
  std::vector<int> uses_;      // per value of the optimized graph: how many inputs and results name it
  std::vector<Tensor> in_;     // a node's inputs, reused
  StoragePool pool_;           // the buffers of the running node's last results
};

// The text a print node writes for these tensors: `format` with each {} replaced.
std::string formatPrint(const std::string& format, std::span<const Tensor> args);
// A failing check node's error: its message at its place, with the source line when the file was
// traced in this process (keptSource), else with the place in the message as other graph errors
// name it (a graph loaded from a saved model).
WeftError checkFailure(const ops::Attrs& attrs);
// Its first line, "FILE:LINE:COL: error: MESSAGE" (compiled code's status says the same).
std::string checkFailureLine(const ops::Attrs& attrs);

}  // namespace weft::graph
