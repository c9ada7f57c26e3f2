// Dead-code removal: a node without effects whose results nothing uses goes, and so, in turn,
// may the nodes that fed it. A variable read counts as an effect only to keep its order among
// the assignments; nothing is lost when an unused one goes.
#include "../passes.h"

namespace weft::graph {
namespace {

bool removeUnused(graph::Block& b, std::vector<int>& uses) {
  bool changed = false;
  for (size_t i = b.nodes.size(); i-- > 0;) {
    graph::Node& n = b.nodes[i];
    bool used = false;
    for (int o : n.outputs) used = used || uses[size_t(o)] > 0;
    if (!used && (!hasEffect(n) || n.op == ops::OpId::ReadVariable)) {
      for (int in : n.inputs) --uses[size_t(in)];
      // Inputs used inside its blocks are released by recounting below.
      b.nodes.erase(b.nodes.begin() + long(i));
      changed = true;
      continue;
    }
    for (auto& inner : n.blocks) changed = removeUnused(inner, uses) || changed;
  }
  return changed;
}

}  // namespace

graph::Graph removeDeadCode(const graph::Graph& g) {
  graph::Graph out = g;
  for (bool changed = true; changed;) {
    std::vector<int> uses = useCounts(out);
    changed = removeUnused(out.body, uses);
  }
  return out;
}

}  // namespace weft::graph
