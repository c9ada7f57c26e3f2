// Attention (q [..., tq, d], k [..., tk, d], v [..., tk, dv], an optional mask broadcasting to
// the scores [..., tq, tk]): the leading (batch, head) axes split on every operand; the queries
// split without a causal mask (its diagonal is global); the value depth splits; a partial v
// stays partial. The gradient (q, k, v, out, dout[, mask] -> dq, dk, dv) splits the leading axes,
// and is linear in dout.
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

// The mask's placement when the scores' dimension `d` is split: split alike where it has that
// dimension at full size, replicated where it broadcasts along it.
Placement maskAlong(Types in, size_t maskAt, int d, int64_t n) {
  const Shape& m = in[maskAt].shape;
  const int dm = d - (in[0].shape.rank() - m.rank());
  return dm >= 0 && m[dm] == n ? Placement::s(dm) : Placement::r();
}

Rows attentionRows(Types in, Types, const Attrs& attrs) {
  const bool masked = in.size() == 4, causal = attrs.b("causal");
  const int r = in[0].shape.rank();
  const Placement R = Placement::r();
  Rows rows;
  for (int a = 0; a < r - 2; ++a) {
    ShardRow row{{Placement::s(a)}, Placements(3, Placement::s(a))};
    if (masked) row.in.push_back(maskAlong(in, 3, a, in[0].shape[a]));
    rows.push_back(std::move(row));
  }
  if (!causal) {
    ShardRow row{{Placement::s(r - 2)}, {Placement::s(r - 2), R, R}};
    if (masked) row.in.push_back(maskAlong(in, 3, r - 2, in[0].shape[r - 2]));
    rows.push_back(std::move(row));
  }
  rows.push_back({{Placement::s(r - 1)}, {R, R, Placement::s(r - 1)}});
  rows.push_back({{Placement::p()}, {R, R, Placement::p()}});
  for (ShardRow& row : rows)
    if (masked && row.in.size() == 3) row.in.push_back(R);
  return rows;
}

Rows attentionGradRows(Types in, Types, const Attrs&) {
  const bool masked = in.size() == 6;
  const int r = in[0].shape.rank();
  Rows rows;
  for (int a = 0; a < r - 2; ++a) {
    ShardRow row{Placements(3, Placement::s(a)), Placements(5, Placement::s(a))};
    if (masked) row.in.push_back(maskAlong(in, 5, a, in[0].shape[a]));
    rows.push_back(std::move(row));
  }
  ShardRow linear{Placements(3, Placement::p()), Placements(5, Placement::r())};
  linear.in[4] = Placement::p();
  if (masked) linear.in.push_back(Placement::r());
  rows.push_back(std::move(linear));
  return rows;
}

const ShardRule kAttention{attentionRows};
const ShardRule kAttentionGrad{attentionGradRows};

}  // namespace

void registerAttentionShardRules() {
  ops::setShard({OpId::Attention}, &kAttention);
  ops::setShard({OpId::AttentionGrad}, &kAttentionGrad);
}

}  // namespace weft::spmd::rules
