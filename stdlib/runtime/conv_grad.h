// The gradients of conv2d (conv.h), NHWC input and HWIO kernel, for f32 and f64, as GEMMs over
// an im2col matrix — TensorFlow's Conv2DBackpropInput and Conv2DBackpropFilter. Row p of the
// im2col matrix col[P, K] (P = n * oh * ow output pixels, K = kh * kw * c) holds the input window
// of output pixel p in the kernel's own order (ky, kx, ci), zeros where the window reads padding,
// so that the forward convolution is y[P, cout] = col @ k[K, cout]. Then
//   the kernel's gradient  dk[K, cout] = col^T @ dy[P, cout]  (GEMM with a transposed operand),
//   the input's gradient   dx = col2im(dy @ k^T)              (GEMM, then scatter-adding each
//                          row of dcol[P, K] back onto the input elements its window read).
// Both go through the pixels in chunks, so the im2col buffer stays within a fixed size however
// large the batch: the kernel's gradient accumulates chunk by chunk. A 1x1, stride-1, unpadded
// convolution needs no im2col: its gradients are plain GEMMs on the tensors themselves.
// The window geometry g is the forward call's (window.h): input [n, h, w, c], kernel kh x kw,
// output [n, oh, ow, cout]. Callers pass a workspace of the size the *WorkspaceSize functions give
// (elements of T); nothing is allocated here.
#ifndef WEFT_RT_CONV_GRAD_H
#define WEFT_RT_CONV_GRAD_H
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "instances.h"
#include "matmul.h"
#include "window.h"

namespace weft::rt {

namespace conv_grad_detail {

// The im2col chunk: at most this many elements (1 MiB of f32), but at least 64 pixels.
inline constexpr int64_t kColElements = int64_t(1) << 18;

inline int64_t alignUp(int64_t n) { return (n + 63) & ~int64_t(63); }

struct Plan {
  int64_t pixels;  // P = n * oh * ow
  int64_t depth;   // K = kh * kw * c
  int64_t chunk;   // pixels per im2col chunk
  int64_t tail;    // pixels in the last, shorter chunk (0: none)
  bool direct;     // a 1x1, stride-1, unpadded convolution: no im2col
};

inline Plan plan(const Window2D& g) {
  Plan p;
  p.pixels = g.n * g.oh * g.ow;
  p.depth = g.kh * g.kw * g.c;
  p.direct = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padLeft == 0 && g.oh == g.h &&
             g.ow == g.w;
  const int64_t fit = p.depth > 0 ? kColElements / p.depth : p.pixels;
  p.chunk = std::min(p.pixels, std::max<int64_t>(64, fit));
  p.tail = p.chunk > 0 ? p.pixels % p.chunk : 0;
  return p;
}

inline int64_t maxOf(int64_t a, int64_t b) { return a > b ? a : b; }

// Workspace elements of T for `bytes` bytes.
template <class T>
int64_t elementsFor(int64_t bytes) {
  return (bytes + int64_t(sizeof(T)) - 1) / int64_t(sizeof(T));
}

// Rows [p0 + first, p0 + end) of x's im2col matrix into rows [first, end) of col[.., depth].
template <class T>
void im2colRows(const T* x, const Window2D& g, int64_t p0, int64_t first, int64_t end, T* col) {
  const int64_t c = g.c, depth = g.kh * g.kw * c, rowLen = g.kw * c;
  for (int64_t r = first; r < end; ++r) {
    const int64_t p = p0 + r, b = p / (g.oh * g.ow), oy = p / g.ow % g.oh, ox = p % g.ow;
    const int64_t y0 = oy * g.sh - g.padTop, x0 = ox * g.sw - g.padLeft;
    const bool wholeRow = g.dw == 1 && x0 >= 0 && x0 + g.kw <= g.w;  // a kernel row is one run
    T* dst = col + r * depth;
    for (int64_t ky = 0; ky < g.kh; ++ky, dst += rowLen) {
      const int64_t iy = y0 + ky * g.dh;
      if (iy < 0 || iy >= g.h) {
        std::fill(dst, dst + rowLen, T(0));
        continue;
      }
      const T* src = x + (b * g.h + iy) * g.w * c;
      if (wholeRow) {
        std::memcpy(dst, src + x0 * c, size_t(rowLen) * sizeof(T));
        continue;
      }
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const int64_t ix = x0 + kx * g.dw;
        if (ix < 0 || ix >= g.w) std::fill(dst + kx * c, dst + (kx + 1) * c, T(0));
        else std::memcpy(dst + kx * c, src + ix * c, size_t(c) * sizeof(T));
      }
    }
  }
}

// Rows [p0, p0 + rows) of x's im2col matrix into col[rows, depth]: a copy, whose blocks of rows
// share out on the thread pool.
template <class T>
void im2col(const T* x, const Window2D& g, int64_t p0, int64_t rows, T* col) {
  const int64_t per = std::max<int64_t>(1, kElementwiseBlock / std::max<int64_t>(1, g.kh * g.kw * g.c));
  parallelRange(rows, per, [&](int64_t from, int64_t to) { im2colRows(x, g, p0, from, to, col); });
}

// The adjoint of im2col: adds rows [p0, p0 + rows) of col[rows, depth] onto dx at the elements
// im2col read them from; what falls on the padding is dropped.
template <class T>
void col2im(const T* col, const Window2D& g, int64_t p0, int64_t rows, T* dx) {
  const int64_t c = g.c, depth = g.kh * g.kw * c;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t p = p0 + r, b = p / (g.oh * g.ow), oy = p / g.ow % g.oh, ox = p % g.ow;
    const int64_t y0 = oy * g.sh - g.padTop, x0 = ox * g.sw - g.padLeft;
    int64_t kyLo, kyHi, kxLo, kxHi;
    validTaps(y0, g.dh, g.kh, g.h, kyLo, kyHi);
    validTaps(x0, g.dw, g.kw, g.w, kxLo, kxHi);
    for (int64_t ky = kyLo; ky < kyHi; ++ky) {
      T* row = dx + (b * g.h + y0 + ky * g.dh) * g.w * c;
      const T* src = col + r * depth + ky * g.kw * c;
      if (g.dw == 1) {  // the valid taps of a kernel row are one run of the input row
        T* out = row + (x0 + kxLo) * c;
        const T* in = src + kxLo * c;
        const int64_t len = (kxHi - kxLo) * c;
        for (int64_t i = 0; i < len; ++i) out[i] += in[i];
        continue;
      }
      for (int64_t kx = kxLo; kx < kxHi; ++kx) {
        T* out = row + (x0 + kx * g.dw) * c;
        const T* in = src + kx * c;
        for (int64_t i = 0; i < c; ++i) out[i] += in[i];
      }
    }
  }
}

template <class T>
T* aligned(T* p) {
  return reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t(63));
}

}  // namespace conv_grad_detail

// The workspace conv2dBackpropFilter needs, in elements of T: an im2col chunk and the GEMM's
// packing buffers (for a full chunk and for the last one), each 64-byte aligned.
template <class T>
int64_t conv2dBackpropFilterWorkspaceSize(const Window2D& g, int64_t cout) {
  using namespace conv_grad_detail;
  const Plan p = plan(g);
  if (p.direct) return elementsFor<T>(gemmWorkspaceBytes<T>(g.c, p.pixels, cout)) + 64;
  const int64_t gemmBytes =
      maxOf(gemmWorkspaceBytes<T>(p.depth, p.chunk, cout), gemmWorkspaceBytes<T>(p.depth, p.tail, cout));
  return alignUp(p.chunk * p.depth) + elementsFor<T>(gemmBytes) + 64;
}

// dk[kh, kw, c, cout] = the gradient of sum(dy * conv2d(x, k)) with respect to k, for the
// geometry of g: x [n, h, w, c], dy [n, oh, ow, cout]. `workspace` holds
// conv2dBackpropFilterWorkspaceSize<T>(g, cout) elements.
template <class T>
void conv2dBackpropFilter(const T* x, const T* dy, T* dk, const Window2D& g, int64_t cout, T* workspace) {
  using namespace conv_grad_detail;
  const Plan p = plan(g);
  if (p.depth == 0 || cout == 0) return;
  if (p.pixels == 0) return std::fill(dk, dk + p.depth * cout, T(0));  // an empty sum
  T* base = aligned(workspace);
  // dk[c, cout] = x[P, c]^T @ dy[P, cout]
  if (p.direct) return gemm(x, dy, dk, g.c, p.pixels, cout, base, false, true, false);
  T* col = base;
  void* ws = base + alignUp(p.chunk * p.depth);
  for (int64_t p0 = 0; p0 < p.pixels; p0 += p.chunk) {
    const int64_t rows = std::min(p.chunk, p.pixels - p0);
    im2col(x, g, p0, rows, col);
    // dk[K, cout] (+)= col[rows, K]^T @ dy[rows, cout]
    gemm(col, dy + p0 * cout, dk, p.depth, rows, cout, ws, p0 > 0, true, false);
  }
}

// The workspace conv2dBackpropInput needs, in elements of T: an im2col chunk of the input's
// gradient and the GEMM's packing buffers.
template <class T>
int64_t conv2dBackpropInputWorkspaceSize(const Window2D& g, int64_t cout) {
  using namespace conv_grad_detail;
  const Plan p = plan(g);
  if (p.direct) return elementsFor<T>(gemmWorkspaceBytes<T>(p.pixels, cout, g.c)) + 64;
  const int64_t gemmBytes =
      maxOf(gemmWorkspaceBytes<T>(p.chunk, cout, p.depth), gemmWorkspaceBytes<T>(p.tail, cout, p.depth));
  return alignUp(p.chunk * p.depth) + elementsFor<T>(gemmBytes) + 64;
}

// dx[n, h, w, c] = the gradient of sum(dy * conv2d(x, k)) with respect to x, for the geometry of
// g: dy [n, oh, ow, cout], k [kh, kw, c, cout]. `workspace` holds
// conv2dBackpropInputWorkspaceSize<T>(g, cout) elements.
template <class T>
void conv2dBackpropInput(const T* dy, const T* k, T* dx, const Window2D& g, int64_t cout, T* workspace) {
  using namespace conv_grad_detail;
  const Plan p = plan(g);
  const int64_t inputs = g.n * g.h * g.w * g.c;
  if (inputs == 0) return;
  T* base = aligned(workspace);
  // dx[P, c] = dy[P, cout] @ k[c, cout]^T
  if (p.direct) return gemm(dy, k, dx, p.pixels, cout, g.c, base, false, false, true);
  std::fill(dx, dx + inputs, T(0));
  if (p.depth == 0 || p.pixels == 0) return;
  T* col = base;
  void* ws = base + alignUp(p.chunk * p.depth);
  for (int64_t p0 = 0; p0 < p.pixels; p0 += p.chunk) {
    const int64_t rows = std::min(p.chunk, p.pixels - p0);
    // dcol[rows, K] = dy[rows, cout] @ k[K, cout]^T
    gemm(dy + p0 * cout, k, col, rows, cout, p.depth, ws, false, false, true);
    col2im(col, g, p0, rows, dx);
  }
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(void conv2dBackpropFilter<float>(const float*, const float*, float*, const Window2D&, int64_t, float*))
WEFT_RT_INSTANCE(void conv2dBackpropInput<float>(const float*, const float*, float*, const Window2D&, int64_t, float*))

}  // namespace weft::rt

#endif  // WEFT_RT_CONV_GRAD_H
