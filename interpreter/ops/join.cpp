// concat, stack and split: each tensor is viewed as [outer, axis, inner] and moved in blocks.
#include "../../stdlib/runtime/layout_ops.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

int64_t outerOf(const Shape& s, int axis) {
  int64_t n = 1;
  for (int i = 0; i < axis; ++i) n *= s[i];
  return n;
}

int64_t innerOf(const Shape& s, int axis) {
  int64_t n = 1;
  for (int i = axis + 1; i < s.rank(); ++i) n *= s[i];
  return n;
}

}  // namespace

TensorType concatType(std::span<const TensorType> xs, int axis) {
  if (xs.empty()) fail("concat: needs at least one tensor");
  const TensorType& first = xs[0];
  if (first.shape.rank() == 0) fail("concat: cannot concatenate scalars (shape []); use stack");
  const int d = normalizeAxis("concat", axis, first.shape);
  TensorType out = first;
  out.shape[d] = 0;
  for (const TensorType& x : xs) {
    if (x.dtype != first.dtype)
      fail("dtype mismatch: " + dtypeStr(first.dtype) + " and " + dtypeStr(x.dtype) + " (in concat; use cast() to convert)");
    bool ok = x.shape.rank() == first.shape.rank();
    for (int i = 0; ok && i < x.shape.rank(); ++i)
      if (i != d && !sizes::same(x.shape[i], first.shape[i]) && x.shape[i] != rt::kUnknownDim &&
          first.shape[i] != rt::kUnknownDim)  // an unknown size in a graph is checked when it runs
        ok = false;
    if (!ok)
      fail("concat: shapes " + first.shape.str() + " and " + x.shape.str() + " differ outside axis " +
           std::to_string(axis));
    out.shape[d] = checkedSize("concat", sizes::add(out.shape[d], x.shape[d]),
                               "the size along axis " + std::to_string(axis) + " of shapes " + out.shape.str() +
                                   " and " + x.shape.str());
  }
  return out;
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  std::vector<TensorType> types;
  for (const Tensor& x : xs) types.push_back(typeOf(x));
  const TensorType t = concatType(types, axis);
  if (xs.size() == 1) return xs[0];
  const int d = normalizeAxis("concat", axis, t.shape);
  Tensor result = Tensor::empty(t.dtype, t.shape);
  const int64_t outer = outerOf(t.shape, d), inner = innerOf(t.shape, d);
  std::vector<const void*> ptrs(xs.size());
  std::vector<int64_t> chunks(xs.size());
  for (size_t j = 0; j < xs.size(); ++j) {
    ptrs[j] = xs[j].raw();
    chunks[j] = xs[j].shape()[d] * inner;
  }
  rt::dispatch(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    rt::concatKernel(reinterpret_cast<const T* const*>(ptrs.data()), chunks.data(), int(xs.size()), outer,
                     result.data<T>());
  });
  return result;
}

namespace {

// stack's axis for inputs of types xs, checked: they must have one shape.
int stackAxis(std::span<const TensorType> xs, int axis) {
  if (xs.empty()) fail("stack: needs at least one tensor");
  checkRank("stack", xs[0].shape.rank() + 1);
  for (const TensorType& x : xs) {
    bool same = x.shape.rank() == xs[0].shape.rank();
    for (int i = 0; same && i < x.shape.rank(); ++i) same = sizes::same(x.shape[i], xs[0].shape[i]);
    if (!same)
      fail("stack: all tensors must have the same shape, got " + xs[0].shape.str() + " and " + x.shape.str());
  }
  return normalizeAxis("stack", axis, xs[0].shape.rank() + 1, xs[0].shape);
}

}  // namespace

TensorType stackType(std::span<const TensorType> xs, int axis) {
  const int d = stackAxis(xs, axis);
  std::vector<TensorType> expanded;
  for (const TensorType& x : xs) expanded.push_back(expandDimsType(x, d));
  return concatType(expanded, d);
}

Tensor stack(const std::vector<Tensor>& xs, int axis) {
  std::vector<TensorType> types;
  for (const Tensor& x : xs) types.push_back(typeOf(x));
  const int d = stackAxis(types, axis);
  std::vector<Tensor> expanded;
  expanded.reserve(xs.size());
  for (const Tensor& x : xs) expanded.push_back(expandDims(x, d));
  return concat(expanded, d);
}

std::vector<TensorType> splitTypes(const TensorType& x, const std::vector<int64_t>& sizes, int axis) {
  if (x.shape.rank() == 0) fail("split: cannot split a scalar");
  const int d = normalizeAxis("split", axis, x.shape);
  const Shape& s = x.shape;
  int64_t total = 0;
  bool fits = !sizes.empty();
  for (int64_t n : sizes) {
    if (n < 0) fail("split: sizes must be non-negative, got " + std::to_string(n));
    // A known size also guards the sum against overflow; a symbolic one is checked when the code runs.
    if (!sizes::symbolic(s[d]) && n > s[d] - total) {
      fits = false;
      break;
    }
    total = checkedSize("split", rt::sizeAdd(total, n), "the sum of its sizes");
  }
  if (!fits || !sizes::same(total, s[d])) {
    std::string list;
    for (size_t i = 0; i < sizes.size(); ++i) list += (i ? ", " : "") + std::to_string(sizes[i]);
    fail("split: sizes [" + list + "] do not add up to " + std::to_string(s[d]) + ", the size of axis " +
         std::to_string(axis) + " of shape " + s.str());
  }
  std::vector<TensorType> outs;
  for (int64_t n : sizes) {
    outs.push_back(x);
    outs.back().shape[d] = n;
  }
  return outs;
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis) {
  const std::vector<TensorType> types = splitTypes(typeOf(x), sizes, axis);
  const int d = normalizeAxis("split", axis, x.shape());
  const Shape& s = x.shape();
  const int64_t outer = outerOf(s, d), inner = innerOf(s, d);
  std::vector<Tensor> outs;
  outs.reserve(types.size());
  int64_t offset = 0;
  for (const TensorType& t : types) {
    const int64_t n = t.shape[d];
    Tensor part = Tensor::empty(t.dtype, t.shape);
    rt::dispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      rt::splitKernel(x.data<T>(), outer, s[d] * inner, offset * inner, n * inner, part.data<T>());
    });
    outs.push_back(part);
    offset += n;
  }
  return outs;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

std::vector<Tensor> listOf(In in) { return std::vector<Tensor>(in.begin(), in.end()); }

}  // namespace

void defineJoinRows() {
  {
    OpDef& d = defineRow(OpId::Concat, Family::Shape);
    d.attrs = {{"axis", K::Int}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::concatType(in, int(a.i("axis")))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::concat(listOf(in), int(a.i("axis")))}; };
  }
  {
    OpDef& d = defineRow(OpId::Stack, Family::Shape);
    d.attrs = {{"axis", K::Int}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::stackType(in, int(a.i("axis")))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::stack(listOf(in), int(a.i("axis")))}; };
  }
  OpDef& d = defineRow(OpId::Split, Family::Shape);
  d.attrs = {{"sizes", K::Ints}, {"axis", K::Int}};
  d.infer = [](Ty in, const Attrs& a) -> Types { return impl::splitTypes(in[0], a.ints("sizes"), int(a.i("axis"))); };
  d.run = [](In in, const Attrs& a) -> Out { return impl::split(in[0], a.ints("sizes"), int(a.i("axis"))); };
}

}  // namespace weft::ops
