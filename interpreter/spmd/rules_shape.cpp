// Ops that move elements: a split dimension stays split where it maps to a result dimension
// whole; all of them are linear, so a partial sum passes through.
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

// The product of the dimensions before each one, or -1 past an open one.
std::vector<int64_t> prefixes(const Shape& s) {
  std::vector<int64_t> p;
  int64_t n = 1;
  for (int d = 0; d < s.rank(); ++d) {
    p.push_back(n);
    n = n < 0 || s[d] == rt::kUnknownDim ? -1 : n * s[d];
  }
  return p;
}

// reshape, squeeze, expand_dims: an input and a result dimension with the same product before
// them cut the flat elements into the same contiguous blocks, whatever their own sizes (as long
// as both divide, which placements check), so one may stay split as the other.
Rows reshapeRows(Types in, Types out, const Attrs&) {
  const std::vector<int64_t> pin = prefixes(in[0].shape), pout = prefixes(out[0].shape);
  Rows rows;
  for (size_t o = 0; o < pout.size(); ++o)
    for (size_t i = 0; i < pin.size(); ++i)
      if (pin[i] >= 0 && pin[i] == pout[o]) rows.push_back({{Placement::s(int(o))}, {Placement::s(int(i))}});
  rows.push_back(allPartial(1, 1));
  return rows;
}

// The shape attribute names global sizes: a device's result has its block's.
Attrs localShape(const Attrs& attrs, const ShardRow& row, int64_t parts) {
  Attrs local = attrs;
  if (row.out[0].sharded()) {
    std::vector<int64_t> shape = attrs.ints("shape");
    int64_t& n = shape[size_t(row.out[0].dim)];
    if (n != -1) n /= parts;
    local.set("shape", shape);
  }
  return local;
}

Rows transposeRows(Types in, Types, const Attrs& attrs) {
  const int rank = in[0].shape.rank();
  std::vector<int> perm = normalized(attrs.ints("perm"), rank);
  if (perm.empty())
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  Rows rows = mappedRows(perm);
  rows.push_back(allPartial(1, 1));
  return rows;
}

Rows broadcastToRows(Types in, Types out, const Attrs&) {
  Rows rows = broadcastRows(in, out[0].shape);
  // A dimension the input broadcasts along cannot be split on its side: drop those rows.
  std::erase_if(rows, [](const ShardRow& r) { return r.in[0].replicated(); });
  rows.push_back(allPartial(1, 1));
  return rows;
}

// concat, stack, split: every dimension but the joined or cut one, on all operands alike.
Rows joinRows(Types in, Types out, const Attrs& attrs, bool stacked) {
  const int rank = in[0].shape.rank();
  const int axis = normalized({attrs.i("axis")}, stacked ? rank + 1 : rank)[0];
  std::vector<int> from(size_t(out[0].shape.rank()), -1);
  for (int d = 0; d < rank; ++d) {
    if (!stacked && d == axis) continue;
    from[size_t(stacked && d >= axis ? d + 1 : d)] = d;
  }
  Rows rows = mappedRows(from, in.size(), out.size());
  rows.push_back(allPartial(in.size(), out.size()));
  return rows;
}

Rows concatRows(Types in, Types out, const Attrs& a) { return joinRows(in, out, a, false); }
Rows stackRows(Types in, Types out, const Attrs& a) { return joinRows(in, out, a, true); }

// The global shape is known on every device: its block's sizes, times the blocks of the split one.
Rows shapeOfRows(Types in, Types, const Attrs&) {
  Rows rows;
  for (int d = 0; d < in[0].shape.rank(); ++d) rows.push_back({{Placement::r()}, {Placement::s(d)}});
  return rows;
}

Attrs shapeOfLocal(const Attrs& attrs, const ShardRow& row, int64_t parts) {
  if (!row.in[0].sharded()) return attrs;
  const size_t rank = size_t(row.in[0].dim) + 1;
  std::vector<int64_t> blocks = attrs.has("blocks") ? attrs.ints("blocks") : std::vector<int64_t>{};
  if (blocks.size() < rank) blocks.resize(rank, 1);
  blocks[size_t(row.in[0].dim)] *= parts;
  Attrs local = attrs;
  local.set("blocks", blocks);
  return local;
}

const ShardRule kReshape{reshapeRows, localShape};
const ShardRule kShapeOf{shapeOfRows, shapeOfLocal};
const ShardRule kViews{reshapeRows};  // squeeze and expand_dims name axes, not sizes
const ShardRule kTranspose{transposeRows};
const ShardRule kBroadcastTo{broadcastToRows, localShape};
const ShardRule kConcat{concatRows};  // also split: its sizes are along the axis it cuts
const ShardRule kStack{stackRows};

}  // namespace

void registerShapeShardRules() {
  ops::setShard({OpId::Reshape}, &kReshape);
  ops::setShard({OpId::Squeeze, OpId::ExpandDims}, &kViews);
  ops::setShard({OpId::Transpose}, &kTranspose);
  ops::setShard({OpId::BroadcastTo}, &kBroadcastTo);
  ops::setShard({OpId::Concat, OpId::Split}, &kConcat);
  ops::setShard({OpId::Stack}, &kStack);
  ops::setShard({OpId::ShapeOf}, &kShapeOf);
}

}  // namespace weft::spmd::rules
