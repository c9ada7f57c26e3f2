// Common subexpressions: a node with no effect and no blocks that repeats an earlier node in
// scope (an enclosing block's, or its own block's) reuses that node's results. Nodes are
// hash-consed on their op and inputs (attributes are compared within a bucket), so the pass is
// linear in the graph's size: a 150,000-node chain takes as long as one walk over it.
#include <unordered_map>

#include "../passes.h"

namespace weft::graph {
namespace {

struct Key {
  ops::OpId op;
  const std::vector<int>* inputs;
  bool operator==(const Key& o) const { return op == o.op && *inputs == *o.inputs; }
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = std::hash<int>()(int(k.op));
    for (int i : *k.inputs) h = h * 1000003u ^ std::hash<int>()(i);
    return h;
  }
};

class Merger {
 public:
  void block(Block& b) {
    size_t mark = added_.size();  // what this block adds leaves scope with it
    for (auto& n : b.nodes) {
      rename(n.inputs);
      for (auto& inner : n.blocks) block(inner);
      // A stack of rows (sizedByValue) is its loop's to write in place: two are never merged.
      if (hasEffect(n) || !n.blocks.empty() || n.op == ops::OpId::Constant || ops::opDef(n.op).sizedByValue) continue;
      if (const Node* same = find(n)) {
        for (size_t i = 0; i < n.outputs.size(); ++i) renamed_[n.outputs[i]] = same->outputs[i];
        continue;
      }
      auto it = seen_.emplace(Key{n.op, &n.inputs}, &n);
      added_.push_back(it);
    }
    rename(b.results);
    while (added_.size() > mark) {
      seen_.erase(added_.back());
      added_.pop_back();
    }
  }

 private:
  using Seen = std::unordered_multimap<Key, const Node*, KeyHash>;

  const Node* find(const Node& n) const {
    auto [lo, hi] = seen_.equal_range(Key{n.op, &n.inputs});
    for (auto it = lo; it != hi; ++it)
      if (it->second->attrs == n.attrs && it->second->outputs.size() == n.outputs.size()) return it->second;
    return nullptr;
  }

  void rename(std::vector<int>& ids) const {
    for (int& i : ids)
      if (auto it = renamed_.find(i); it != renamed_.end()) i = it->second;
  }

  Seen seen_;
  std::vector<Seen::iterator> added_;
  std::unordered_map<int, int> renamed_;
};

}  // namespace

graph::Graph mergeCommonSubexpressions(const graph::Graph& g) {
  graph::Graph out = g;
  Merger().block(out.body);
  return removeDeadCode(out);  // the repeated nodes, now unused
}

}  // namespace weft::graph
