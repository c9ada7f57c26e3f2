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

}  // namespace

ops::VjpResult matmulVjp(const ops::VjpArgs& a) {
  Tensor x = a.in[0], y = a.in[1], g = a.gout[0];
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

}  // namespace weft::autodiff
