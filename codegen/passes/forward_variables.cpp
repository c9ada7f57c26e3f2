// Variables in SSA form: within a block, a read of a variable whose value the block already holds
// (read before, or assigned) uses that value, and each assignment moves down to just before the
// next node that reads or assigns the variable (or the block's end). An optimizer's step then reads
// each weight and slot once and assigns it once, after all its arithmetic, so the arithmetic forms
// one run for elementwise fusion and the emitter can compute the new value in place.
#include <set>

#include "passes.h"

namespace weft::codegen {
namespace {

using ops::OpId;

// The variables a node reads or assigns (inside its blocks too); `assigned` gets those it assigns.
void touched(const graph::Node& n, std::set<int64_t>& vars, std::set<int64_t>& assigned) {
  if (n.op == OpId::ReadVariable || n.op == OpId::AssignVariable) vars.insert(n.attrs.i("var"));
  if (n.op == OpId::AssignVariable) assigned.insert(n.attrs.i("var"));
  for (const auto& b : n.blocks)
    for (const auto& inner : b.nodes) touched(inner, vars, assigned);
}

void forward(graph::Block& b, std::map<int, int>& renamed) {
  std::map<int64_t, int> known;  // variable -> the value it holds here
  std::vector<graph::Node> kept;
  for (auto& n : b.nodes) {
    for (int& i : n.inputs)
      if (auto it = renamed.find(i); it != renamed.end()) i = it->second;
    for (auto& inner : n.blocks) forward(inner, renamed);
    if (n.op == OpId::ReadVariable) {
      auto k = known.find(n.attrs.i("var"));
      if (k != known.end()) {
        renamed[n.outputs[0]] = k->second;
        continue;
      }
      known[n.attrs.i("var")] = n.outputs[0];
    } else if (n.op == OpId::AssignVariable) {
      known[n.attrs.i("var")] = n.inputs[0];
    } else if (!n.blocks.empty()) {
      std::set<int64_t> vars, assigned;
      touched(n, vars, assigned);
      for (int64_t v : assigned) known.erase(v);
    }
    kept.push_back(std::move(n));
  }
  for (int& r : b.results)
    if (auto it = renamed.find(r); it != renamed.end()) r = it->second;

  // Sink the assignments.
  std::vector<graph::Node> out, pending;
  auto flush = [&](const std::set<int64_t>& vars) {
    std::vector<graph::Node> still;
    for (auto& a : pending)
      (vars.count(a.attrs.i("var")) ? out : still).push_back(std::move(a));
    pending = std::move(still);
  };
  for (auto& n : kept) {
    std::set<int64_t> vars, assigned;
    touched(n, vars, assigned);
    flush(vars);
    (n.op == OpId::AssignVariable ? pending : out).push_back(std::move(n));
  }
  for (auto& a : pending) out.push_back(std::move(a));
  b.nodes = std::move(out);
}

}  // namespace

graph::Graph forwardVariables(const graph::Graph& g) {
  graph::Graph out = g;
  std::map<int, int> renamed;
  forward(out.body, renamed);
  return out;
}

}  // namespace weft::codegen
