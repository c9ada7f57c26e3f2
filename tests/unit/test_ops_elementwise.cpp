// Elementwise ops: broadcasting, Python division semantics, dtype rules, cast, where, clip.
#include <cmath>
#include <limits>

#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
using ops::BinaryOp;
using ops::UnaryOp;

TEST_CASE("binary broadcasting follows NumPy") {
  Tensor a = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor row = f32({3}, {10, 20, 30});
  Tensor col = f32({2, 1}, {100, 200});
  Tensor r = ops::binary(BinaryOp::Add, a, row);
  CHECK(r.shape() == Shape{2, 3});
  CHECK(values<float>(r) == std::vector<float>{10, 21, 32, 13, 24, 35});
  r = ops::binary(BinaryOp::Sub, col, a);
  CHECK(values<float>(r) == std::vector<float>{100, 99, 98, 197, 196, 195});
  r = ops::binary(BinaryOp::Mul, col, row);  // outer product shape
  CHECK(r.shape() == Shape{2, 3});
  CHECK(values<float>(r) == std::vector<float>{1000, 2000, 3000, 2000, 4000, 6000});
  r = ops::binary(BinaryOp::Mul, a, Tensor::scalar(2.0f));
  CHECK(values<float>(r) == std::vector<float>{0, 2, 4, 6, 8, 10});
  r = ops::binary(BinaryOp::Add, f32({3}, {1, 2, 3}), f32({1, 1}, {1}));
  CHECK(r.shape() == Shape{1, 3});
  // A middle broadcast axis: [2, 1, 2] + [3, 1] -> [2, 3, 2].
  Tensor x = f32({2, 1, 2}, {1, 2, 3, 4});
  Tensor y = f32({3, 1}, {10, 20, 30});
  r = ops::binary(BinaryOp::Add, x, y);
  CHECK(r.shape() == Shape{2, 3, 2});
  CHECK(values<float>(r) == std::vector<float>{11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
  // Zero-size axes broadcast too.
  CHECK(ops::binary(BinaryOp::Add, f32({0, 3}, {}), row).shape() == Shape{0, 3});
}

TEST_CASE("binary errors name both shapes and dtypes") {
  CHECK(errorOf([] { ops::binary(BinaryOp::Add, f32({2, 3}, {0, 0, 0, 0, 0, 0}), f32({4}, {0, 0, 0, 0})); }) ==
        "cannot broadcast shapes [2, 3] and [4]");
  std::string e = errorOf([] { ops::binary(BinaryOp::Add, Tensor::scalar(1.0f), Tensor::scalar(1)); });
  CHECK(e.find("dtype mismatch: f32 and i32") == 0);
  CHECK(errorOf([] { ops::binary(BinaryOp::Add, Tensor::scalar(true), Tensor::scalar(true)); }) ==
        "add is not defined for bool tensors");
  CHECK(errorOf([] { ops::binary(BinaryOp::And, Tensor::scalar(1.0f), Tensor::scalar(1.0f)); }).find("and is not defined for f32") == 0);
}

TEST_CASE("floored division and modulo follow Python") {
  Tensor a = i32({6}, {-7, 7, -7, 7, -3, 0});
  Tensor b = i32({6}, {2, 2, -2, -2, 5, 3});
  CHECK(values<int32_t>(ops::binary(BinaryOp::FloorDiv, a, b)) == std::vector<int32_t>{-4, 3, 3, -4, -1, 0});
  CHECK(values<int32_t>(ops::binary(BinaryOp::Mod, a, b)) == std::vector<int32_t>{1, 1, -1, -1, 2, 0});
  Tensor fa = f32({5}, {-7, 7, -7, -3, 7.5f});
  Tensor fb = f32({5}, {2, 2, -2, 5, -2});
  CHECK(values<float>(ops::binary(BinaryOp::FloorDiv, fa, fb)) == std::vector<float>{-4, 3, 3, -1, -4});
  CHECK(values<float>(ops::binary(BinaryOp::Mod, fa, fb)) == std::vector<float>{1, 1, -1, 2, -0.5f});
  // INT_MIN // -1 wraps instead of trapping.
  int32_t mn = std::numeric_limits<int32_t>::min();
  CHECK(values<int32_t>(ops::binary(BinaryOp::FloorDiv, i32({1}, {mn}), i32({1}, {-1}))) == std::vector<int32_t>{mn});
  CHECK(values<int32_t>(ops::binary(BinaryOp::Mod, i32({1}, {mn}), i32({1}, {-1}))) == std::vector<int32_t>{0});
}

TEST_CASE("integer division by zero is an error; true division makes floats") {
  CHECK(errorOf([] { ops::binary(BinaryOp::FloorDiv, i32({2}, {1, 2}), i32({2}, {1, 0})); }) == "integer division by zero");
  CHECK(errorOf([] { ops::binary(BinaryOp::Mod, i32({2}, {1, 2}), Tensor::scalar(0)); }) == "integer division by zero");
  Tensor q = ops::binary(BinaryOp::Div, i32({3}, {1, 7, -1}), i32({3}, {2, 2, 0}));
  CHECK(q.dtype() == DType::F32);
  CHECK(values<float>(q)[0] == 0.5f);
  CHECK(values<float>(q)[1] == 3.5f);
  CHECK(std::isinf(values<float>(q)[2]));
  Tensor q64 = ops::binary(BinaryOp::Div, Tensor::scalar(int64_t(1)), Tensor::scalar(int64_t(4)));
  CHECK(q64.dtype() == DType::F64);
  CHECK(q64.asDouble() == 0.25);
  // Float floor division by zero follows NumPy (inf), not an error.
  CHECK(std::isinf(ops::binary(BinaryOp::FloorDiv, Tensor::scalar(1.0f), Tensor::scalar(0.0f)).asDouble()));
}

TEST_CASE("pow, maximum, comparisons, logical ops") {
  CHECK(values<int32_t>(ops::binary(BinaryOp::Pow, i32({3}, {2, -3, 5}), i32({3}, {10, 3, 0}))) ==
        std::vector<int32_t>{1024, -27, 1});
  CHECK(errorOf([] { ops::binary(BinaryOp::Pow, Tensor::scalar(2), Tensor::scalar(-1)); }).find("negative integer powers") != std::string::npos);
  CHECK(ops::binary(BinaryOp::Pow, Tensor::scalar(2.0f), Tensor::scalar(-1.0f)).asDouble() == 0.5);
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto mx = values<float>(ops::binary(BinaryOp::Maximum, f32({3}, {1, nan, 5}), f32({3}, {2, 0, nan})));
  CHECK(mx[0] == 2);
  CHECK(std::isnan(mx[1]));
  CHECK(std::isnan(mx[2]));
  Tensor lt = ops::binary(BinaryOp::Lt, f32({3}, {1, 2, 3}), Tensor::scalar(2.0f));
  CHECK(lt.dtype() == DType::Bool);
  CHECK(values<bool>(lt) == std::vector<bool>{true, false, false});
  Tensor t = make<bool>({2}, {true, false});
  CHECK(values<bool>(ops::binary(BinaryOp::Or, t, Tensor::scalar(false))) == std::vector<bool>{true, false});
  CHECK(values<bool>(ops::binary(BinaryOp::Eq, t, t)) == std::vector<bool>{true, true});
  CHECK(values<bool>(ops::unary(UnaryOp::Not, t)) == std::vector<bool>{false, true});
}

TEST_CASE("unary ops and their dtype rules") {
  Tensor x = f32({4}, {-1.5f, 0, 2.5f, 4});
  CHECK(values<float>(ops::unary(UnaryOp::Relu, x)) == std::vector<float>{0, 0, 2.5f, 4});
  CHECK(values<float>(ops::unary(UnaryOp::Round, x)) == std::vector<float>{-2, 0, 2, 4});  // half to even
  CHECK(values<float>(ops::unary(UnaryOp::Sign, x)) == std::vector<float>{-1, 0, 1, 1});
  CHECK(values<float>(ops::unary(UnaryOp::Square, x)) == std::vector<float>{2.25f, 0, 6.25f, 16});
  auto e = values<float>(ops::unary(UnaryOp::Exp, x));
  for (int i = 0; i < 4; ++i) CHECK(e[i] == doctest::Approx(std::exp(x.data<float>()[i])).epsilon(1e-6));
  auto s = values<float>(ops::unary(UnaryOp::Sigmoid, x));
  CHECK(s[1] == doctest::Approx(0.5));
  auto er = values<float>(ops::unary(UnaryOp::Erf, x));
  CHECK(er[2] == doctest::Approx(std::erf(2.5)).epsilon(1e-6));
  CHECK(values<float>(ops::unary(UnaryOp::Rsqrt, f32({1}, {4})))[0] == doctest::Approx(0.5));
  CHECK(values<int32_t>(ops::unary(UnaryOp::Abs, i32({3}, {-3, 0, 4}))) == std::vector<int32_t>{3, 0, 4});
  CHECK(values<int32_t>(ops::unary(UnaryOp::Neg, i32({2}, {-3, 4}))) == std::vector<int32_t>{3, -4});
  CHECK(errorOf([] { ops::unary(UnaryOp::Exp, Tensor::scalar(1)); }) == "exp is not defined for i32 tensors (cast to f32 first)");
  CHECK(errorOf([] { ops::unary(UnaryOp::Not, Tensor::scalar(1.0f)); }).find("not is not defined for f32") == 0);
  CHECK(errorOf([] { ops::unary(UnaryOp::Neg, Tensor::scalar(true)); }) == "neg is not defined for bool tensors");
}

TEST_CASE("a long unary/binary result matches the scalar formula (vectorised paths)") {
  Tensor x = ops::linspace(-5, 5, 1001, DType::F32);
  auto t = values<float>(ops::unary(UnaryOp::Tanh, x));
  auto l = values<float>(ops::unary(UnaryOp::Log1p, ops::unary(UnaryOp::Abs, x)));
  for (int i = 0; i < 1001; ++i) {
    float v = x.data<float>()[i];
    CHECK(t[i] == doctest::Approx(std::tanh(v)).epsilon(1e-5));
    CHECK(l[i] == doctest::Approx(std::log1p(std::fabs(v))).epsilon(1e-5));
  }
}

TEST_CASE("cast truncates toward zero, saturates, and maps to bool as x != 0") {
  Tensor x = f32({5}, {-2.7f, 2.7f, 1e20f, -1e20f, std::numeric_limits<float>::quiet_NaN()});
  Tensor i = ops::cast(x, DType::I32);
  CHECK(values<int32_t>(i) == std::vector<int32_t>{-2, 2, INT32_MAX, INT32_MIN, 0});
  CHECK(values<bool>(ops::cast(f32({3}, {0, -0.5f, 2}), DType::Bool)) == std::vector<bool>{false, true, true});
  CHECK(values<float>(ops::cast(make<bool>({2}, {true, false}), DType::F32)) == std::vector<float>{1, 0});
  CHECK(ops::cast(x, DType::F32).sharesStorage(x));
}

TEST_CASE("where and clip broadcast all three operands") {
  Tensor c = make<bool>({2, 1}, {true, false});
  Tensor r = ops::where(c, f32({3}, {1, 2, 3}), Tensor::scalar(0.0f));
  CHECK(r.shape() == Shape{2, 3});
  CHECK(values<float>(r) == std::vector<float>{1, 2, 3, 0, 0, 0});
  CHECK(errorOf([&] { ops::where(f32({1}, {1}), r, r); }).find("condition must be a bool") != std::string::npos);
  CHECK(errorOf([&] { ops::where(c, f32({3}, {1, 2, 3}), f32({4}, {1, 2, 3, 4})); }) ==
        "where: cannot broadcast shapes [2, 1], [3] and [4]");
  Tensor k = ops::clip(f32({5}, {-2, -1, 0, 1, 2}), Tensor::scalar(-1.0f), Tensor::scalar(1.5f));
  CHECK(values<float>(k) == std::vector<float>{-1, -1, 0, 1, 1.5f});
  CHECK(values<int32_t>(ops::clip(i32({3}, {-5, 5, 50}), i32({3}, {0, 0, 0}), Tensor::scalar(10))) ==
        std::vector<int32_t>{0, 5, 10});
}

TEST_CASE("names come from the op list") {
  CHECK(std::string(ops::name(BinaryOp::FloorDiv)) == "floordiv");
  CHECK(std::string(ops::name(UnaryOp::Square)) == "square");
  CHECK(std::string(ops::name(ops::ReduceOp::All)) == "all");
  CHECK(ops::opId(ops::ReduceOp::Max) == ops::OpId::ReduceMax);
  CHECK(std::string(ops::opName(ops::OpId::MatMul)) == "matmul");
  CHECK(ops::opArity(ops::OpId::Where) == 3);
  CHECK(ops::opArity(ops::OpId::Concat) == -1);
}

TEST_CASE("the elementwise builtins are named by the op table") {
  using ops::OpId;
  CHECK(ops::builtinName(OpId::UnaryExp) == "exp");
  CHECK(ops::builtinName(OpId::UnarySquare) == "square");
  CHECK(ops::builtinName(OpId::UnaryNot) == "logical_not");
  CHECK(ops::builtinName(OpId::UnaryNeg).empty());  // the operator -x
  CHECK(ops::builtinName(OpId::BinaryMaximum) == "maximum");
  CHECK(ops::builtinName(OpId::BinaryPow) == "pow");
  CHECK(ops::builtinName(OpId::BinaryOr) == "logical_or");
  CHECK(ops::builtinName(OpId::BinaryAdd).empty());  // operators: a + b, a < b
  CHECK(ops::builtinName(OpId::BinaryLt).empty());
  int unaries = 0;
#define WEFT_COUNT(F, Id, ...) unaries += !ops::builtinName(OpId::F##Id).empty();
  WEFT_FOR_EACH_UNARY_OP(WEFT_COUNT)
#undef WEFT_COUNT
  CHECK(unaries == 19);  // every unary op but neg
}
