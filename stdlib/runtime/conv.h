// 2-D convolution, NHWC input and HWIO kernel (Keras' layouts), for f32 and f64.
// Method: a direct convolution with a register-blocked micro-kernel (GEMM-like, no im2col).
// For one output row, a tile of P adjacent output pixels times V SIMD packets of output channels
// is held in P*V accumulators; each input value is broadcast once and multiplied into V packets
// of the kernel. The kernel is repacked per block of V packets of output channels so that the
// micro-kernel streams it contiguously, and the input is copied once into a zero-padded buffer
// when "same" padding needs it, so the inner loops never test bounds.
// A 1x1, stride-1, unpadded convolution is a plain GEMM on the input (matmul.h).
#pragma once
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "matmul.h"
#include "window.h"

namespace weft::rt {

namespace conv_detail {

namespace ei = Eigen::internal;
template <class T>
using Packet = typename ei::packet_traits<T>::type;
template <class T>
inline constexpr int kLanes = ei::unpacket_traits<Packet<T>>::size;
template <class T>
using Buffer = std::vector<T, Eigen::aligned_allocator<T>>;

// out[p, :cols] = sum over runs t and i < c of x[p * pixStep + tapOff[t] + i] *
// w[(t * c + i) * V * lanes + :]. cols < V * lanes only for the last channel block.
template <class T, int P, int V>
void tile(const T* x, int64_t pixStep, const int64_t* tapOff, int64_t taps, int64_t c, const T* w,
          T* out, int64_t outStride, int64_t cols) {
  using Pk = Packet<T>;
  constexpr int L = kLanes<T>;
  Pk acc[P][V];
  for (int p = 0; p < P; ++p)
    for (int v = 0; v < V; ++v) acc[p][v] = ei::pset1<Pk>(T(0));
  for (int64_t t = 0; t < taps; ++t) {
    const T* xt = x + tapOff[t];
    for (int64_t ci = 0; ci < c; ++ci, w += V * L) {
      Pk wv[V];
      for (int v = 0; v < V; ++v) wv[v] = ei::pload<Pk>(w + v * L);
      for (int p = 0; p < P; ++p) {
        const Pk a = ei::pset1<Pk>(xt[p * pixStep + ci]);
        for (int v = 0; v < V; ++v) acc[p][v] = ei::pmadd(a, wv[v], acc[p][v]);
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    if (cols == V * L) {
      for (int v = 0; v < V; ++v) ei::pstoreu(out + p * outStride + v * L, acc[p][v]);
    } else {
      alignas(64) T tmp[V * L];
      for (int v = 0; v < V; ++v) ei::pstore(tmp + v * L, acc[p][v]);
      std::copy(tmp, tmp + cols, out + p * outStride);
    }
  }
}

// Up to kPixels output pixels per tile (6 x 2 packets = 12 accumulators: fits 16 registers).
inline constexpr int kPixels = 6, kPackets = 2;

template <class T, int P = kPixels>
void tileOf(int pixels, const T* x, int64_t pixStep, const int64_t* tapOff, int64_t taps, int64_t c,
            const T* w, T* out, int64_t outStride, int64_t cols) {
  if constexpr (P > 0) {
    if (pixels == P) return tile<T, P, kPackets>(x, pixStep, tapOff, taps, c, w, out, outStride, cols);
    tileOf<T, P - 1>(pixels, x, pixStep, tapOff, taps, c, w, out, outStride, cols);
  }
}

}  // namespace conv_detail

// y[n, oh, ow, cout] = conv(x[n, h, w, c], k[kh, kw, c, cout]) with the geometry of g.
template <class T>
void conv2d(const T* x, const T* k, T* y, const Window2D& g, int64_t cout) {
  using namespace conv_detail;
  const int64_t pixels = g.n * g.oh * g.ow, c = g.c, taps = g.kh * g.kw;
  if (pixels == 0 || cout == 0) return;
  if (c == 0) return std::fill(y, y + pixels * cout, T(0));  // an empty sum (and no buffers)
  if (taps == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padLeft == 0 && g.oh == g.h && g.ow == g.w)
    return gemm(x, k, y, pixels, c, cout);

  // The input as seen through the padding: hp x wp pixels, zero outside the original.
  const int64_t hp = paddedSize(g.h, {g.oh, g.padTop, (g.kh - 1) * g.dh + 1}, g.sh);
  const int64_t wp = paddedSize(g.w, {g.ow, g.padLeft, (g.kw - 1) * g.dw + 1}, g.sw);
  const bool padded = hp != g.h || wp != g.w;
  Buffer<T> xpad;
  if (padded) {
    xpad.assign(size_t(g.n * hp * wp * c), T(0));
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t i = 0; i < g.h; ++i)
        std::memcpy(xpad.data() + ((b * hp + i + g.padTop) * wp + g.padLeft) * c, x + (b * g.h + i) * g.w * c,
                    size_t(g.w * c) * sizeof(T));
  }
  const T* in = padded ? xpad.data() : x;

  // Kernel blocks of `block` output channels, each [taps * c, block], the last one zero-filled.
  constexpr int64_t block = kPackets * kLanes<T>;
  const int64_t blocks = (cout + block - 1) / block, depth = taps * c;
  Buffer<T> wpack(size_t(blocks * depth * block), T(0));
  for (int64_t r = 0; r < depth; ++r)
    for (int64_t co = 0; co < cout; ++co) wpack[size_t(((co / block) * depth + r) * block + co % block)] = k[r * cout + co];

  // Input offsets of the kernel taps. Undilated columns make a kernel row's taps one contiguous
  // run of kw * c values (matching the kernel's own order); when c is small (an RGB input layer)
  // the micro-kernel then loops over a whole kernel row rather than a few channels. Only then:
  // runs of 96+ values measured up to 1.5x slower on strided wide layers (3x3 s2 32->128).
  const bool rowRuns = g.dw == 1 && g.kw * c <= 64;
  const int64_t runs = rowRuns ? g.kh : taps, run = rowRuns ? g.kw * c : c;
  std::vector<int64_t> tapOff(static_cast<size_t>(runs));
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < (rowRuns ? 1 : g.kw); ++kx)
      tapOff[size_t(rowRuns ? ky : ky * g.kw + kx)] = (ky * g.dh * wp + kx * g.dw) * c;

  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const T* row = in + (b * hp + oy * g.sh) * wp * c;
      T* yrow = y + (b * g.oh + oy) * g.ow * cout;
      for (int64_t cb = 0; cb < blocks; ++cb) {
        const int64_t cols = std::min(block, cout - cb * block);
        for (int64_t ox = 0; ox < g.ow; ox += kPixels)
          tileOf<T>(int(std::min<int64_t>(kPixels, g.ow - ox)), row + ox * g.sw * c, g.sw * c, tapOff.data(), runs,
                    run, wpack.data() + cb * depth * block, yrow + ox * cout + cb * block, cout, cols);
      }
    }
}

}  // namespace weft::rt
