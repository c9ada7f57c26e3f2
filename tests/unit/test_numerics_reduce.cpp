// Large float sums against a long double reference: the pairwise sum of stdlib/runtime/reduce.h
// keeps the error at a few roundings, where a running sum drifts by O(n) roundings.
#include <cmath>
#include <algorithm>

#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
using ops::ReduceOp;

namespace {

// Deterministic values in [0, 1): a 64-bit LCG's top bits.
template <class T>
Tensor uniformValues(const Shape& shape) {
  Tensor t = Tensor::empty(rt::DTypeOf<T>::value, shape);
  uint64_t s = 12345;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    t.data<T>()[i] = T(double(s >> 11) * 0x1p-53);
  }
  return t;
}

// Relative error of every output of sum(x, axes) against a long double sum of the same values.
template <class T>
double worstRelativeError(const Tensor& x, const std::vector<int>& axes, ReduceOp op = ReduceOp::Sum) {
  Tensor got = ops::reduce(op, x, axes, false);
  // The reference: x's values summed in long double over the same axes (by moving the reduced
  // axes last and summing rows).
  std::vector<int> perm;
  for (int d = 0; d < x.rank(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
  int64_t rows = 1;
  for (int d : perm) rows *= x.shape()[d];
  for (int a : axes) perm.push_back(a);
  Tensor moved = ops::transpose(x, perm);
  int64_t n = x.numel() / rows;
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    long double ref = 0;
    for (int64_t i = 0; i < n; ++i) ref += moved.data<T>()[r * n + i];
    if (op == ReduceOp::Mean) ref /= n;
    worst = std::max(worst, double(std::fabs((got.data<T>()[r] - ref) / ref)));
  }
  return worst;
}

}  // namespace

TEST_CASE("a million f32 values sum to within a few roundings, in every reduction layout") {
  Tensor tenths = ops::full({1000000}, 0.1, DType::F32);
  CHECK(worstRelativeError<float>(tenths, {0}) < 1e-6);
  CHECK(worstRelativeError<float>(tenths, {0}, ReduceOp::Mean) < 1e-6);
  Tensor u = uniformValues<float>({1000000});
  CHECK(worstRelativeError<float>(u, {0}) < 1e-6);
  // Reduced axis outside the innermost: rows are combined pairwise too.
  Tensor cols = uniformValues<float>({250000, 4});
  CHECK(worstRelativeError<float>(cols, {0}) < 1e-6);
  Tensor mid = uniformValues<float>({3, 100000, 3});
  CHECK(worstRelativeError<float>(mid, {1}) < 1e-6);
  CHECK(worstRelativeError<float>(mid, {0, 1}) < 1e-6);
  CHECK(worstRelativeError<float>(mid, {1}, ReduceOp::Mean) < 1e-6);
}

TEST_CASE("a million f64 values sum to within a few roundings") {
  CHECK(worstRelativeError<double>(uniformValues<double>({1000000}), {0}) < 1e-15);
  CHECK(worstRelativeError<double>(uniformValues<double>({250000, 4}), {0}) < 1e-15);
  CHECK(worstRelativeError<double>(uniformValues<double>({3, 100000, 3}), {1}) < 1e-15);
}

TEST_CASE("sums of every length up to 300 match the long double reference") {
  for (int64_t n = 1; n <= 300; ++n) {
    CAPTURE(n);
    CHECK(worstRelativeError<float>(uniformValues<float>({n}), {0}) < 4e-7);
    CHECK(worstRelativeError<float>(uniformValues<float>({n, 2}), {0}) < 4e-7);
  }
}

TEST_CASE("a sum of negative zeros is negative zero") {
  CHECK(std::signbit(ops::reduce(ReduceOp::Sum, f32({3}, {-0.0f, -0.0f, -0.0f}), {}, false).data<float>()[0]));
}
