// VJP rules of the selecting ops: where, clip, basic indexing (getitem, setitem), take and the
// stack of rows (broadcast_rows, update_row).
#include "../../grammar/diagnostics.h"
#include "rules.h"

namespace weft::autodiff {
namespace {

using ops::BinaryOp;
using V = ops::VjpResult;

std::vector<ops::Subscript> subsOf(const ops::VjpArgs& a) { return ops::decodeSubscripts(a.attrs.ints("subs")); }

V whereVjp(const ops::VjpArgs& a) {
  const Tensor &c = a.in[0], &g = a.gout[0];
  Tensor zero = scalarOf(0.0, g.dtype());
  V r(3);
  if (a.need[1]) r[1] = unbroadcast(ops::where(c, g, zero), a.in[1].shape());
  if (a.need[2]) r[2] = unbroadcast(ops::where(c, zero, g), a.in[2].shape());
  return r;
}

// The gradient goes to x where lo <= x <= hi, to lo below and to hi above.
V clipVjp(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &lo = a.in[1], &hi = a.in[2], &g = a.gout[0];
  Tensor below = ops::binary(BinaryOp::Lt, x, lo), above = ops::binary(BinaryOp::Gt, x, hi);
  Tensor zero = scalarOf(0.0, g.dtype());
  V r(3);
  if (a.need[0]) r[0] = unbroadcast(ops::where(below, zero, ops::where(above, zero, g)), x.shape());
  if (a.need[1]) r[1] = unbroadcast(ops::where(below, g, zero), lo.shape());
  if (a.need[2]) r[2] = unbroadcast(ops::where(above, g, zero), hi.shape());
  return r;
}

// x[subs]: the gradient lands in the selected places of zeros shaped like x.
V getItemVjp(const ops::VjpArgs& a) { return {ops::setItem(zerosLike(a.in[0]), subsOf(a), a.gout[0])}; }

// x with x[subs] = v: x's gradient outside the selection, v's inside it.
V setItemVjp(const ops::VjpArgs& a) {
  V r(2);
  auto subs = subsOf(a);
  if (a.need[0]) r[0] = ops::setItem(a.gout[0], subs, scalarOf(0.0, a.gout[0].dtype()));
  if (a.need[1]) r[1] = unbroadcast(ops::getItem(a.gout[0], subs), a.in[1].shape());
  return r;
}

// take(x, idx, axis): a scatter-add of the gradient rows, as a one-hot matrix product:
// gx moved to [n, rest] = one_hot(idx, n)^T @ g moved to [k, rest].
V takeVjp(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &idx = a.in[1], &g = a.gout[0];
  int axis = int(a.attrs.i("axis"));
  if (axis < 0) axis += x.rank();
  for (int i = 0; i < x.rank(); ++i)
    if (x.shape()[i] < 0)
      throw WeftError("gradient of take: the gathered tensor's shape " + x.shape().str() +
                      " has an unknown dimension while tracing; give it a known shape");
  int64_t n = x.shape()[axis], pre = 1, post = 1;
  for (int i = 0; i < axis; ++i) pre *= x.shape()[i];
  for (int i = axis + 1; i < x.rank(); ++i) post *= x.shape()[i];
  Tensor flat = ops::reshape(idx, {-1});
  // Negative indices count from the end.
  flat = ops::where(ops::binary(BinaryOp::Lt, flat, ops::cast(scalarOf(0.0, DType::I32), flat.dtype())),
                    ops::binary(BinaryOp::Add, flat, ops::cast(ops::full(Shape{}, double(n), DType::I64), flat.dtype())),
                    flat);
  Tensor oh = ops::oneHot(flat, n, g.dtype());  // [k, n]
  Tensor g3 = ops::reshape(g, {pre, -1, post});
  Tensor gk = ops::reshape(ops::transpose(g3, {1, 0, 2}), {-1, pre * post});  // [k, pre * post]
  Tensor gx = ops::matmul(ops::transpose(oh, {}), gk);                        // [n, pre * post]
  gx = ops::transpose(ops::reshape(gx, {n, pre, post}), {1, 0, 2});
  std::vector<int64_t> dims(x.shape().begin(), x.shape().end());
  return {ops::reshape(gx, dims), std::nullopt};
}

// n copies of x: the rows' gradients added up.
V broadcastRowsVjp(const ops::VjpArgs& a) { return {ops::reduce(ops::ReduceOp::Sum, a.gout[0], {0}, false), std::nullopt}; }

// x with row i replaced: x's gradient outside row i, the row's is row i.
V updateRowVjp(const ops::VjpArgs& a) {
  const Tensor &row = a.in[1], &i = a.in[2], &g = a.gout[0];
  V r(3);
  if (a.need[0]) r[0] = ops::updateRow(g, zerosLike(row), i);
  if (a.need[1]) r[1] = ops::take(g, i, 0);
  return r;
}

}  // namespace

void registerIndexingVjps() {
  using ops::OpId;
  ops::setVjp({OpId::Where}, whereVjp);
  ops::setVjp({OpId::Clip}, clipVjp);
  ops::setVjp({OpId::GetItem}, getItemVjp);
  ops::setVjp({OpId::SetItem}, setItemVjp);
  ops::setVjp({OpId::Take}, takeVjp);
  ops::setVjp({OpId::BroadcastRows}, broadcastRowsVjp);
  ops::setVjp({OpId::UpdateRow}, updateRowVjp);
  ops::setVjp({OpId::OneHot}, noGradient);
}

}  // namespace weft::autodiff
