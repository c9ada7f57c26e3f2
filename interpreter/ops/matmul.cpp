// matmul with NumPy's rules: a 1-D left operand is a row vector and a 1-D right operand a
// column vector (the added axis is removed from the result); leading batch axes broadcast. And
// the fused form a graph executor runs (fuse-epilogues): a bias row, the product, an activation.
#include <algorithm>
#include <vector>

#include "../../stdlib/runtime/matmul.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {

namespace {

Shape transposed(const Shape& s) { return Shape{s[1], s[0]}; }

}  // namespace

TensorType matmulType(const TensorType& a, const TensorType& b, MatmulTransposes t) {
  if ((t.a && (a.shape.rank() != 2 || b.shape.rank() != 2)) || (t.b && b.shape.rank() != 2))
    fail("matmul: a transposed operand must be a matrix (and with transpose_a, both), got shapes " + a.shape.str() +
         " @ " + b.shape.str());
  const Shape as = t.a ? transposed(a.shape) : a.shape, bs = t.b ? transposed(b.shape) : b.shape;
  if (as.rank() == 0 || bs.rank() == 0)
    fail("matmul: operands must have rank 1 or more, got shapes " + as.str() + " @ " + bs.str() +
         " (use * to multiply by a scalar)");
  if (a.dtype != b.dtype)
    fail("dtype mismatch: " + dtypeStr(a.dtype) + " and " + dtypeStr(b.dtype) +
         " (in matmul; use cast() to convert one of them)");
  if (a.dtype == DType::Bool) fail("matmul is not defined for bool tensors");

  const bool aVec = as.rank() == 1, bVec = bs.rank() == 1;
  const int64_t m = aVec ? 1 : as[as.rank() - 2], k = as.back();
  const int64_t kb = bVec ? bs[0] : bs[bs.rank() - 2], n = bVec ? 1 : bs.back();
  if (!sizes::same(k, kb)) fail("matmul: inner dimensions differ: " + as.str() + " @ " + bs.str());

  Shape ab, bb, cb;
  for (int i = 0; i + 2 < as.rank(); ++i) ab.push_back(as[i]);
  for (int i = 0; i + 2 < bs.rank(); ++i) bb.push_back(bs[i]);
  if (!ops::broadcastShapes(ab, bb, cb)) fail("matmul: cannot broadcast the batch dimensions of " + as.str() + " @ " + bs.str());
  TensorType out{a.dtype, cb};
  if (!aVec) out.shape.push_back(m);
  if (!bVec) out.shape.push_back(n);
  return out;
}

int64_t matmulWorkspace(const TensorType& a, const TensorType& b, MatmulTransposes t) {
  return rt::dispatch(a.dtype, [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) return 0;
    else return rt::matmulWorkspaceBytes<T>(a.shape, b.shape, t.a, t.b);
  });
}

Tensor matmul(const Tensor& a, const Tensor& b, const Tensor* reuse, MatmulTransposes t) {
  const TensorType at = typeOf(a), bt = typeOf(b);
  const Shape cs = matmulType(at, bt, t).shape;
  const bool fits = reuse && reuse->isWhole() && reuse->dtype() == a.dtype() && reuse->shape() == cs;
  Tensor out = fits ? *reuse : Tensor::empty(a.dtype(), cs);
  void* ws = scratch(matmulWorkspace(at, bt, t));
  const Shape as = t.a ? transposed(a.shape()) : a.shape(), bs = t.b ? transposed(b.shape()) : b.shape();
  const bool aVec = as.rank() == 1, bVec = bs.rank() == 1;
  const int64_t m = aVec ? 1 : as[as.rank() - 2], k = as.back(), n = bVec ? 1 : bs.back();
  rt::dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      if (t.a || t.b) {  // a matrix or a stack of rows, times a matrix: one GEMM
        const int64_t rows = t.a ? m : a.numel() / std::max<int64_t>(k, 1);
        rt::gemm(a.data<T>(), b.data<T>(), out.data<T>(), rows, k, n, ws, false, t.a, t.b);
        return;
      }
      Shape ab, bb;
      for (int i = 0; i + 2 < as.rank(); ++i) ab.push_back(as[i]);
      for (int i = 0; i + 2 < bs.rank(); ++i) bb.push_back(bs[i]);
      Shape cb;
      rt::broadcastShapes(ab, bb, cb);
      rt::batchedMatmul(a.data<T>(), ab, b.data<T>(), bb, out.data<T>(), cb, m, k, n, ws);
    }
  });
  return out;
}

Tensor biasMatmul(const Tensor& a, const Tensor& b, const Tensor& bias, const std::string& epilogue,
                  const Tensor* reuse) {
  const TensorType at = typeOf(a), bt = typeOf(b);
  const Shape cs = matmulType(at, bt, {}).shape;
  if (b.shape().rank() != 2 || a.shape().rank() < 2 || bias.dtype() != a.dtype() || bias.numel() != b.shape()[1])
    fail("matmul: a fused product takes a matrix of rows, a matrix and a bias row of the result's width, got shapes " +
         a.shape().str() + ", " + b.shape().str() + ", " + bias.shape().str());
  const bool fits = reuse && reuse->isWhole() && reuse->dtype() == a.dtype() && reuse->shape() == cs;
  Tensor out = fits ? *reuse : Tensor::empty(a.dtype(), cs);
  void* ws = scratch(matmulWorkspace(at, bt, {}));
  const int64_t k = a.shape().back(), n = b.shape()[1], rows = cs.numel() / std::max<int64_t>(n, 1);
  rt::dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>)
      rt::biasMatmul(a.data<T>(), b.data<T>(), bias.data<T>(), out.data<T>(), rows, k, n, ws);
  });
  OpId act;
  if (epilogue.empty()) return out;
  if (!findOp(epilogue, act) || !opDef(act).epilogue)
    fail("matmul: its epilogue '" + epilogue + "' is not an activation a matmul applies in place");
  const Tensor* in[1] = {&out};
  opDef(act).into(std::span<const Tensor* const>(in, 1), {}, out);  // in place: the epilogue set is elementwise
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

void defineMatMulRows() {
  OpDef& d = defineRow(OpId::MatMul, Family::MatMul);
  // transpose_a/_b (optional): that matrix operand is read transposed.
  d.attrs = {{"transpose_a", K::Bool, true}, {"transpose_b", K::Bool, true}};
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::matmulType(in[0], in[1], transposes(a))}; };
  // A third input: fuse-epilogues' bias, with its `epilogue` (graph/passes.h).
  d.run = [](In in, const Attrs& a) -> Out {
    if (in.size() == 3) return {impl::biasMatmul(in[0], in[1], in[2], a.s("epilogue"))};
    return {impl::matmul(in[0], in[1], nullptr, transposes(a))};
  };
  d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
    out = in.size() == 3 ? impl::biasMatmul(*in[0], *in[1], *in[2], a.s("epilogue"), &out)
                         : impl::matmul(*in[0], *in[1], &out, transposes(a));
  };
  d.intoChecks = true;
  d.workspace = [](Ty in, const Attrs& a) { return impl::matmulWorkspace(in[0], in[1], transposes(a)); };
}

}  // namespace weft::ops
