// matmul against a naive triple loop: 2-D, batched with broadcasting, 1-D promotion, ints.
#include <array>

#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

namespace {

// Naive reference for one [m, k] @ [k, n] product in double.
std::vector<double> naive(const double* a, const double* b, int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) c[size_t(i * n + j)] += a[i * k + p] * b[p * n + j];
  return c;
}

std::vector<double> asDoubles(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.asDouble(i));
  return v;
}

void checkClose(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

}  // namespace

TEST_CASE("2-D matmul matches a naive loop, small and GEMM-sized") {
  const std::vector<std::array<int64_t, 3>> sizes = {{2, 3, 4}, {1, 5, 1}, {33, 70, 65}, {3, 0, 2}, {4, 6, 1}};
  for (auto [m, k, n] : sizes) {
    ops::seed(7);
    Tensor a = ops::randomNormal(Shape{m, k}, 0, 1, DType::F32);
    Tensor b = ops::randomNormal(Shape{k, n}, 0, 1, DType::F32);
    Tensor c = ops::matmul(a, b);
    CHECK(c.shape() == Shape{m, n});
    auto ad = asDoubles(a), bd = asDoubles(b);
    checkClose(asDoubles(c), naive(ad.data(), bd.data(), m, k, n));
  }
}

TEST_CASE("batched matmul broadcasts batch axes") {
  Tensor a = iota({2, 1, 3, 4}, DType::F64);
  Tensor b = iota({3, 4, 2}, DType::F64);
  Tensor c = ops::matmul(a, b);
  REQUIRE(c.shape() == Shape{2, 3, 3, 2});
  auto ad = asDoubles(a), bd = asDoubles(b), cd = asDoubles(c);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      auto want = naive(ad.data() + i * 12, bd.data() + j * 8, 3, 4, 2);
      std::vector<double> got(cd.begin() + (i * 3 + j) * 6, cd.begin() + (i * 3 + j + 1) * 6);
      checkClose(got, want);
    }
  // [B, M, K] @ [K, N] is one big GEMM; same-batch operands loop.
  Tensor x = iota({2, 3, 4});
  Tensor w = iota({4, 5});
  Tensor y = ops::matmul(x, w);
  CHECK(y.shape() == Shape{2, 3, 5});
  auto xd = asDoubles(x), wd = asDoubles(w);
  checkClose(asDoubles(y), naive(xd.data(), wd.data(), 6, 4, 5));
  Tensor z = ops::matmul(x, ops::transpose(x, {0, 2, 1}));
  CHECK(z.shape() == Shape{2, 3, 3});
  CHECK(z.asDouble(0) == 0 * 0 + 1 * 1 + 2 * 2 + 3 * 3);
}

TEST_CASE("1-D operands are promoted and the added axis removed") {
  Tensor v = f32({3}, {1, 2, 3});
  Tensor m = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor dot = ops::matmul(v, v);
  CHECK(dot.shape() == Shape{});
  CHECK(dot.asDouble() == 14);
  Tensor vm = ops::matmul(v, m);
  CHECK(vm.shape() == Shape{2});
  CHECK(values<float>(vm) == std::vector<float>{22, 28});
  Tensor mv = ops::matmul(ops::transpose(m, {}), v);
  CHECK(mv.shape() == Shape{2});
  CHECK(values<float>(mv) == std::vector<float>{22, 28});
  Tensor bv = ops::matmul(iota({2, 2, 3}), v);  // batch @ vector
  CHECK(bv.shape() == Shape{2, 2});
  CHECK(values<float>(bv) == std::vector<float>{8, 26, 44, 62});
}

TEST_CASE("integer matmul and errors") {
  Tensor a = i32({2, 2}, {1, 2, 3, 4});
  CHECK(values<int32_t>(ops::matmul(a, a)) == std::vector<int32_t>{7, 10, 15, 22});
  CHECK(errorOf([] { ops::matmul(iota({2, 3}), iota({4, 5})); }) == "matmul: inner dimensions differ: [2, 3] @ [4, 5]");
  CHECK(errorOf([] { ops::matmul(iota({2, 3, 4}), iota({3, 4, 5})); }) ==
        "matmul: cannot broadcast the batch dimensions of [2, 3, 4] @ [3, 4, 5]");
  CHECK(errorOf([] { ops::matmul(Tensor::scalar(1.0f), iota({2})); }).find("rank 1 or more") != std::string::npos);
  CHECK(errorOf([&] { ops::matmul(a, iota({2, 2})); }).find("dtype mismatch: i32 and f32") == 0);
}

TEST_CASE("matmul shape inference on abstract tensors") {
  Tensor a = Tensor::abstract(DType::F32, Shape{7, 1, 32, 784});
  Tensor b = Tensor::abstract(DType::F32, Shape{5, 784, 10});
  Tensor c = ops::matmul(a, b);
  CHECK(c.isAbstract());
  CHECK(c.shape() == Shape{7, 5, 32, 10});
  CHECK(ops::matmul(Tensor::abstract(DType::F32, Shape{784}), b).shape() == Shape{5, 10});
  CHECK(errorOf([&] { ops::matmul(a, Tensor::abstract(DType::F32, Shape{3, 4})); }) ==
        "matmul: inner dimensions differ: [7, 1, 32, 784] @ [3, 4]");
}
