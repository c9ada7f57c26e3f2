// VJP rules of the reductions: the output gradient is broadcast back over the reduced axes.
#include <algorithm>

#include "rules.h"

namespace weft::autodiff {
namespace {

using ops::BinaryOp;
using ops::ReduceOp;
using V = ops::VjpResult;

std::vector<int> axesOf(const ops::Attrs& attrs, int rank) {
  std::vector<int> axes;
  for (int64_t a : attrs.ints("axes")) axes.push_back(int(a < 0 ? a + rank : a));
  if (axes.empty())
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  std::sort(axes.begin(), axes.end());
  return axes;
}

// g (the gradient of the reduction's output) with the reduced axes back as size 1.
Tensor keepDims(const Tensor& g, const ops::VjpArgs& a) {
  if (a.attrs.b("keepdims")) return g;
  Tensor r = g;
  for (int ax : axesOf(a.attrs, a.in[0].rank())) r = ops::expandDims(r, ax);
  return r;
}

// The number a mean divides by (its elements times its shards), as a scalar of dtype.
Tensor countOf(const ops::VjpArgs& a, DType dtype) {
  const Tensor& x = a.in[0];
  const int64_t shards = ops::meanShards(a.attrs);
  int64_t n = shards;
  bool known = true;
  for (int ax : axesOf(a.attrs, x.rank())) {
    if (x.shape()[ax] < 0) known = false;
    else n *= x.shape()[ax];
  }
  if (known) return scalarOf(double(n), dtype);
  std::vector<int64_t> idx;
  for (int ax : axesOf(a.attrs, x.rank())) idx.push_back(ax);
  Tensor axes = Tensor::empty(DType::I64, Shape{int64_t(idx.size())});
  for (size_t i = 0; i < idx.size(); ++i) axes.data<int64_t>()[i] = idx[i];
  Tensor sizes = ops::take(ops::shapeOf(x), axes, 0);
  Tensor count = ops::cast(ops::reduce(ReduceOp::Prod, sizes, {}, false), dtype);
  return shards == 1 ? count : ops::binary(BinaryOp::Mul, count, scalarOf(double(shards), dtype));
}

V sumVjp(const ops::VjpArgs& a) { return {broadcastLike(keepDims(a.gout[0], a), a.in[0])}; }

V meanVjp(const ops::VjpArgs& a) {
  const Tensor& x = a.in[0];
  Tensor g = ops::binary(BinaryOp::Div, keepDims(a.gout[0], a), countOf(a, x.dtype()));
  return {broadcastLike(g, x)};
}

// Max and min: the gradient is shared equally among the elements equal to the result.
V extremeVjp(const ops::VjpArgs& a) {
  const Tensor& x = a.in[0];
  Tensor y = broadcastLike(keepDims(a.out[0], a), x);
  Tensor mask = maskOf(ops::binary(BinaryOp::Eq, x, y), x.dtype());
  std::vector<int> axes = axesOf(a.attrs, x.rank());
  Tensor count = ops::reduce(ReduceOp::Sum, mask, axes, true);
  Tensor g = ops::binary(BinaryOp::Div, keepDims(a.gout[0], a), count);
  return {ops::binary(BinaryOp::Mul, broadcastLike(g, x), mask)};
}

// prod: d/dx_i = prod / x_i (for non-zero x_i).
V prodVjp(const ops::VjpArgs& a) {
  const Tensor& x = a.in[0];
  Tensor g = ops::binary(BinaryOp::Mul, keepDims(a.gout[0], a), keepDims(a.out[0], a));
  return {ops::binary(BinaryOp::Div, broadcastLike(g, x), x)};
}

ops::VjpFn reduceRule(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return sumVjp;
    case ReduceOp::Mean: return meanVjp;
    case ReduceOp::Max:
    case ReduceOp::Min: return extremeVjp;
    case ReduceOp::Prod: return prodVjp;
    case ReduceOp::Any:
    case ReduceOp::All: return noGradient;
  }
  return noGradient;
}

}  // namespace

void registerReductionVjps() {
#define WEFT_REDUCE_VJP(F, Id, ...) ops::setVjp({ops::OpId::F##Id}, reduceRule(ReduceOp::Id));
  WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_VJP)
#undef WEFT_REDUCE_VJP
  ops::setVjp({ops::OpId::ArgMax, ops::OpId::ArgMin, ops::OpId::KthLargest}, noGradient);
}

}  // namespace weft::autodiff
