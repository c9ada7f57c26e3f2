// The VJP rules of conv2d and the 2-D poolings, built from their gradient ops (TensorFlow's
// Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad), each called with the forward op's own
// attributes. The gradient ops themselves have no rule (no second derivatives).
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {

using Pair = std::array<int64_t, 2>;

Pair pairOf(const ops::Attrs& a, const char* key) {
  const auto& v = a.ints(key);
  return {v.at(0), v.at(1)};
}

// The forward input's (height, width), which the gradient ops need (with strides, several input
// sizes give one output size); in a graph they must be known when it is traced.
Pair spatialSize(const char* op, const Tensor& x) {
  const Shape& s = x.shape();
  if (s[1] < 0 || s[2] < 0)
    throw WeftError(std::string("gradient of ") + op + ": the input's height and width must be known, got " + s.str() +
                    "; annotate the function's inputs with None for the batch only");
  return {s[1], s[2]};
}

}  // namespace

ops::VjpResult conv2dVjp(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &w = a.in[1], &g = a.gout[0];
  const Pair strides = pairOf(a.attrs, "strides"), dilation = pairOf(a.attrs, "dilation");
  const std::string& padding = a.attrs.s("padding");
  ops::VjpResult r(2);
  if (a.need[0]) r[0] = ops::conv2dBackpropInput(g, w, spatialSize("conv2d", x), strides, padding, dilation);
  if (a.need[1]) r[1] = ops::conv2dBackpropFilter(x, g, {w.shape()[0], w.shape()[1]}, strides, padding, dilation);
  return r;
}

ops::VjpResult maxPool2dVjp(const ops::VjpArgs& a) {
  ops::VjpResult r(1);
  if (a.need[0])
    r[0] = ops::maxPool2dGrad(a.in[0], a.gout[0], pairOf(a.attrs, "pool"), pairOf(a.attrs, "strides"),
                              a.attrs.s("padding"));
  return r;
}

ops::VjpResult avgPool2dVjp(const ops::VjpArgs& a) {
  ops::VjpResult r(1);
  if (a.need[0])
    r[0] = ops::avgPool2dGrad(a.gout[0], spatialSize("avg_pool2d", a.in[0]), pairOf(a.attrs, "pool"),
                              pairOf(a.attrs, "strides"), a.attrs.s("padding"));
  return r;
}

// Linear in gx, piecewise constant in x (as TensorFlow): the adjoint of gathering each window's
// maximum is max_pool2d_grad.
ops::VjpResult maxPool2dGradGradVjp(const ops::VjpArgs& a) {
  ops::VjpResult r(2);
  if (a.need[1])
    r[1] = ops::maxPool2dGrad(a.in[0], a.gout[0], pairOf(a.attrs, "pool"), pairOf(a.attrs, "strides"),
                              a.attrs.s("padding"));
  return r;
}

}  // namespace weft::autodiff
