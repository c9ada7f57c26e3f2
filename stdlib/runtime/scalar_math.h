// Scalar helpers with NumPy/Python semantics and no undefined behaviour: integer arithmetic
// wraps (two's complement, as NumPy), division and modulo are floored, and float->int
// conversion saturates instead of being UB.
#ifndef WEFT_RT_SCALAR_MATH_H
#define WEFT_RT_SCALAR_MATH_H
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace weft::rt {

template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
inline T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return T(Unsigned<T>(a) + Unsigned<T>(b));
  else return a + b;
}
template <class T>
inline T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return T(Unsigned<T>(a) - Unsigned<T>(b));
  else return a - b;
}
template <class T>
inline T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return T(Unsigned<T>(a) * Unsigned<T>(b));
  else return a * b;
}

// Python's a // b. Integers: the caller rules out b == 0; MIN // -1 wraps to MIN (NumPy).
template <class T>
inline T floorDiv(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return wrapSub(T(0), a);
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    // NumPy's npy_divmod: floor((a - fmod(a, b)) / b), corrected to the nearest integer.
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
}

// Python's a % b: the result has the sign of b. Integers: the caller rules out b == 0.
template <class T>
inline T floorMod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return T(0);  // MIN % -1 would trap
    T m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
  } else {
    T m = std::fmod(a, b);
    if (m != 0) {
      if ((b < 0) != (m < 0)) m += b;
    } else {
      m = std::copysign(T(0), b);
    }
    return m;
  }
}

// maximum and minimum: NaN-propagating, as NumPy's, and -0.0 orders below 0.0 (IEEE 754-2019's
// maximum and minimum): maxOf(-0.0, 0.0) and maxOf(0.0, -0.0) are both 0.0, so the result never
// depends on the operands' order. clip, relu and the max/min reductions follow the same rule.
// Equal operands combine their bits (and for the maximum, or for the minimum: only the sign of
// zeros can differ), which keeps the loops free of branches and vectorised. (C++17: generated
// code includes this header too.)
template <class T>
inline T combineBits(T a, T b, bool useAnd) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  const U r = useAnd ? (ua & ub) : (ua | ub);
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}
template <class T>
inline T maxOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T m = ((a > b) | (a != a)) ? a : b;
    return a == b ? combineBits(a, b, true) : m;
  } else {
    return a > b ? a : b;
  }
}
template <class T>
inline T minOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T m = ((a < b) | (a != a)) ? a : b;
    return a == b ? combineBits(a, b, false) : m;
  } else {
    return a < b ? a : b;
  }
}

// Integer power by squaring (wrapping); the caller rules out negative exponents.
template <class T>
inline T intPow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// Float -> integer conversion that truncates toward zero, saturates at the type's limits and
// maps NaN to 0 (a plain static_cast is undefined behaviour out of range).
template <class D, class S>
inline D saturateCast(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    constexpr S hi = S(std::numeric_limits<D>::max()) + S(1);  // 2^31 or 2^63, exact
    constexpr S lo = S(std::numeric_limits<D>::min());
    if (x != x) return D(0);
    if (x >= hi) return std::numeric_limits<D>::max();
    if (x <= lo) return std::numeric_limits<D>::min();
    return D(x);
  } else {
    return D(x);
  }
}

}  // namespace weft::rt

#endif  // WEFT_RT_SCALAR_MATH_H
