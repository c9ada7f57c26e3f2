// Tensor creation kernels: constant fill, arange, linspace, eye. Values are computed in double
// and converted once (saturating for integers), so every dtype sees the same sequence.
#ifndef WEFT_RT_FILL_H
#define WEFT_RT_FILL_H
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "scalar_math.h"

namespace weft::rt {

template <class T>
void fillKernel(T* out, int64_t n, T value) {
  for (int64_t i = 0; i < n; ++i) out[i] = value;
}

// out[i] = start + i * step
template <class T>
void arangeKernel(T* out, int64_t n, double start, double step) {
  for (int64_t i = 0; i < n; ++i) out[i] = saturateCast<T>(start + double(i) * step);
}

// Number of elements of arange(start, stop, step): ceil((stop - start) / step), at least 0.
// Returns -1 when it is not finite or would not fit in int64 (the caller reports it).
inline int64_t arangeCount(double start, double stop, double step) {
  double n = std::ceil((stop - start) / step);
  if (!(n == n) || std::isinf(n)) return -1;
  if (n <= 0) return 0;
  if (n > 9.0e18) return -1;
  return int64_t(n);
}

// num evenly spaced values from start to stop inclusive; the last is exactly stop. Integer
// dtypes take the floor, as NumPy >= 2.0.
template <class T>
void linspaceKernel(T* out, int64_t num, double start, double stop) {
  if (num <= 0) return;
  const double step = num > 1 ? (stop - start) / double(num - 1) : 0.0;
  for (int64_t i = 0; i < num; ++i) {
    double v = (i == num - 1 && num > 1) ? stop : start + double(i) * step;
    if constexpr (std::is_integral_v<T>) v = std::floor(v);
    out[i] = saturateCast<T>(v);
  }
}

// n x m identity (ones on the main diagonal).
template <class T>
void eyeKernel(T* out, int64_t n, int64_t m) {
  for (int64_t i = 0; i < n * m; ++i) out[i] = T(0);
  for (int64_t i = 0; i < n && i < m; ++i) out[i * m + i] = T(1);
}

}  // namespace weft::rt

#endif  // WEFT_RT_FILL_H
