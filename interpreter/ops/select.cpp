// Ops that pick between values: where, clip, one_hot, broadcast_to.
#include "../../stdlib/runtime/binary.h"
#include "../../stdlib/runtime/copy.h"
#include "../../stdlib/runtime/layout_ops.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

Shape broadcast3(const char* op, const Shape& a, const Shape& b, const Shape& c) {
  Shape ab, abc;
  if (!ops::broadcastShapes(a, b, ab) || !ops::broadcastShapes(ab, c, abc))
    fail(std::string(op) + ": cannot broadcast shapes " + a.str() + ", " + b.str() + " and " +
         c.str());
  return abc;
}

void checkSameDtype(const char* op, const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype)
    fail("dtype mismatch: " + dtypeStr(a.dtype) + " and " + dtypeStr(b.dtype) + " (in " + op +
         "; use cast() to convert one of them)");
}

}  // namespace

TensorType whereType(const TensorType& cond, const TensorType& a, const TensorType& b) {
  if (cond.dtype != DType::Bool) fail("where: the condition must be a bool tensor, got " + dtypeStr(cond.dtype));
  checkSameDtype("where", a, b);
  return {a.dtype, broadcast3("where", cond.shape, a.shape, b.shape)};
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const TensorType t = whereType(typeOf(cond), typeOf(a), typeOf(b));
  Tensor out = Tensor::empty(t.dtype, t.shape);
  rt::dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::ternaryKernel<rt::Where>(cond.data<bool>(), cond.shape(), a.data<T>(), a.shape(), b.data<T>(), b.shape(),
                                 out.data<T>(), t.shape);
  });
  return out;
}

TensorType clipType(const TensorType& x, const TensorType& lo, const TensorType& hi) {
  checkSameDtype("clip", x, lo);
  checkSameDtype("clip", x, hi);
  if (x.dtype == DType::Bool) fail("clip is not defined for bool tensors");
  return {x.dtype, broadcast3("clip", x.shape, lo.shape, hi.shape)};
}

Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  const TensorType t = clipType(typeOf(x), typeOf(lo), typeOf(hi));
  Tensor out = Tensor::empty(t.dtype, t.shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>)
      rt::ternaryKernel<rt::Clip>(x.data<T>(), x.shape(), lo.data<T>(), lo.shape(), hi.data<T>(), hi.shape(),
                                  out.data<T>(), t.shape);
  });
  return out;
}

TensorType oneHotType(const TensorType& indices, int64_t depth, DType dtype) {
  checkIntIndices("one_hot", indices.dtype);
  if (depth < 0) fail("one_hot: depth must be non-negative, got " + std::to_string(depth));
  checkRank("one_hot", indices.shape.rank() + 1);
  TensorType out{dtype, indices.shape};
  out.shape.push_back(depth);
  return out;
}

Tensor oneHot(const Tensor& indices, int64_t depth, DType dtype) {
  const TensorType t = oneHotType(typeOf(indices), depth, dtype);
  Tensor out = Tensor::empty(t.dtype, t.shape);
  rt::dispatch(indices.dtype(), [&](auto itag) {
    using I = decltype(itag);
    rt::dispatch(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>)
        rt::oneHotKernel(indices.data<I>(), indices.numel(), depth, out.data<T>());
    });
  });
  return out;
}

TensorType broadcastToType(const TensorType& x, const Shape& shape) {
  checkShape("broadcast_to", shape);
  if (!broadcastsTo(x.shape, shape))
    fail("cannot broadcast shape " + x.shape.str() + " to " + shape.str());
  return {x.dtype, shape};
}

Tensor broadcastTo(const Tensor& x, const Shape& shape) {
  broadcastToType(typeOf(x), shape);
  if (x.shape() == shape) return x;
  Tensor out = Tensor::empty(x.dtype(), shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::broadcastToKernel(x.data<T>(), x.shape(), out.data<T>(), shape);
  });
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

void defineSelectRows() {
  {
    OpDef& d = defineRow(OpId::Where, Family::Ternary);
    d.infer = [](Ty in, const Attrs&) -> Types { return {impl::whereType(in[0], in[1], in[2])}; };
    d.run = [](In in, const Attrs&) -> Out { return {impl::where(in[0], in[1], in[2])}; };
  }
  {
    OpDef& d = defineRow(OpId::Clip, Family::Ternary);
    d.infer = [](Ty in, const Attrs&) -> Types { return {impl::clipType(in[0], in[1], in[2])}; };
    d.run = [](In in, const Attrs&) -> Out { return {impl::clip(in[0], in[1], in[2])}; };
  }
  {
    OpDef& d = defineRow(OpId::OneHot, Family::Indexing);
    d.attrs = {{"depth", K::Int}, {"dtype", K::DType}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::oneHotType(in[0], a.i("depth"), a.dtype("dtype"))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::oneHot(in[0], a.i("depth"), a.dtype("dtype"))}; };
  }
  OpDef& d = defineRow(OpId::BroadcastTo, Family::Shape);
  d.attrs = {{"shape", K::Ints}};
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::broadcastToType(in[0], shapeOf(a.ints("shape")))}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::broadcastTo(in[0], shapeOf(a.ints("shape")))}; };
}

}  // namespace weft::ops
