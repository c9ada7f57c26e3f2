// 2-D max and average pooling on NHWC tensors, for f32 and f64, with Keras' semantics: padding
// never contributes a value (max ignores it; the average divides by the number of input elements
// inside the window, not by the window's size). The channel loop is innermost and contiguous,
// so each window tap is one vectorisable pass over a row of C values.
#ifndef WEFT_RT_POOL_H
#define WEFT_RT_POOL_H
#include <algorithm>
#include <cstdint>

#include "window.h"

namespace weft::rt {

// y[n, oh, ow, c] = max or mean of x over each window of g (g.dh = g.dw = 1).
template <class T>
void pool2d(bool isMax, const T* x, T* y, const Window2D& g) {
  const int64_t c = g.c;
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        T* out = y + ((b * g.oh + oy) * g.ow + ox) * c;
        const int64_t y0 = oy * g.sh - g.padTop, x0 = ox * g.sw - g.padLeft;
        int64_t kyLo, kyHi, kxLo, kxHi;
        validTaps(y0, g.dh, g.kh, g.h, kyLo, kyHi);
        validTaps(x0, g.dw, g.kw, g.w, kxLo, kxHi);
        const int64_t count = (kyHi - kyLo) * (kxHi - kxLo);
        // "same" pads less than a window on each side, so every window holds an element; this
        // guard only matters for callers that bypass windowSize().
        if (count == 0) {
          std::fill(out, out + c, T(0));
          continue;
        }
        bool first = true;
        for (int64_t ky = kyLo; ky < kyHi; ++ky)
          for (int64_t kx = kxLo; kx < kxHi; ++kx) {
            const T* in = x + ((b * g.h + y0 + ky * g.dh) * g.w + x0 + kx * g.dw) * c;
            if (first) {
              std::copy(in, in + c, out);
              first = false;
            } else if (isMax) {
              // NaN-propagating, as NumPy's maximum and PyTorch's max_pool2d.
              for (int64_t i = 0; i < c; ++i) out[i] = (in[i] > out[i] || in[i] != in[i]) ? in[i] : out[i];
            } else {
              for (int64_t i = 0; i < c; ++i) out[i] += in[i];
            }
          }
        if (!isMax) {
          const T n = T(count);
          for (int64_t i = 0; i < c; ++i) out[i] /= n;
        }
      }
}

}  // namespace weft::rt

#endif  // WEFT_RT_POOL_H
