// SPMD propagation (SPEC §7.1; XLA's sharding propagation, DTensor's strategy selection): every
// value of a graph on a mesh gets its placements, from the seeds — the inputs' and the
// variables' placements — forward through the op table's sharding rules in program order. On
// each mesh dimension independently a node takes the row that needs the fewest bytes moved to
// bring its inputs to it (ties keep inputs as they are, then values sharded), and each
// move is a collective of the plan: inherent when it finishes a partial sum, implicit when it
// changes a layout. A result leaves with the placements its computation gave, but never as a
// partial sum (that is internal); a value assigned to a variable takes the variable's layout;
// print and control flow see values whole.
#include <tuple>

#include "../../spmd/shard_rule.h"
#include "../passes.h"

namespace weft::graph {

using spmd::Placement;
using spmd::Placements;

namespace {

struct Propagator {
  Graph& g;
  CommPlan plan;

  int64_t localBytes(int id, const Placements& ps) const {
    Shape s = g.values[size_t(id)].shape;
    for (size_t k = 0; k < ps.size(); ++k) s = spmd::localShape(s, ps[k], g.mesh.sizes[k]);
    int64_t n = 1;
    for (int64_t d : s) n *= d < 0 ? 1 : d;
    return n * int64_t(rt::dtypeSize(g.values[size_t(id)].dtype));
  }

  // The collective that takes a value from `have` to `want` on mesh dimension k, and the bytes
  // each device sends for it (textbook volumes: a ring all-reduce sends 2(k-1)/k of the block).
  struct Move {
    ops::OpId op;
    int64_t bytes;
    bool any;
  };
  Move move(int id, const Placements& ps, int k, const Placement& want) const {
    const Placement& have = ps[size_t(k)];
    const int64_t n = g.mesh.sizes[size_t(k)], block = localBytes(id, ps);
    if (have == want || have.replicated()) return {ops::OpId::LocalSlice, 0, false};  // R -> S, R -> P: local
    if (have.partial())
      return want.replicated() ? Move{ops::OpId::AllReduce, 2 * (n - 1) * block / n, true}
                               : Move{ops::OpId::ReduceScatter, (n - 1) * block / n, true};
    if (want.sharded()) return {ops::OpId::AllToAll, (n - 1) * block / n, true};
    return {ops::OpId::AllGather, (n - 1) * block, true};  // S -> R (and S -> P, through R)
  }

  // Moves value `id` to `want` on every mesh dimension, recording the collectives.
  void redistribute(int id, const Placements& want, const Node& at, const char* why) {
    Placements ps = g.placementsOf(id);
    for (int k = 0; k < g.mesh.rank(); ++k) {
      const Move m = move(id, ps, k, want[size_t(k)]);
      if (m.any)
        plan.collectives.push_back({at.loc, m.op, k, g.mesh.sizes[size_t(k)], m.bytes, ps[size_t(k)].partial(), id, why});
      ps[size_t(k)] = want[size_t(k)];
    }
  }

  void set(int id, Placements ps) {
    if (g.placements.size() < g.values.size()) g.placements.resize(g.values.size());
    g.placements[size_t(id)] = std::move(ps);
  }

  Placements replicated() const { return Placements(size_t(g.mesh.rank())); }
  // The placements with every partial sum reduced.
  static Placements whole(Placements ps) {
    for (Placement& p : ps)
      if (p.partial()) p = Placement::r();
    return ps;
  }

  void node(Node& n) {
    const ops::OpDef& d = ops::opDef(n.op);
    switch (d.family) {
      case ops::Family::State:
        if (n.op == ops::OpId::ReadVariable) {
          const VariableSlot& v = g.variables[size_t(n.attrs.i("var"))];
          set(n.outputs[0], v.placements.empty() ? replicated() : v.placements);
        } else if (n.op == ops::OpId::AssignVariable) {
          const VariableSlot& v = g.variables[size_t(n.attrs.i("var"))];
          redistribute(n.inputs[0], v.placements.empty() ? replicated() : v.placements, n, "assigned to a variable");
        } else {
          set(n.outputs[0], replicated());
        }
        return;
      case ops::Family::Output:
      case ops::Family::Control:
        for (int in : n.inputs) redistribute(in, replicated(), n, d.family == ops::Family::Output ? "printed" : "control flow runs replicated");
        for (int out : n.outputs) set(out, replicated());
        return;
      default: break;
    }
    std::vector<ops::TensorType> types;
    std::vector<Placements> have;
    for (int in : n.inputs) {
      types.push_back(g.values[size_t(in)]);
      have.push_back(g.placementsOf(in));
    }
    const spmd::Rows rows = spmd::shardRows(n.op, types, n.attrs);
    std::vector<Placements> outs(n.outputs.size(), replicated());
    std::vector<Placements> want = have;
    for (int k = 0; k < g.mesh.rank(); ++k) {
      // The best row: fewest bytes moved, then fewest inputs re-laid (a replicated input split
      // locally costs nothing but is a change), then most results sharded.
      const spmd::ShardRow* best = nullptr;
      std::tuple<int64_t, int, int> bestKey;
      for (const spmd::ShardRow& row : rows) {
        if (!fits(row, n, k)) continue;
        std::tuple<int64_t, int, int> key{0, 0, 0};
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          std::get<0>(key) += move(n.inputs[i], have[i], k, row.in[i]).bytes;
          std::get<1>(key) += row.in[i] != have[i][size_t(k)];
        }
        for (const Placement& p : row.out) std::get<2>(key) -= p.sharded();
        if (!best || key < bestKey) best = &row, bestKey = key;
      }
      for (size_t i = 0; i < n.inputs.size(); ++i) want[i][size_t(k)] = best->in[i];
      for (size_t r = 0; r < outs.size(); ++r) outs[r][size_t(k)] = best->out[r];
    }
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (want[i] != have[i]) redistribute(n.inputs[i], want[i], n, "re-laid for an op with no row for it");
    for (size_t r = 0; r < outs.size(); ++r) set(n.outputs[r], outs[r]);
  }

  // Whether a row's placements divide the node's values on mesh dimension k, after the
  // dimensions before it.
  bool fits(const spmd::ShardRow& row, const Node& n, int k) const {
    auto ok = [&](int id, const Placement& p) {
      Placements ps = g.placementsOf(id);
      for (int j = k; j < g.mesh.rank(); ++j) ps[size_t(j)] = Placement::r();
      Shape s = g.values[size_t(id)].shape;
      for (int j = 0; j < k; ++j) s = spmd::localShape(s, ps[size_t(j)], g.mesh.sizes[size_t(j)]);
      return !spmd::misfit(s, p, g.mesh.sizes[size_t(k)]);
    };
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (!ok(n.inputs[i], row.in[i])) return false;
    for (size_t r = 0; r < n.outputs.size(); ++r)
      if (!ok(n.outputs[r], row.out[r])) return false;
    return true;
  }

  void block(Block& b) {
    for (Node& n : b.nodes) node(n);
  }
};

}  // namespace

CommPlan propagatePlacements(Graph& g) {
  Propagator p{g, {}};
  if (g.mesh.empty()) return {};
  spmd::registerShardRules();
  p.block(g.body);
  // Results leave whole: a partial sum is reduced before anyone sees it.
  Node returned;
  if (!g.body.nodes.empty()) returned.loc = g.body.nodes.back().loc;
  for (int r : g.body.results) {
    const Placements whole = Propagator::whole(g.placementsOf(r));
    if (whole != g.placementsOf(r)) {
      p.redistribute(r, whole, returned, "returned");
      p.set(r, whole);
    }
  }
  return p.plan;
}

}  // namespace weft::graph
