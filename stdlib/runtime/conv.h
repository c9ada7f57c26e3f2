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
// With `accumulate`, out already holds a partial sum (of earlier kernel rows) to add to; then
// cols is a whole block.
template <class T, int P, int V>
void tile(const T* x, int64_t pixStep, const int64_t* tapOff, int64_t taps, int64_t c, const T* w,
          T* out, int64_t outStride, int64_t cols, bool accumulate) {
  using Pk = Packet<T>;
  constexpr int L = kLanes<T>;
  Pk acc[P][V];
  _Pragma("GCC unroll 16")
  for (int p = 0; p < P; ++p) {
    _Pragma("GCC unroll 16")
    for (int v = 0; v < V; ++v)
      acc[p][v] = accumulate ? ei::ploadu<Pk>(out + p * outStride + v * L) : ei::pset1<Pk>(T(0));
  }
  for (int64_t t = 0; t < taps; ++t) {
    const T* xt = x + tapOff[t];
    _Pragma("GCC unroll 4")  // fewer loop-control instructions per FMA
    for (int64_t ci = 0; ci < c; ++ci, w += V * L) {
      Pk wv[V];
      _Pragma("GCC unroll 16")
      for (int v = 0; v < V; ++v) wv[v] = ei::pload<Pk>(w + v * L);
      _Pragma("GCC unroll 16")
      for (int p = 0; p < P; ++p) {
        const Pk a = ei::pset1<Pk>(xt[p * pixStep + ci]);
        _Pragma("GCC unroll 16")
        for (int v = 0; v < V; ++v) acc[p][v] = ei::pmadd(a, wv[v], acc[p][v]);
      }
    }
  }
  _Pragma("GCC unroll 16")
  for (int p = 0; p < P; ++p) {
    if (cols == V * L) {
      _Pragma("GCC unroll 16")
      for (int v = 0; v < V; ++v) ei::pstoreu(out + p * outStride + v * L, acc[p][v]);
    } else {
      alignas(64) T tmp[V * L];
      _Pragma("GCC unroll 16")
      for (int v = 0; v < V; ++v) ei::pstore(tmp + v * L, acc[p][v]);
      std::copy(tmp, tmp + cols, out + p * outStride);
    }
  }
}

// Tiles of P pixels times V packets of output channels: P * V accumulators, V kernel packets and
// a broadcast must fit the vector registers (32 with AVX-512, else 16). One packet serves up to
// one packet of output channels (a first layer's 16), two the wider layers.
#ifdef EIGEN_VECTORIZE_AVX512
inline constexpr int kRegisters = 32;
#else
inline constexpr int kRegisters = 16;
#endif
template <int V>
inline constexpr int kMaxPixels = std::min(14, (kRegisters - V - 1) / V);

template <class T, int V, int P = kMaxPixels<V>>
void tileOf(int pixels, const T* x, int64_t pixStep, const int64_t* tapOff, int64_t taps, int64_t c,
            const T* w, T* out, int64_t outStride, int64_t cols, bool accumulate) {
  if constexpr (P > 0) {
    if (pixels == P) return tile<T, P, V>(x, pixStep, tapOff, taps, c, w, out, outStride, cols, accumulate);
    tileOf<T, V, P - 1>(pixels, x, pixStep, tapOff, taps, c, w, out, outStride, cols, accumulate);
  }
}

// A kernel block's weights are streamed once per tile; past this many bytes they would not stay
// in L1 next to the input rows, so the block is applied one kernel row at a time instead.
inline constexpr int64_t kL1WeightBytes = 16 * 1024;

inline int64_t alignUp(int64_t n) { return (n + 63) & ~int64_t(63); }

struct Plan {
  int64_t hp, wp;      // the input as seen through the padding
  bool padded;         // whether it needs the zero-padded copy
  int64_t packets;     // V
  int64_t block;       // output channels per kernel block: V packets
  int64_t blocks, depth;
};

template <class T>
Plan plan(const Window2D& g, int64_t cout) {
  Plan p;
  p.hp = paddedSize(g.h, {g.oh, g.padTop, (g.kh - 1) * g.dh + 1}, g.sh);
  p.wp = paddedSize(g.w, {g.ow, g.padLeft, (g.kw - 1) * g.dw + 1}, g.sw);
  p.padded = p.hp != g.h || p.wp != g.w;
  p.packets = cout <= kLanes<T> ? 1 : 2;
  p.block = p.packets * kLanes<T>;
  p.blocks = (cout + p.block - 1) / p.block;
  p.depth = g.kh * g.kw * g.c;
  return p;
}

}  // namespace conv_detail

// The scratch space conv2d needs, in elements of T: the zero-padded input (when the padding
// needs one) and the kernel repacked into blocks of output channels, each 64-byte aligned.
template <class T>
int64_t conv2dWorkspaceSize(const Window2D& g, int64_t cout) {
  using namespace conv_detail;
  const Plan p = plan<T>(g, cout);
  const int64_t pad = p.padded ? p.hp * p.wp * g.c : 0;  // one image at a time
  return alignUp(pad) + alignUp(p.blocks * p.depth * p.block) + 64;
}

// y[n, oh, ow, cout] = conv(x[n, h, w, c], k[kh, kw, c, cout]) with the geometry of g.
// `workspace` holds conv2dWorkspaceSize<T>(g, cout) elements; nothing is allocated here, so
// generated code and the interpreter alike can keep one workspace across calls.
template <class T>
void conv2d(const T* x, const T* k, T* y, const Window2D& g, int64_t cout, T* workspace) {
  using namespace conv_detail;
  const int64_t pixels = g.n * g.oh * g.ow, c = g.c, taps = g.kh * g.kw;
  if (pixels == 0 || cout == 0) return;
  if (c == 0) return std::fill(y, y + pixels * cout, T(0));  // an empty sum
  if (taps == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padLeft == 0 && g.oh == g.h && g.ow == g.w)
    return gemm(x, k, y, pixels, c, cout);

  const Plan p = plan<T>(g, cout);
  T* base = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(workspace) + 63) & ~uintptr_t(63));
  T* xpad = base;
  T* wpack = base + alignUp(p.padded ? p.hp * p.wp * c : 0);

  // Image b as seen through the padding: a copy with zeros around (each element written once,
  // one image at a time so that it is still in cache when the tiles read it), or the input.
  const int64_t rowLen = p.wp * c, left = g.padLeft * c, inner = g.w * c;
  auto image = [&](int64_t b) -> const T* {
    if (!p.padded) return x + b * g.h * inner;
    for (int64_t i = 0; i < p.hp; ++i) {
      T* row = xpad + i * rowLen;
      const int64_t src = i - g.padTop;
      if (src < 0 || src >= g.h) {
        std::fill(row, row + rowLen, T(0));
        continue;
      }
      std::fill(row, row + left, T(0));
      std::memcpy(row + left, x + (b * g.h + src) * inner, size_t(inner) * sizeof(T));
      std::fill(row + left + inner, row + rowLen, T(0));
    }
    return xpad;
  };

  // Kernel blocks of `block` output channels, each [taps * c, block], the last one zero-filled.
  const int64_t block = p.block, depth = p.depth;
  for (int64_t cb = 0; cb < p.blocks; ++cb) {
    const int64_t cols = std::min(block, cout - cb * block);
    T* dst = wpack + cb * depth * block;
    for (int64_t r = 0; r < depth; ++r) {
      std::copy(k + r * cout + cb * block, k + r * cout + cb * block + cols, dst + r * block);
      std::fill(dst + r * block + cols, dst + (r + 1) * block, T(0));
    }
  }

  // Input offsets of the kernel taps. Undilated columns make a kernel row's taps one contiguous
  // run of kw * c values (matching the kernel's own order); when c is small (an RGB input layer)
  // the micro-kernel then loops over a whole kernel row rather than a few channels. Only then:
  // runs of 96+ values measured up to 1.5x slower on strided wide layers (3x3 s2 32->128).
  const bool rowRuns = g.dw == 1 && g.kw * c <= 64;
  const int64_t runs = rowRuns ? g.kh : taps, run = rowRuns ? g.kw * c : c;
  int64_t tapOff[64];  // kh * kw taps; more only for very large kernels, then row by row
  std::vector<int64_t> manyTaps;
  int64_t* off = runs <= 64 ? tapOff : (manyTaps.resize(size_t(runs)), manyTaps.data());
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < (rowRuns ? 1 : g.kw); ++kx)
      off[rowRuns ? ky : ky * g.kw + kx] = (ky * g.dh * p.wp + kx * g.dw) * c;

  // Each output row in tiles of nearly equal width (32 pixels: 8, 8, 8, 8), so that no narrow
  // remainder tile wastes the registers; a kernel block too large for L1 goes in chunks of one
  // kernel row, each chunk reused by every tile of the output row.
  const int maxPixels = p.packets == 1 ? kMaxPixels<1> : kMaxPixels<2>;
  const int64_t tiles = (g.ow + maxPixels - 1) / maxPixels;
  const bool chunked = g.kh > 1 && depth * block * int64_t(sizeof(T)) > kL1WeightBytes && cout % block == 0;
  const int64_t chunkRuns = chunked ? runs / g.kh : runs, chunks = runs / chunkRuns;
  for (int64_t b = 0; b < g.n; ++b) {
    const T* in = image(b);
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const T* row = in + oy * g.sh * rowLen;
      T* yrow = y + (b * g.oh + oy) * g.ow * cout;
      for (int64_t cb = 0; cb < p.blocks; ++cb) {
        const int64_t cols = std::min(block, cout - cb * block);
        for (int64_t ch = 0; ch < chunks; ++ch) {
          const T* w = wpack + (cb * depth + ch * chunkRuns * run) * block;
          const int64_t* chunkOff = off + ch * chunkRuns;
          for (int64_t t = 0, ox = 0; t < tiles; ++t) {
            const int width = int(g.ow / tiles + (t < g.ow % tiles ? 1 : 0));
            const T* x0 = row + ox * g.sw * c;
            T* out = yrow + ox * cout + cb * block;
            if (p.packets == 1)
              tileOf<T, 1>(width, x0, g.sw * c, chunkOff, chunkRuns, run, w, out, cout, cols, ch > 0);
            else
              tileOf<T, 2>(width, x0, g.sw * c, chunkOff, chunkRuns, run, w, out, cout, cols, ch > 0);
            ox += width;
          }
        }
      }
    }
  }
}

}  // namespace weft::rt
