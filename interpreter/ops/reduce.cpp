// Reductions (sum, mean, max, min, prod, any, all), argmax/argmin and kth_largest.
#include <vector>

#include "../../stdlib/runtime/arg_reduce.h"
#include "../../stdlib/runtime/binary.h"
#include "../../stdlib/runtime/kth_largest.h"
#include "../../stdlib/runtime/reduce.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

// The dtype the reduction runs in (its input is cast to it first) and returns.
DType reduceDtype(ReduceOp op, DType t) {
  const std::string nm = name(op);
  switch (op) {
    case ReduceOp::Sum:
      return t == DType::Bool ? DType::I32 : t;  // sum of bools counts the true values
    case ReduceOp::Mean:
      if (t == DType::I64) return DType::F64;
      return rt::isFloat(t) ? t : DType::F32;
    case ReduceOp::Prod:
      if (t == DType::Bool) fail("prod is not defined for bool tensors");
      return t;
    case ReduceOp::Max:
    case ReduceOp::Min:
      return t;
    case ReduceOp::Any:
    case ReduceOp::All:
      if (t != DType::Bool) fail(nm + " takes a bool tensor, got " + dtypeStr(t) + " (compare first, e.g. x != 0)");
      return t;
  }
  return t;
}

template <class Red>
void runReduce(const Tensor& x, const bool* reduced, Tensor& out) {
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr bool logical = std::is_same_v<Red, rt::AnyR> || std::is_same_v<Red, rt::AllR>;
    constexpr bool arith = std::is_same_v<Red, rt::SumR> || std::is_same_v<Red, rt::ProdR>;
    // Only the dtype combinations reduceDtype() lets through are instantiated.
    if constexpr (std::is_same_v<T, bool> ? !arith : !logical)
      rt::reduceKernel<Red>(x.data<T>(), x.shape(), reduced, out.data<T>());
  });
}

}  // namespace

namespace {

// The axes a reduction of shape s removes (or keeps as 1), checked.
void reducedAxes(const char* nm, const Shape& s, const std::vector<int>& axes, bool* reduced) {
  if (axes.empty()) {
    for (int d = 0; d < s.rank(); ++d) reduced[d] = true;
    return;
  }
  for (int a : axes) {
    int d = normalizeAxis(nm, a, s);
    if (reduced[d]) fail(std::string(nm) + ": axis " + std::to_string(a) + " is repeated");
    reduced[d] = true;
  }
}

// The layout of an arg-reduction along axis d: [outer, reduced, inner].
struct ArgSizes {
  int d;
  int64_t outer = 1, inner = 1;
  Shape out;
};
ArgSizes argSizes(bool isMax, const Shape& s, int axis, bool keepdims) {
  const char* nm = isMax ? "argmax" : "argmin";
  ArgSizes r{normalizeAxis(nm, axis, s)};
  for (int i = 0; i < s.rank(); ++i) {
    if (i == r.d) {
      if (keepdims) r.out.push_back(1);
      continue;
    }
    r.out.push_back(s[i]);
    (i < r.d ? r.outer : r.inner) *= s[i];
  }
  const int64_t R = s[r.d];
  if (R == 0 && r.outer * r.inner > 0)
    fail(std::string(nm) + " of an empty axis: axis " + std::to_string(axis) + " of shape " + s.str());
  if (R > int64_t(INT32_MAX))
    fail(std::string(nm) + ": axis " + std::to_string(axis) + " of shape " + s.str() + " is too long for i32 indices");
  return r;
}

}  // namespace

TensorType reduceType(ReduceOp op, const TensorType& x, const std::vector<int>& axes, bool keepdims) {
  const char* nm = name(op);
  const Shape& s = x.shape;
  bool reduced[rt::kMaxRank] = {};
  reducedAxes(nm, s, axes, reduced);
  TensorType out{reduceDtype(op, x.dtype), {}};
  int64_t count = 1, outN = 1;
  for (int d = 0; d < s.rank(); ++d) {
    if (reduced[d]) {
      count = sizes::mul(count, s[d]).value_or(rt::kUnknownDim);  // x's shape passed checkShape
      if (keepdims) out.shape.push_back(1);
    } else {
      out.shape.push_back(s[d]);
      outN = sizes::mul(outN, s[d]).value_or(rt::kUnknownDim);
    }
  }
  if ((op == ReduceOp::Max || op == ReduceOp::Min) && count == 0 && outN > 0)
    fail(std::string(nm) + " of an empty tensor: shape " + s.str() + " has no elements along the reduced axes");
  return out;
}

Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims, int64_t shards) {
  const TensorType t = reduceType(op, typeOf(x), axes, keepdims);
  bool reduced[rt::kMaxRank] = {};
  reducedAxes(name(op), x.shape(), axes, reduced);
  if (op == ReduceOp::Mean && !rt::isFloat(x.dtype())) {  // in f64, whatever the result's dtype
    Tensor out = Tensor::empty(t.dtype, t.shape);
    if (out.numel() == 0) return out;
    const int64_t count = x.numel() / out.numel() * shards;
    rt::dispatch(x.dtype(), [&](auto tag) {
      using S = decltype(tag);
      if constexpr (!std::is_floating_point_v<S>) {
        if (t.dtype == DType::F64)
          rt::intMeanKernel(x.data<S>(), x.shape(), reduced, out.data<double>(), out.numel(), count);
        else
          rt::intMeanKernel(x.data<S>(), x.shape(), reduced, out.data<float>(), out.numel(), count);
      }
    });
    return out;
  }
  Tensor in = cast(x, t.dtype);
  Tensor out = Tensor::empty(t.dtype, t.shape);
  switch (op) {
#define WEFT_CASE(F, Id, N, A, Red) \
  case ReduceOp::Id: runReduce<rt::Red>(in, reduced, out); break;
    WEFT_FOR_EACH_REDUCE_OP(WEFT_CASE)
#undef WEFT_CASE
  }
  if (op == ReduceOp::Mean && out.numel() > 0) {
    const int64_t count = x.numel() / out.numel() * shards;  // elements per mean
    rt::dispatch(t.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) rt::meanFromSum(out.data<T>(), out.numel(), count);
    });
  }
  return out;
}

TensorType argReduceType(bool isMax, const TensorType& x, int axis, bool keepdims) {
  return {DType::I32, argSizes(isMax, x.shape, axis, keepdims).out};
}

Tensor argReduce(bool isMax, const Tensor& x, int axis, bool keepdims) {
  const ArgSizes a = argSizes(isMax, x.shape(), axis, keepdims);
  Tensor out = Tensor::empty(DType::I32, a.out);
  if (a.outer * a.inner == 0) return out;
  const int64_t R = x.shape()[a.d];
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (isMax) rt::argReduceKernel<true>(x.data<T>(), out.data<int32_t>(), a.outer, R, a.inner);
    else rt::argReduceKernel<false>(x.data<T>(), out.data<int32_t>(), a.outer, R, a.inner);
  });
  return out;
}

TensorType kthLargestType(const TensorType& x, int64_t k) {
  if (!rt::isFloat(x.dtype)) fail("kth_largest: expects a float tensor, got " + dtypeStr(x.dtype));
  if (x.shape.rank() == 0) fail("kth_largest: expects a tensor of rank 1 or more, got a scalar");
  const int64_t n = x.shape[x.shape.rank() - 1];  // negative: not known yet (checked when it runs)
  if (k < 1 || (n >= 0 && k > n))
    fail("kth_largest: k " + std::to_string(k) + " is not in 1.." + std::to_string(n) + " for shape " + x.shape.str());
  Shape out = x.shape;
  out[out.rank() - 1] = 1;
  return {x.dtype, out};
}

Tensor kthLargest(const Tensor& x, int64_t k) {
  const TensorType t = kthLargestType({x.dtype(), x.shape()}, k);
  Tensor out = Tensor::empty(t.dtype, t.shape);
  if (out.numel() == 0) return out;
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const int64_t n = x.shape()[x.rank() - 1];
      std::vector<T> row(static_cast<size_t>(n));
      rt::kthLargestKernel(x.data<T>(), out.data<T>(), out.numel(), n, k, row.data());
    }
  });
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

template <ReduceOp R>
Out runReduce(In in, const Attrs& a) {
  return {impl::reduce(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"), meanShards(a))};
}
template <ReduceOp R>
Types inferReduce(Ty in, const Attrs& a) {
  return {impl::reduceType(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"))};
}
// The scratch of reduceKernel and of the cast before it, for the result's dtype.
template <ReduceOp R>
int64_t reduceWorkspace(Ty in, const Attrs& a) {
  const TensorType out = impl::reduceType(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"));
  return rt::reduceWorkspaceBytes(in[0].shape.numel(), int64_t(rt::dtypeSize(out.dtype)));
}
template <bool IsMax>
Out runArg(In in, const Attrs& a) { return {impl::argReduce(IsMax, in[0], int(a.i("axis")), a.b("keepdims"))}; }
template <bool IsMax>
Types inferArg(Ty in, const Attrs& a) { return {impl::argReduceType(IsMax, in[0], int(a.i("axis")), a.b("keepdims"))}; }

}  // namespace

void defineReduceRows() {
#define WEFT_REDUCE_ROW(F, Id, ...)                                                                         \
  {                                                                                                         \
    OpDef& d = defineRow(OpId::F##Id, Family::Reduce);                                                      \
    d.attrs = {{"axes", K::Ints}, {"keepdims", K::Bool}};                                                   \
    if (ReduceOp::Id == ReduceOp::Mean) d.attrs.push_back({"shards", K::Int, true});                        \
    d.infer = inferReduce<ReduceOp::Id>, d.run = runReduce<ReduceOp::Id>, d.workspace = reduceWorkspace<ReduceOp::Id>; \
  }
  WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_ROW)
#undef WEFT_REDUCE_ROW
  {
    OpDef& d = defineRow(OpId::ArgMax, Family::ArgReduce);
    d.attrs = {{"axis", K::Int}, {"keepdims", K::Bool}};
    d.infer = inferArg<true>, d.run = runArg<true>;
  }
  {
    OpDef& d = defineRow(OpId::ArgMin, Family::ArgReduce);
    d.attrs = {{"axis", K::Int}, {"keepdims", K::Bool}};
    d.infer = inferArg<false>, d.run = runArg<false>;
  }
  // The k-th largest value along the last axis, kept as size 1 (a top-k filter's threshold).
  OpDef& d = defineRow(OpId::KthLargest, Family::ArgReduce);
  d.attrs = {{"k", K::Int}};
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::kthLargestType(in[0], a.i("k"))}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::kthLargest(in[0], a.i("k"))}; };
}

}  // namespace weft::ops
