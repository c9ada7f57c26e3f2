// The VJP rules of conv2d and the 2-D poolings, built from their gradient ops (TensorFlow's
// Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad), each called with the forward op's own
// attributes; and those of the gradient ops, for gradients of gradients. Each gradient op is
// linear in the output's gradient dy (and conv2d's are bilinear), so its rule is the forward op
// or another gradient op: the adjoint of the linear map.
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {

using Pair = std::array<int64_t, 2>;

Pair pairOf(const ops::Attrs& a, const char* key) {
  const auto& v = a.ints(key);
  return {v.at(0), v.at(1)};
}

// The attributes of conv2d and its gradient ops, and of the pools and theirs.
struct Conv {
  Pair strides, dilation;
  std::string padding;
  explicit Conv(const ops::Attrs& a)
      : strides(pairOf(a, "strides")), dilation(pairOf(a, "dilation")), padding(a.s("padding")) {}
};
struct Pool {
  Pair pool, strides;
  std::string padding;
  explicit Pool(const ops::Attrs& a) : pool(pairOf(a, "pool")), strides(pairOf(a, "strides")), padding(a.s("padding")) {}
};

// The forward input's (height, width), which the gradient ops need (with strides, several input
// sizes give one output size); in a graph they must be known when it is traced.
Pair spatialSize(const char* op, const Tensor& x) {
  const Shape& s = x.shape();
  if (s[1] < 0 || s[2] < 0)
    throw WeftError(std::string("gradient of ") + op + ": the input's height and width must be known, got " + s.str() +
                    "; annotate the function's inputs with None for the batch only");
  return {s[1], s[2]};
}

Pair kernelSize(const Tensor& w) { return {w.shape()[0], w.shape()[1]}; }

ops::VjpResult conv2dVjp(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &w = a.in[1], &g = a.gout[0];
  const Conv c(a.attrs);
  ops::VjpResult r(2);
  if (a.need[0]) r[0] = ops::conv2dBackpropInput(g, w, spatialSize("conv2d", x), c.strides, c.padding, c.dilation);
  if (a.need[1]) r[1] = ops::conv2dBackpropFilter(x, g, kernelSize(w), c.strides, c.padding, c.dilation);
  return r;
}

ops::VjpResult maxPool2dVjp(const ops::VjpArgs& a) {
  const Pool p(a.attrs);
  ops::VjpResult r(1);
  if (a.need[0]) r[0] = ops::maxPool2dGrad(a.in[0], a.gout[0], p.pool, p.strides, p.padding);
  return r;
}

ops::VjpResult avgPool2dVjp(const ops::VjpArgs& a) {
  const Pool p(a.attrs);
  ops::VjpResult r(1);
  if (a.need[0])
    r[0] = ops::avgPool2dGrad(a.gout[0], spatialSize("avg_pool2d", a.in[0]), p.pool, p.strides, p.padding);
  return r;
}

// dx = conv2d_backprop_input(dy, w): <g, dx> = <conv2d(g, w), dy> = <conv2d_backprop_filter(g, dy), w>.
ops::VjpResult conv2dBackpropInputVjp(const ops::VjpArgs& a) {
  const Tensor &dy = a.in[0], &w = a.in[1], &g = a.gout[0];
  const Conv c(a.attrs);
  ops::VjpResult r(2);
  if (a.need[0]) r[0] = ops::conv2d(g, w, c.strides, c.padding, c.dilation);
  if (a.need[1]) r[1] = ops::conv2dBackpropFilter(g, dy, kernelSize(w), c.strides, c.padding, c.dilation);
  return r;
}

// dw = conv2d_backprop_filter(x, dy): <g, dw> = <conv2d(x, g), dy> = <conv2d_backprop_input(dy, g), x>.
ops::VjpResult conv2dBackpropFilterVjp(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &dy = a.in[1], &g = a.gout[0];
  const Conv c(a.attrs);
  ops::VjpResult r(2);
  if (a.need[0])
    r[0] = ops::conv2dBackpropInput(dy, g, spatialSize("conv2d_backprop_filter", x), c.strides, c.padding, c.dilation);
  if (a.need[1]) r[1] = ops::conv2d(x, g, c.strides, c.padding, c.dilation);
  return r;
}

// Linear in dy; piecewise constant in x, so no gradient for it (as TensorFlow). The adjoint of
// sending each window's dy to its maximum is gathering g there: max_pool2d_grad_grad.
ops::VjpResult maxPool2dGradVjp(const ops::VjpArgs& a) {
  const Pool p(a.attrs);
  ops::VjpResult r(2);
  if (a.need[1]) r[1] = ops::maxPool2dGradGrad(a.in[0], a.gout[0], p.pool, p.strides, p.padding);
  return r;
}

// The adjoint of sharing each window's dy among its elements is averaging over the window.
ops::VjpResult avgPool2dGradVjp(const ops::VjpArgs& a) {
  const Pool p(a.attrs);
  ops::VjpResult r(1);
  if (a.need[0]) r[0] = ops::pool2d(false, a.gout[0], p.pool, p.strides, p.padding);
  return r;
}

// Linear in gx, piecewise constant in x: the adjoint of gathering at each window's maximum is
// max_pool2d_grad.
ops::VjpResult maxPool2dGradGradVjp(const ops::VjpArgs& a) {
  const Pool p(a.attrs);
  ops::VjpResult r(2);
  if (a.need[1]) r[1] = ops::maxPool2dGrad(a.in[0], a.gout[0], p.pool, p.strides, p.padding);
  return r;
}

}  // namespace

void registerConvVjps() {
  using ops::OpId;
  ops::setVjp({OpId::Conv2D}, conv2dVjp);
  ops::setVjp({OpId::MaxPool2D}, maxPool2dVjp);
  ops::setVjp({OpId::AvgPool2D}, avgPool2dVjp);
  ops::setVjp({OpId::Conv2DBackpropInput}, conv2dBackpropInputVjp);
  ops::setVjp({OpId::Conv2DBackpropFilter}, conv2dBackpropFilterVjp);
  ops::setVjp({OpId::MaxPool2DGrad}, maxPool2dGradVjp);
  ops::setVjp({OpId::AvgPool2DGrad}, avgPool2dGradVjp);
  ops::setVjp({OpId::MaxPool2DGradGrad}, maxPool2dGradGradVjp);
}

}  // namespace weft::autodiff
