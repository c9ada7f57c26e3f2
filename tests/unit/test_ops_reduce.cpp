// Reductions: axes (negative, several, all), keepdims, dtype rules, NaN, empty inputs, argmax.
#include <cmath>
#include <limits>

#include "interpreter/ops/op_table.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
using ops::ReduceOp;

namespace {

// Reference: sum of a [2, 3, 4] iota over the given axes mask, by brute force.
std::vector<float> bruteSum(bool r0, bool r1, bool r2) {
  int64_t d[3] = {2, 3, 4};
  int64_t o[3] = {r0 ? 1 : 2, r1 ? 1 : 3, r2 ? 1 : 4};
  std::vector<float> out(size_t(o[0] * o[1] * o[2]), 0);
  for (int64_t i = 0; i < d[0]; ++i)
    for (int64_t j = 0; j < d[1]; ++j)
      for (int64_t k = 0; k < d[2]; ++k) {
        int64_t oi = r0 ? 0 : i, oj = r1 ? 0 : j, ok = r2 ? 0 : k;
        out[size_t((oi * o[1] + oj) * o[2] + ok)] += float((i * 3 + j) * 4 + k);
      }
  return out;
}

}  // namespace

TEST_CASE("sum over every combination of axes matches brute force") {
  Tensor x = iota({2, 3, 4});
  for (int mask = 1; mask < 8; ++mask) {
    std::vector<int> axes;
    for (int a = 0; a < 3; ++a)
      if (mask & (1 << a)) axes.push_back(a - 3);  // negative axes
    Tensor r = ops::reduce(ReduceOp::Sum, x, axes, true);
    CAPTURE(mask);
    CHECK(r.shape() == Shape{mask & 1 ? 1 : 2, mask & 2 ? 1 : 3, mask & 4 ? 1 : 4});
    CHECK(values<float>(r) == bruteSum(mask & 1, mask & 2, mask & 4));
  }
  Tensor all = ops::reduce(ReduceOp::Sum, x, {}, false);
  CHECK(all.shape() == Shape{});
  CHECK(all.asDouble() == 276);
  CHECK(ops::reduce(ReduceOp::Sum, x, {0, 2}, false).shape() == Shape{3});
}

TEST_CASE("mean, max, min, prod along axes") {
  Tensor x = f32({2, 3}, {1, 5, 3, -4, 2, 6});
  CHECK(values<float>(ops::reduce(ReduceOp::Mean, x, {1}, false)) == std::vector<float>{3, 4.0f / 3});
  CHECK(values<float>(ops::reduce(ReduceOp::Max, x, {0}, false)) == std::vector<float>{1, 5, 6});
  CHECK(values<float>(ops::reduce(ReduceOp::Min, x, {-1}, true)) == std::vector<float>{1, -4});
  CHECK(values<float>(ops::reduce(ReduceOp::Prod, x, {1}, false)) == std::vector<float>{15, -48});
  // Mean of integers is float (NumPy); sum of bools counts.
  Tensor m = ops::reduce(ReduceOp::Mean, i32({4}, {1, 2, 3, 5}), {}, false);
  CHECK(m.dtype() == DType::F32);
  CHECK(m.asDouble() == 2.75);
  CHECK(ops::reduce(ReduceOp::Mean, make<int64_t>({2}, {1, 2}), {}, false).dtype() == DType::F64);
  Tensor cnt = ops::reduce(ReduceOp::Sum, make<bool>({3}, {true, false, true}), {}, false);
  CHECK(cnt.dtype() == DType::I32);
  CHECK(cnt.asInt() == 2);
  CHECK(values<int32_t>(ops::reduce(ReduceOp::Max, i32({2, 2}, {1, -7, 3, 2}), {1}, false)) == std::vector<int32_t>{1, 3});
}

TEST_CASE("any and all take bool") {
  Tensor b = make<bool>({2, 2}, {true, false, false, false});
  CHECK(values<bool>(ops::reduce(ReduceOp::Any, b, {1}, false)) == std::vector<bool>{true, false});
  CHECK(values<bool>(ops::reduce(ReduceOp::All, b, {0}, false)) == std::vector<bool>{false, false});
  CHECK(ops::reduce(ReduceOp::All, make<bool>({0}, {}), {}, false).asInt() == 1);
  CHECK(errorOf([] { ops::reduce(ReduceOp::Any, iota({2}), {}, false); }).find("any takes a bool tensor, got f32") == 0);
}

TEST_CASE("max propagates NaN; empty reductions") {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = f32({2, 20}, std::vector<float>(40, 1.0f));
  x.data<float>()[25] = nan;
  auto r = values<float>(ops::reduce(ReduceOp::Max, x, {1}, false));
  CHECK(r[0] == 1);
  CHECK(std::isnan(r[1]));
  CHECK(std::isnan(values<float>(ops::reduce(ReduceOp::Min, x, {0}, false))[5]));
  CHECK(ops::reduce(ReduceOp::Sum, f32({0, 3}, {}), {0}, false).shape() == Shape{3});
  CHECK(values<float>(ops::reduce(ReduceOp::Sum, f32({0, 3}, {}), {0}, false)) == std::vector<float>{0, 0, 0});
  CHECK(std::isnan(ops::reduce(ReduceOp::Mean, f32({0}, {}), {}, false).asDouble()));
  CHECK(errorOf([] { ops::reduce(ReduceOp::Max, f32({0, 3}, {}), {0}, false); }) ==
        "max of an empty tensor: shape [0, 3] has no elements along the reduced axes");
  CHECK(ops::reduce(ReduceOp::Max, f32({0, 3}, {}), {1}, false).shape() == Shape{0});
}

TEST_CASE("reduce axis errors name the shape") {
  Tensor x = iota({2, 3});
  CHECK(errorOf([&] { ops::reduce(ReduceOp::Sum, x, {2}, false); }) == "sum: axis 2 is out of range for shape [2, 3]");
  CHECK(errorOf([&] { ops::reduce(ReduceOp::Sum, x, {-3}, false); }) == "sum: axis -3 is out of range for shape [2, 3]");
  CHECK(errorOf([&] { ops::reduce(ReduceOp::Sum, x, {1, -1}, false); }) == "sum: axis -1 is repeated");
  CHECK(errorOf([&] { ops::reduce(ReduceOp::Prod, make<bool>({1}, {true}), {}, false); }) == "prod is not defined for bool tensors");
}

TEST_CASE("argmax and argmin return the first extreme as i32") {
  Tensor x = f32({2, 4}, {3, 9, 9, 1, 7, 2, 0, 7});
  Tensor a = ops::argReduce(true, x, 1, false);
  CHECK(a.dtype() == DType::I32);
  CHECK(values<int32_t>(a) == std::vector<int32_t>{1, 0});
  CHECK(values<int32_t>(ops::argReduce(false, x, -1, true)) == std::vector<int32_t>{3, 2});
  CHECK(ops::argReduce(false, x, -1, true).shape() == Shape{2, 1});
  CHECK(values<int32_t>(ops::argReduce(true, x, 0, false)) == std::vector<int32_t>{1, 0, 0, 1});
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(values<int32_t>(ops::argReduce(true, f32({3}, {1, nan, 5}), 0, false)) == std::vector<int32_t>{1});
  CHECK(errorOf([] { ops::argReduce(true, f32({0, 2}, {}), 0, false); }) == "argmax of an empty axis: axis 0 of shape [0, 2]");
  CHECK(errorOf([] { ops::argReduce(true, Tensor::scalar(1.0f), 0, false); }) == "argmax: axis 0 is out of range for shape []");
}

TEST_CASE("kth_largest counts equal values and ranks a NaN first, whatever k is") {
  // Rows 7 7 3 2 (the 2nd and 3rd largest are 7 and 3), ties alone, -inf, and a NaN (argmax's order).
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = f32({4, 4}, {2, 7, 7, 3, 1, 1, 1, 1, 0, -inf, 4, -inf, 5, nan, 1, 2});
  const std::vector<float> first = values<float>(ops::kthLargest(x, 1));
  CHECK(std::vector<float>(first.begin(), first.begin() + 3) == std::vector<float>{7, 1, 4});
  CHECK(std::isnan(first[3]));
  CHECK(values<float>(ops::kthLargest(x, 2)) == std::vector<float>{7, 1, 0, 5});
  CHECK(values<float>(ops::kthLargest(x, 3)) == std::vector<float>{3, 1, -inf, 2});
  CHECK(ops::kthLargest(x, 3).shape() == Shape{4, 1});
  // A long row: the k-th of a shuffled 0..n-1 is n - k, for k near n too.
  const int64_t n = 100000;
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) row[size_t(i)] = float((i * 7919) % n);
  Tensor big = f32({1, n}, row);
  for (int64_t k : {int64_t(1), int64_t(20), n - 1, n}) CHECK(values<float>(ops::kthLargest(big, k))[0] == float(n - k));
  CHECK(errorOf([&] { ops::kthLargest(x, 5); }) == "kth_largest: k 5 is not in 1..4 for shape [4, 4]");
}

TEST_CASE("a mean with shards divides by its elements times them") {
  // A device's share of a mean over an axis split in 3 blocks (spmd/rules_reduce.cpp).
  const ops::OpDef& d = ops::opDef(ops::OpId::ReduceMean);
  ops::Attrs attrs;
  attrs.set("axes", std::vector<int64_t>{1}).set("keepdims", false).set("shards", int64_t(3));
  std::vector<Tensor> x{f32({2, 2}, {1, 5, 3, -6})};
  CHECK(values<float>(d.run(x, attrs)[0]) == std::vector<float>{1, -0.5f});
  std::vector<Tensor> ints{make<int64_t>({2}, {1, 2})};
  CHECK(values<double>(d.run(ints, attrs.set("axes", std::vector<int64_t>{0}))[0]) == std::vector<double>{0.5});
}
