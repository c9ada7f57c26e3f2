// Elementwise fusion: a run of consecutive unary and binary nodes in which each result but the
// last is used once, by a later node of the run, is marked as one group (the `fuse` attribute,
// the group's number). The emitter runs a group as one loop over chunks of its elements, each
// node a call of the same kernel on a chunk held in registers and L1, so the intermediate
// results never reach memory; a group whose sizes turn out to differ is emitted node by node.
#include "passes.h"

namespace weft::codegen {
namespace {

using ops::OpId;

bool elementwise(const graph::Node& n) {
  return int(n.op) < int(OpId::ReduceSum) && n.outputs.size() == 1 && !n.attrs.has("epilogue");
}

void fuse(graph::Block& b, const graph::Graph& g, const std::vector<int>& uses, int64_t& groups) {
  for (auto& n : b.nodes)
    for (auto& inner : n.blocks) fuse(inner, g, uses, groups);
  // The run's nodes, by index; constants between them (no inputs, no code) do not end a run.
  size_t i = 0;
  while (i < b.nodes.size()) {
    if (!elementwise(b.nodes[i])) {
      ++i;
      continue;
    }
    const graph::TensorType& t = g.values[size_t(b.nodes[i].outputs[0])];
    std::vector<size_t> run{i};
    size_t j = i + 1;
    for (; j < b.nodes.size(); ++j) {
      const graph::Node& n = b.nodes[j];
      if (n.op == OpId::Constant) continue;
      if (!elementwise(n) || g.values[size_t(n.outputs[0])].shape != t.shape) break;
      bool feeds = false;  // extend only with a node that uses the run's results
      for (int in : n.inputs)
        for (size_t k : run) feeds = feeds || b.nodes[k].outputs[0] == in;
      if (!feeds) break;
      run.push_back(j);
    }
    // Every result but the last must be used exactly once, by a node of the run.
    while (run.size() >= 2) {
      bool ok = true;
      for (size_t k = 0; k + 1 < run.size() && ok; ++k) {
        int v = b.nodes[run[k]].outputs[0], inside = 0;
        for (size_t m = k + 1; m < run.size(); ++m)
          for (int in : b.nodes[run[m]].inputs) inside += in == v;
        ok = inside == 1 && uses[size_t(v)] == 1;
      }
      if (ok) break;
      run.pop_back();
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
  fuse(out.body, out, useCounts(out), groups);
  return out;
}

}  // namespace weft::codegen
