// concat, stack and split: each tensor is viewed as [outer, axis, inner] and moved in blocks.
#include "../../stdlib/runtime/layout_ops.h"
#include "check.h"
#include "impl.h"

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

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  if (xs.empty()) fail("concat: needs at least one tensor");
  const Tensor& first = xs[0];
  if (first.rank() == 0) fail("concat: cannot concatenate scalars (shape []); use stack");
  const int d = normalizeAxis("concat", axis, first.shape());
  Shape out = first.shape();
  out[d] = 0;
  bool abstract = false;
  for (const Tensor& x : xs) {
    if (x.dtype() != first.dtype())
      fail("dtype mismatch: " + dtypeStr(first.dtype()) + " and " + dtypeStr(x.dtype()) +
           " (in concat; use cast() to convert)");
    bool ok = x.rank() == first.rank();
    for (int i = 0; ok && i < x.rank(); ++i)
      if (i != d && x.shape()[i] != first.shape()[i] && x.shape()[i] != rt::kUnknownDim &&
          first.shape()[i] != rt::kUnknownDim)  // an unknown size in a graph is checked when it runs
        ok = false;
    if (!ok)
      fail("concat: shapes " + first.shape().str() + " and " + x.shape().str() +
           " differ outside axis " + std::to_string(axis));
    if (out[d] == rt::kUnknownDim || x.shape()[d] == rt::kUnknownDim) {
      out[d] = rt::kUnknownDim;
      abstract = true;
      continue;
    }
    out[d] = checkedSize("concat", rt::sizeAdd(out[d], x.shape()[d]),
                         "the size along axis " + std::to_string(axis) + " of shapes " + out.str() + " and " + x.shape().str());
    abstract = abstract || x.isAbstract();
  }
  if (abstract) return Tensor::abstract(first.dtype(), out);
  if (xs.size() == 1) return first;
  Tensor result = Tensor::empty(first.dtype(), out);
  const int64_t outer = outerOf(out, d), inner = innerOf(out, d);
  std::vector<const void*> ptrs(xs.size());
  std::vector<int64_t> chunks(xs.size());
  for (size_t j = 0; j < xs.size(); ++j) {
    ptrs[j] = xs[j].raw();
    chunks[j] = xs[j].shape()[d] * inner;
  }
  rt::dispatch(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::concatKernel(reinterpret_cast<const T* const*>(ptrs.data()), chunks.data(), int(xs.size()),
                     outer, result.data<T>());
  });
  return result;
}

Tensor stack(const std::vector<Tensor>& xs, int axis) {
  if (xs.empty()) fail("stack: needs at least one tensor");
  checkRank("stack", xs[0].rank() + 1);
  const int d = normalizeAxis("stack", axis, xs[0].rank() + 1, xs[0].shape());
  std::vector<Tensor> expanded;
  expanded.reserve(xs.size());
  for (const Tensor& x : xs) {
    if (x.shape() != xs[0].shape())
      fail("stack: all tensors must have the same shape, got " + xs[0].shape().str() + " and " +
           x.shape().str());
    expanded.push_back(expandDims(x, d));
  }
  return concat(expanded, d);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis) {
  if (x.rank() == 0) fail("split: cannot split a scalar");
  const int d = normalizeAxis("split", axis, x.shape());
  const Shape& s = x.shape();
  int64_t total = 0;
  for (int64_t n : sizes) {
    if (n < 0) fail("split: sizes must be non-negative, got " + std::to_string(n));
    if (n > s[d] - total) {  // also guards the sum against overflow
      total = -1;
      break;
    }
    total += n;
  }
  if (sizes.empty() || total != s[d]) {
    std::string list;
    for (size_t i = 0; i < sizes.size(); ++i) list += (i ? ", " : "") + std::to_string(sizes[i]);
    fail("split: sizes [" + list + "] do not add up to " + std::to_string(s[d]) + ", the size of axis " +
         std::to_string(axis) + " of shape " + s.str());
  }
  const int64_t outer = outerOf(s, d), inner = innerOf(s, d);
  std::vector<Tensor> outs;
  outs.reserve(sizes.size());
  int64_t offset = 0;
  for (int64_t n : sizes) {
    Shape os = s;
    os[d] = n;
    if (x.isAbstract()) {
      outs.push_back(Tensor::abstract(x.dtype(), os));
      continue;
    }
    Tensor t = Tensor::empty(x.dtype(), os);
    rt::dispatch(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      rt::splitKernel(x.data<T>(), outer, s[d] * inner, offset * inner, n * inner, t.data<T>());
    });
    outs.push_back(t);
    offset += n;
  }
  return outs;
}

}  // namespace weft::ops::impl
