// Shape/dtype inference on abstract tensors (no data): every op family returns an abstract
// result with the right dtype and shape, runs no kernel, and still reports shape errors.
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

namespace {

Tensor sym(DType t, Shape s) { return Tensor::abstract(t, s); }

void checkAbstract(const Tensor& t, DType dtype, const Shape& shape) {
  CHECK(t.isAbstract());
  CHECK(t.dtype() == dtype);
  CHECK(t.shape() == shape);
}

}  // namespace

TEST_CASE("elementwise families infer dtype and broadcast shape") {
  Tensor x = sym(DType::F32, {32, 512});
  Tensor b = sym(DType::F32, {512});
  checkAbstract(ops::unary(ops::UnaryOp::Relu, x), DType::F32, {32, 512});
  checkAbstract(ops::binary(ops::BinaryOp::Add, x, b), DType::F32, {32, 512});
  checkAbstract(ops::binary(ops::BinaryOp::Gt, x, b), DType::Bool, {32, 512});
  checkAbstract(ops::binary(ops::BinaryOp::Div, sym(DType::I64, {3}), sym(DType::I64, {1})), DType::F64, {3});
  // A mix of concrete and abstract operands is abstract.
  checkAbstract(ops::binary(ops::BinaryOp::Mul, x, Tensor::scalar(2.0f)), DType::F32, {32, 512});
  checkAbstract(ops::cast(x, DType::I32), DType::I32, {32, 512});
  checkAbstract(ops::where(sym(DType::Bool, {32, 1}), x, Tensor::scalar(0.0f)), DType::F32, {32, 512});
  checkAbstract(ops::clip(x, Tensor::scalar(0.0f), Tensor::scalar(1.0f)), DType::F32, {32, 512});
  CHECK(errorOf([&] { ops::binary(ops::BinaryOp::Add, x, sym(DType::F32, {3})); }) == "cannot broadcast shapes [32, 512] and [3]");
  CHECK(errorOf([&] { ops::unary(ops::UnaryOp::Exp, sym(DType::I32, {2})); }) == "exp is not defined for i32 tensors (cast to f32 first)");
  // Integer division by zero can only be known with data: no error while tracing.
  checkAbstract(ops::binary(ops::BinaryOp::Mod, sym(DType::I32, {2}), Tensor::scalar(0)), DType::I32, {2});
}

TEST_CASE("reduce and arg-reduce infer shapes") {
  Tensor x = sym(DType::I32, {4, 5, 6});
  checkAbstract(ops::reduce(ops::ReduceOp::Sum, x, {-1}, false), DType::I32, {4, 5});
  checkAbstract(ops::reduce(ops::ReduceOp::Mean, x, {0, 2}, true), DType::F32, {1, 5, 1});
  checkAbstract(ops::reduce(ops::ReduceOp::Max, x, {}, false), DType::I32, {});
  checkAbstract(ops::argReduce(true, x, 1, false), DType::I32, {4, 6});
  CHECK(errorOf([&] { ops::reduce(ops::ReduceOp::Sum, x, {3}, false); }) == "sum: axis 3 is out of range for shape [4, 5, 6]");
}

TEST_CASE("layout families infer shapes") {
  Tensor x = sym(DType::F32, {2, 3, 4});
  checkAbstract(ops::reshape(x, {6, -1}), DType::F32, {6, 4});
  checkAbstract(ops::transpose(x, {2, 0, 1}), DType::F32, {4, 2, 3});
  checkAbstract(ops::broadcastTo(sym(DType::F32, {3, 1}), {2, 3, 4}), DType::F32, {2, 3, 4});
  checkAbstract(ops::concat({x, iota({2, 3, 1})}, 2), DType::F32, {2, 3, 5});
  checkAbstract(ops::stack({x, x, x}, -1), DType::F32, {2, 3, 4, 3});
  auto parts = ops::split(x, {1, 3}, -1);
  REQUIRE(parts.size() == 2);
  checkAbstract(parts[1], DType::F32, {2, 3, 3});
  checkAbstract(ops::squeeze(sym(DType::F32, {1, 3, 1}), {}), DType::F32, {3});
  checkAbstract(ops::expandDims(x, 1), DType::F32, {2, 1, 3, 4});
  checkAbstract(ops::oneHot(sym(DType::I32, {8}), 10, DType::F32), DType::F32, {8, 10});
  CHECK(errorOf([&] { ops::reshape(x, {5}); }) == "cannot reshape [2, 3, 4] (24 elements) to [5]");
}

TEST_CASE("indexing infers shapes") {
  using Sub = ops::Subscript;
  Tensor x = sym(DType::F32, {5, 6, 7});
  Tensor r = ops::getItem(x, {Sub{Sub::Index, -1, {}, {}, {}}, Sub{Sub::Range, 0, 1, {}, 2}});
  checkAbstract(r, DType::F32, {3, 7});
  checkAbstract(ops::setItem(x, {Sub{Sub::Index, 0, {}, {}, {}}}, Tensor::scalar(1.0f)), DType::F32, {5, 6, 7});
  checkAbstract(ops::take(sym(DType::F32, {1000, 64}), sym(DType::I32, {32, 10}), 0), DType::F32, {32, 10, 64});
  CHECK(errorOf([&] { ops::getItem(x, {Sub{Sub::Index, 5, {}, {}, {}}}); }) == "index 5 is out of range for axis 0 of shape [5, 6, 7]");
}
