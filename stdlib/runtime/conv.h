// 2-D convolution, NHWC input and HWIO kernel (Keras' layouts), for f32 and f64.
// Method: a direct convolution with a register-blocked micro-kernel (GEMM-like, no im2col).
// For one output row, a tile of P adjacent output pixels times V SIMD packets of output channels
// is held in P*V accumulators; each input value is broadcast once and multiplied into V packets
// of the kernel. The kernel is repacked per block of V packets of output channels so that the
// micro-kernel streams it contiguously, and the input is copied once into a zero-padded buffer
// when "same" padding needs it, so the inner loops never test bounds.
// 3x3, stride-1, undilated kernels with 16+ input and output channels use Winograd F(2x2, 3x3)
// instead (conv2dWinograd): 2.25x fewer multiplications, done by the same micro-kernel.
// A 1x1, stride-1, unpadded convolution is a plain GEMM on the input (matmul.h).
#ifndef WEFT_RT_CONV_H
#define WEFT_RT_CONV_H
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "instances.h"
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
      std::copy(tmp, tmp + std::min<int64_t>(cols, V * L), out + p * outStride);  // cols < V * L
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


// Winograd F(2x2, 3x3) for 3x3, stride-1, undilated kernels over enough channels: each 2x2 block
// of output pixels is computed from a 4x4 block of input as Y = A^T [(G g G^T) . (B^T d B)] A,
// summed over input channels. The elementwise product becomes 16 matrix products [tiles, c] x
// [c, cout] (one per position of the 4x4 transformed tile), done by the micro-kernel above: 16
// multiplications per 4 outputs where the direct sum takes 36, so 2.25x fewer. The transforms
// only add and subtract (and halve, for the kernel); the rounding error stays within a few ulps
// of the direct sum's for f32 (the unit tests compare both with a double-precision loop).
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// Tiles are taken in chunks of `chunk` (across rows and images): transform a chunk's input into
// v[16][chunk][c], multiply into m[16][chunk][kpad], transform m into the output.

inline bool winograd(const Window2D& g, int64_t cout) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.c >= 16 && cout >= 16 &&
         g.oh >= 2 && g.ow >= 2;
}

struct WinoPlan {
  int64_t th, tw, tiles;  // 2x2 output tiles per column, per row, in all
  int64_t chunk;          // tiles transformed and multiplied together
  int64_t packets, block, blocks, kpad;
};

template <class T>
WinoPlan winoPlan(const Window2D& g, int64_t cout) {
  WinoPlan p;
  p.th = (g.oh + 1) / 2, p.tw = (g.ow + 1) / 2, p.tiles = g.n * p.th * p.tw;
  p.packets = cout <= kLanes<T> ? 1 : 2;
  p.block = p.packets * kLanes<T>;
  p.blocks = (cout + p.block - 1) / p.block;
  p.kpad = p.blocks * p.block;
  // Up to 4 micro-kernel tiles' worth, with v and m together within ~256 KB (L2).
  const int64_t maxPixels = p.packets == 1 ? kMaxPixels<1> : kMaxPixels<2>;
  const int64_t fit = (256 * 1024 / int64_t(sizeof(T))) / (16 * (g.c + p.kpad));
  p.chunk = std::max<int64_t>(1, std::min<int64_t>(4, fit / maxPixels)) * maxPixels;
  return p;
}

template <class T>
int64_t winoWorkspaceSize(const Window2D& g, int64_t cout) {
  const WinoPlan p = winoPlan<T>(g, cout);
  return alignUp(16 * g.c * p.kpad) + alignUp(16 * p.chunk * g.c) + alignUp(16 * p.chunk * p.kpad) + 64;
}

// u[((xi * blocks + cb) * c + ci) * block + j] = (G g G^T)[xi] of filter (ci, cb * block + j),
// zero past cout: the layout the micro-kernel streams.
template <class T>
void winoKernel(const T* k, int64_t c, int64_t cout, const WinoPlan& p, T* u) {
  const T half(0.5);
  const int64_t block = p.block;
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t cb = 0; cb < p.blocks; ++cb) {
      const int64_t co0 = cb * block, cols = std::min(block, cout - co0);
      T* dst[16];
      for (int xi = 0; xi < 16; ++xi) {
        dst[xi] = u + ((xi * p.blocks + cb) * c + ci) * block;
        std::fill(dst[xi] + cols, dst[xi] + block, T(0));
      }
      const T* g = k + ci * cout + co0;  // tap (ky, kx) at g[(ky * 3 + kx) * c * cout]
      const int64_t tap = c * cout;
      // In packets of output channels, then one channel at a time.
      auto channels = [&](auto lane, int64_t j) {
        using Pk = decltype(lane);
        const Pk hf = ei::pset1<Pk>(half);
        Pk h[4][3];
        for (int kx = 0; kx < 3; ++kx) {
          const Pk g0 = ei::ploadu<Pk>(g + kx * tap + j), g1 = ei::ploadu<Pk>(g + (3 + kx) * tap + j),
                   g2 = ei::ploadu<Pk>(g + (6 + kx) * tap + j);
          h[0][kx] = g0;
          h[1][kx] = ei::pmul(ei::padd(ei::padd(g0, g1), g2), hf);
          h[2][kx] = ei::pmul(ei::padd(ei::psub(g0, g1), g2), hf);
          h[3][kx] = g2;
        }
        for (int i = 0; i < 4; ++i) {
          ei::pstoreu(dst[i * 4 + 0] + j, h[i][0]);
          ei::pstoreu(dst[i * 4 + 1] + j, ei::pmul(ei::padd(ei::padd(h[i][0], h[i][1]), h[i][2]), hf));
          ei::pstoreu(dst[i * 4 + 2] + j, ei::pmul(ei::padd(ei::psub(h[i][0], h[i][1]), h[i][2]), hf));
          ei::pstoreu(dst[i * 4 + 3] + j, h[i][2]);
        }
      };
      int64_t j = 0;
      for (; j + kLanes<T> <= cols; j += kLanes<T>) channels(Packet<T>(), j);
      for (; j < cols; ++j) channels(T(), j);
    }
}

// v[xi * vStride] = (B^T d B)[xi] for the 4x4 input block at (y0, x0) of image b, channels
// [c0, c0 + lanes of Pk); rows and columns outside the image read as zeros.
template <class T, class Pk>
inline void winoInput(const T* x, const Window2D& g, int64_t b, int64_t y0, int64_t x0, int64_t c0, T* v,
                      int64_t vStride) {
  Pk e[4][4];
  _Pragma("GCC unroll 4")
  for (int r = 0; r < 4; ++r) {
    const int64_t iy = y0 + r;
    Pk d[4];
    if (iy < 0 || iy >= g.h) {
      for (int s = 0; s < 4; ++s) d[s] = ei::pset1<Pk>(T(0));
    } else {
      const T* row = x + (b * g.h + iy) * g.w * g.c + c0;
      _Pragma("GCC unroll 4")
      for (int s = 0; s < 4; ++s) {
        const int64_t ix = x0 + s;
        d[s] = ix >= 0 && ix < g.w ? ei::ploadu<Pk>(row + ix * g.c) : ei::pset1<Pk>(T(0));
      }
    }
    e[r][0] = ei::psub(d[0], d[2]);
    e[r][1] = ei::padd(d[1], d[2]);
    e[r][2] = ei::psub(d[2], d[1]);
    e[r][3] = ei::psub(d[1], d[3]);
  }
  _Pragma("GCC unroll 4")
  for (int j = 0; j < 4; ++j) {
    ei::pstoreu(v + (0 * 4 + j) * vStride, ei::psub(e[0][j], e[2][j]));
    ei::pstoreu(v + (1 * 4 + j) * vStride, ei::padd(e[1][j], e[2][j]));
    ei::pstoreu(v + (2 * 4 + j) * vStride, ei::psub(e[2][j], e[1][j]));
    ei::pstoreu(v + (3 * 4 + j) * vStride, ei::psub(e[1][j], e[3][j]));
  }
}

// The 2x2 outputs A^T m A of one tile for one packet of output channels: y2[a][bcol] into `out`
// (a [2][2][lanes] block).
template <class T>
inline void winoOutput(const T* m, int64_t mStride, T* out) {
  using Pk = Packet<T>;
  constexpr int L = kLanes<T>;
  Pk f[4][2];
  _Pragma("GCC unroll 4")
  for (int i = 0; i < 4; ++i) {
    const Pk m0 = ei::ploadu<Pk>(m + (i * 4 + 0) * mStride), m1 = ei::ploadu<Pk>(m + (i * 4 + 1) * mStride);
    const Pk m2 = ei::ploadu<Pk>(m + (i * 4 + 2) * mStride), m3 = ei::ploadu<Pk>(m + (i * 4 + 3) * mStride);
    f[i][0] = ei::padd(ei::padd(m0, m1), m2);
    f[i][1] = ei::psub(ei::psub(m1, m2), m3);
  }
  for (int bc = 0; bc < 2; ++bc) {
    ei::pstore(out + (0 * 2 + bc) * L, ei::padd(ei::padd(f[0][bc], f[1][bc]), f[2][bc]));
    ei::pstore(out + (1 * 2 + bc) * L, ei::psub(ei::psub(f[1][bc], f[2][bc]), f[3][bc]));
  }
}

template <class T>
void conv2dWinograd(const T* x, const T* k, T* y, const Window2D& g, int64_t cout, T* base) {
  constexpr int L = kLanes<T>;
  const WinoPlan p = winoPlan<T>(g, cout);
  const int64_t c = g.c, chunk = p.chunk, kpad = p.kpad;
  T* u = base;
  winoKernel(k, c, cout, p, u);

  const int maxPixels = p.packets == 1 ? kMaxPixels<1> : kMaxPixels<2>;
  const int64_t zero = 0, perImage = p.th * p.tw;
  // Chunks of tiles on the thread pool, each thread with its own v and m (a chunk's outputs
  // depend on that chunk alone).
  const int64_t scratch = alignUp(16 * chunk * c) + alignUp(16 * chunk * kpad);
  ThreadPool* pool = currentPool();
  parallelFor(chunkCount(p.tiles, chunk), [&](int64_t ci, int worker) {
    T* v = worker == 0 ? u + alignUp(16 * c * kpad)
                       : reinterpret_cast<T*>(pool->scratch(worker).data());
    T* m = v + alignUp(16 * chunk * c);
    const int64_t t0 = ci * chunk, nt = std::min(chunk, p.tiles - t0);
    // Input transform: v[xi][r][c].
    for (int64_t r = 0; r < nt; ++r) {
      const int64_t t = t0 + r, b = t / perImage, ty = t % perImage / p.tw, tx = t % p.tw;
      const int64_t y0 = 2 * ty - g.padTop, x0 = 2 * tx - g.padLeft;
      int64_t c0 = 0;
      for (; c0 + L <= c; c0 += L) winoInput<T, Packet<T>>(x, g, b, y0, x0, c0, v + r * c + c0, chunk * c);
      for (; c0 < c; ++c0) winoInput<T, T>(x, g, b, y0, x0, c0, v + r * c + c0, chunk * c);
    }
    // 16 products [nt, c] x [c, kpad] -> m[xi][r][kpad], in micro-kernel tiles of near-equal width.
    const int64_t parts = (nt + maxPixels - 1) / maxPixels;
    for (int xi = 0; xi < 16; ++xi)
      for (int64_t cb = 0; cb < p.blocks; ++cb) {
        const T* w = u + (xi * p.blocks + cb) * c * p.block;
        for (int64_t part = 0, r0 = 0; part < parts; ++part) {
          const int width = int(nt / parts + (part < nt % parts ? 1 : 0));
          const T* a = v + (xi * chunk + r0) * c;
          T* out = m + (xi * chunk + r0) * kpad + cb * p.block;
          if (p.packets == 1)
            tileOf<T, 1>(width, a, c, &zero, 1, c, w, out, kpad, p.block, false);
          else
            tileOf<T, 2>(width, a, c, &zero, 1, c, w, out, kpad, p.block, false);
          r0 += width;
        }
      }
    // Output transform, dropping the outputs of odd-sized edges.
    for (int64_t r = 0; r < nt; ++r) {
      const int64_t t = t0 + r, b = t / perImage, ty = t % perImage / p.tw, tx = t % p.tw;
      const int64_t oy = 2 * ty, ox = 2 * tx;
      const int rows = oy + 1 < g.oh ? 2 : 1, cols = ox + 1 < g.ow ? 2 : 1;
      for (int64_t k0 = 0; k0 < cout; k0 += L) {
        alignas(64) T out[4 * L];
        winoOutput<T>(m + r * kpad + k0, chunk * kpad, out);
        const int64_t lanes = std::min<int64_t>(L, cout - k0);
        for (int a = 0; a < rows; ++a)
          for (int bc = 0; bc < cols; ++bc) {
            T* dst = y + ((b * g.oh + oy + a) * g.ow + ox + bc) * cout + k0;
            if (lanes == L) ei::pstoreu(dst, ei::pload<Packet<T>>(out + (a * 2 + bc) * L));
            else std::copy(out + (a * 2 + bc) * L, out + (a * 2 + bc) * L + lanes, dst);
          }
      }
    }
  }, size_t(scratch) * sizeof(T));
}

}  // namespace conv_detail

// The scratch space conv2d needs, in elements of T: the zero-padded input (when the padding
// needs one) and the kernel repacked into blocks of output channels, each 64-byte aligned.
template <class T>
int64_t conv2dWorkspaceSize(const Window2D& g, int64_t cout) {
  using namespace conv_detail;
  if (winograd(g, cout)) return winoWorkspaceSize<T>(g, cout);
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

  T* base = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(workspace) + 63) & ~uintptr_t(63));
  if (winograd(g, cout)) return conv2dWinograd(x, k, y, g, cout, base);
  const Plan p = plan<T>(g, cout);
  T* wpack = base + alignUp(p.padded ? p.hp * p.wp * c : 0);

  // Image b as seen through the padding: a copy with zeros around in xpad (each element written
  // once, one image at a time so that it is still in cache when the tiles read it), or the input.
  const int64_t rowLen = p.wp * c, left = g.padLeft * c, inner = g.w * c;
  auto image = [&](int64_t b, T* xpad) -> const T* {
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
  auto rows = [&](int64_t b, const T* in, int64_t from, int64_t to) {
    for (int64_t oy = from; oy < to; ++oy) {
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
  };
  // Each output row's values depend on the row alone: images share out on the thread pool, each
  // thread padding into a copy of its own; a single image shares out its rows.
  if (g.n == 1) {
    const T* in = image(0, base);
    const int64_t per = std::max<int64_t>(1, (g.oh + 15) / 16);
    return parallelFor(chunkCount(g.oh, per), [&](int64_t r, int) { rows(0, in, r * per, std::min(g.oh, (r + 1) * per)); });
  }
  const size_t padBytes = size_t(alignUp(p.padded ? p.hp * p.wp * c : 0)) * sizeof(T);
  ThreadPool* pool = currentPool();
  parallelFor(g.n, [&](int64_t b, int worker) {
    T* xpad = worker == 0 || !p.padded ? base : reinterpret_cast<T*>(pool->scratch(worker).data());
    rows(b, image(b, xpad), 0, g.oh);
  }, padBytes);
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(void conv2d<float>(const float*, const float*, float*, const Window2D&, int64_t, float*))

}  // namespace weft::rt

#endif  // WEFT_RT_CONV_H
