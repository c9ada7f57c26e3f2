// The shard column: every family's rules, registered by their files (rules_*.cpp), and the
// helpers the family rules share. The graph-only ops have none: the partitioner places
// constants, variables, print, check and control flow itself.
#include <algorithm>
#include <mutex>

#include "rule_helpers.h"

namespace weft::spmd {

using ops::OpId;

void registerShardRules() {
  static std::once_flag once;
  std::call_once(once, [] {
    using namespace rules;
    registerElementwiseShardRules();
    registerReduceShardRules();
    registerMatMulShardRules();
    registerShapeShardRules();
    registerIndexingShardRules();
    registerConvShardRules();
    registerAttentionShardRules();
    registerLayerNormShardRules();
    registerReplicatedShardRules();
  });
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
