// Indexing: NumPy basic indexing (getItem / setItem) as strided copies, and take (gather).
#include <cstring>

#include "../../stdlib/runtime/copy.h"
#include "../../stdlib/runtime/layout_ops.h"
#include "../../stdlib/runtime/rows.h"
#include "../../stdlib/runtime/slice.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

// Python's slice.indices(n): clamps start and stop, returns the number of selected elements.
// Of a symbolic n, the count and the first index are the runtime's own clamp, called when the
// code runs (the first index 0 when nothing is selected, so that the offset stays inside).
int64_t adjustSlice(const Subscript& sub, int64_t n, int64_t& start, int64_t& step) {
  if (sub.step.value_or(1) == 0) fail("slice step cannot be zero");
  const std::vector<int64_t> args{n, bool(sub.start), sub.start.value_or(0), bool(sub.stop), sub.stop.value_or(0),
                                  sub.step.value_or(1)};
  if (sizes::symbolic(n)) {
    step = rt::sliceRange(0, false, 0, false, 0, args[5]).step;
    if (!sub.start && !sub.stop && step == 1) {  // all of it
      start = 0;
      return n;
    }
    start = *sizes::call("weft::rt::sliceFirst", args);
    return *sizes::call("weft::rt::sliceCount", args);
  }
  const rt::SliceRange r = rt::sliceRange(n, args[1], args[2], args[3], args[4], args[5]);
  start = r.start;
  step = r.step;
  return r.count;
}

}  // namespace

Selection selection(const Shape& s, const std::vector<Subscript>& subs) {
  int consumed = 0, ellipses = 0;
  for (const Subscript& sub : subs) {
    if (sub.kind == Subscript::Index || sub.kind == Subscript::Range) ++consumed;
    if (sub.kind == Subscript::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) fail("an index can only have a single ellipsis ('...')");
  if (consumed > s.rank())
    fail("too many indices for shape " + s.str() + ": " + std::to_string(consumed) + " given");
  const auto st = sizes::strides(s);
  Selection sel;
  int d = 0;
  auto keep = [&](int64_t n, int64_t stride) {
    checkRank("indexing", sel.shape.rank() + 1);
    sel.strides[sel.shape.rank()] = stride;
    sel.shape.push_back(n);
  };
  for (const Subscript& sub : subs) {
    switch (sub.kind) {
      case Subscript::Index: {
        const int64_t n = s[d];
        if (n == rt::kUnknownDim) {  // a graph value: the index is checked when the graph runs
          ++d;
          break;
        }
        int64_t i = sub.index < 0 ? sizes::offset(n, sub.index) : sub.index;
        if (!sizes::inRange(i, n))
          fail("index " + std::to_string(sub.index) + " is out of range for axis " + std::to_string(d) +
               " of shape " + s.str());
        sel.base = *sizes::add(sel.base, *sizes::mul(i, st[d]));  // within the tensor: no overflow
        sel.whole = sel.whole && n == 1;
        ++d;
        break;
      }
      case Subscript::Range: {
        if (s[d] == rt::kUnknownDim) {  // a graph value: its length is known when the graph runs
          keep(rt::kUnknownDim, 0);
          ++d;
          break;
        }
        int64_t start, step;
        const int64_t n = adjustSlice(sub, s[d], start, step);
        if (sizes::symbolic(n) || n > 0) sel.base = *sizes::add(sel.base, *sizes::mul(start, st[d]));
        sel.whole = sel.whole && (n == s[d]) && (step == 1 || (!sizes::symbolic(n) && n <= 1));
        keep(n, sizes::times(step, st[d]));
        ++d;
        break;
      }
      case Subscript::NewAxis: keep(1, 0); break;
      case Subscript::Ellipsis:
        for (int k = 0; k < s.rank() - consumed; ++k, ++d) keep(s[d], st[d]);
        break;
    }
  }
  for (; d < s.rank(); ++d) keep(s[d], st[d]);
  return sel;
}

TensorType getItemType(const TensorType& x, const std::vector<Subscript>& subs) {
  return {x.dtype, selection(x.shape, subs).shape};
}

Tensor getItem(const Tensor& x, const std::vector<Subscript>& subs) {
  Selection sel = selection(x.shape(), subs);
  if (sel.whole) return x.reshaped(sel.shape);
  Tensor out = Tensor::empty(x.dtype(), sel.shape);
  auto ds = rt::stridesOf(sel.shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::stridedCopy(x.data<T>() + sel.base, sel.strides, out.data<T>(), ds.data(), sel.shape);
  });
  return out;
}

namespace {

// The selection x[subs] = value writes, checked.
Selection assignment(const TensorType& x, const std::vector<Subscript>& subs, const TensorType& value) {
  Selection sel = selection(x.shape, subs);
  if (value.dtype != x.dtype)
    fail("dtype mismatch: cannot assign a " + dtypeStr(value.dtype) + " value into a " + dtypeStr(x.dtype) +
         " tensor (use cast() to convert)");
  if (!broadcastsTo(value.shape, sel.shape))
    fail("cannot assign a value of shape " + value.shape.str() + " to a selection of shape " + sel.shape.str());
  return sel;
}

}  // namespace

TensorType setItemType(const TensorType& x, const std::vector<Subscript>& subs, const TensorType& value) {
  assignment(x, subs, value);
  return x;
}

Tensor setItem(const Tensor& x, const std::vector<Subscript>& subs, const Tensor& value) {
  const Selection sel = assignment(typeOf(x), subs, typeOf(value));
  Tensor out = x.clone();
  int64_t vs[rt::kMaxRank];
  rt::broadcastStrides(value.shape(), sel.shape, vs);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::stridedCopy(value.data<T>(), vs, out.data<T>() + sel.base, sel.strides, sel.shape);
  });
  return out;
}

TensorType takeType(const TensorType& x, const TensorType& indices, int axis) {
  checkIntIndices("take", indices.dtype);
  const Shape& s = x.shape;
  const int d = normalizeAxis("take", axis, s);
  checkRank("take", s.rank() - 1 + indices.shape.rank());
  TensorType out{x.dtype, {}};
  for (int i = 0; i < d; ++i) out.shape.push_back(s[i]);
  for (int64_t n : indices.shape) out.shape.push_back(n);
  for (int i = d + 1; i < s.rank(); ++i) out.shape.push_back(s[i]);
  return out;
}

Tensor take(const Tensor& x, const Tensor& indices, int axis, bool ids) {
  const TensorType t = takeType(typeOf(x), typeOf(indices), axis);
  const Shape& s = x.shape();
  const int d = normalizeAxis("take", axis, s);
  const int64_t n = s[d];
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= s[i];
  for (int i = d + 1; i < s.rank(); ++i) inner *= s[i];
  Tensor result = Tensor::empty(t.dtype, t.shape);
  rt::dispatch(indices.dtype(), [&](auto itag) {
    using I = decltype(itag);
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      const I* idx = indices.data<I>();
      const int64_t m = indices.numel();
      if (std::string why = rt::gatherIndexError(idx, m, n, d, ids); !why.empty()) fail(why + " of shape " + s.str());
      rt::dispatch(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        rt::gatherKernel(x.data<T>(), outer, n, inner, idx, m, result.data<T>());
      });
    }
  });
  return result;
}

namespace {

void checkIndexScalar(const char* op, const char* what, const TensorType& t) {
  checkIntIndices(op, t.dtype);
  if (t.shape.rank() != 0) fail(std::string(op) + ": " + what + " must be a scalar, got shape " + t.shape.str());
}

}  // namespace

TensorType broadcastRowsType(const TensorType& x, const TensorType& n) {
  checkIndexScalar("broadcast_rows", "the row count", n);
  checkRank("broadcast_rows", x.shape.rank() + 1);
  TensorType out{x.dtype, Shape{rt::kUnknownDim}};
  for (int64_t d : x.shape) out.shape.push_back(d);
  return out;
}

Tensor broadcastRows(const Tensor& x, const Tensor& n) {
  TensorType t = broadcastRowsType(typeOf(x), typeOf(n));
  const int64_t rows = n.asInt();
  if (std::string why = rt::rowCountError(rows, size_t(x.bytes())); !why.empty()) fail("broadcast_rows: " + why);
  t.shape[0] = rows;
  Tensor out = Tensor::empty(t.dtype, t.shape);
  rt::fillRows(out.raw(), x.raw(), size_t(x.bytes()), rows);
  return out;
}

TensorType updateRowType(const TensorType& x, const TensorType& row, const TensorType& i) {
  checkIndexScalar("update_row", "the row index", i);
  if (x.shape.rank() == 0) fail("update_row: a scalar has no rows");
  if (row.dtype != x.dtype)
    fail("update_row: dtype mismatch: cannot write a " + dtypeStr(row.dtype) + " row into a " + dtypeStr(x.dtype) +
         " tensor");
  bool fits = row.shape.rank() == x.shape.rank() - 1;
  for (int a = 0; fits && a < row.shape.rank(); ++a) fits = sizes::same(row.shape[a], x.shape[a + 1]);
  if (!fits) fail("update_row: a row of shape " + row.shape.str() + " does not fit the rows of shape " + x.shape.str());
  return x;
}

void updateRowInto(const Tensor& x, const Tensor& row, const Tensor& i, Tensor& out) {
  updateRowType(typeOf(x), typeOf(row), typeOf(i));
  const int64_t rows = x.shape()[0], k = i.asInt();
  if (std::string why = rt::rowIndexError(k, rows); !why.empty()) fail("update_row: " + why);
  if (&out != &x) {
    if (!out.isWhole() || out.dtype() != x.dtype() || out.shape() != x.shape()) out = Tensor::empty(x.dtype(), x.shape());
    std::memcpy(out.raw(), x.raw(), size_t(x.bytes()));
  }
  std::memcpy(static_cast<char*>(out.raw()) + k * row.bytes(), row.raw(), size_t(row.bytes()));
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

void defineIndexingRows() {
  {
    OpDef& d = defineRow(OpId::GetItem, Family::Indexing);
    d.attrs = {{"subs", K::Ints}};
    d.view = true;
    d.infer = [](Ty in, const Attrs& a) -> Types {
      return {impl::getItemType(in[0], decodeSubscripts(a.ints("subs")))};
    };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::getItem(in[0], decodeSubscripts(a.ints("subs")))}; };
  }
  {
    OpDef& d = defineRow(OpId::SetItem, Family::Indexing);
    d.attrs = {{"subs", K::Ints}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      return {impl::setItemType(in[0], decodeSubscripts(a.ints("subs")), in[1])};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      return {impl::setItem(in[0], decodeSubscripts(a.ints("subs")), in[1])};
    };
  }
  {
    OpDef& d = defineRow(OpId::Take, Family::Indexing);
    // ids (optional): the indices are ids in [0, n), a negative one an error (Embedding's).
    d.attrs = {{"axis", K::Int}, {"ids", K::Bool, true}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::takeType(in[0], in[1], int(a.i("axis")))}; };
    d.run = [](In in, const Attrs& a) -> Out {
      return {impl::take(in[0], in[1], int(a.i("axis")), a.has("ids") && a.b("ids"))};
    };
  }
  // A stack of rows written at a run-time index (XLA's DynamicUpdateSlice on axis 0,
  // TensorFlow's TensorList): broadcast_rows(x, n) is n copies of x, n a scalar known when it
  // runs, and update_row(x, row, i) is x with row i replaced; a graph while loop's gradient keeps
  // each iteration's loop values in them (interpreter/autodiff/tape.cpp).
  {
    OpDef& d = defineRow(OpId::BroadcastRows, Family::Shape);
    d.sizedByValue = true;
    d.infer = [](Ty in, const Attrs&) -> Types { return {impl::broadcastRowsType(in[0], in[1])}; };
    d.run = [](In in, const Attrs&) -> Out { return {impl::broadcastRows(in[0], in[1])}; };
  }
  OpDef& d = defineRow(OpId::UpdateRow, Family::Indexing);
  d.overwrites = true;
  d.infer = [](Ty in, const Attrs&) -> Types { return {impl::updateRowType(in[0], in[1], in[2])}; };
  d.run = [](In in, const Attrs&) -> Out {
    Tensor out;
    impl::updateRowInto(in[0], in[1], in[2], out);
    return {out};
  };
  d.into = [](std::span<const Tensor* const> in, const Attrs&, Tensor& out) {
    impl::updateRowInto(*in[0], *in[1], *in[2], out);
  };
  d.intoChecks = true;
}

}  // namespace weft::ops
