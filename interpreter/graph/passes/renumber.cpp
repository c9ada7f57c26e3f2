// Renumbering: the values from %0 in the order they are defined (the graph's inputs, then each
// node's outputs and each block's parameters in program order), without the ones nothing defines
// any more — the gap-free numbering the text form requires (text.h). Tracing ends with it, after
// its dead code is gone; the passes leave holes, which only their own graphs carry.
#include "../passes.h"

namespace weft::graph {
namespace {

struct Renumber {
  const Graph& from;
  Graph to;
  std::vector<int> id;  // old id -> new id, or -1

  int define(int old) {
    id[size_t(old)] = to.addValue(from.values[size_t(old)]);
    if (!from.mesh.empty()) to.placements.push_back(from.placementsOf(old));
    return id[size_t(old)];
  }
  int use(int old) const { return id[size_t(old)]; }

  void block(Block& b) {
    for (int& p : b.params) p = define(p);
    for (auto& n : b.nodes) {
      for (int& i : n.inputs) i = use(i);
      for (auto& inner : n.blocks) block(inner);
      for (int& o : n.outputs) o = define(o);
    }
    for (int& r : b.results) r = use(r);
  }
};

}  // namespace

Graph renumberValues(const Graph& g) {
  Renumber r{g, g, std::vector<int>(g.values.size(), -1)};
  r.to.values.clear();
  r.to.placements.clear();
  r.block(r.to.body);
  return r.to;
}

}  // namespace weft::graph
