#include "variable_plan.h"

#include <functional>
#include <vector>

namespace weft::graph {

using ops::OpId;

namespace {

// Results that may be their input's bytes (as the emitter lays them out).
bool isView(OpId op) { return ops::opDef(op).view; }

}  // namespace

VariablePlan planVariables(const Graph& g) {
  VariablePlan plan;
  const Block& top = g.body;
  const int end = int(top.nodes.size());  // the results are read after the last node

  // Per value: the top-block node that defines it, and the last top-block position that reads it
  // (a read inside a nested block counts at its node; a view's reads count for what it views).
  std::vector<int> def(g.values.size(), -1), lastUse(g.values.size(), -1);
  std::set<int64_t> touchedInBlocks;
  std::function<void(const Block&, int)> usesIn = [&](const Block& b, int at) {
    for (const Node& n : b.nodes) {
      if (n.op == OpId::ReadVariable || n.op == OpId::AssignVariable) touchedInBlocks.insert(n.attrs.i("var"));
      for (int i : n.inputs) lastUse[size_t(i)] = std::max(lastUse[size_t(i)], at);
      for (const Block& inner : n.blocks) usesIn(inner, at);
    }
    for (int r : b.results) lastUse[size_t(r)] = std::max(lastUse[size_t(r)], at);
  };
  for (int k = 0; k < end; ++k) {
    const Node& n = top.nodes[size_t(k)];
    for (int o : n.outputs) def[size_t(o)] = k;
    for (int i : n.inputs) lastUse[size_t(i)] = std::max(lastUse[size_t(i)], k);
    for (const Block& b : n.blocks) usesIn(b, k);
  }
  for (int r : top.results) lastUse[size_t(r)] = end;
  for (int k = end - 1; k >= 0; --k) {  // views extend their input's life, back to front
    const Node& n = top.nodes[size_t(k)];
    if (isView(n.op) && !n.inputs.empty() && !n.outputs.empty())
      lastUse[size_t(n.inputs[0])] = std::max(lastUse[size_t(n.inputs[0])], lastUse[size_t(n.outputs[0])]);
  }

  std::map<int64_t, std::vector<int>> assigns, reads;  // per variable: top-block positions
  for (int k = 0; k < end; ++k) {
    const Node& n = top.nodes[size_t(k)];
    if (n.op == OpId::AssignVariable) assigns[n.attrs.i("var")].push_back(k);
    if (n.op == OpId::ReadVariable) reads[n.attrs.i("var")].push_back(k);
  }
  for (const auto& [var, at] : assigns) {
    auto copyAll = [&, var = var] {
      for (int r : reads[var]) plan.copiedReads.insert(&top.nodes[size_t(r)]);
    };
    if (at.size() != 1 || touchedInBlocks.count(var)) {
      copyAll();
      continue;
    }
    const int a = at[0];
    const int v = top.nodes[size_t(a)].inputs[0];
    const int d = def[size_t(v)];
    // Computed into the variable: by a node of its own output, while no read of the old value
    // is wanted after it (an elementwise node may read the old value at the index it writes).
    bool into = d >= 0 && d < a;
    if (into) {
      const Node& producer = top.nodes[size_t(d)];
      // An op of several results only when each is elementwise (adam_update: the variable and
      // its slots, each computed into its own).
      into = (producer.outputs.size() == 1 || ops::opDef(producer.op).inPlace) && producer.blocks.empty() &&
             !isView(producer.op) && producer.op != OpId::ReadVariable && producer.op != OpId::Constant;
      for (int r : reads[var]) {
        if (r > a || !into) continue;
        const int last = lastUse[size_t(top.nodes[size_t(r)].outputs[0])];
        into = last < d || (last == d && ops::opDef(producer.op).inPlace);
      }
    }
    if (into) plan.computedInto[v] = int(var);
    const int overwrite = into ? d : a;  // where the old value stops being there
    for (int r : reads[var])
      if (r < a && lastUse[size_t(top.nodes[size_t(r)].outputs[0])] >= overwrite &&
          !(into && lastUse[size_t(top.nodes[size_t(r)].outputs[0])] == d))
        plan.copiedReads.insert(&top.nodes[size_t(r)]);
  }
  return plan;
}

}  // namespace weft::graph
