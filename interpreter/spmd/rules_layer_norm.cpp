// Layer normalisation (x [..., n], gamma [n], beta [n]): each leading axis of x splits, the
// parameters replicated; the normalised axis does not (each row needs its whole). The gradient
// (x, gamma, dy -> dx, dgamma, dbeta) splits x and dy alike along a leading axis: dx is split,
// dgamma and dbeta (sums over the rows) are partial sums.
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

Rows layerNormRows(Types in, Types, const Attrs&) {
  Rows rows;
  for (int a = 0; a < in[0].shape.rank() - 1; ++a)
    rows.push_back({{Placement::s(a)}, {Placement::s(a), Placement::r(), Placement::r()}});
  return rows;
}

Rows layerNormGradRows(Types in, Types, const Attrs&) {
  Rows rows;
  for (int a = 0; a < in[0].shape.rank() - 1; ++a)
    rows.push_back({{Placement::s(a), Placement::p(), Placement::p()}, {Placement::s(a), Placement::r(), Placement::s(a)}});
  return rows;
}

const ShardRule kLayerNorm{layerNormRows};
const ShardRule kLayerNormGrad{layerNormGradRows};

}  // namespace

void registerLayerNormShardRules() {
  ops::setShard({OpId::LayerNorm}, &kLayerNorm);
  ops::setShard({OpId::LayerNormGrad}, &kLayerNormGrad);
}

}  // namespace weft::spmd::rules
