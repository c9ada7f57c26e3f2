// Gradient bucketing (PyTorch DDP's buckets, Horovod's tensor fusion): a data-parallel step
// all-reduces every gradient on its own (or, with its optimizer's slots sharded, reduce-scatters
// every gradient and all-gathers every updated weight), and a small collective costs its latency
// (tens of µs across ranks), not its bytes. Small collectives of one kind, block, mesh dimension
// and dtype travel in one call instead: their blocks are packed side by side, the pack moved once,
// and the result split and reshaped back into the original values (reshape, transpose, concat,
// the collective, split: ops every back-end already runs).
//
// The packing keeps each device's share of every member contiguous, so that one collective along
// the pack's first axis moves for each member exactly what its own call did:
//   all_reduce      each block one row [n]; concat, all_reduce, split along axis 0;
//   reduce_scatter  each block [g, n/g], device j's block of the scattered axis in row j (a
//                   transpose when the axis is not the first non-unit one); concat along axis 1,
//                   reduce_scatter along axis 0 to [1, Σ n/g], split along axis 1;
//   all_gather      each block [1, n]; concat along axis 1, all_gather along axis 0 to [g, Σ n],
//                   split along axis 1, row j device j's block (transposed back into place).
// Sums are elementwise, so each element is summed over the same devices in the same order as
// before; gathers only move bytes.
//
// A bucket may only hold collectives whose inputs are all computed before any of their results
// is used, so that its one call fits between the two: then no member depends on another. Members
// are taken in program order, greedily; a member that would break that, or overflow the
// bucket's cap, closes the bucket and opens the next. The program's own relayouts are identities
// once partitioned (their collectives are before them) and go first, their results read from
// their inputs: otherwise each would be the first use of the value it moves, right after the
// collective, and a value moved as soon as it is computed could share no call.
#include <algorithm>
#include <functional>

#include "../../ops/symbolic_sizes.h"
#include "../../values/context.h"
#include "../passes.h"

namespace weft::graph {
namespace {

// Collectives whose input block is at least this many bytes a device go alone: their time is
// their bytes, and packing them would copy them twice for a latency they barely notice.
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

bool bucketed(ops::OpId op) {
  return op == ops::OpId::AllReduce || op == ops::OpId::ReduceScatter || op == ops::OpId::AllGather;
}

bool candidate(const Graph& g, const Node& n) {
  if (!bucketed(n.op)) return false;
  const int64_t bytes = staticBytes(g.values[size_t(n.inputs[0])]);
  return bytes > 0 && bytes < kSmall;  // an empty block moves nothing either way
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
  std::vector<Open> open;  // one per (collective, mesh dimension, group, dtype) met so far
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
      return m.op == n.op && m.attrs.i("mesh_dim") == n.attrs.i("mesh_dim") && m.attrs.i("group") == n.attrs.i("group") &&
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

// The bucket's nodes, computing each member's output from its input through one collective.
std::vector<Node> bucketNodes(Graph& g, const Block& b, const std::vector<size_t>& members) {
  const Node& first = b.nodes[members[0]];
  const ops::OpId op = first.op;
  const DType dtype = g.values[size_t(first.inputs[0])].dtype;
  const int64_t group = first.attrs.i("group");
  std::vector<Node> out;
  auto node = [&](ops::OpId o, std::vector<int> inputs, std::vector<int> outputs, ops::Attrs attrs) {
    out.push_back(Node{o, std::move(inputs), std::move(outputs), std::move(attrs), {}, first.loc, first.scope});
  };
  auto shapeOf = [&](int v) { return g.values[size_t(v)].shape; };
  auto dims = [](const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); };
  // x as `shape`: x itself when it has it, else a reshape of it into `to` (a new value when -1;
  // an output given always gets its node).
  auto reshaped = [&](int x, const Shape& shape, int to = -1) {
    if (shapeOf(x) == shape && to < 0) return x;
    if (to < 0) to = g.addValue(TensorType{dtype, shape});
    node(ops::OpId::Reshape, {x}, {to}, {{"shape", dims(shape)}});
    return to;
  };
  // Swaps the first two axes of a rank-3 x.
  auto swapped = [&](int x) {
    const Shape s = shapeOf(x);
    const int to = g.addValue(TensorType{dtype, Shape{s[1], s[0], s[2]}});
    node(ops::OpId::Transpose, {x}, {to}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
    return to;
  };
  // The elements before a member's moved axis: 1 when its blocks along the axis are contiguous.
  auto outer = [&](const Node& n, const Shape& s) {
    const int axis = int(n.attrs.i("axis"));
    int64_t k = 1;
    for (int d = 0; d < (axis < 0 ? axis + s.rank() : axis); ++d) k *= s[d];
    return k;
  };
  // Pack along `along` (0 for all_reduce, 1 otherwise) of each member's piece.
  const int along = op == ops::OpId::AllReduce ? 0 : 1;
  std::vector<int> pieces;
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (size_t m : members) {
    const int x = b.nodes[m].inputs[0];
    const Shape s = shapeOf(x);
    const int64_t n = s.numel();
    if (op == ops::OpId::AllReduce) {
      sizes.push_back(n);
      pieces.push_back(reshaped(x, Shape{n}));
    } else if (op == ops::OpId::AllGather) {
      sizes.push_back(n);
      pieces.push_back(reshaped(x, Shape{1, n}));
    } else {  // reduce_scatter: device j's block of the axis in row j
      const int64_t k = outer(b.nodes[m], s);
      sizes.push_back(n / group);
      const int y = k == 1 ? x : swapped(reshaped(x, Shape{k, group, n / (k * group)}));
      pieces.push_back(reshaped(y, Shape{group, n / group}));
    }
    total += sizes.back();
  }
  const Shape packedShape = op == ops::OpId::AllReduce     ? Shape{total}
                            : op == ops::OpId::AllGather   ? Shape{1, total}
                                                           : Shape{group, total};
  const Shape movedShape = op == ops::OpId::AllReduce       ? Shape{total}
                           : op == ops::OpId::ReduceScatter ? Shape{1, total}
                                                            : Shape{group, total};
  const int packed = g.addValue(TensorType{dtype, packedShape}), moved = g.addValue(TensorType{dtype, movedShape});
  node(ops::OpId::Concat, pieces, {packed}, {{"axis", int64_t(along)}});
  ops::Attrs attrs = first.attrs;
  if (op != ops::OpId::AllReduce) attrs.set("axis", int64_t(0));
  node(op, {packed}, {moved}, attrs);
  // Each member's part of the result (its output itself when that has the part's shape), then
  // its output from it.
  std::vector<int> parts;
  for (size_t k = 0; k < members.size(); ++k) {
    const Node& n = b.nodes[members[k]];
    const Shape part = op == ops::OpId::AllReduce       ? Shape{sizes[k]}
                       : op == ops::OpId::ReduceScatter ? Shape{1, sizes[k]}
                                                        : Shape{group, sizes[k]};
    const bool direct =
        part == shapeOf(n.outputs[0]) && (op != ops::OpId::AllGather || outer(n, shapeOf(n.inputs[0])) == 1);
    parts.push_back(direct ? n.outputs[0] : g.addValue(TensorType{dtype, part}));
  }
  node(ops::OpId::Split, {moved}, parts, {{"sizes", sizes}, {"axis", int64_t(along)}});
  for (size_t k = 0; k < members.size(); ++k) {
    const Node& n = b.nodes[members[k]];
    const int y = n.outputs[0];
    if (parts[k] == y) continue;
    // all_gather: row j is device j's block; blocks not contiguous along the axis (elements
    // before it) go between those elements.
    const int64_t o = op == ops::OpId::AllGather ? outer(n, shapeOf(n.inputs[0])) : 1;
    reshaped(o == 1 ? parts[k] : swapped(reshaped(parts[k], Shape{group, o, sizes[k] / o})), shapeOf(y), y);
  }
  return out;
}

// The program without its identity relayouts, each use of one's result reading its input.
Graph withoutRelayouts(const Graph& g) {
  Graph out = g;
  std::vector<int> same(g.values.size());
  for (size_t v = 0; v < same.size(); ++v) same[v] = int(v);
  std::function<void(Block&)> strip = [&](Block& b) {
    std::vector<Node> kept;
    for (Node& n : b.nodes) {
      for (int& v : n.inputs) v = same[size_t(v)];
      for (Block& inner : n.blocks) strip(inner);
      const bool identity = n.op == ops::OpId::Relayout && g.values[size_t(n.inputs[0])] == g.values[size_t(n.outputs[0])];
      if (identity) same[size_t(n.outputs[0])] = n.inputs[0];
      else kept.push_back(std::move(n));
    }
    b.nodes = std::move(kept);
    for (int& v : b.results) v = same[size_t(v)];
  };
  strip(out.body);
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

std::vector<std::vector<int>> collectiveBuckets(const Graph& partitioned) {
  std::vector<std::vector<int>> buckets;
  if (context().noCommBuckets) return buckets;
  const Graph local = withoutRelayouts(partitioned);  // no collective goes: the ordinals stay
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

Graph bucketCollectives(const Graph& g) {
  if (!g.mesh.empty() || context().noCommBuckets) return g;  // a placed graph's blocks have no sizes yet
  Graph out = withoutRelayouts(g);
  rewrite(out, out.body);
  return out;
}

}  // namespace weft::graph
