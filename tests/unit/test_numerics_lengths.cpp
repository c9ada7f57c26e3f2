// Every elementwise kernel at lengths 1..67, so that the vectorised loops, their remainders and
// the scalar-broadcast forms all run: each element must equal the op applied to that element
// alone (same bits), for every dtype the op takes.
#include <cstring>

#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
using ops::BinaryOp;
using ops::UnaryOp;

namespace {

constexpr DType kDTypes[] = {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool};
constexpr int64_t kMax = 67;

// Values of dtype dt: for i = 0, 1, ...; `positive` keeps integers in [1, 5] (divisors, exponents).
Tensor sample(DType dt, int64_t n, int seed, bool positive) {
  Tensor t = Tensor::empty(dt, {n});
  rt::dispatch(dt, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = (i * 37 + seed * 11) % 101;
      if constexpr (std::is_same_v<T, bool>) t.data<T>()[i] = k % 3 == 0;
      else if constexpr (std::is_floating_point_v<T>) t.data<T>()[i] = T(positive ? 0.25 + k * 0.07 : (k - 50) * 0.37);
      else t.data<T>()[i] = T(positive ? 1 + k % 5 : k - 50);
    }
  });
  return t;
}

Tensor element(const Tensor& t, int64_t i) {
  size_t size = rt::dtypeSize(t.dtype());
  Tensor e = Tensor::empty(t.dtype(), {});
  std::memcpy(e.raw(), static_cast<const char*>(t.raw()) + size_t(i) * size, size);
  return e;
}

bool sameBits(const Tensor& t, int64_t i, const Tensor& one) {
  size_t size = rt::dtypeSize(t.dtype());
  return t.dtype() == one.dtype() && std::memcmp(static_cast<const char*>(t.raw()) + size_t(i) * size, one.raw(), size) == 0;
}

template <class F>
bool accepts(F&& f) {
  return errorOf(f).empty();
}

}  // namespace

TEST_CASE("every unary kernel, every dtype, lengths 1..67: each element as if alone") {
#define WEFT_OP(F, Id, ...) UnaryOp::Id,
  const UnaryOp all[] = {WEFT_FOR_EACH_UNARY_OP(WEFT_OP)};
#undef WEFT_OP
  for (UnaryOp op : all)
    for (DType dt : kDTypes) {
      if (!accepts([&] { ops::unary(op, sample(dt, 1, 0, false)); })) continue;
      CAPTURE(ops::name(op));
      CAPTURE(rt::dtypeName(dt));
      for (int64_t n = 1; n <= kMax; ++n) {
        Tensor x = sample(dt, n, int(n), op == UnaryOp::Log || op == UnaryOp::Sqrt || op == UnaryOp::Rsqrt);
        Tensor y = ops::unary(op, x);
        for (int64_t i = 0; i < n; ++i) CHECK(sameBits(y, i, ops::unary(op, element(x, i))));
      }
    }
}

TEST_CASE("every binary kernel, every dtype, lengths 1..67, with either side a scalar") {
#define WEFT_OP(F, Id, ...) BinaryOp::Id,
  const BinaryOp all[] = {WEFT_FOR_EACH_BINARY_OP(WEFT_OP)};
#undef WEFT_OP
  for (BinaryOp op : all)
    for (DType dt : kDTypes) {
      if (!accepts([&] { ops::binary(op, sample(dt, 1, 0, false), sample(dt, 1, 1, true)); })) continue;
      CAPTURE(ops::name(op));
      CAPTURE(rt::dtypeName(dt));
      for (int64_t n = 1; n <= kMax; ++n) {
        Tensor a = sample(dt, n, int(n), false), b = sample(dt, n, int(n) + 1, true);
        Tensor s = element(b, 0), r = element(a, n - 1);
        Tensor both = ops::binary(op, a, b), right = ops::binary(op, a, s), left = ops::binary(op, r, b);
        for (int64_t i = 0; i < n; ++i) {
          CHECK(sameBits(both, i, ops::binary(op, element(a, i), element(b, i))));
          CHECK(sameBits(right, i, ops::binary(op, element(a, i), s)));
          CHECK(sameBits(left, i, ops::binary(op, r, element(b, i))));
        }
      }
    }
}
