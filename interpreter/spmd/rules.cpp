// The shard column: which rule each primitive uses, and the helpers the family rules share. The
// switch has no default, so a new op in op_list.h is a -Wswitch warning here (an error in CI's
// -Werror build) until it has a rule.
#include <algorithm>
#include <mutex>

#include "rule_helpers.h"

namespace weft::spmd {

using ops::OpId;

namespace {

const ops::ShardRule* shardRule(OpId op) {
  using namespace rules;
  const ShardRule* rule = nullptr;
  switch (op) {
#define WEFT_ELEMENTWISE_SHARD(F, Id, ...) case OpId::F##Id:
    WEFT_FOR_EACH_UNARY_OP(WEFT_ELEMENTWISE_SHARD)
    WEFT_FOR_EACH_BINARY_OP(WEFT_ELEMENTWISE_SHARD)
#undef WEFT_ELEMENTWISE_SHARD
    case OpId::Gelu:
    case OpId::Where:
    case OpId::Clip:
    case OpId::Cast:
    case OpId::Relayout: rule = elementwiseRule(op); break;
#define WEFT_REDUCE_SHARD(F, Id, ...) case OpId::F##Id:
    WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_SHARD)
#undef WEFT_REDUCE_SHARD
    case OpId::ArgMax:
    case OpId::ArgMin: rule = reduceRule(op); break;
    case OpId::MatMul: rule = matmulRule(); break;
    case OpId::Reshape:
    case OpId::Squeeze:
    case OpId::ExpandDims:
    case OpId::Transpose:
    case OpId::BroadcastTo:
    case OpId::Concat:
    case OpId::Stack:
    case OpId::Split:
    case OpId::ShapeOf: rule = shapeRule(op); break;
    case OpId::OneHot:
    case OpId::GetItem:
    case OpId::SetItem:
    case OpId::Take: rule = indexingRule(op); break;
    case OpId::Conv2D:
    case OpId::MaxPool2D:
    case OpId::AvgPool2D:
    case OpId::Conv2DBackpropInput:
    case OpId::Conv2DBackpropFilter:
    case OpId::MaxPool2DGrad:
    case OpId::AvgPool2DGrad:
    case OpId::MaxPool2DGradGrad: rule = convRule(op); break;
    case OpId::Attention:
    case OpId::AttentionGrad: rule = attentionRule(op); break;
    case OpId::LayerNorm:
    case OpId::LayerNormGrad: rule = layerNormRule(op); break;
    case OpId::AdamUpdate: rule = adamRule(); break;
    case OpId::Full:
    case OpId::Eye:
    case OpId::Arange:
    case OpId::Linspace:
    case OpId::RandomNormal:
    case OpId::RandomUniform:
    case OpId::RandomTruncatedNormal: rule = replicatedOnlyRule(); break;
    // A top-k threshold sorts whole rows (sample_logits's, on a vocabulary).
    case OpId::KthLargest: rule = replicatedOnlyRule(); break;
    // A stack of rows lives on every device whole (its rows are a loop's iterations).
    case OpId::BroadcastRows:
    case OpId::UpdateRow: rule = replicatedOnlyRule(); break;
    // The collectives are what partitioning writes: they run on local blocks already.
    case OpId::AllReduce:
    case OpId::AllGather:
    case OpId::ReduceScatter:
    case OpId::AllToAll:
    case OpId::LocalSlice: rule = replicatedOnlyRule(); break;
    // Graph-only: the partitioner places constants, variables, print, check and control flow itself.
    case OpId::Constant:
    case OpId::ReadVariable:
    case OpId::AssignVariable:
    case OpId::Print:
    case OpId::Check:
    case OpId::Cond:
    case OpId::While: break;
  }
  return rule;
}

}  // namespace

void registerShardRules() {
  static std::once_flag once;
  std::call_once(once, [] { ops::setShardRules(shardRule); });
}

Rows shardRows(OpId op, std::span<const ops::TensorType> in, const ops::Attrs& attrs) {
  registerShardRules();
  const ops::OpDef& d = ops::opDef(op);
  const std::vector<ops::TensorType> out = d.infer(in, attrs);
  Rows rows{{Placements(out.size()), Placements(in.size())}};
  const ShardRule* rule = d.shard;
  if (!rule || !rule->rows) return rows;
  auto boolPartial = [&](const Placements& ps, std::span<const ops::TensorType> types) {
    for (size_t i = 0; i < ps.size(); ++i)
      if (ps[i].partial() && types[i].dtype == DType::Bool) return true;
    return false;
  };
  for (ShardRow& row : rule->rows(in, out, attrs))
    if (!boolPartial(row.in, in) && !boolPartial(row.out, out)) rows.push_back(std::move(row));
  return rows;
}

ops::Attrs localAttrs(OpId op, const ops::Attrs& attrs, const ShardRow& row, int64_t parts) {
  const ShardRule* rule = ops::opDef(op).shard;
  return rule && rule->local ? rule->local(attrs, row, parts) : attrs;
}

namespace rules {

Rows broadcastRows(Types in, const Shape& out) {
  Rows rows;
  const int ro = out.rank();
  for (int o = 0; o < ro; ++o) {
    ShardRow row{{Placement::s(o)}, {}};
    for (const TensorType& t : in) {
      const int d = o - (ro - t.shape.rank());
      row.in.push_back(d >= 0 && t.shape[d] == out[o] ? Placement::s(d) : Placement::r());
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

ShardRow allPartial(size_t inputs, size_t outputs) {
  return {Placements(outputs, Placement::p()), Placements(inputs, Placement::p())};
}

Rows mappedRows(const std::vector<int>& from, size_t inputs, size_t outputs) {
  Rows rows;
  for (size_t o = 0; o < from.size(); ++o)
    if (from[o] >= 0)
      rows.push_back({Placements(outputs, Placement::s(int(o))), Placements(inputs, Placement::s(from[o]))});
  return rows;
}

std::vector<int> keptDims(int rank, const std::vector<int>& axes) {
  std::vector<int> kept;
  for (int d = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
  return kept;
}

std::vector<int> normalized(const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  for (int64_t a : axes) out.push_back(int(a < 0 ? a + rank : a));
  return out;
}

const ShardRule* replicatedOnlyRule() {
  static const ShardRule rule{[](Types, Types, const Attrs&) { return Rows{}; }};
  return &rule;
}

}  // namespace rules
}  // namespace weft::spmd
