// Adam's update of one variable and its two moments, each element in one pass (the
// adam_update op; stdlib/optimizers.model's Adam and AdamW). Written as the twelve operations of
// the formula it replaced, in their order, each rounded once — the composite's results to the
// bit — but with the values in registers: the composite ran as twelve passes over rows of 256
// values, and its update took a fifth of the MLP's train step.
#ifndef WEFT_RT_ADAM_H
#define WEFT_RT_ADAM_H
#include <cmath>
#include <cstdint>

#include "thread_pool.h"

namespace weft::rt {

// For elements [0, n): m2 = m + (g - m) * b1c; s2 = s + (g * g - s) * b2c;
// w2 = w - alpha * m2 / (sqrt(s2) + eps). An output may be its own input's buffer (w2 == w, m2 ==
// m, s2 == s): each element is read before it is written. Contraction is off, so that no
// multiply and add become one fused multiply-add that rounds once: the bits are those of the
// operations one by one, in eager code, graph functions and generated code alike.
template <class T>
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void adamChunk(const T* w, const T* g, const T* m, const T* s, T alpha, T b1c, T b2c, T eps, T* w2, T* m2, T* s2,
               int64_t n) {
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC ivdep  // an output at i may be its input at i, never another element
#endif
  for (int64_t i = 0; i < n; ++i) {
    const T gi = g[i];
    const T mi = m[i] + (gi - m[i]) * b1c;
    const T si = s[i] + (gi * gi - s[i]) * b2c;
    m2[i] = mi;
    s2[i] = si;
    w2[i] = w[i] - alpha * mi / (std::sqrt(si) + eps);
  }
}

// The same over n elements, in blocks on the thread pool (elementwise: the bits whatever the
// thread count).
template <class T>
void adamUpdate(const T* w, const T* g, const T* m, const T* s, T alpha, T b1c, T b2c, T eps, T* w2, T* m2, T* s2,
                int64_t n) {
  parallelRange(n, kElementwiseBlock, [&](int64_t begin, int64_t end) {
    adamChunk(w + begin, g + begin, m + begin, s + begin, alpha, b1c, b2c, eps, w2 + begin, m2 + begin, s2 + begin,
              end - begin);
  });
}

}  // namespace weft::rt

#endif  // WEFT_RT_ADAM_H
