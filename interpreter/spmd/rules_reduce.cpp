// Reductions: a kept dimension stays split; a sum or mean over a split dimension leaves each
// device a partial sum (the collective that finishes it is the partitioner's); both are linear.
// max, min, prod, any and all over a split dimension have no row: there is no partial max, so
// the partitioner gathers first; nor has an integer mean (meanRows).
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

std::vector<int> reducedAxes(Types in, const Attrs& attrs) {
  const int rank = in[0].shape.rank();
  std::vector<int> axes = normalized(attrs.ints("axes"), rank);
  if (axes.empty())
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  return axes;
}

// Each kept input dimension d and the result dimension it becomes.
Rows keptRows(int rank, const std::vector<int>& axes, bool keepdims) {
  const std::vector<int> kept = keptDims(rank, axes);
  std::vector<int> from(keepdims ? size_t(rank) : kept.size(), -1);
  for (size_t k = 0; k < kept.size(); ++k) from[keepdims ? size_t(kept[k]) : k] = kept[k];
  return mappedRows(from);
}

template <bool SumsSplit, bool Linear>
Rows reduceRows(Types in, Types, const Attrs& attrs) {
  const std::vector<int> axes = reducedAxes(in, attrs);
  Rows rows = keptRows(in[0].shape.rank(), axes, attrs.b("keepdims"));
  if (SumsSplit)
    for (int d : axes) rows.push_back({{Placement::p()}, {Placement::s(d)}});
  if (Linear) rows.push_back(allPartial(1, 1));
  return rows;
}

Rows argRows(Types in, Types, const Attrs& attrs) {
  const int rank = in[0].shape.rank();
  return keptRows(rank, normalized({attrs.i("axis")}, rank), attrs.b("keepdims"));
}

// A mean over a split dimension is the sum of the devices' means of their blocks each divided by
// the number of blocks too: the device runs it with `shards` multiplied by that number.
Attrs meanLocal(const Attrs& attrs, const ShardRow& row, int64_t parts) {
  if (!row.out[0].partial() || !row.in[0].sharded()) return attrs;
  Attrs local = attrs;
  local.set("shards", ops::meanShards(attrs) * parts);
  return local;
}

// An integer mean is computed in f64 and rounded once (ops/reduce.cpp): the devices' means of
// their blocks would each round, and their sum again, so a split dimension is gathered first.
Rows meanRows(Types in, Types out, const Attrs& attrs) {
  if (!rt::isFloat(in[0].dtype)) return reduceRows<false, false>(in, out, attrs);
  return reduceRows<true, true>(in, out, attrs);
}

const ShardRule kSum{reduceRows<true, true>};
const ShardRule kMean{meanRows, meanLocal};
const ShardRule kOther{reduceRows<false, false>};
const ShardRule kArg{argRows};

}  // namespace

void registerReduceShardRules() {
  ops::setShard({OpId::ReduceSum}, &kSum);
  ops::setShard({OpId::ReduceMean}, &kMean);
  ops::setShard({OpId::ReduceMax, OpId::ReduceMin, OpId::ReduceProd, OpId::ReduceAny, OpId::ReduceAll}, &kOther);
  ops::setShard({OpId::ArgMax, OpId::ArgMin}, &kArg);
  // A top-k threshold sorts whole rows (sample_logits's, on a vocabulary).
  ops::setShard({OpId::KthLargest}, replicatedOnlyRule());
}

}  // namespace weft::spmd::rules
