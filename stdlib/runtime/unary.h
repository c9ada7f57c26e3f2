// Unary elementwise functors and the kernel that applies them to a contiguous buffer.
// Each functor has exactly one form: `arr` on Eigen arrays, so that exp/log/tanh/... use Eigen's
// vectorised implementations (unaryKernel runs it on whole aligned blocks, see there), or a
// scalar `f` for exact and correctly rounded operations. Either way a value's result depends on
// that value alone. Generated code calls the same kernel, so eager and
// compiled results agree bit for bit. Accuracy per op, in ulps: docs/numerics.md.
#pragma once
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "scalar_math.h"

namespace weft::rt {

#define WEFT_RT_FLOAT_UNARY(Name, arrayExpr)          \
  struct Name {                                       \
    template <class A>                                \
    static auto arr(const A& x) { return arrayExpr; } \
  };

WEFT_RT_FLOAT_UNARY(Log, x.log())
WEFT_RT_FLOAT_UNARY(Tanh, x.tanh())
WEFT_RT_FLOAT_UNARY(Erf, x.erf())
WEFT_RT_FLOAT_UNARY(Sin, x.sin())
WEFT_RT_FLOAT_UNARY(Cos, x.cos())
WEFT_RT_FLOAT_UNARY(Log1p, x.log1p())
WEFT_RT_FLOAT_UNARY(Expm1, x.expm1())
#undef WEFT_RT_FLOAT_UNARY

// Correctly rounded IEEE operations, one scalar form: the scalar and vector instructions give the
// same bits. (Eigen's vectorised sqrt under EIGEN_FAST_MATH is an estimate refined once, off by
// up to 3 ulps, so it is not used.)
#define WEFT_RT_IEEE_UNARY(Name, scalarExpr) \
  struct Name {                              \
    template <class T>                       \
    static T f(T x) { return scalarExpr; }   \
  };
WEFT_RT_IEEE_UNARY(Sqrt, std::sqrt(x))
WEFT_RT_IEEE_UNARY(Rsqrt, T(1) / std::sqrt(x))  // two roundings: at most 1 ulp
WEFT_RT_IEEE_UNARY(Floor, std::floor(x))
WEFT_RT_IEEE_UNARY(Ceil, std::ceil(x))
// Half to even, as NumPy, TensorFlow and Python's round().
WEFT_RT_IEEE_UNARY(Round, std::nearbyint(x))
#undef WEFT_RT_IEEE_UNARY

// Eigen's exp flushes results below the smallest normal number to zero (exp(-90) in f32 is 0,
// not 8.2e-40); there exp(x / 2)^2 keeps the subnormal result. Only blocks that need it pay.
struct Exp {
  template <class A>
  static auto arr(const A& x) {
    using T = typename A::Scalar;
    using R = typename A::PlainObject;
    const T lowest = std::log(std::numeric_limits<T>::min());
    R r = x.exp();  // one evaluation for every block, so a value's bits never depend on the path
    if ((x < lowest).any()) r = (x < lowest).select((x * T(0.5)).exp().square(), r);
    return r;
  }
};

// Eigen's logistic loses thousands of ulps for x < -5 in f32. Here e = exp(-|x|) is never
// rounded against 1 before the division: 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, a
// few ulps everywhere (NaN stays NaN).
struct Sigmoid {
  template <class A>
  static auto arr(const A& x) {
    using T = typename A::Scalar;
    auto e = Exp::arr((-x.abs()).eval());
    auto r = (T(1) + e).inverse().eval();
    return (x >= T(0)).select(r, e * r).eval();
  }
};

// The functors below also take integers; they have no `arr` form and run as plain loops that
// the compiler vectorises.
struct Neg {
  template <class T>
  static T f(T x) { return wrapSub(T(0), x); }
};
struct Abs {
  template <class T>
  static T f(T x) {
    if constexpr (std::is_integral_v<T>) return x < 0 ? wrapSub(T(0), x) : x;
    else return std::fabs(x);
  }
};
struct Square {
  template <class T>
  static T f(T x) { return wrapMul(x, x); }
};
// NaN stays NaN (x < 0 is false), as in PyTorch and NumPy's maximum(x, 0).
struct Relu {
  template <class T>
  static T f(T x) { return x < T(0) ? T(0) : x; }
};
// -1, 0 or 1; keeps -0.0 and NaN for floats.
struct Sign {
  template <class T>
  static T f(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
};
struct Not {
  template <class T>
  static T f(T x) { return !x; }
};

template <class F, class = void>
struct HasArrayForm : std::false_type {};
template <class F>
struct HasArrayForm<F, std::void_t<decltype(F::arr(std::declval<Eigen::ArrayXf>()))>> : std::true_type {};

// out[i] = F(x[i]) for i < n; out may alias x. A float functor with an array form runs on
// aligned blocks of kUnaryBlock values, the last one padded: Eigen on a whole buffer would
// compute an unaligned head and the tail with scalar code, so a value's result would depend on
// the tensor's length and alignment. Every value goes through the vectorised code here.
inline constexpr int64_t kUnaryBlock = 16;

template <class F, class T>
void unaryKernel(const T* x, T* out, int64_t n) {
  if constexpr (std::is_floating_point_v<T> && HasArrayForm<F>::value) {
    using Block = Eigen::Array<T, kUnaryBlock, 1>;  // aligned by Eigen
    Block in = Block::Zero(), res;
    for (int64_t i = 0; i < n; i += kUnaryBlock) {
      int64_t m = std::min(kUnaryBlock, n - i);
      std::memcpy(in.data(), x + i, size_t(m) * sizeof(T));
      res = F::arr(in);
      std::memcpy(out + i, res.data(), size_t(m) * sizeof(T));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = F::f(x[i]);
  }
}

// Dtype conversion: float -> int truncates toward zero and saturates (NaN -> 0); -> bool is
// x != 0; bool -> number is 0 or 1.
template <class S, class D>
void castKernel(const S* x, D* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = saturateCast<D>(x[i]);
}

}  // namespace weft::rt
