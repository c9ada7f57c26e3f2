// Convolutions and pools (NHWC inputs, HWIO kernels): the batch and the channels split; the
// input channels of a convolution are its contraction, which leaves partial sums. Spatial
// dimensions have no row (a window crosses blocks: the partitioner gathers them).
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

const Placement R = Placement::r(), P = Placement::p(), S0 = Placement::s(0), S2 = Placement::s(2),
                S3 = Placement::s(3);

template <OpId Op>
Rows convRows(Types, Types, const Attrs&) {
  switch (Op) {
    case OpId::Conv2D:  // (x, kernel) -> y
      return {{{S0}, {S0, R}}, {{S3}, {R, S3}}, {{P}, {S3, S2}}, {{P}, {P, R}}, {{P}, {R, P}}};
    case OpId::Conv2DBackpropInput:  // (dy, kernel) -> dx
      return {{{S0}, {S0, R}}, {{S3}, {R, S2}}, {{P}, {S3, S3}}, {{P}, {P, R}}, {{P}, {R, P}}};
    case OpId::Conv2DBackpropFilter:  // (x, dy) -> dkernel
      return {{{P}, {S0, S0}}, {{S2}, {S3, R}}, {{S3}, {R, S3}}, {{P}, {P, R}}, {{P}, {R, P}}};
    case OpId::MaxPool2D: return {{{S0}, {S0}}, {{S3}, {S3}}};
    case OpId::AvgPool2D:
    case OpId::AvgPool2DGrad:  // (dy) -> dx
      return {{{S0}, {S0}}, {{S3}, {S3}}, {{P}, {P}}};
    case OpId::MaxPool2DGrad:      // (x, dy) -> dx
    case OpId::MaxPool2DGradGrad:  // (x, ddx) -> ddy
      return {{{S0}, {S0, S0}}, {{S3}, {S3, S3}}, {{P}, {R, P}}};
    default: return {};
  }
}

const ShardRule kConv2D{convRows<OpId::Conv2D>};
const ShardRule kBackpropInput{convRows<OpId::Conv2DBackpropInput>};
const ShardRule kBackpropFilter{convRows<OpId::Conv2DBackpropFilter>};
const ShardRule kMaxPool{convRows<OpId::MaxPool2D>};
const ShardRule kAvgPool{convRows<OpId::AvgPool2D>};
const ShardRule kAvgPoolGrad{convRows<OpId::AvgPool2DGrad>};
const ShardRule kMaxPoolGrad{convRows<OpId::MaxPool2DGrad>};
const ShardRule kMaxPoolGradGrad{convRows<OpId::MaxPool2DGradGrad>};

}  // namespace

const ShardRule* convRule(OpId op) {
  switch (op) {
    case OpId::Conv2D: return &kConv2D;
    case OpId::Conv2DBackpropInput: return &kBackpropInput;
    case OpId::Conv2DBackpropFilter: return &kBackpropFilter;
    case OpId::MaxPool2D: return &kMaxPool;
    case OpId::AvgPool2D: return &kAvgPool;
    case OpId::AvgPool2DGrad: return &kAvgPoolGrad;
    case OpId::MaxPool2DGrad: return &kMaxPoolGrad;
    default: return &kMaxPoolGradGrad;
  }
}

}  // namespace weft::spmd::rules
