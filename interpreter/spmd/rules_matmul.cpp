// matmul (DTensor's and Megatron's rows): split the rows of `a` (S|S,R), the columns of `b`
// (S|R,S), or the contraction, which leaves partial sums (P|S,S); a partial factor times a
// replicated one stays partial; batch dimensions split as an elementwise op's.
#include "rule_helpers.h"

namespace weft::spmd::rules {

namespace {

Rows matmulRows(Types in, Types out, const Attrs& attrs) {
  const bool ta = attrs.has("transpose_a") && attrs.b("transpose_a");
  const bool tb = attrs.has("transpose_b") && attrs.b("transpose_b");
  const Shape& a = in[0].shape;
  const Shape& b = in[1].shape;
  const int ra = a.rank(), rb = b.rank(), ro = out[0].shape.rank();
  const bool aVec = ra == 1, bVec = rb == 1;
  // Where each role sits in the operands (-1: absent). A transposed operand is a matrix.
  const int aM = aVec ? -1 : ta ? 1 : ra - 2, aK = aVec ? 0 : ta ? 0 : ra - 1;
  const int bK = bVec ? 0 : tb ? 1 : rb - 2, bN = bVec ? -1 : tb ? 0 : rb - 1;
  const int batch = ro - !aVec - !bVec;
  Rows rows;
  for (int o = 0; o < batch; ++o) {
    const int da = o - (batch - std::max(ra - 2, 0)), db = o - (batch - std::max(rb - 2, 0));
    const int64_t n = out[0].shape[o];
    rows.push_back({{Placement::s(o)},
                    {da >= 0 && a[da] == n ? Placement::s(da) : Placement::r(),
                     db >= 0 && b[db] == n ? Placement::s(db) : Placement::r()}});
  }
  if (aM >= 0) rows.push_back({{Placement::s(batch)}, {Placement::s(aM), Placement::r()}});
  if (bN >= 0) rows.push_back({{Placement::s(ro - 1)}, {Placement::r(), Placement::s(bN)}});
  rows.push_back({{Placement::p()}, {Placement::s(aK), Placement::s(bK)}});
  rows.push_back({{Placement::p()}, {Placement::p(), Placement::r()}});
  rows.push_back({{Placement::p()}, {Placement::r(), Placement::p()}});
  return rows;
}

const ShardRule kMatMul{matmulRows};

}  // namespace

void registerMatMulShardRules() { ops::setShard({ops::OpId::MatMul}, &kMatMul); }

}  // namespace weft::spmd::rules
