// Convolutions and pools (NHWC inputs, HWIO kernels): the batch and the channels split; the
// input channels of a convolution are its contraction, which leaves partial sums. Spatial
// dimensions have no row (a window crosses blocks: the partitioner gathers them).
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

const Placement R = Placement::r(), P = Placement::p(), S0 = Placement::s(0), S2 = Placement::s(2),
                S3 = Placement::s(3);

// conv2d: (x, kernel) -> y.
Rows conv2dRows(Types, Types, const Attrs&) {
  return {{{S0}, {S0, R}}, {{S3}, {R, S3}}, {{P}, {S3, S2}}, {{P}, {P, R}}, {{P}, {R, P}}};
}
// conv2d_backprop_input: (dy, kernel) -> dx.
Rows backpropInputRows(Types, Types, const Attrs&) {
  return {{{S0}, {S0, R}}, {{S3}, {R, S2}}, {{P}, {S3, S3}}, {{P}, {P, R}}, {{P}, {R, P}}};
}
// conv2d_backprop_filter: (x, dy) -> dkernel.
Rows backpropFilterRows(Types, Types, const Attrs&) {
  return {{{P}, {S0, S0}}, {{S2}, {S3, R}}, {{S3}, {R, S3}}, {{P}, {P, R}}, {{P}, {R, P}}};
}
// max_pool2d: (x) -> y; not linear.
Rows maxPoolRows(Types, Types, const Attrs&) { return {{{S0}, {S0}}, {{S3}, {S3}}}; }
// avg_pool2d (x) -> y and avg_pool2d_grad (dy) -> dx: linear.
Rows linearPoolRows(Types, Types, const Attrs&) { return {{{S0}, {S0}}, {{S3}, {S3}}, {{P}, {P}}}; }
// max_pool2d_grad (x, dy) -> dx and max_pool2d_grad_grad (x, ddx) -> ddy: linear in the second.
Rows maxPoolGradRows(Types, Types, const Attrs&) { return {{{S0}, {S0, S0}}, {{S3}, {S3, S3}}, {{P}, {R, P}}}; }

const ShardRule kConv2D{conv2dRows};
const ShardRule kBackpropInput{backpropInputRows};
const ShardRule kBackpropFilter{backpropFilterRows};
const ShardRule kMaxPool{maxPoolRows};
const ShardRule kLinearPool{linearPoolRows};
const ShardRule kMaxPoolGrad{maxPoolGradRows};

}  // namespace

void registerConvShardRules() {
  ops::setShard({OpId::Conv2D}, &kConv2D);
  ops::setShard({OpId::Conv2DBackpropInput}, &kBackpropInput);
  ops::setShard({OpId::Conv2DBackpropFilter}, &kBackpropFilter);
  ops::setShard({OpId::MaxPool2D}, &kMaxPool);
  ops::setShard({OpId::AvgPool2D, OpId::AvgPool2DGrad}, &kLinearPool);
  ops::setShard({OpId::MaxPool2DGrad, OpId::MaxPool2DGradGrad}, &kMaxPoolGrad);
}

}  // namespace weft::spmd::rules
