#include "memory_plan.h"

#include <algorithm>
#include <climits>

namespace weft::codegen {
namespace {

struct Liveness {
  const PlanInput& in;
  std::vector<int> def, last;
  int clock = 0;

  int root(int v) const {
    while (in.aliasOf[size_t(v)] >= 0) v = in.aliasOf[size_t(v)];
    return v;
  }
  void use(int v, int t) {
    int r = root(v);
    last[size_t(r)] = std::max(last[size_t(r)], t);
  }
  void define(int v, int t) {
    int r = root(v);
    if (def[size_t(r)] < 0) def[size_t(r)] = t;
  }
  // Returns the values used in b (and blocks inside it), for loops to keep them alive.
  void walk(const graph::Block& b, std::vector<int>& used) {
    for (const auto& n : b.nodes) {
      const int start = clock++;
      for (int o : n.outputs) define(o, start);
      for (int i : n.inputs) use(i, start), used.push_back(i);
      std::vector<int> inner;
      for (const auto& blk : n.blocks) {
        for (int p : blk.params) define(p, start);
        walk(blk, inner);
      }
      const int end = clock++;
      // A loop runs its blocks again: what they use lives until the loop ends.
      if (n.op == ops::OpId::While)
        for (int v : inner) use(v, end);
      for (int o : n.outputs) use(o, end);  // written when the node ends (a cond's branches)
      used.insert(used.end(), inner.begin(), inner.end());
    }
    for (int r : b.results) use(r, clock), used.push_back(r);
    ++clock;
  }
};

}  // namespace

MemoryPlan planMemory(const graph::Graph& g, const PlanInput& in) {
  const size_t n = g.values.size();
  Liveness L{in, std::vector<int>(n, -1), std::vector<int>(n, -1)};
  std::vector<int> used;
  for (int p : g.body.params) L.define(p, 0);
  L.walk(g.body, used);
  for (int r : g.body.results) L.use(r, INT_MAX);  // copied out after the last node
  for (auto [v, w] : in.liveUntil) L.use(v, L.def[size_t(L.root(w))]);

  MemoryPlan plan;
  plan.slotOf.assign(n, -1);
  std::vector<int> order;
  for (size_t v = 0; v < n; ++v)
    if (in.owned[v] && in.aliasOf[v] < 0 && L.def[v] >= 0) order.push_back(int(v));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return L.def[size_t(a)] < L.def[size_t(b)]; });
  std::vector<int> slotLast;  // per slot: when its current value dies
  for (int v : order) {
    int slot = -1;
    // In place: an elementwise node may write over an input that dies at this node.
    if (int x = in.inPlace[size_t(v)]; x >= 0) {
      int r = L.root(x);
      int s = plan.slotOf[size_t(r)];
      if (s >= 0 && in.sameSize[size_t(v)] && L.last[size_t(r)] == L.def[size_t(v)] && slotLast[size_t(s)] == L.last[size_t(r)])
        slot = s;
    }
    for (size_t s = 0; slot < 0 && s < slotLast.size(); ++s)
      if (slotLast[s] < L.def[size_t(v)]) slot = int(s);
    if (slot < 0) {
      slot = int(plan.slots.size());
      plan.slots.emplace_back();
      slotLast.push_back(-1);
    }
    plan.slots[size_t(slot)].push_back(v);
    plan.slotOf[size_t(v)] = slot;
    slotLast[size_t(slot)] = std::max(L.last[size_t(v)], L.def[size_t(v)]);
  }
  return plan;
}

}  // namespace weft::codegen
