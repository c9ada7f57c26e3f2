// Unary elementwise functors and the kernel that applies them to a contiguous buffer.
// Each functor has a scalar form `f` (all dtypes it accepts) and, for floats, an Eigen array
// form `arr` so that exp/log/tanh/... use Eigen's vectorised implementations. Generated code
// calls the same functors, so eager and compiled results agree bit for bit.
#pragma once
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "scalar_math.h"

namespace weft::rt {

#define WEFT_RT_FLOAT_UNARY(Name, scalarExpr, arrayExpr)      \
  struct Name {                                               \
    template <class T>                                        \
    static T f(T x) { return scalarExpr; }                    \
    template <class A>                                        \
    static auto arr(const A& x) { return arrayExpr; }         \
  };

WEFT_RT_FLOAT_UNARY(Exp, std::exp(x), x.exp())
WEFT_RT_FLOAT_UNARY(Log, std::log(x), x.log())
WEFT_RT_FLOAT_UNARY(Sqrt, std::sqrt(x), x.sqrt())
WEFT_RT_FLOAT_UNARY(Rsqrt, T(1) / std::sqrt(x), x.rsqrt())
WEFT_RT_FLOAT_UNARY(Tanh, std::tanh(x), x.tanh())
WEFT_RT_FLOAT_UNARY(Sigmoid, T(1) / (T(1) + std::exp(-x)), x.logistic())
WEFT_RT_FLOAT_UNARY(Erf, std::erf(x), x.erf())
WEFT_RT_FLOAT_UNARY(Sin, std::sin(x), x.sin())
WEFT_RT_FLOAT_UNARY(Cos, std::cos(x), x.cos())
WEFT_RT_FLOAT_UNARY(Floor, std::floor(x), x.floor())
WEFT_RT_FLOAT_UNARY(Ceil, std::ceil(x), x.ceil())
// Half to even, as NumPy, TensorFlow and Python's round().
WEFT_RT_FLOAT_UNARY(Round, std::nearbyint(x), x.rint())
WEFT_RT_FLOAT_UNARY(Log1p, std::log1p(x), x.log1p())
WEFT_RT_FLOAT_UNARY(Expm1, std::expm1(x), x.expm1())
#undef WEFT_RT_FLOAT_UNARY

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

// out[i] = F(x[i]) for i < n; out may alias x.
template <class F, class T>
void unaryKernel(const T* x, T* out, int64_t n) {
  if constexpr (std::is_floating_point_v<T> && HasArrayForm<F>::value) {
    using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
    Eigen::Map<Arr>(out, n) = F::arr(Eigen::Map<const Arr>(x, n));
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
