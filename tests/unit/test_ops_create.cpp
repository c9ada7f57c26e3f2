// Creation ops (full, eye, arange, linspace) and the seeded random generator.
#include <cmath>

#include "stdlib/runtime/random.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

TEST_CASE("full and eye") {
  CHECK(values<int32_t>(ops::full(Shape{2, 2}, 7.9, DType::I32)) == std::vector<int32_t>{7, 7, 7, 7});
  CHECK(values<bool>(ops::full(Shape{1}, 2, DType::Bool)) == std::vector<bool>{true});
  CHECK(ops::full(Shape{}, 1.5, DType::F64).asDouble() == 1.5);
  CHECK(errorOf([] { ops::full(Shape{2, -1}, 0, DType::F32); }) == "full: negative dimension in shape [2, -1]");
  CHECK(ops::makeShape("zeros", {2, 3}) == Shape{2, 3});
  CHECK(errorOf([] { ops::makeShape("zeros", {2, -3}); }) == "zeros: negative dimension in shape [2, -3]");
  CHECK(errorOf([] { ops::makeShape("zeros", std::vector<int64_t>(9, 1)); }) ==
        "zeros: the result would have rank 9, more than the maximum of 8");
  CHECK(values<float>(ops::eye(2, 3, DType::F32)) == std::vector<float>{1, 0, 0, 0, 1, 0});
  CHECK(ops::eye(3, 3, DType::I64).shape() == Shape{3, 3});
  CHECK(errorOf([] { ops::eye(-1, 2, DType::F32); }) == "eye: sizes must be non-negative, got -1 and 2");
}

TEST_CASE("arange and linspace") {
  CHECK(values<int32_t>(ops::arange(0, 5, 1, DType::I32)) == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK(values<int32_t>(ops::arange(5, 0, -2, DType::I32)) == std::vector<int32_t>{5, 3, 1});
  CHECK(values<float>(ops::arange(0, 1, 0.25, DType::F32)) == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
  CHECK(ops::arange(3, 1, 1, DType::F32).shape() == Shape{0});
  CHECK(errorOf([] { ops::arange(0, 1, 0, DType::F32); }) == "arange: step must not be zero");
  CHECK(errorOf([] { ops::arange(0, 1e30, 1e-30, DType::F32); }) == "arange: too many elements");
  CHECK(errorOf([] { ops::arange(0, INFINITY, 1, DType::F32); }) == "arange: stop must be finite, got inf");
  CHECK(values<float>(ops::linspace(0, 1, 5, DType::F32)) == std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1});
  CHECK(values<double>(ops::linspace(2, 3, 1, DType::F64)) == std::vector<double>{2});
  CHECK(ops::linspace(0, 1, 0, DType::F32).shape() == Shape{0});
  CHECK(values<int32_t>(ops::linspace(-1, 1, 4, DType::I32)) == std::vector<int32_t>{-1, -1, 0, 1});
  CHECK(errorOf([] { ops::linspace(0, 1, -1, DType::F32); }) == "linspace: the number of samples must be non-negative, got -1");
}

TEST_CASE("Philox4x32-10 matches the Random123 known-answer vectors") {
  auto run = [](std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    std::array<uint32_t, 4> out;
    rt::philox4x32(c.data(), k.data(), out.data());
    return out;
  };
  CHECK(run({0, 0, 0, 0}, {0, 0}) == std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(run({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}) == std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(run({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("random ops are reproducible after seed() and advance otherwise") {
  ops::seed(42);
  Tensor a = ops::randomNormal(Shape{3, 5}, 0, 1, DType::F32);
  Tensor b = ops::randomUniform(Shape{7}, -1, 1, DType::F64);
  Tensor c = ops::randomNormal(Shape{3, 5}, 0, 1, DType::F32);
  CHECK(values<float>(a) != values<float>(c));  // the stream advanced
  ops::seed(42);
  CHECK(values<float>(ops::randomNormal(Shape{3, 5}, 0, 1, DType::F32)) == values<float>(a));
  CHECK(values<double>(ops::randomUniform(Shape{7}, -1, 1, DType::F64)) == values<double>(b));
  ops::seed(43);
  CHECK(values<float>(ops::randomNormal(Shape{3, 5}, 0, 1, DType::F32)) != values<float>(a));
  // Saving and restoring the state replays the same numbers.
  ops::RandomState st = ops::randomState();
  Tensor d = ops::randomUniform(Shape{4}, 0, 10, DType::I32);
  ops::setRandomState(st);
  CHECK(values<int32_t>(ops::randomUniform(Shape{4}, 0, 10, DType::I32)) == values<int32_t>(d));
}

TEST_CASE("random distributions have the right moments and ranges") {
  ops::seed(1);
  const int64_t n = 200000;
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor z = ops::randomNormal(Shape{n}, 2, 3, dt);
    double mean = ops::reduce(ops::ReduceOp::Mean, ops::cast(z, DType::F64), {}, false).asDouble();
    Tensor centred = ops::binary(ops::BinaryOp::Sub, ops::cast(z, DType::F64), Tensor::scalar(mean));
    double var = ops::reduce(ops::ReduceOp::Mean, ops::unary(ops::UnaryOp::Square, centred), {}, false).asDouble();
    CHECK(mean == doctest::Approx(2).epsilon(0.02));
    CHECK(std::sqrt(var) == doctest::Approx(3).epsilon(0.02));
    Tensor u = ops::randomUniform(Shape{n}, -1, 3, dt);
    CHECK(ops::reduce(ops::ReduceOp::Min, u, {}, false).asDouble() >= -1);
    CHECK(ops::reduce(ops::ReduceOp::Max, u, {}, false).asDouble() < 3);
    CHECK(ops::reduce(ops::ReduceOp::Mean, u, {}, false).asDouble() == doctest::Approx(1).epsilon(0.01));
  }
  Tensor k = ops::randomUniform(Shape{1000}, 0, 3, DType::I64);
  CHECK(ops::reduce(ops::ReduceOp::Min, k, {}, false).asInt() == 0);
  CHECK(ops::reduce(ops::ReduceOp::Max, k, {}, false).asInt() == 2);
  CHECK(errorOf([] { ops::randomNormal(Shape{2}, 0, 1, DType::I32); }) == "random.normal makes float tensors, not i32");
  CHECK(errorOf([] { ops::randomUniform(Shape{2}, 3, 3, DType::I32); }) == "random.uniform: the lower bound 3 must be below the upper bound 3");
}
