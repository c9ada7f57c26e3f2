// argmax / argmin along one axis, seen as [outer, reduce, inner]. The first extreme wins, and
// a NaN counts as the extreme (NumPy's rule), so the result never depends on the loop order.
#ifndef WEFT_RT_ARG_REDUCE_H
#define WEFT_RT_ARG_REDUCE_H
#include <cstdint>
#include <memory>

namespace weft::rt {

template <bool IsMax, class T>
inline bool argBetter(T v, T best) {
  if (best != best) return false;  // a NaN already won
  if (v != v) return true;
  return IsMax ? v > best : v < best;
}

// out[o, i] = index r of the extreme of in[o, r, i]; the caller ensures R > 0.
template <bool IsMax, class T, class I32>
void argReduceKernel(const T* in, I32* out, int64_t O, int64_t R, int64_t I) {
  if (I == 1) {
    for (int64_t o = 0; o < O; ++o) {
      const T* row = in + o * R;
      int64_t best = 0;
      for (int64_t r = 1; r < R; ++r)
        if (argBetter<IsMax>(row[r], row[best])) best = r;
      out[o] = I32(best);
    }
    return;
  }
  std::unique_ptr<T[]> bestVal(new T[size_t(I)]);
  for (int64_t o = 0; o < O; ++o) {
    const T* src = in + o * R * I;
    I32* dst = out + o * I;
    for (int64_t i = 0; i < I; ++i) bestVal[i] = src[i], dst[i] = 0;
    for (int64_t r = 1; r < R; ++r) {
      const T* row = src + r * I;
      for (int64_t i = 0; i < I; ++i)
        if (argBetter<IsMax>(row[i], bestVal[i])) bestVal[i] = row[i], dst[i] = I32(r);
    }
  }
}

}  // namespace weft::rt

#endif  // WEFT_RT_ARG_REDUCE_H
