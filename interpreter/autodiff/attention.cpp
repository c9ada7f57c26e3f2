// The VJP rule of scaled_dot_product_attention: its gradient op, which recomputes the scores
// block by block from q and k (stdlib/runtime/attention.h) instead of keeping them. The mask has
// no gradient (a float mask is treated as a constant, as a bool one is).
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {
ops::VjpResult attentionVjp(const ops::VjpArgs& a) {
  ops::VjpResult r(a.in.size());
  if (!a.need[0] && !a.need[1] && !a.need[2]) return r;
  const Tensor* mask = a.in.size() == 4 ? &a.in[3] : nullptr;
  std::optional<double> scale;
  if (a.attrs.has("scale")) scale = a.attrs.f("scale");
  std::vector<Tensor> d =
      ops::scaledDotProductAttentionGrad(a.in[0], a.in[1], a.in[2], a.out[0], a.gout[0], mask, a.attrs.b("causal"), scale);
  for (size_t i = 0; i < 3; ++i)
    if (a.need[i]) r[i] = d[i];
  return r;
}

// Gradients of attention's gradient (a gradient penalty through attention) have no rule yet: an
// error rather than a silently wrong zero.
ops::VjpResult attentionGradVjp(const ops::VjpArgs&) {
  throw WeftError(
      "scaled_dot_product_attention_grad has no gradient yet: gradients of gradients through attention are not supported");
}

}  // namespace

void registerAttentionVjps() {
  ops::setVjp({ops::OpId::Attention}, attentionVjp);
  ops::setVjp({ops::OpId::AttentionGrad}, attentionGradVjp);
}

}  // namespace weft::autodiff
