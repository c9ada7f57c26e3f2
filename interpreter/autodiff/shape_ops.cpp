// VJP rules of the layout ops (cast, reshape, transpose, broadcast_to, concat, stack, split,
// squeeze, expand_dims): each moves the gradient back to the input's layout.
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {
using V = ops::VjpResult;

V all(const std::vector<Tensor>& ts) { return V(ts.begin(), ts.end()); }

V castVjp(const ops::VjpArgs& a) {
  if (!rt::isFloat(a.in[0].dtype())) return {std::nullopt};
  return {ops::cast(a.gout[0], a.in[0].dtype())};
}

V reshapeVjp(const ops::VjpArgs& a) { return {reshapeLike(a.gout[0], a.in[0])}; }
V squeezeVjp(const ops::VjpArgs& a) { return {reshapeLike(a.gout[0], a.in[0])}; }

V expandDimsVjp(const ops::VjpArgs& a) {
  int axis = int(a.attrs.i("axis"));
  if (axis < 0) axis += a.out[0].rank();
  return {ops::squeeze(a.gout[0], {axis})};
}

V transposeVjp(const ops::VjpArgs& a) {
  std::vector<int64_t> perm = a.attrs.ints("perm");
  if (perm.empty()) return {ops::transpose(a.gout[0], {})};
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i] < 0 ? perm[i] + int64_t(perm.size()) : perm[i])] = int(i);
  return {ops::transpose(a.gout[0], inv)};
}

V broadcastToVjp(const ops::VjpArgs& a) { return {unbroadcast(a.gout[0], a.in[0].shape())}; }

V concatVjp(const ops::VjpArgs& a) {
  int axis = int(a.attrs.i("axis"));
  if (axis < 0) axis += a.out[0].rank();
  std::vector<int64_t> sizes;
  for (const auto& t : a.in) {
    if (t.shape()[axis] < 0)
      throw WeftError("gradient of concat: the size of axis " + std::to_string(axis) +
                      " is unknown while tracing (a None dimension); concatenate along a known one");
    sizes.push_back(t.shape()[axis]);
  }
  return all(ops::split(a.gout[0], sizes, axis));
}

V stackVjp(const ops::VjpArgs& a) {
  int axis = int(a.attrs.i("axis"));
  if (axis < 0) axis += a.out[0].rank();
  std::vector<Tensor> parts = ops::split(a.gout[0], std::vector<int64_t>(a.in.size(), 1), axis);
  for (auto& p : parts) p = ops::squeeze(p, {axis});
  return all(parts);
}

V splitVjp(const ops::VjpArgs& a) {
  int axis = int(a.attrs.i("axis"));
  std::vector<Tensor> parts(a.gout.begin(), a.gout.end());
  return {ops::concat(parts, axis)};
}

}  // namespace

void registerShapeVjps() {
  using ops::OpId;
  ops::setVjp({OpId::Cast}, castVjp);
  ops::setVjp({OpId::Reshape}, reshapeVjp);
  ops::setVjp({OpId::Transpose}, transposeVjp);
  ops::setVjp({OpId::BroadcastTo}, broadcastToVjp);
  ops::setVjp({OpId::Concat}, concatVjp);
  ops::setVjp({OpId::Stack}, stackVjp);
  ops::setVjp({OpId::Split}, splitVjp);
  ops::setVjp({OpId::Squeeze}, squeezeVjp);
  ops::setVjp({OpId::ExpandDims}, expandDimsVjp);
  ops::setVjp({OpId::ShapeOf}, noGradient);
}

}  // namespace weft::autodiff
