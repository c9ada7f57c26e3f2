// SPMD partitioning (SPEC §7.1; XLA's spmd_partitioner after sharding propagation): a placed
// graph (propagate_placements.cpp) becomes the one program every device of its mesh runs. Each
// value takes its local type, the block its placements leave a device; an op whose attributes
// name global sizes (reshape's shape) takes the attributes its row gives one device; the
// collectives the propagation wrote now move data between the devices' blocks. Nothing else
// changes: the ops already compute on blocks, by their rows. A collective over a mesh dimension of
// one device moves nothing and is dropped.
#include <map>
#include <stdexcept>

#include "../../spmd/shard_rule.h"
#include "../passes.h"

namespace weft::graph {

using spmd::Placements;

namespace {

struct Partitioner {
  const Graph& g;
  Graph& local;

  Shape localShape(const Shape& global, const Placements& ps) const {
    Shape s = global;
    for (size_t k = 0; k < ps.size(); ++k) s = spmd::localShape(s, ps[k], g.mesh.sizes[k]);
    return s;
  }

  // The attributes one device runs `n` with: each mesh dimension's row, in mesh order.
  ops::Attrs localAttrs(const Node& n) const {
    const ops::OpDef& d = ops::opDef(n.op);
    if (!d.shard || !d.shard->local) return n.attrs;
    std::vector<ops::TensorType> types;
    for (int in : n.inputs) types.push_back(g.values[size_t(in)]);
    const spmd::Rows rows = spmd::shardRows(n.op, types, n.attrs);
    ops::Attrs attrs = n.attrs;
    for (int k = 0; k < g.mesh.rank(); ++k) {
      const spmd::ShardRow* chosen = nullptr;
      for (const spmd::ShardRow& row : rows) {
        bool same = true;
        for (size_t i = 0; i < n.inputs.size(); ++i) same = same && row.in[i] == g.placementsOf(n.inputs[i])[size_t(k)];
        for (size_t r = 0; r < n.outputs.size(); ++r)
          same = same && row.out[r] == g.placementsOf(n.outputs[r])[size_t(k)];
        if (same) chosen = &row;
        if (same) break;
      }
      if (!chosen)
        throw std::logic_error(std::string("partition: no row of ") + ops::opName(n.op) +
                               " has the placements propagation gave it");
      attrs = spmd::localAttrs(n.op, attrs, *chosen, g.mesh.sizes[size_t(k)]);
    }
    return attrs;
  }

  // A collective over a mesh dimension of one device leaves its block as it is (movesData): it
  // goes, and its users read its input.
  void block(Block& b) {
    std::vector<Node> kept;
    for (Node& n : b.nodes) {
      for (Block& inner : n.blocks) block(inner);
      if (ops::opDef(n.op).family != ops::Family::Collective) n.attrs = localAttrs(n);
      else if (!movesData(n)) {
        identity[n.outputs[0]] = n.inputs[0];
        continue;
      }
      kept.push_back(std::move(n));
    }
    b.nodes = std::move(kept);
  }
  std::map<int, int> identity;
};

}  // namespace

Graph partition(const Graph& g) {
  if (g.mesh.empty()) return g;
  spmd::registerShardRules();
  Graph local = g;
  Partitioner p{g, local};
  for (size_t id = 0; id < local.values.size(); ++id)
    local.values[id].shape = p.localShape(g.values[id].shape, g.placementsOf(int(id)));
  for (VariableSlot& v : local.variables)
    if (!v.placements.empty()) v.type.shape = p.localShape(v.type.shape, v.placements);
  p.block(local.body);
  renameUses(local.body, p.identity);
  local.mesh = {};
  local.placements.clear();
  for (VariableSlot& v : local.variables) v.placements.clear();
  return local;
}

}  // namespace weft::graph
