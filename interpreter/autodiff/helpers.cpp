// Helpers of the VJP rules: zeros, broadcasting back and forth, masks — all from ops.
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {

bool known(const Shape& s) {
  for (int i = 0; i < s.rank(); ++i)
    if (s[i] < 0) return false;
  return true;
}

}  // namespace

Tensor scalarOf(double v, DType dtype) { return ops::full(Shape{}, v, dtype); }

Tensor zerosLike(const Tensor& t) {
  if (known(t.shape())) return ops::full(t.shape(), 0.0, t.dtype());
  return ops::binary(ops::BinaryOp::Mul, t, scalarOf(0.0, t.dtype()));
}

Tensor broadcastLike(const Tensor& g, const Tensor& t) {
  if (g.shape() == t.shape()) return g;
  if (known(t.shape())) return ops::broadcastTo(g, t.shape());
  return ops::binary(ops::BinaryOp::Add, zerosLike(t), g);
}

Tensor unbroadcast(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  int lead = g.rank() - shape.rank();
  std::vector<int> axes;
  for (int i = 0; i < lead; ++i) axes.push_back(i);
  Tensor r = g;
  if (!axes.empty()) r = ops::reduce(ops::ReduceOp::Sum, r, axes, false);
  std::vector<int> ones;
  for (int i = 0; i < shape.rank(); ++i)
    if (shape[i] == 1 && r.shape()[i] != 1) ones.push_back(i);
  if (!ones.empty()) r = ops::reduce(ops::ReduceOp::Sum, r, ones, true);
  return r;
}

Tensor reshapeLike(const Tensor& g, const Tensor& t) {
  std::vector<int64_t> dims;
  int unknown = 0;
  for (int i = 0; i < t.rank(); ++i) {
    dims.push_back(t.shape()[i] < 0 ? -1 : t.shape()[i]);
    unknown += t.shape()[i] < 0;
  }
  if (unknown > 1)
    throw WeftError("gradient of a reshape to " + t.shape().str() +
                    ": more than one unknown dimension; annotate the function's inputs with fewer None");
  if (g.shape() == t.shape()) return g;
  return ops::reshape(g, dims);
}

Tensor maskOf(const Tensor& b, DType dtype) { return ops::cast(b, dtype); }

}  // namespace weft::autodiff
