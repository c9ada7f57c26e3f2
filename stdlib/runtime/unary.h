// Unary elementwise functors and the kernel that applies them to a contiguous buffer.
// Each functor has exactly one form: `arr` on Eigen arrays, so that exp/log/tanh/... use Eigen's
// vectorised implementations (unaryKernel runs it on whole aligned packets only, see there), a
// scalar `f` for exact and correctly rounded operations, or (gelu.h's) a `chunk` of steps, each
// a kernel of this header or binary.h. Either way a value's result depends on that value alone.
// Generated code calls the same kernel, so eager and compiled results agree bit for bit. Accuracy
// per op, in ulps: docs/numerics.md.
#ifndef WEFT_RT_UNARY_H
#define WEFT_RT_UNARY_H
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "scalar_math.h"
#include "thread_pool.h"

namespace weft::rt {

#define WEFT_RT_FLOAT_UNARY(Name, arrayExpr)          \
  struct Name {                                       \
    template <class A>                                \
    static auto arr(const A& x) { return arrayExpr; } \
  };

WEFT_RT_FLOAT_UNARY(Tanh, x.tanh())
WEFT_RT_FLOAT_UNARY(Sin, x.sin())
WEFT_RT_FLOAT_UNARY(Cos, x.cos())
WEFT_RT_FLOAT_UNARY(Log1p, x.log1p())
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

// Eigen's vectorised forms go wrong at the edges of the float range: exp flushes results below
// the smallest normal number to zero (exp(-90) in f32 was 0, not 8.2e-40) and, on AVX-512,
// overflows from 88.376 on (the true edge is 88.7228); log clamps subnormal arguments to the
// smallest normal number (log(1e-45) was -87.34, not -103.28); f32 erf loses up to 30 ulps below
// about 1e-36, where its numerator becomes subnormal. A functor with `fix` repairs those values
// after its array form has run, each from its own value alone, whatever its neighbours; a chunk
// without them costs one vectorised check.
template <class T>
using ArrayMapOf = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Below expLow<T>() exp's result is subnormal; above expHigh<T>() (1 below the overflow edge,
// under every Eigen backend's clamp) it nears overflow.
template <class T>
T expLow() { return std::log(std::numeric_limits<T>::min()); }
template <class T>
T expHigh() { return std::log(std::numeric_limits<T>::max()) - T(1); }

// out[i] = f(x[i]) for the x[i] outside [lo, hi], lo < 0 < hi (NaN is inside: Eigen's forms
// keep it). The usual case, every |x| within min(-lo, hi), is one vectorised pass.
template <class T, class F>
void fixOutside(const T* x, T* out, int64_t n, T lo, T hi, F f) {
  if (ArrayMapOf<T>(x, n).abs().maxCoeff() <= std::min(-lo, hi)) return;
  for (int64_t i = 0; i < n; ++i)
    if (x[i] < lo || x[i] > hi) out[i] = f(x[i]);
}

struct Exp {
  template <class A>
  static auto arr(const A& x) { return x.exp(); }
  template <class T>
  static void fix(const T* x, T* out, int64_t n) {
    fixOutside(x, out, n, expLow<T>(), expHigh<T>(), [](T v) { return std::exp(v); });
  }
};
struct Expm1 {
  template <class A>
  static auto arr(const A& x) { return x.expm1(); }
  template <class T>
  static void fix(const T* x, T* out, int64_t n) {
    fixOutside(x, out, n, -std::numeric_limits<T>::infinity(), expHigh<T>(), [](T v) { return std::expm1(v); });
  }
};
struct Log {
  template <class A>
  static auto arr(const A& x) { return x.log(); }
  // Subnormal arguments only: Eigen gets zero and negative ones right (-inf, nan).
  template <class T>
  static void fix(const T* x, T* out, int64_t n) {
    const T tiny = std::numeric_limits<T>::min();
    if (ArrayMapOf<T>(x, n).minCoeff() >= tiny) return;
    for (int64_t i = 0; i < n; ++i)
      if (x[i] > 0 && x[i] < tiny) out[i] = std::log(x[i]);
  }
};
// f32 erf(x) is x * 2/sqrt(pi) * (1 - x^2/3 + ...): below 2^-16 the x^2 term is under 1/1000
// of an ulp, and x + x * (2/sqrt(pi) - 1) in one fused rounding is within 0.54 ulp, subnormals
// included. (f64 erf is the C library's, right there.)
struct Erf {
  template <class A>
  static auto arr(const A& x) { return x.erf(); }
  template <class T>
  static void fix(const T* x, T* out, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      const float c = float(1.1283791670955126 - 1.0);
      if (ArrayMapOf<float>(x, n).abs().minCoeff() >= 0x1p-16f) return;
      for (int64_t i = 0; i < n; ++i) {
        const float small = std::fma(x[i], c, x[i]);
        out[i] = std::fabs(x[i]) < 0x1p-16f ? small : out[i];
      }
    }
  }
};

// Eigen's logistic loses thousands of ulps for x < -5 in f32 (it rounds a value near 1 and
// subtracts). 1 / (1 + exp(-x)) has no cancellation: a few ulps everywhere. Where the result is
// subnormal (x below log of the smallest normal) it equals exp(x) to within far less than an ulp.
struct Sigmoid {
  template <class A>
  static auto arr(const A& x) {
    using T = typename A::Scalar;
    return (T(1) + (-x).exp()).inverse();
  }
  template <class T>
  static void fix(const T* x, T* out, int64_t n) {
    fixOutside(x, out, n, expLow<T>(), std::numeric_limits<T>::infinity(), [](T v) { return std::exp(v); });
  }
};

// The functors below also take integers; they have no `arr` form and run as plain loops that
// the compiler vectorises.
// Integers wrap as NumPy's do; floats flip the sign bit, so -0.0 stays distinct from 0.0.
struct Neg {
  template <class T>
  static T f(T x) {
    if constexpr (std::is_integral_v<T>) return wrapSub(T(0), x);
    else return -x;
  }
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
// maximum(x, 0): NaN stays NaN (x <= 0 is false), as in PyTorch and NumPy, and relu(-0.0) is
// 0.0 (maximum's order of zeros, scalar_math.h).
struct Relu {
  template <class T>
  static T f(T x) { return x <= T(0) ? T(0) : x; }
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
// A functor with a `chunk` form (gelu.h) computes up to kUnaryChunk values itself, in steps.
template <class F, class = void>
struct HasChunkForm : std::false_type {};
template <class F>
struct HasChunkForm<F, std::void_t<decltype(F::chunk(static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0))>>
    : std::true_type {};
template <class F, class = void>
struct HasFix : std::false_type {};
template <class F>
struct HasFix<F, std::void_t<decltype(F::fix(static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0))>>
    : std::true_type {};

// out[i] = F(x[i]) for i < n; out may alias x. A float functor with an array form runs only on
// whole packets with aligned stores: Eigen on an arbitrary buffer computes an unaligned head and
// the tail with scalar code, so a value's result would depend on the tensor's length and
// alignment. Chunks of up to kUnaryChunk values (a multiple of every packet size) go straight to
// a 64-byte aligned `out`; the rest (all of it, when `out` is not aligned) goes through an
// aligned buffer padded to a whole number of packets.
inline constexpr int64_t kUnaryChunk = 256;
inline constexpr int64_t kUnaryPad = 16;  // 64 bytes of f32: whole AVX-512 packets

// dst[i] = F(src[i]) for m values, m a multiple of kUnaryPad and at most a chunk (so that the
// intermediate arrays of F::arr live on the stack), dst 64-byte aligned. Never inlined: the
// compiler may fuse a multiply and an add differently in different callers, and every value
// must go through the same machine code.
template <class F, class T>
[[gnu::noinline]] void unaryChunk(const T* src, T* dst, int64_t m) {
  using Chunk = Eigen::Array<T, Eigen::Dynamic, 1, Eigen::ColMajor, kUnaryChunk, 1>;
  if constexpr (HasFix<F>::value) {
    // The repair reads the arguments after the results are written: written in place, they are
    // kept here first (erf(1e-6) had come out as erf(erf(1e-6)) repaired).
    alignas(64) T kept[kUnaryChunk];
    if (src == dst) src = static_cast<const T*>(std::memcpy(kept, src, size_t(m) * sizeof(T)));
    Eigen::Map<Chunk, Eigen::Aligned64>(dst, m) = F::arr(Eigen::Map<const Chunk>(src, m));
    F::fix(src, dst, m);
  } else {
    Eigen::Map<Chunk, Eigen::Aligned64>(dst, m) = F::arr(Eigen::Map<const Chunk>(src, m));
  }
}

// The scalar form over n values. Never inlined, so that it is vectorised as a loop of its own
// (inlined into a generated function of thousands of lines, GCC keeps sqrt scalar).
template <class F, class T>
[[gnu::noinline]] void unaryLoop(const T* x, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F::f(x[i]);
}

template <class F, class T>
void unaryBlock(const T* x, T* out, int64_t n) {
  if constexpr (HasChunkForm<F>::value) {
    for (int64_t i = 0; i < n; i += kUnaryChunk) F::chunk(x + i, out + i, std::min(kUnaryChunk, n - i));
  } else if constexpr (std::is_floating_point_v<T> && HasArrayForm<F>::value) {
    int64_t done = 0;
    if (reinterpret_cast<uintptr_t>(out) % 64 == 0) {
      done = n - n % kUnaryPad;
      for (int64_t i = 0; i < done; i += kUnaryChunk) unaryChunk<F>(x + i, out + i, std::min(kUnaryChunk, done - i));
    }
    alignas(64) T in[kUnaryChunk] = {}, res[kUnaryChunk];
    for (; done < n; done += kUnaryChunk) {
      int64_t m = std::min(kUnaryChunk, n - done);
      std::memcpy(in, x + done, size_t(m) * sizeof(T));
      unaryChunk<F>(in, res, (m + kUnaryPad - 1) / kUnaryPad * kUnaryPad);
      std::memcpy(out + done, res, size_t(m) * sizeof(T));
    }
  } else {
    unaryLoop<F>(x, out, n);
  }
}

// Each value's result is the same however the values are blocked (above), so large loops split
// on the thread pool.
template <class F, class T>
void unaryKernel(const T* x, T* out, int64_t n) {
  parallelRange(n, kElementwiseBlock, [&](int64_t begin, int64_t end) { unaryBlock<F>(x + begin, out + begin, end - begin); });
}

// Dtype conversion: float -> int truncates toward zero and saturates (NaN -> 0); -> bool is
// x != 0; bool -> number is 0 or 1.
template <class S, class D>
void castKernel(const S* x, D* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = saturateCast<D>(x[i]);
}

}  // namespace weft::rt

#endif  // WEFT_RT_UNARY_H
