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

// max and min order -0.0 below 0.0 as maximum and minimum do, wherever the one zero of the other
// sign sits in the row (Eigen's vectorised max meets the zeros in lane order), along rows and
// across them (axis 0 of [n, 3]).
TEST_CASE("max and min of zeros: 0.0 is the larger, at every length and position") {
  for (int64_t n = 1; n <= 40; ++n)
    for (int64_t k = 0; k < n; ++k) {
      CAPTURE(n);
      CAPTURE(k);
      std::vector<float> neg(size_t(n), -0.0f), pos(size_t(n), 0.0f);
      neg[size_t(k)] = 0.0f;
      pos[size_t(k)] = -0.0f;
      CHECK(!std::signbit(ops::reduce(ReduceOp::Max, f32({n}, neg), {}, false).data<float>()[0]));
      CHECK(std::signbit(ops::reduce(ReduceOp::Min, f32({n}, pos), {}, false).data<float>()[0]));
      CHECK(std::signbit(ops::reduce(ReduceOp::Max, f32({n}, std::vector<float>(size_t(n), -0.0f)), {}, false).data<float>()[0]));
      std::vector<double> rows(size_t(n * 3), -0.0);
      rows[size_t(k * 3 + 1)] = 0.0;
      Tensor m = ops::reduce(ReduceOp::Max, make<double>({n, 3}, rows), {0}, false);
      CHECK(std::signbit(m.data<double>()[0]));
      CHECK(!std::signbit(m.data<double>()[1]));
    }
}

// Integer means sum in f64: exact where an f32 sum would round, in every layout, and for i64.
TEST_CASE("means of integers are computed in f64 and rounded once") {
  const int64_t n = 1 << 20;
  std::vector<int32_t> big(size_t(n), (1 << 30) + 1);  // the f32 cast alone would lose the 1
  big[0] = 3;
  Tensor m = ops::reduce(ReduceOp::Mean, i32({n}, big), {}, false);
  REQUIRE(m.dtype() == DType::F32);
  CHECK(m.data<float>()[0] == float(((double(n - 1) * ((1 << 30) + 1)) + 3) / double(n)));
  Tensor cols = ops::reduce(ReduceOp::Mean, i32({2, 3}, {16777217, 1, 7, 0, 0, 8}), {0}, false);
  CHECK(values<float>(cols) == std::vector<float>{8388608.0f, 0.5f, 7.5f});
  Tensor rows = ops::reduce(ReduceOp::Mean, i32({2, 2}, {16777217, 0, 3, 2}), {1}, false);
  CHECK(values<float>(rows) == std::vector<float>{8388608.0f, 2.5f});
  CHECK(values<float>(ops::reduce(ReduceOp::Mean, i32({4}, {16777217, 1, 0, 0}), {}, false)) == std::vector<float>{4194304.5f});
  Tensor l = ops::reduce(ReduceOp::Mean, make<int64_t>({3}, {int64_t(1) << 52, 1, 2}), {}, false);
  REQUIRE(l.dtype() == DType::F64);
  CHECK(l.data<double>()[0] == double((int64_t(1) << 52) + 3) / 3.0);
  CHECK(std::isnan(ops::reduce(ReduceOp::Mean, i32({0}, {}), {}, false).data<float>()[0]));
  CHECK(ops::reduce(ReduceOp::Mean, make<bool>({3}, {true, false, true}), {}, false).data<float>()[0] == 2.0f / 3.0f);
}

TEST_CASE("a column's sum over the rows has the same bits however wide the reduced matrix is") {
  // reduce.h shares a bias gradient's columns out in blocks whose width follows the sizes: each
  // column must still be summed in one order, as in a matrix of its own.
  for (int64_t rows : {4096, 1000, 9}) {
    Tensor wide = uniformValues<float>({rows, 512});
    Tensor sums = ops::reduce(ReduceOp::Sum, wide, {0}, false);
    for (int64_t width : {16, 48, 128}) {
      Tensor part = Tensor::empty(DType::F32, {rows, width});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < width; ++j) part.data<float>()[r * width + j] = wide.data<float>()[r * 512 + 32 + j];
      Tensor got = ops::reduce(ReduceOp::Sum, part, {0}, false);
      for (int64_t j = 0; j < width; ++j) CHECK(got.data<float>()[j] == sums.data<float>()[32 + j]);
    }
  }
}
