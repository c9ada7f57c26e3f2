// Common subexpressions: a node with no effect and no blocks that repeats an earlier node in
// scope (an enclosing block's, or its own block's) reuses that node's results.
#include "../passes.h"

namespace weft::graph {
namespace {

using Seen = std::vector<const graph::Node*>;

void merge(graph::Block& b, Seen seen, std::map<int, int>& renamed) {
  for (auto& n : b.nodes) {
    for (int& i : n.inputs)
      if (auto it = renamed.find(i); it != renamed.end()) i = it->second;
    for (auto& inner : n.blocks) {
      renameUses(inner, renamed);
      merge(inner, seen, renamed);
    }
    if (hasEffect(n) || !n.blocks.empty() || n.op == ops::OpId::Constant) continue;
    const graph::Node* same = nullptr;
    for (const graph::Node* s : seen)
      if (s->op == n.op && s->inputs == n.inputs && s->attrs == n.attrs && s->outputs.size() == n.outputs.size()) {
        same = s;
        break;
      }
    if (!same) {
      seen.push_back(&n);
      continue;
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) renamed[n.outputs[i]] = same->outputs[i];
  }
  for (int& r : b.results)
    if (auto it = renamed.find(r); it != renamed.end()) r = it->second;
}

}  // namespace

graph::Graph mergeCommonSubexpressions(const graph::Graph& g) {
  graph::Graph out = g;
  std::map<int, int> renamed;
  merge(out.body, {}, renamed);
  return removeDeadCode(out);  // the repeated nodes, now unused
}

}  // namespace weft::graph
