// Elementwise fusion: a run of consecutive unary, binary and cast nodes of one shape is marked as one
// group (the `fuse` attribute, the group's number). The emitter runs a group as one loop over
// chunks of its elements, each node a call of the same kernel on a chunk held in registers and L1,
// so results used only inside the group never reach memory; the others (an optimizer's new
// moments, used by its update and assigned) are written as the loop goes. Constants and variable
// reads between the nodes (no inputs, no code in the loop) do not end a run, nor does a device's
// local slice of a value from before the run (a replicated weight cut for the device's share of
// its update, which the run then subtracts from): it runs before the group's loop, which runs at
// the group's last node. A group whose sizes turn out to differ is emitted node by node.
#include <set>

#include "../passes.h"

namespace weft::graph {
namespace {

using ops::OpId;

// A cast is a step between bool and a float (a gradient's mask; a cast to its input's dtype is
// a view, and integer runs are not fused by the executor).
bool elementwise(const graph::Node& n, const graph::Graph& g) {
  if (n.op == OpId::Cast) {
    const DType from = g.values[size_t(n.inputs[0])].dtype, to = g.values[size_t(n.outputs[0])].dtype;
    auto isFloat = [](DType d) { return d == DType::F32 || d == DType::F64; };
    if (!(from == DType::Bool && isFloat(to)) && !(isFloat(from) && to == DType::Bool)) return false;
  }
  return ops::opDef(n.op).fusible && n.outputs.size() == 1 && !n.attrs.has("epilogue");
}

void fuse(graph::Block& b, const graph::Graph& g, int64_t& groups) {
  for (auto& n : b.nodes)
    for (auto& inner : n.blocks) fuse(inner, g, groups);
  size_t i = 0;
  while (i < b.nodes.size()) {
    if (!elementwise(b.nodes[i], g)) {
      ++i;
      continue;
    }
    const graph::TensorType& t = g.values[size_t(b.nodes[i].outputs[0])];
    std::vector<size_t> run{i};
    std::set<int> made{b.nodes[i].outputs[0]};  // the run's results
    for (size_t j = i + 1; j < b.nodes.size(); ++j) {
      const graph::Node& n = b.nodes[j];
      if (n.op == OpId::Constant || n.op == OpId::ReadVariable) continue;
      if (n.op == OpId::LocalSlice && !made.count(n.inputs[0])) continue;
      if (!elementwise(n, g) || g.values[size_t(n.outputs[0])].shape != t.shape) break;
      run.push_back(j);
      made.insert(n.outputs[0]);
    }
    if (run.size() >= 2) {
      for (size_t k : run) b.nodes[k].attrs.set("fuse", groups);
      ++groups;
      i = run.back() + 1;
    } else {
      i = i + 1;
    }
  }
}

}  // namespace

graph::Graph fuseElementwise(const graph::Graph& g) {
  graph::Graph out = g;
  int64_t groups = 0;
  fuse(out.body, out, groups);
  return out;
}

}  // namespace weft::graph
