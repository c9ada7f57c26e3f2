// adam_update against the formula it replaced in stdlib/optimizers.model, op by op: the same bits
// (each operation rounded once, no fused multiply-add), in place or not, at any length.
#include <cstring>

#include "stdlib/runtime/adam.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::BinaryOp;
using testutil::normal;

template <class T>
bool sameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data<T>(), b.data<T>(), size_t(a.numel()) * sizeof(T)) == 0;
}

Tensor scalar(double v, DType dtype) { return ops::full(Shape{}, v, dtype); }

template <class T>
void checkAgainstFormula(DType dtype, int64_t n) {
  INFO("dtype " << rt::dtypeName(dtype) << ", " << n << " elements");
  const Tensor w = normal(Shape{n}, 1, dtype), g = normal(Shape{n}, 2, dtype, 0, 1e-3), m = normal(Shape{n}, 3, dtype, 0, 1e-3);
  const Tensor s = ops::binary(BinaryOp::Mul, normal(Shape{n}, 4, dtype, 0, 1e-3), normal(Shape{n}, 4, dtype, 0, 1e-3));
  const Tensor alpha = scalar(3.16e-4, dtype), b1c = ops::binary(BinaryOp::Sub, scalar(1.0, dtype), scalar(0.9, dtype)),
               b2c = ops::binary(BinaryOp::Sub, scalar(1.0, dtype), scalar(0.999, dtype)), eps = scalar(1e-7, dtype);
  // m += (g - m) * b1c; s += (g * g - s) * b2c; w -= alpha * m / (sqrt(s) + eps)
  const Tensor m2 = ops::binary(BinaryOp::Add, m, ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Sub, g, m), b1c));
  const Tensor s2 = ops::binary(BinaryOp::Add, s,
                                ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Sub, ops::binary(BinaryOp::Mul, g, g), s), b2c));
  const Tensor w2 = ops::binary(
      BinaryOp::Sub, w,
      ops::binary(BinaryOp::Div, ops::binary(BinaryOp::Mul, alpha, m2),
                  ops::binary(BinaryOp::Add, ops::unary(ops::UnaryOp::Sqrt, s2), eps)));
  const std::vector<Tensor> got = ops::adamUpdate(w, g, m, s, alpha, b1c, b2c, eps);
  CHECK(sameBits<T>(got[0], w2));
  CHECK(sameBits<T>(got[1], m2));
  CHECK(sameBits<T>(got[2], s2));
  // In place, as generated code computes into a variable and its slots.
  Tensor wi = ops::binary(BinaryOp::Add, w, scalar(0.0, dtype)), mi = ops::binary(BinaryOp::Add, m, scalar(0.0, dtype)),
         si = ops::binary(BinaryOp::Add, s, scalar(0.0, dtype));
  rt::adamUpdate(wi.data<T>(), g.data<T>(), mi.data<T>(), si.data<T>(), alpha.data<T>()[0], b1c.data<T>()[0],
                 b2c.data<T>()[0], eps.data<T>()[0], wi.data<T>(), mi.data<T>(), si.data<T>(), n);
  CHECK(sameBits<T>(wi, w2));
  CHECK(sameBits<T>(mi, m2));
  CHECK(sameBits<T>(si, s2));
}

TEST_CASE("adam_update: the formula's bits, in place or not") {
  for (int64_t n : {1, 7, 16, 67, 4099, 100000}) {
    checkAgainstFormula<float>(DType::F32, n);
    checkAgainstFormula<double>(DType::F64, n);
  }
}

}  // namespace
}  // namespace weft
