// Binary elementwise functors and broadcasting kernels. A functor's `f(a, b)` returns the result
// type (bool for comparisons, a float for true division of integers). The kernels split the
// broadcast into contiguous rows and specialise the row loop on the stride pattern (both
// contiguous, one side a scalar) so that the compiler vectorises it.
#ifndef WEFT_RT_BINARY_H
#define WEFT_RT_BINARY_H
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "scalar_math.h"
#include "strided.h"
#include "thread_pool.h"

namespace weft::rt {

template <class T>
using TrueDivType = std::conditional_t<std::is_floating_point_v<T>, T,
                                       std::conditional_t<(sizeof(T) >= 8), double, float>>;

struct Add { template <class T> static T f(T a, T b) { return wrapAdd(a, b); } };
struct Sub { template <class T> static T f(T a, T b) { return wrapSub(a, b); } };
struct Mul { template <class T> static T f(T a, T b) { return wrapMul(a, b); } };
// True division: integers divide as floats (i32 -> f32, i64 -> f64), x / 0 is inf or nan.
// Integers divide in f64 and round once to the result's dtype, as NumPy does: converting each
// operand of an i32 division to f32 first rounds three times (18000047 / 3 gave 6000016.0).
struct Div {
  template <class T>
  static TrueDivType<T> f(T a, T b) {
    if constexpr (std::is_integral_v<T>) return TrueDivType<T>(double(a) / double(b));
    else return a / b;
  }
};
struct FloorDiv { template <class T> static T f(T a, T b) { return floorDiv(a, b); } };
struct Mod { template <class T> static T f(T a, T b) { return floorMod(a, b); } };
struct Pow {
  template <class T>
  static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) return intPow(a, b);
    else return std::pow(a, b);
  }
};
// NaN-propagating, -0.0 below 0.0 (scalar_math.h).
struct Maximum { template <class T> static T f(T a, T b) { return maxOf(a, b); } };
struct Minimum { template <class T> static T f(T a, T b) { return minOf(a, b); } };
struct Eq { template <class T> static bool f(T a, T b) { return a == b; } };
struct Ne { template <class T> static bool f(T a, T b) { return a != b; } };
struct Lt { template <class T> static bool f(T a, T b) { return a < b; } };
struct Le { template <class T> static bool f(T a, T b) { return a <= b; } };
struct Gt { template <class T> static bool f(T a, T b) { return a > b; } };
struct Ge { template <class T> static bool f(T a, T b) { return a >= b; } };
struct And { template <class T> static bool f(T a, T b) { return a && b; } };
struct Or { template <class T> static bool f(T a, T b) { return a || b; } };

template <class F, class T>
using BinaryResult = decltype(F::f(T{}, T{}));

// One row: n outputs from a and b advancing by sa and sb (each 0 or 1 in the fast cases).
template <class F, class T, class R>
inline void binaryRow(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = F::f(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = F::f(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = F::f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = F::f(a[i * sa], b[i * sb]);
  }
}

// out (contiguous, shape `outShape`) = F(a broadcast, b broadcast). Shapes must broadcast.
template <class F, class T, class R>
void binaryKernel(const T* a, const Shape& as, const T* b, const Shape& bs, R* out,
                  const Shape& outShape) {
  int64_t n = outShape.numel();
  if (as == bs || bs.numel() == 1 || as.numel() == 1) {  // one row, split on the thread pool
    const int64_t ia = as.numel() == 1 && n > 1 ? 0 : 1, ib = bs.numel() == 1 && n > 1 ? 0 : 1;
    return parallelRange(n, kElementwiseBlock, [&](int64_t begin, int64_t end) {
      binaryRow<F>(a + begin * ia, ia, b + begin * ib, ib, out + begin, end - begin);
    });
  }
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcastStrides(as, outShape, sa);
  broadcastStrides(bs, outShape, sb);
  const int64_t* strides[2] = {sa, sb};
  auto L = makeLoop<2>(outShape, strides);
  int64_t inner = L.inner(), ia = L.innerStride(0), ib = L.innerStride(1);
  forEachRow(L, [&](const int64_t* off, int64_t o) {
    binaryRow<F>(a + off[0], ia, b + off[1], ib, out + o, inner);
  });
}

// where(cond, a, b) and clip(x, lo, hi) as ternary functors.
struct Where { template <class T> static T f(bool c, T a, T b) { return c ? a : b; } };
// NumPy's minimum(maximum(x, lo), hi): hi wins when lo > hi, NaN in x or a bound gives NaN, and
// clip(-0.0, 0.0, 1.0) is 0.0 (maximum's order of zeros).
struct Clip {
  template <class T>
  static T f(T x, T lo, T hi) { return Minimum::f(Maximum::f(x, lo), hi); }
};

// out = F(a, b, c) with all three broadcast to outShape.
template <class F, class A, class B, class C, class R>
void ternaryKernel(const A* a, const Shape& as, const B* b, const Shape& bs, const C* c,
                   const Shape& cs, R* out, const Shape& outShape) {
  int64_t s[3][kMaxRank];
  broadcastStrides(as, outShape, s[0]);
  broadcastStrides(bs, outShape, s[1]);
  broadcastStrides(cs, outShape, s[2]);
  const int64_t* strides[3] = {s[0], s[1], s[2]};
  auto L = makeLoop<3>(outShape, strides);
  int64_t inner = L.inner(), i0 = L.innerStride(0), i1 = L.innerStride(1), i2 = L.innerStride(2);
  forEachRow(L, [&](const int64_t* off, int64_t o) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    const C* pc = c + off[2];
    R* po = out + o;
    if (i0 == 1 && i1 == 1 && i2 == 1) {
      for (int64_t i = 0; i < inner; ++i) po[i] = F::f(pa[i], pb[i], pc[i]);
      return;
    }
    if constexpr (std::is_same_v<F, Where> && std::is_same_v<B, C> && std::is_same_v<B, R>) {
      if (i0 == 0 && i1 == 1 && i2 == 1) {  // one condition for the row (a KV cache's update): a copy
        const B* from = *pa ? pb : pc;
        std::copy(from, from + inner, po);
        return;
      }
    }
    for (int64_t i = 0; i < inner; ++i) po[i] = F::f(pa[i * i0], pb[i * i1], pc[i * i2]);
  });
}

// Integer // and % by zero, and integer ** with a negative exponent, are errors (NumPy would give
// garbage or raise): the message for the first bad value among b's n values, or "".
template <class T>
std::string intOperandError(const T* b, int64_t n, bool power) {
  for (int64_t i = 0; i < n; ++i) {
    if (!power && b[i] == 0) return "integer division by zero";
    if (power && b[i] < 0)
      return "pow: integers to negative integer powers are not allowed (exponent " + std::to_string(int64_t(b[i])) +
             "); use a float base";
  }
  return "";
}

}  // namespace weft::rt

#endif  // WEFT_RT_BINARY_H
