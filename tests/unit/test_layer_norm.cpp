// layer_norm: the fused kernel against the formula (x - mean) / sqrt(var + eps) * gamma + beta
// built from primitive ops, its gradient op against the tape of that formula (f64 and f32, rows
// past one block of the kernel, a width past its lanes), results the same at any thread count,
// its errors and shape inference.
#include <doctest/doctest.h>


#include "interpreter/autodiff/tape.h"
#include "interpreter/ops/ops.h"
#include "stdlib/runtime/thread_pool.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::BinaryOp;
using ops::ReduceOp;
using testutil::errorOf;

// Draws around 1.5 with a spread of 2: rows whose mean and variance are far from 0 and 1.
Tensor normal(const Shape& s, uint32_t seed, DType dt = DType::F64) { return testutil::normal(s, seed, dt, 1.5, 2.0); }

// The layer's unfused formula, as Keras' LayerNormalization traced before the fused op.
Tensor formula(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  const int last = x.rank() - 1;
  Tensor m = ops::reduce(ReduceOp::Mean, x, {last}, true);
  Tensor c = ops::binary(BinaryOp::Sub, x, m);
  Tensor v = ops::reduce(ReduceOp::Mean, ops::unary(ops::UnaryOp::Square, c), {last}, true);
  Tensor r = ops::unary(ops::UnaryOp::Rsqrt, ops::binary(BinaryOp::Add, v, ops::full(Shape{}, eps, x.dtype())));
  return ops::binary(BinaryOp::Add, ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Mul, c, r), gamma), beta);
}

double maxDiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  Tensor d = ops::cast(ops::unary(ops::UnaryOp::Abs, ops::binary(BinaryOp::Sub, a, b)), DType::F64);
  return d.numel() ? ops::reduce(ReduceOp::Max, d, {}, false).asDouble() : 0.0;
}

const std::vector<Shape> kShapes = {{7}, {3, 5}, {2, 50, 37}, {70, 128}};

}  // namespace

TEST_CASE("layer_norm: the fused op and its gradient match the formula and its tape") {
  uint32_t seed = 1;
  for (DType dt : {DType::F64, DType::F32})
    for (const Shape& s : kShapes) {
      INFO("shape ", s.str(), " ", rt::dtypeName(dt));
      const double tol = dt == DType::F64 ? 1e-12 : 2e-5;
      const int64_t n = s.back();
      Tensor x = normal(s, seed++, dt), gamma = normal({n}, seed++, dt), beta = normal({n}, seed++, dt);
      Tensor dy = normal(s, seed++, dt);
      CHECK(maxDiff(ops::layerNorm(x, gamma, beta, 1e-5), formula(x, gamma, beta, 1e-5)) < tol);
      std::vector<Tensor> fused = ops::layerNormGrad(x, gamma, dy, 1e-5);
      autodiff::Tape tape({});
      std::vector<Tensor> w{tape.watch(x), tape.watch(gamma), tape.watch(beta)};
      Tensor loss = ops::reduce(ReduceOp::Sum, ops::binary(BinaryOp::Mul, formula(w[0], w[1], w[2], 1e-5), dy), {}, false);
      auto g = tape.gradients(loss);
      for (int i = 0; i < 3; ++i) {
        INFO("input ", i);
        // dgamma and dbeta sum over every row: their error grows with the rows.
        CHECK(maxDiff(fused[size_t(i)], *g[size_t(i)]) < tol * (i == 0 ? 1 : 50));
      }
    }
}

TEST_CASE("layer_norm: results are bit for bit the same at any thread count") {
  Tensor x = normal({300, 48}, 7, DType::F32), gamma = normal({48}, 8, DType::F32), beta = normal({48}, 9, DType::F32);
  Tensor dy = normal({300, 48}, 10, DType::F32);
  auto run = [&] {
    std::vector<Tensor> r = ops::layerNormGrad(x, gamma, dy, 1e-3);
    r.push_back(ops::layerNorm(x, gamma, beta, 1e-3));
    return r;
  };
  std::vector<Tensor> one = run();
  rt::ThreadPool pool(3);
  rt::PoolScope scope(&pool);
  std::vector<Tensor> three = run();
  for (size_t i = 0; i < one.size(); ++i)
    CHECK(testutil::values<float>(one[i]) == testutil::values<float>(three[i]));
}

TEST_CASE("layer_norm: errors name the op and the shapes; abstract inputs infer the result") {
  Tensor x = normal({2, 4}, 1, DType::F32), g = normal({4}, 2, DType::F32);
  CHECK(errorOf([&] { ops::layerNorm(x, normal({3}, 3, DType::F32), g, 1e-3); }) ==
        "layer_norm: gamma has shape [3], but x [2, 4] needs [4] (x's last axis)");
  CHECK(errorOf([&] { ops::layerNorm(x, g, normal({1, 4}, 3, DType::F32), 1e-3); }) ==
        "layer_norm: beta has shape [1, 4], but x [2, 4] needs [4] (x's last axis)");
  CHECK(errorOf([&] { ops::layerNorm(x, g, ops::cast(g, DType::F64), 1e-3); }) == "dtype mismatch: f32 and f64 (in layer_norm)");
  CHECK(errorOf([&] { ops::layerNorm(ops::cast(x, DType::I32), g, g, 1e-3); }) ==
        "layer_norm is not defined for i32 tensors (use cast() to convert to f32)");
  CHECK(errorOf([&] { ops::layerNorm(ops::full(Shape{}, 1, DType::F32), g, g, 1e-3); }) ==
        "layer_norm: x must have rank 1 or more [..., features], got a scalar");
  CHECK(errorOf([&] { ops::layerNormGrad(x, g, normal({2, 3}, 4, DType::F32), 1e-3); }) ==
        "layer_norm_grad: dy has shape [2, 3], but x [2, 4] needs [2, 4]");
  Tensor ax = Tensor::abstract(DType::F32, Shape{-1, 6, 4}), ag = Tensor::abstract(DType::F32, Shape{4});
  CHECK(ops::layerNorm(ax, ag, ag, 1e-3).shape() == Shape{-1, 6, 4});
  std::vector<Tensor> d = ops::layerNormGrad(ax, ag, ax, 1e-3);
  CHECK(d[0].shape() == Shape{-1, 6, 4});
  CHECK(d[1].shape() == Shape{4});
}

}  // namespace weft
