// Elementwise ops: any dimension of the result splits with the inputs that have it; a partial sum
// passes through the ops linear in it (DTensor's pointwise strategies).
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

Rows splits(Types in, Types out) { return broadcastRows(in, out[0].shape); }

template <Rows (*Partials)(size_t inputs)>
Rows withPartials(Types in, Types out, const Attrs&) {
  Rows rows = splits(in, out);
  for (ShardRow& row : Partials(in.size())) rows.push_back(std::move(row));
  return rows;
}

Rows none(size_t) { return {}; }
// neg, add, sub: every input a partial sum.
Rows allInputs(size_t n) { return {allPartial(n, 1)}; }
// mul: one factor a partial sum, the other replicated.
Rows eitherFactor(size_t) {
  return {{{Placement::p()}, {Placement::p(), Placement::r()}}, {{Placement::p()}, {Placement::r(), Placement::p()}}};
}
// div: the dividend.
Rows dividend(size_t) { return {{{Placement::p()}, {Placement::p(), Placement::r()}}}; }
// where(mask, a, b): both branches.
Rows branches(size_t) { return {{{Placement::p()}, {Placement::r(), Placement::p(), Placement::p()}}}; }

// A cast between float dtypes is linear; one to or from an integer or bool is not.
Rows castRows(Types in, Types out, const Attrs&) {
  Rows rows = splits(in, out);
  if (rt::isFloat(in[0].dtype) && rt::isFloat(out[0].dtype)) rows.push_back(allPartial(1, 1));
  return rows;
}

// adam_update (w, g, m, s and four scalars -> w, m, s): each dimension splits the four tensors
// and the three results alike, the scalars replicated; not linear, so no partial sums.
Rows adamRows(Types in, Types out, const Attrs&) {
  Rows rows;
  for (int d = 0; d < out[0].shape.rank(); ++d) {
    ShardRow row{Placements(out.size(), Placement::s(d)), Placements(4, Placement::s(d))};
    row.in.resize(in.size(), Placement::r());
    rows.push_back(std::move(row));
  }
  return rows;
}

const ShardRule kSplitsOnly{withPartials<none>};
const ShardRule kLinear{withPartials<allInputs>};
const ShardRule kMul{withPartials<eitherFactor>};
const ShardRule kDiv{withPartials<dividend>};
const ShardRule kWhere{withPartials<branches>};
const ShardRule kCast{castRows};
const ShardRule kAdam{adamRows};

}  // namespace

void registerElementwiseShardRules() {
  // Every elementwise op splits; those linear in an input also pass its partial sums (set next).
#define WEFT_SPLITS_ONLY(F, Id, ...) ops::setShard({OpId::F##Id}, &kSplitsOnly);
  WEFT_FOR_EACH_UNARY_OP(WEFT_SPLITS_ONLY)
  WEFT_FOR_EACH_BINARY_OP(WEFT_SPLITS_ONLY)
#undef WEFT_SPLITS_ONLY
  ops::setShard({OpId::Gelu, OpId::Clip}, &kSplitsOnly);
  ops::setShard({OpId::UnaryNeg, OpId::BinaryAdd, OpId::BinarySub, OpId::Relayout}, &kLinear);
  ops::setShard({OpId::BinaryMul}, &kMul);
  ops::setShard({OpId::BinaryDiv}, &kDiv);
  ops::setShard({OpId::Where}, &kWhere);
  ops::setShard({OpId::Cast}, &kCast);
  ops::setShard({OpId::AdamUpdate}, &kAdam);
}

}  // namespace weft::spmd::rules
