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

// The gradients of pool2d, TensorFlow's MaxPoolGrad and AvgPoolGrad: dx[n, h, w, c] from the
// output's gradient dy[n, oh, ow, c], for the same geometry g. Windows may overlap (strides
// smaller than the window), so contributions add up. Channels go in chunks of kChunk, held in
// arrays on the stack: no workspace.
namespace pool_detail {
inline constexpr int64_t kChunk = 64;

// Each window's maximum, found again with pool2d's comparison — so when several elements of a
// window equal the maximum, the first one in the window's row-major order is it (PyTorch's and
// TensorFlow's choice), and of a window holding NaNs the NaN that pool2d returned (the last one).
// Calls f(o, cc, at) per output pixel and chunk of cc channels: o is the offset of the chunk's
// first output element, at[i] + i that of channel i's maximum in x. Empty windows are skipped.
template <class T, class F>
void forEachArgmax(const T* x, const Window2D& g, F f) {
  const int64_t c = g.c;
  alignas(64) T best[kChunk];
  int64_t at[kChunk];
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const int64_t o = ((b * g.oh + oy) * g.ow + ox) * c;
        const int64_t y0 = oy * g.sh - g.padTop, x0 = ox * g.sw - g.padLeft;
        int64_t kyLo, kyHi, kxLo, kxHi;
        validTaps(y0, g.dh, g.kh, g.h, kyLo, kyHi);
        validTaps(x0, g.dw, g.kw, g.w, kxLo, kxHi);
        if (kyLo == kyHi || kxLo == kxHi) continue;  // no element: pool2d wrote 0
        for (int64_t c0 = 0; c0 < c; c0 += kChunk) {
          const int64_t cc = std::min(kChunk, c - c0);
          bool first = true;
          for (int64_t ky = kyLo; ky < kyHi; ++ky)
            for (int64_t kx = kxLo; kx < kxHi; ++kx) {
              const int64_t off = ((b * g.h + y0 + ky * g.dh) * g.w + x0 + kx * g.dw) * c + c0;
              const T* in = x + off;
              if (first) {
                for (int64_t i = 0; i < cc; ++i) best[i] = in[i], at[i] = off;
                first = false;
                continue;
              }
              for (int64_t i = 0; i < cc; ++i)
                if (in[i] > best[i] || in[i] != in[i]) best[i] = in[i], at[i] = off;
            }
          f(o + c0, cc, at);
        }
      }
}
}  // namespace pool_detail

// Max pooling: each output's gradient goes to the element its window's maximum came from.
template <class T>
void maxPool2dGrad(const T* x, const T* dy, T* dx, const Window2D& g) {
  std::fill(dx, dx + g.n * g.h * g.w * g.c, T(0));
  pool_detail::forEachArgmax(x, g, [&](int64_t o, int64_t cc, const int64_t* at) {
    for (int64_t i = 0; i < cc; ++i) dx[at[i] + i] += dy[o + i];
  });
}

// The gradient of maxPool2dGrad with respect to dy (TensorFlow's MaxPoolGradGrad): y[n, oh, ow, c]
// holds, for each window, gx[n, h, w, c] at the window's maximum in x; 0 for an empty window.
template <class T>
void maxPool2dGradGrad(const T* x, const T* gx, T* y, const Window2D& g) {
  std::fill(y, y + g.n * g.oh * g.ow * g.c, T(0));
  pool_detail::forEachArgmax(x, g, [&](int64_t o, int64_t cc, const int64_t* at) {
    for (int64_t i = 0; i < cc; ++i) y[o + i] = gx[at[i] + i];
  });
}

// Average pooling: each output's gradient, divided by the number of input elements its window
// holds (Keras' divisor: padding does not count), goes to each of them.
template <class T>
void avgPool2dGrad(const T* dy, T* dx, const Window2D& g) {
  using pool_detail::kChunk;
  const int64_t c = g.c;
  std::fill(dx, dx + g.n * g.h * g.w * c, T(0));
  alignas(64) T share[kChunk];
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const T* grad = dy + ((b * g.oh + oy) * g.ow + ox) * c;
        const int64_t y0 = oy * g.sh - g.padTop, x0 = ox * g.sw - g.padLeft;
        int64_t kyLo, kyHi, kxLo, kxHi;
        validTaps(y0, g.dh, g.kh, g.h, kyLo, kyHi);
        validTaps(x0, g.dw, g.kw, g.w, kxLo, kxHi);
        const int64_t count = (kyHi - kyLo) * (kxHi - kxLo);
        if (count == 0) continue;
        const T n = T(count);
        for (int64_t c0 = 0; c0 < c; c0 += kChunk) {
          const int64_t cc = std::min(kChunk, c - c0);
          for (int64_t i = 0; i < cc; ++i) share[i] = grad[c0 + i] / n;
          for (int64_t ky = kyLo; ky < kyHi; ++ky)
            for (int64_t kx = kxLo; kx < kxHi; ++kx) {
              T* out = dx + ((b * g.h + y0 + ky * g.dh) * g.w + x0 + kx * g.dw) * c + c0;
              for (int64_t i = 0; i < cc; ++i) out[i] += share[i];
            }
        }
      }
}

}  // namespace weft::rt

#endif  // WEFT_RT_POOL_H
