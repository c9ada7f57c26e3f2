// Gradient bucketing (PyTorch DDP's buckets, Horovod's tensor fusion): a data-parallel step
// all-reduces every gradient on its own, and a small all-reduce costs the collective's latency
// (tens of µs across ranks), not its bytes. Small all-reduces of one block over the same mesh
// dimension and dtype travel in one call instead: their blocks are flattened and concatenated,
// the concatenation all-reduced, and the result split and reshaped back into the original values
// (reshape, concat, all_reduce, split: ops every back-end already runs). Sums are elementwise, so
// each element is summed over the same devices in the same order as before.
//
// A bucket may only hold all-reduces whose inputs are all computed before any of their results
// is used, so that its one call fits between the two: then no member depends on another. Members
// are taken in program order, greedily; a member that would break that, or overflow the
// bucket's cap, closes the bucket and opens the next.
#include <algorithm>
#include <functional>

#include "../../ops/symbolic_sizes.h"
#include "../../values/context.h"
#include "../passes.h"

namespace weft::graph {
namespace {

// All-reduces of at least this many bytes a device go alone: their time is their bytes, and
// packing them would copy them twice for a latency they barely notice.
constexpr int64_t kSmall = 256 << 10;
// A bucket's cap, as PyTorch DDP's default bucket_cap_mb.
constexpr int64_t kBucketCap = 25 << 20;

// A static block's bytes, or -1 when a size is unknown until the code runs.
int64_t staticBytes(const TensorType& t) {
  int64_t n = int64_t(rt::dtypeSize(t.dtype));
  for (int64_t d : t.shape) {
    if (d < 0 || ops::sizes::symbolic(d)) return -1;
    n *= d;
  }
  return n;
}

bool candidate(const Graph& g, const Node& n) {
  if (n.op != ops::OpId::AllReduce) return false;
  const int64_t bytes = staticBytes(g.values[size_t(n.inputs[0])]);
  return bytes >= 0 && bytes < kSmall;
}

struct Bucket {
  std::vector<size_t> members;  // indices into the block's nodes, in program order
  size_t at;                    // the node its call goes before: the first to use a result
  bool operator<(const Bucket& o) const { return members < o.members; }
};

// The buckets of one block's nodes, those of two or more members only.
std::vector<Bucket> bucketsOf(const Graph& g, const Block& b) {
  // Where each value is defined in this block (-1: before it) and first used (its node, or the
  // node whose blocks use it; the block's end for a result).
  std::vector<long> def(g.values.size(), -1), use(g.values.size(), long(b.nodes.size()));
  std::function<void(const Block&, long)> usedAt = [&](const Block& inner, long at) {
    for (const Node& n : inner.nodes) {
      for (int v : n.inputs) use[size_t(v)] = std::min(use[size_t(v)], at);
      for (const Block& deeper : n.blocks) usedAt(deeper, at);
    }
    for (int v : inner.results) use[size_t(v)] = std::min(use[size_t(v)], at);
  };
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    for (int v : b.nodes[i].outputs) def[size_t(v)] = long(i);
    for (int v : b.nodes[i].inputs) use[size_t(v)] = std::min(use[size_t(v)], long(i));
    for (const Block& inner : b.nodes[i].blocks) usedAt(inner, long(i));
  }
  struct Open {
    std::vector<size_t> members;
    long inputsReady = -1, firstUse = 0;
    int64_t bytes = 0;
  };
  std::vector<Bucket> done;
  std::vector<Open> open;  // one per (mesh dimension, group, dtype) met so far
  auto close = [&](Open& o) {
    if (o.members.size() > 1) done.push_back({o.members, size_t(o.firstUse)});
    o = Open{};
  };
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    const Node& n = b.nodes[i];
    if (!candidate(g, n)) continue;
    const TensorType& t = g.values[size_t(n.inputs[0])];
    const long ready = def[size_t(n.inputs[0])], first = use[size_t(n.outputs[0])];
    const int64_t bytes = staticBytes(t);
    auto same = [&](const Open& o) {
      const Node& m = b.nodes[o.members[0]];
      return m.attrs.i("mesh_dim") == n.attrs.i("mesh_dim") && m.attrs.i("group") == n.attrs.i("group") &&
             g.values[size_t(m.inputs[0])].dtype == t.dtype;
    };
    auto it = std::find_if(open.begin(), open.end(), same);
    if (it == open.end()) it = open.insert(open.end(), Open{});
    // A member whose input another's result is, or is computed from: they cannot share a call.
    const bool depends = std::max(it->inputsReady, ready) >= std::min(it->firstUse, first) ||
                         std::find(it->members.begin(), it->members.end(), size_t(ready)) != it->members.end();
    if (!it->members.empty() && (depends || it->bytes + bytes > kBucketCap))
      close(*it);
    if (it->members.empty()) it->firstUse = first;
    it->members.push_back(i);
    it->inputsReady = std::max(it->inputsReady, ready);
    it->firstUse = std::min(it->firstUse, first);
    it->bytes += bytes;
  }
  for (Open& o : open) close(o);
  std::sort(done.begin(), done.end());
  return done;
}

// The bucket's nodes, computing each member's output from its input through one all-reduce.
std::vector<Node> bucketNodes(Graph& g, const Block& b, const std::vector<size_t>& members) {
  const Node& first = b.nodes[members[0]];
  const DType dtype = g.values[size_t(first.inputs[0])].dtype;
  std::vector<Node> out;
  auto node = [&](ops::OpId op, std::vector<int> inputs, std::vector<int> outputs, ops::Attrs attrs) {
    out.push_back(Node{op, std::move(inputs), std::move(outputs), std::move(attrs), {}, first.loc, first.scope});
  };
  auto flat = [&](int64_t n) { return g.addValue(TensorType{dtype, Shape{n}}); };
  std::vector<int> pieces;
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (size_t m : members) {
    const int x = b.nodes[m].inputs[0];
    const Shape s = g.values[size_t(x)].shape;
    const int64_t n = s.numel();
    sizes.push_back(n);
    total += n;
    if (s.rank() == 1) {
      pieces.push_back(x);
      continue;
    }
    pieces.push_back(flat(n));
    node(ops::OpId::Reshape, {x}, {pieces.back()}, {{"shape", std::vector<int64_t>{n}}});
  }
  const int packed = flat(total), reduced = flat(total);
  node(ops::OpId::Concat, pieces, {packed}, {{"axis", int64_t(0)}});
  node(ops::OpId::AllReduce, {packed}, {reduced}, first.attrs);
  std::vector<int> parts, reshapes;
  for (size_t k = 0; k < members.size(); ++k) {
    const int y = b.nodes[members[k]].outputs[0];
    const Shape s = g.values[size_t(y)].shape;
    parts.push_back(s.rank() == 1 ? y : flat(sizes[k]));
    if (s.rank() != 1) reshapes.push_back(int(k));
  }
  node(ops::OpId::Split, {reduced}, parts, {{"sizes", sizes}, {"axis", int64_t(0)}});
  for (int k : reshapes) {
    const int y = b.nodes[members[size_t(k)]].outputs[0];
    std::vector<int64_t> shape;
    for (int64_t d : g.values[size_t(y)].shape) shape.push_back(d);
    node(ops::OpId::Reshape, {parts[size_t(k)]}, {y}, {{"shape", shape}});
  }
  return out;
}

void rewrite(Graph& g, Block& b) {
  for (Node& n : b.nodes)
    for (Block& inner : n.blocks) rewrite(g, inner);
  const std::vector<Bucket> buckets = bucketsOf(g, b);
  if (buckets.empty()) return;
  // Each bucket's nodes go before the first node that uses a result; its members' own nodes go.
  std::vector<std::vector<Node>> before(b.nodes.size() + 1);
  std::vector<char> gone(b.nodes.size(), 0);
  for (const Bucket& bucket : buckets) {
    std::vector<Node> made = bucketNodes(g, b, bucket.members);
    for (Node& n : made) before[bucket.at].push_back(std::move(n));
    for (size_t m : bucket.members) gone[m] = 1;
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i <= b.nodes.size(); ++i) {
    for (Node& n : before[i]) nodes.push_back(std::move(n));
    if (i < b.nodes.size() && !gone[i]) nodes.push_back(std::move(b.nodes[i]));
  }
  b.nodes = std::move(nodes);
}

}  // namespace

std::vector<std::vector<int>> allReduceBuckets(const Graph& local) {
  std::vector<std::vector<int>> buckets;
  if (context().noCommBuckets) return buckets;
  int count = 0;  // collectives met so far, in commPlanOf's order: a node's blocks, then the node
  std::function<void(const Block&)> walk = [&](const Block& b) {
    std::vector<int> ordinal(b.nodes.size(), -1);
    for (size_t i = 0; i < b.nodes.size(); ++i) {
      for (const Block& inner : b.nodes[i].blocks) walk(inner);
      if (ops::opDef(b.nodes[i].op).family == ops::Family::Collective) ordinal[i] = count++;
    }
    for (const Bucket& bucket : bucketsOf(local, b)) {
      buckets.emplace_back();
      for (size_t m : bucket.members) buckets.back().push_back(ordinal[m]);
    }
  };
  walk(local.body);
  std::sort(buckets.begin(), buckets.end());
  return buckets;
}

Graph bucketAllReduces(const Graph& g) {
  if (!g.mesh.empty() || context().noCommBuckets) return g;  // a placed graph's blocks have no sizes yet
  Graph out = g;
  rewrite(out, out.body);
  return out;
}

}  // namespace weft::graph
