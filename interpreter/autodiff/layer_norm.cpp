// The VJP rule of layer_norm: its gradient op, which recomputes each row's statistics from x.
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {
ops::VjpResult layerNormVjp(const ops::VjpArgs& a) {
  ops::VjpResult r(a.in.size());
  if (!a.need[0] && !a.need[1] && !a.need[2]) return r;
  std::vector<Tensor> d = ops::layerNormGrad(a.in[0], a.in[1], a.gout[0], a.attrs.f("epsilon"));
  for (size_t i = 0; i < 3; ++i)
    if (a.need[i]) r[i] = d[i];
  return r;
}

// Gradients of layer_norm's gradient (a gradient penalty through it) have no rule yet: an error
// rather than a silently wrong zero.
ops::VjpResult layerNormGradVjp(const ops::VjpArgs&) {
  throw WeftError("layer_norm_grad has no gradient yet: gradients of gradients through layer_norm are not supported");
}

}  // namespace

void registerLayerNormVjps() {
  ops::setVjp({ops::OpId::LayerNorm}, layerNormVjp);
  ops::setVjp({ops::OpId::LayerNormGrad}, layerNormGradVjp);
}

}  // namespace weft::autodiff
