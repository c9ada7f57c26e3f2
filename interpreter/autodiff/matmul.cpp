// The VJP rule of matmul (NumPy's: 1-D operands promoted, batch axes broadcast):
// dA = dC @ B^T and dB = A^T @ dC, summed over broadcast batch axes.
#include "rules.h"

namespace weft::autodiff {
namespace {

Tensor swapLast(const Tensor& t) {
  std::vector<int> perm;
  for (int i = 0; i < t.rank(); ++i) perm.push_back(i);
  std::swap(perm[size_t(t.rank() - 1)], perm[size_t(t.rank() - 2)]);
  return ops::transpose(t, perm);
}

// With transposes (ops::matmul's transposeA/B; then the operands are matrices, or with only
// transposeB a stack of rows): C = op(x) @ op(y), so d op(x) = g @ op(y)^T and d op(y) = op(x)^T @ g,
// each a product that reads its operands transposed in place.
ops::VjpResult transposedVjp(const ops::VjpArgs& a, bool ta, bool tb) {
  const Tensor &x = a.in[0], &y = a.in[1], &g = a.gout[0];
  ops::VjpResult r(2);
  if (a.need[0]) r[0] = ta ? ops::matmul(y, g, tb, true) : ops::matmul(g, y, false, !tb);
  if (a.need[1]) {
    // A stack of rows (only without transposeA) is one matrix of them for the weight's gradient.
    const Tensor xm = x.rank() == 2 ? x : ops::reshape(x, {-1, x.shape().back()});
    const Tensor gm = g.rank() == 2 ? g : ops::reshape(g, {-1, g.shape().back()});
    if (tb) r[1] = ops::matmul(gm, xm, true, ta);  // dy = (op(x)^T g)^T = g^T op(x)
    else r[1] = ops::matmul(xm, gm, !ta, false);
  }
  return r;
}

ops::VjpResult matmulVjp(const ops::VjpArgs& a) {
  const ops::MatmulTransposes t = ops::transposes(a.attrs);
  if (t.a || t.b) return transposedVjp(a, t.a, t.b);
  Tensor x = a.in[0], y = a.in[1], g = a.gout[0];
  // A matrix or a stack of rows times a weight matrix (every dense layer): the transposed
  // products, without transposed copies.
  if (y.rank() == 2 && x.rank() >= 2 && g.rank() == x.rank()) return transposedVjp(a, false, false);
  bool xVec = x.rank() == 1, yVec = y.rank() == 1;
  if (xVec) {
    x = ops::expandDims(x, 0);
    g = ops::expandDims(g, g.rank() - (yVec ? 0 : 1));
  }
  if (yVec) {
    y = ops::expandDims(y, 1);
    g = ops::expandDims(g, g.rank());
  }
  ops::VjpResult r(2);
  if (a.need[0]) {
    Tensor gx = unbroadcast(ops::matmul(g, swapLast(y)), x.shape());
    r[0] = xVec ? ops::squeeze(gx, {0}) : gx;
  }
  if (a.need[1]) {
    Tensor gy = unbroadcast(ops::matmul(swapLast(x), g), y.shape());
    r[1] = yVec ? ops::squeeze(gy, {1}) : gy;
  }
  return r;
}

}  // namespace

void registerMatMulVjps() { ops::setVjp({ops::OpId::MatMul}, matmulVjp); }

}  // namespace weft::autodiff
