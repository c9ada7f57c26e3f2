// Helpers the passes share: use counts, renaming uses, effects.
#include "../passes.h"

namespace weft::graph {
namespace {

void count(const graph::Block& b, std::vector<int>& uses) {
  for (const auto& n : b.nodes) {
    for (int i : n.inputs) ++uses[size_t(i)];
    for (const auto& inner : n.blocks) count(inner, uses);
  }
  for (int r : b.results) ++uses[size_t(r)];
}

}  // namespace

std::vector<int> useCounts(const graph::Graph& g) {
  std::vector<int> uses(g.values.size(), 0);
  count(g.body, uses);
  return uses;
}

void renameUses(graph::Block& b, const std::map<int, int>& renamed) {
  auto fix = [&](int& v) {
    for (auto it = renamed.find(v); it != renamed.end(); it = renamed.find(v)) v = it->second;
  };
  for (auto& n : b.nodes) {
    for (int& i : n.inputs) fix(i);
    for (auto& inner : n.blocks) renameUses(inner, renamed);
  }
  for (int& r : b.results) fix(r);
}

bool hasEffect(const graph::Node& n) {
  if (ops::opDef(n.op).effect) return true;
  for (const auto& b : n.blocks)
    for (const auto& inner : b.nodes)
      if (hasEffect(inner)) return true;
  return false;
}

}  // namespace weft::graph
