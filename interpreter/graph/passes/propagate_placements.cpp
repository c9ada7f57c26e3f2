// SPMD propagation (SPEC §7.1; XLA's sharding propagation, DTensor's strategy selection): every
// value of a graph on a mesh gets its placements, from the seeds — the inputs' and the
// variables' placements — forward through the op table's sharding rules in program order. On
// each mesh dimension independently a node takes the row that costs least — its work per device
// and the bytes moved to bring its inputs to it (ties keep inputs as they are, then values
// sharded) — and each move is
// written into the graph as collective nodes before the node that needs it: the graph stays a
// program over global values, where a collective changes only placements, and the partition
// pass turns it into each device's program. A result leaves with the placements its computation
// gave, but never as a partial sum (that is internal); a value assigned to a variable takes the
// variable's layout; print and `cond` see values whole, and the values inside control flow's
// blocks are placed the same way. A `while` loop's values keep one placement through every turn,
// found as a fixed point (loop() below): a data-parallel loop stays split, with no collective.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "../../../grammar/shown_text.h"
#include "../../spmd/blocks.h"
#include "../../spmd/shard_rule.h"
#include "../passes.h"

namespace weft::graph {

using ops::OpId;
using spmd::Placement;
using spmd::Placements;

namespace {

struct Propagator {
  Graph& g;
  // Per block being placed, innermost last: the values already moved there, by (value,
  // placements), so that two users of one value share its collective.
  std::vector<std::map<std::pair<int, std::string>, int>> moved;
  // Per value, the placement on each mesh dimension it will be moved to anyway (none: no wish):
  // a variable's layout for a value assigned to it; for the operand of a product with a split
  // weight, the placement that multiplies without moving (Megatron's column-parallel layer takes
  // its input whole, the row-parallel one split along the contracted dimension); and back
  // through the elementwise ops that make such a value. A row that gives a result its wish saves
  // that move later; a row that moves an input elsewhere than its wish pays for both moves.
  using Wish = std::vector<std::optional<Placement>>;
  std::map<int, Wish> preferred;
  std::map<int, int> reads;  // a read_variable's result -> its variable

  // A size the signature leaves open (a batch, most often) is costed as kOpenSize: taken as 1,
  // gathering a batch of activations would look cheaper than reducing a weight's gradient. A
  // training batch: at 256, a data-parallel Adam step moved its input (an all-to-all) and a
  // layer's gradient (an all-gather) to get its first kernel's gradient split, 1.8 MiB at batch
  // 1024, rather than reduce-scatter that gradient's 784 KiB.
  static constexpr int64_t kOpenSize = 1024;
  int64_t localBytes(int id, const Placements& ps) const {
    Shape s = g.values[size_t(id)].shape;
    for (int i = 0; i < s.rank(); ++i) s[i] = s[i] < 0 ? kOpenSize : s[i];
    for (size_t k = 0; k < ps.size(); ++k) s = spmd::localShape(s, ps[k], g.mesh.sizes[k]);
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n * int64_t(rt::dtypeSize(g.values[size_t(id)].dtype));
  }

  // The bytes each device sends to take a value from `have` to `want` on mesh dimension k: the
  // cost a row is chosen by.
  int64_t cost(int id, const Placements& ps, int k, const Placement& want) const {
    const Placement& have = ps[size_t(k)];
    const int64_t n = g.mesh.sizes[size_t(k)], block = localBytes(id, ps);
    if (have == want || have.replicated()) return 0;  // R -> S: a local slice
    if (have.partial()) return spmd::collectiveBytes(want.replicated() ? OpId::AllReduce : OpId::ReduceScatter, block, n);
    return spmd::collectiveBytes(want.sharded() ? OpId::AllToAll : OpId::AllGather, block, n);
  }

  // What a product computes, in flops on global values: a matmul's 2·M·N·K, a convolution's per
  // output element and window; other ops cost the bytes they move, which the rows count already.
  // A row that splits any operand or result along a mesh dimension divides the work among the
  // devices; the replicated row repeats it on every one. A row's cost adds its work per device to
  // its bytes moved, a byte taken to cost what kFlopsPerByte flops do (in-process collectives
  // move some 5 GB/s, a core's GEMM does some 40 GFLOP/s): a row that gathers a product's
  // operands to save a larger reduction later then loses to the partial sum when it would repeat
  // the product.
  static constexpr int64_t kFlopsPerByte = 8;
  // And each collective, now or later, costs as much as moving kCollectiveBytes: its devices meet
  // twice, and a gather or an all-to-all copies its blocks once more into place. Without it, a
  // data-parallel step chose to shard each weight's update (a reduce-scatter, a local slice, a
  // gather: fewer bytes than one all-reduce) and ran slower.
  static constexpr int64_t kCollectiveBytes = 256 << 10;
  int64_t work(const Node& n) const {
    auto numel = [&](int id) {
      int64_t c = 1;
      for (int64_t d : g.values[size_t(id)].shape) c *= d < 0 ? kOpenSize : d;
      return c;
    };
    int64_t out = 0;
    for (int o : n.outputs) out += numel(o);
    if (n.op == OpId::MatMul) {
      const Shape& a = g.values[size_t(n.inputs[0])].shape;
      const bool ta = n.attrs.has("transpose_a") && n.attrs.b("transpose_a");
      const int64_t k = a[a.size() - (ta ? 2 : 1)];
      return 2 * out * (k < 0 ? kOpenSize : std::max<int64_t>(1, k));
    }
    if (n.op == OpId::Conv2D) {
      const Shape& w = g.values[size_t(n.inputs[1])].shape;  // [kh, kw, cin, cout]
      return 2 * out * std::max<int64_t>(1, w[0] * w[1] * w[2]);
    }
    return 0;
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

  // Appends collective `op` on mesh dimension k to `out`, taking value `id` to placements `ps`
  // (ps[k] changed); returns the new value.
  int collective(std::vector<Node>& out, int id, OpId op, int k, const ops::Attrs& axes, const Placements& ps,
                 const Node& at) {
    Node c;
    c.op = op;
    c.inputs = {id};
    c.attrs = axes;
    c.attrs.set("mesh_dim", int64_t(k)).set("group", g.mesh.sizes[size_t(k)]);
    c.loc = at.loc;
    c.scope = at.scope;
    const int next = g.addValue(g.values[size_t(id)]);
    c.outputs = {next};
    set(next, ps);
    out.push_back(std::move(c));
    return next;
  }

  // Whether a mesh dimension other than k splits tensor dimension d.
  static bool splitElsewhere(const Placements& ps, int k, int d) {
    for (size_t j = 0; j < ps.size(); ++j)
      if (int(j) != k && ps[j] == Placement::s(d)) return true;
    return false;
  }

  // Moves value `id` to `want`, appending the collectives to `out`; returns the value that has
  // `want`. Gathers and reductions go from the last mesh dimension to the first and slices from
  // the first to the last, so that a tensor dimension split on several mesh dimensions is always
  // cut in mesh order.
  static std::string movedKey(const Placements& want) {
    std::string key;
    for (const Placement& p : want) key += p.str() + " ";
    return key;
  }
  // The value that already holds `id` moved to `want` in this block or one around it, or -1.
  int movedAlready(int id, const Placements& want) const {
    const std::string key = movedKey(want);
    for (auto level = moved.rbegin(); level != moved.rend(); ++level)
      if (auto hit = level->find({id, key}); hit != level->end()) return hit->second;
    return -1;
  }

  int redistribute(std::vector<Node>& out, int id, const Placements& want, const Node& at) {
    const std::string key = movedKey(want);
    if (int done = movedAlready(id, want); done >= 0) return done;
    const int from = id;
    Placements ps = g.placementsOf(id);
    auto move = [&](OpId op, int k, const ops::Attrs& axes, const Placement& to) {
      ps[size_t(k)] = to;
      id = collective(out, id, op, k, axes, ps, at);
    };
    auto gatherInner = [&](int k, int d) {  // mesh dimensions after k that split d, gathered first
      for (int j = g.mesh.rank() - 1; j > k; --j)
        if (ps[size_t(j)] == Placement::s(d)) move(OpId::AllGather, j, {{"axis", int64_t(d)}}, Placement::r());
    };
    for (int k = g.mesh.rank() - 1; k >= 0; --k) {
      const Placement have = ps[size_t(k)], to = want[size_t(k)];
      if (have == to || have.replicated()) continue;
      if (have.partial()) {
        if (to.sharded() && !splitElsewhere(ps, k, to.dim)) move(OpId::ReduceScatter, k, {{"axis", int64_t(to.dim)}}, to);
        else move(OpId::AllReduce, k, {}, Placement::r());
        continue;
      }
      gatherInner(k, have.dim);
      if (to.sharded() && !splitElsewhere(ps, k, have.dim) && !splitElsewhere(ps, k, to.dim))
        move(OpId::AllToAll, k, {{"split_axis", int64_t(to.dim)}, {"concat_axis", int64_t(have.dim)}}, to);
      else
        move(OpId::AllGather, k, {{"axis", int64_t(have.dim)}}, Placement::r());
    }
    for (int k = 0; k < g.mesh.rank(); ++k) {
      const Placement to = want[size_t(k)];
      if (ps[size_t(k)] == to) continue;
      // What is left to do is splitting replicated values (rows never ask a replicated value to be
      // a partial sum: fits() refuses them).
      gatherInner(k, to.dim);
      move(OpId::LocalSlice, k, {{"axis", int64_t(to.dim)}}, to);
    }
    moved.back()[{from, key}] = id;
    return id;
  }

  void node(Node n, std::vector<Node>& out) {
    const ops::OpDef& d = ops::opDef(n.op);
    if (d.family == ops::Family::State) {
      if (n.op == OpId::ReadVariable) {
        const VariableSlot& v = g.variables[size_t(n.attrs.i("var"))];
        set(n.outputs[0], v.placements.empty() ? replicated() : v.placements);
      } else if (n.op == OpId::AssignVariable) {
        const VariableSlot& v = g.variables[size_t(n.attrs.i("var"))];
        n.inputs[0] = redistribute(out, n.inputs[0], v.placements.empty() ? replicated() : v.placements, n);
      } else {
        set(n.outputs[0], replicated());
      }
      out.push_back(std::move(n));
      return;
    }
    if (n.op == OpId::Relayout) {  // the program's own re-layout: its input is moved to `to`
      const Placements to = spmd::relayoutTarget(n.attrs, g.mesh);
      n.inputs[0] = redistribute(out, n.inputs[0], to, n);
      set(n.outputs[0], to);
      out.push_back(std::move(n));
      return;
    }
    if (n.op == OpId::While) {
      loop(std::move(n), out);
      return;
    }
    if (d.family == ops::Family::Output || d.family == ops::Family::Control) {
      for (int& in : n.inputs) in = redistribute(out, in, replicated(), n);
      for (Block& b : n.blocks) {
        for (int p : b.params) set(p, replicated());
        block(b, &n);
      }
      for (int o : n.outputs) set(o, replicated());
      out.push_back(std::move(n));
      return;
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
      // The best row: least work per device, bytes moved and collectives (counted as bytes),
      // now and later to a result's preferred placements (work() above); then fewest
      // collectives; then fewest
      // partial results (a partial sum is reduced once, early, rather than along every path that
      // needs it whole); then fewest inputs re-laid (a replicated input split locally costs
      // nothing but is a change); then most results sharded. The replicated row always fits.
      const spmd::ShardRow* best = nullptr;
      std::tuple<int64_t, int, int, int, int> bestKey;
      const int64_t flops = work(n);
      auto collective = [](const Placement& from, const Placement& to) { return from != to && !from.replicated(); };
      for (const spmd::ShardRow& row : rows) {
        if (!fits(row, n, have, want, outs, k)) continue;
        std::tuple<int64_t, int, int, int, int> key{0, 0, 0, 0, 0};
        bool splits = false;
        for (const Placement& p : row.in) splits = splits || !p.replicated();
        for (const Placement& p : row.out) splits = splits || !p.replicated();
        std::get<0>(key) += (splits ? flops / g.mesh.sizes[size_t(k)] : flops) / kFlopsPerByte;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          // A move another user of the value made already is shared: it costs nothing more.
          Placements to = want[i];
          to[size_t(k)] = row.in[i];
          const bool shared = to != have[i] && movedAlready(n.inputs[i], to) >= 0;
          if (!shared) {
            std::get<0>(key) += cost(n.inputs[i], have[i], k, row.in[i]);
            std::get<1>(key) += collective(have[i][size_t(k)], row.in[i]);
          }
          std::get<3>(key) += row.in[i] != have[i][size_t(k)];
          // (Not for a partial sum: the linear ops may carry it on, to be reduced once, later. Nor
          // for an input the row leaves as it is when a result carries the same wish on: the
          // result's later move, counted below, is that one.)
          auto p = preferred.find(n.inputs[i]);
          if (p == preferred.end() || !p->second[size_t(k)] || row.in[i] == *p->second[size_t(k)] ||
              have[i][size_t(k)].partial() || (row.in[i] == have[i][size_t(k)] && carriesWish(n, k, *p->second[size_t(k)])))
            continue;
          std::get<0>(key) += cost(n.inputs[i], have[i], k, *p->second[size_t(k)]);
          std::get<1>(key) += collective(have[i][size_t(k)], *p->second[size_t(k)]);
        }
        for (size_t r = 0; r < n.outputs.size(); ++r) {
          // The result's block as it will be: the rows chosen on the mesh dimensions before k,
          // this one, and its wishes (else replicated) on those after.
          Placements later = outs[r];
          later[size_t(k)] = row.out[r];
          auto p = preferred.find(n.outputs[r]);
          for (size_t j = size_t(k) + 1; p != preferred.end() && j < later.size(); ++j)
            if (p->second[j]) later[j] = *p->second[j];
          if (p != preferred.end() && p->second[size_t(k)]) {
            std::get<0>(key) += cost(n.outputs[r], later, k, *p->second[size_t(k)]);
            std::get<1>(key) += collective(row.out[r], *p->second[size_t(k)]);
          }
          std::get<2>(key) += row.out[r].partial();
          std::get<4>(key) -= row.out[r].sharded();
        }
        std::get<0>(key) += std::get<1>(key) * kCollectiveBytes;
        if (!best || key < bestKey) best = &row, bestKey = key;
      }
      for (size_t i = 0; i < n.inputs.size(); ++i) want[i][size_t(k)] = best->in[i];
      for (size_t r = 0; r < outs.size(); ++r) outs[r][size_t(k)] = best->out[r];
    }
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (want[i] != have[i]) n.inputs[i] = redistribute(out, n.inputs[i], want[i], n);
    for (size_t r = 0; r < outs.size(); ++r) set(n.outputs[r], outs[r]);
    out.push_back(std::move(n));
  }

  // Whether a result of n wishes placement `w` on mesh dimension k.
  bool carriesWish(const Node& n, int k, const Placement& w) const {
    for (int o : n.outputs)
      if (auto p = preferred.find(o); p != preferred.end() && p->second[size_t(k)] == w) return true;
    return false;
  }

  // Whether a row's placements divide the node's values on mesh dimension k, after the rows
  // already chosen for the dimensions before it (`want` for the inputs, `outs` for the results),
  // need no replicated input made a partial sum, and split no input anew along a size the
  // signature leaves open: whether that divides is known only at a call (an input's own split
  // there, from its TensorSpec's layout, is checked by the call, and may stay).
  bool fits(const spmd::ShardRow& row, const Node& n, const std::vector<Placements>& have,
            const std::vector<Placements>& want, const std::vector<Placements>& outs, int k) const {
    auto local = [&](int id, const Placements& chosen) {
      Shape s = g.values[size_t(id)].shape;
      for (int j = 0; j < k; ++j) s = spmd::localShape(s, chosen[size_t(j)], g.mesh.sizes[size_t(j)]);
      return s;
    };
    auto ok = [&](int id, const Placements& chosen, const Placement& p) {
      return !spmd::misfit(local(id, chosen), p, g.mesh.sizes[size_t(k)]);
    };
    auto splitsOpen = [&](int id, const Placements& chosen, const Placement& p) {
      return p.sharded() && p.dim < local(id, chosen).rank() && local(id, chosen)[p.dim] == rt::kUnknownDim;
    };
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (!ok(n.inputs[i], want[i], row.in[i]) || (row.in[i].partial() && !have[i][size_t(k)].partial()) ||
          (row.in[i] != have[i][size_t(k)] && splitsOpen(n.inputs[i], want[i], row.in[i])))
        return false;
    for (size_t r = 0; r < n.outputs.size(); ++r)
      if (!ok(n.outputs[r], outs[r], row.out[r])) return false;
    return true;
  }

  // A while loop (inputs: the initial values; blocks: cond and body, both taking the loop values;
  // the body yields the next ones). The loop values keep one placement each through every turn
  // — the initial value's, partial sums reduced, to start — refined to a fixed point as XLA's
  // propagation does: the body is placed on a trial, and on each mesh dimension where a result
  // comes back placed otherwise than its parameter went in, the loop value becomes replicated.
  // Each trial only replicates more, so this ends; then the loop is placed for good, its body's
  // results moved to the loop values' placements.
  void loop(Node n, std::vector<Node>& out) {
    std::vector<Placements> carried;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      carried.push_back(whole(g.placementsOf(n.inputs[i])));
      if (spmd::misfit(g.values[size_t(n.outputs[i])].shape, carried[i], g.mesh)) carried[i] = replicated();
    }
    for (bool changed = true; changed;) {
      const size_t values = g.values.size();
      Block trial = n.blocks[1];
      for (size_t i = 0; i < carried.size(); ++i) set(trial.params[i], carried[i]);
      std::vector<Placements> got;
      block(trial, &n, &carried, &got);
      changed = false;
      for (size_t i = 0; i < carried.size(); ++i)
        for (size_t k = 0; k < carried[i].size(); ++k)
          if (whole(got[i])[k] != carried[i][k] && !carried[i][k].replicated()) carried[i][k] = Placement::r(), changed = true;
      g.values.resize(values);  // the trial's collectives
      if (g.placements.size() > values) g.placements.resize(values);
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) n.inputs[i] = redistribute(out, n.inputs[i], carried[i], n);
    for (Block& b : n.blocks)
      for (size_t i = 0; i < carried.size(); ++i) set(b.params[i], carried[i]);
    std::vector<Placements> yields(1, replicated());  // the cond's verdict, seen by every device
    block(n.blocks[0], &n, &yields);
    block(n.blocks[1], &n, &carried);
    for (size_t i = 0; i < carried.size(); ++i) set(n.outputs[i], carried[i]);
    out.push_back(std::move(n));
  }

  // Places a block's nodes and moves its results to `to` (the graph's own results: whole; a
  // block of control flow, `owner`: replicated unless `to` says); `placed`, when given, gets the
  // results' placements as the nodes left them.
  void block(Block& b, const Node* owner, const std::vector<Placements>* to = nullptr,
             std::vector<Placements>* placed = nullptr) {
    prefer(b);
    moved.emplace_back();
    std::vector<Node> out;
    for (Node& n : b.nodes) node(std::move(n), out);
    Node returned;
    if (owner) returned.loc = owner->loc, returned.scope = owner->scope;
    else if (!out.empty()) returned.loc = out.back().loc;
    for (size_t i = 0; i < b.results.size(); ++i) {
      int& r = b.results[i];
      if (placed) placed->push_back(g.placementsOf(r));
      const Placements target = to ? (*to)[i] : owner ? replicated() : whole(g.placementsOf(r));
      if (target != g.placementsOf(r)) r = redistribute(out, r, target, returned);
    }
    b.nodes = std::move(out);
    moved.pop_back();
  }

  // Adds wishes for value `id` on the mesh dimensions it has none for yet.
  void wish(int id, const Wish& w) {
    Wish& have = preferred.try_emplace(id, Wish(size_t(g.mesh.rank()))).first->second;
    for (size_t k = 0; k < w.size(); ++k)
      if (!have[k]) have[k] = w[k];
  }

  // What a product with a split weight (a variable read, operand `w` of 0 or 1) wishes its
  // other operand: on a mesh dimension splitting the weight's contracted dimension, the other
  // operand split along its own; on one splitting the weight's other dimension, whole.
  Wish productWish(const Node& n, int w) const {
    Wish wish(size_t(g.mesh.rank()));
    auto v = reads.find(n.inputs[size_t(w)]);
    if (v == reads.end()) return wish;
    const Placements& layout = g.variables[size_t(v->second)].placements;
    const int wr = g.values[size_t(n.inputs[size_t(w)])].shape.rank();
    const int xr = g.values[size_t(n.inputs[size_t(1 - w)])].shape.rank();
    if (wr != 2 || xr < 2) return wish;
    auto flag = [&](const char* name) { return n.attrs.has(name) && n.attrs.b(name); };
    const bool tw = flag(w ? "transpose_b" : "transpose_a"), tx = flag(w ? "transpose_a" : "transpose_b");
    // Contracted: a's last (second last when transposed), b's second last (last when transposed).
    const int wContracted = w ? (tw ? 1 : 0) : (tw ? 0 : 1);
    const int xContracted = w ? (tx ? xr - 2 : xr - 1) : (tx ? xr - 1 : xr - 2);
    for (size_t k = 0; k < layout.size(); ++k)
      if (layout[k].sharded()) wish[k] = layout[k].dim == wContracted ? Placement::s(xContracted) : Placement::r();
    return wish;
  }

  // Seeds wishes from the end of a block: values assigned to variables, operands of products
  // with split weights, and the same-shaped operands of the elementwise ops that make a value
  // with a wish (an optimizer's update of a weight and its slots; a layer norm's input).
  void prefer(const Block& b) {
    for (auto n = b.nodes.rbegin(); n != b.nodes.rend(); ++n) {
      if (n->op == OpId::AssignVariable) {
        const VariableSlot& v = g.variables[size_t(n->attrs.i("var"))];
        const Placements layout = v.placements.empty() ? replicated() : v.placements;
        wish(n->inputs[0], Wish(layout.begin(), layout.end()));
        continue;
      }
      if (n->op == OpId::MatMul) {
        wish(n->inputs[0], productWish(*n, 1));
        wish(n->inputs[1], productWish(*n, 0));
        continue;
      }
      const ops::Family f = ops::opDef(n->op).family;
      const bool elementwise = f == ops::Family::Unary || f == ops::Family::Binary || f == ops::Family::Ternary;
      if (!elementwise || n->outputs.size() != 1) continue;
      auto p = preferred.find(n->outputs[0]);
      if (p == preferred.end()) continue;
      const Wish want = p->second;
      for (int in : n->inputs)
        if (g.values[size_t(in)].shape == g.values[size_t(n->outputs[0])].shape) wish(in, want);
    }
  }
};

// Why a collective's result is needed: what its first user does with it.
std::string reasonOf(const Graph& g, int value) {
  std::string why;
  std::function<bool(const Block&, bool)> find = [&](const Block& b, bool top) {
    for (const Node& n : b.nodes) {
      for (int in : n.inputs) {
        if (in != value) continue;
        const ops::OpDef& d = ops::opDef(n.op);
        if (d.family == ops::Family::Collective) why = reasonOf(g, n.outputs[0]);
        else if (n.op == OpId::AssignVariable) why = "assigned to a variable";
        else if (n.op == OpId::Print) why = "printed";
        else if (d.family == ops::Family::Control) why = "control flow runs replicated";
        else why = std::string("for ") + d.name;
        return true;
      }
      for (const Block& inner : n.blocks)
        if (find(inner, false)) return true;
    }
    for (int r : b.results)
      if (r == value) return why = top ? "returned" : "control flow runs replicated", true;
    return false;
  };
  find(g.body, true);
  return why;
}

}  // namespace

Graph propagatePlacements(const Graph& input) {
  if (input.mesh.empty()) return input;
  spmd::registerShardRules();
  Graph g = input;
  Propagator p{g};
  std::function<void(const Block&)> reads = [&](const Block& b) {
    for (const Node& n : b.nodes) {
      if (n.op == OpId::ReadVariable) p.reads[n.outputs[0]] = int(n.attrs.i("var"));
      for (const Block& inner : n.blocks) reads(inner);
    }
  };
  reads(g.body);
  for (int id : g.body.params)
    if (size_t(id) >= g.placements.size() || g.placements[size_t(id)].empty()) p.set(id, p.replicated());
  p.block(g.body, nullptr);
  return g;
}

bool movesData(const Node& n) { return n.attrs.i("group") > 1; }

CommPlan commPlanOf(const Graph& g) {
  CommPlan plan;
  std::function<void(const Block&)> walk = [&](const Block& b) {
    for (const Node& n : b.nodes) {
      for (const Block& inner : n.blocks) walk(inner);
      if (ops::opDef(n.op).family != ops::Family::Collective || !movesData(n)) continue;
      const int in = n.inputs[0], k = int(n.attrs.i("mesh_dim"));
      const Placements ps = g.placementsOf(in);
      Shape s = g.values[size_t(in)].shape;
      for (size_t j = 0; j < ps.size(); ++j) s = spmd::localShape(s, ps[j], g.mesh.sizes[j]);
      int64_t block = int64_t(rt::dtypeSize(g.values[size_t(in)].dtype));
      for (int64_t d : s) block *= d < 0 ? 1 : d;
      plan.collectives.push_back({n.loc, n.op, k, n.attrs.i("group"), spmd::collectiveBytes(n.op, block, n.attrs.i("group")),
                                  ps[size_t(k)].partial(), in, reasonOf(g, n.outputs[0])});
      plan.collectives.back().requested = plan.collectives.back().why == "for relayout";
      plan.collectives.back().block = block;
    }
  };
  walk(g.body);
  if (plan.collectives.empty()) return plan;
  const std::vector<std::vector<int>> buckets = collectiveBuckets(partition(g));
  for (size_t k = 0; k < buckets.size(); ++k)
    for (int m : buckets[k]) plan.collectives[size_t(m)].bucket = int(k) + 1;
  return plan;
}

std::string implicitCommError(const Graph& placed, const std::string& name) {
  for (const PlannedCollective& c : commPlanOf(placed).collectives)
    if (!c.inherent && !c.requested)
      return std::string("--no-implicit-comm: ") + ops::opName(c.op) + " over " + placed.mesh.names[size_t(c.meshDim)] +
             " at " + shownText(c.loc.file) + ":" + std::to_string(c.loc.line) + " re-lays a value (" + c.why +
             ") in graph " + name;
  return "";
}

}  // namespace weft::graph
