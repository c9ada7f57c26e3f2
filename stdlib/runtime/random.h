// Counter-based random numbers (Philox4x32-10, Salmon et al. 2011, as in JAX, TF and cuRAND).
// Value i of a call depends only on (key, counter + i / perBlock), never on threads or call
// history, so the interpreter and generated code produce identical streams from one seed.
#ifndef WEFT_RT_RANDOM_H
#define WEFT_RT_RANDOM_H
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "scalar_math.h"

namespace weft::rt {

// One Philox4x32-10 block: 4 random words from a 128-bit counter and a 64-bit key.
inline void philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c0;
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

// Block number `block` of the stream for `key` (the high counter words are 0).
inline void randomBlock(uint64_t key, uint64_t block, uint32_t out[4]) {
  const uint32_t ctr[4] = {uint32_t(block), uint32_t(block >> 32), 0, 0};
  const uint32_t k[2] = {uint32_t(key), uint32_t(key >> 32)};
  philox4x32(ctr, k, out);
}

// 4-byte dtypes take one word per value, 8-byte dtypes (and all integers, for 53-bit
// uniforms) two.
template <class T>
constexpr int64_t valuesPerBlock() { return (sizeof(T) == 4 && std::is_floating_point_v<T>) ? 4 : 2; }

template <class T>
constexpr int64_t blocksFor(int64_t n) { return (n + valuesPerBlock<T>() - 1) / valuesPerBlock<T>(); }

inline double unit24(uint32_t w) { return double(w >> 8) * 0x1p-24; }  // [0, 1)
inline double unit53(uint32_t hi, uint32_t lo) {                        // [0, 1)
  return double(((uint64_t(hi) << 32) | lo) >> 11) * 0x1p-53;
}

// Uniform in [lo, hi) for floats; integers in [lo, hi) (the caller ensures lo < hi).
template <class T>
void uniformKernel(T* out, int64_t n, uint64_t key, uint64_t counter, double lo, double hi) {
  constexpr int64_t per = valuesPerBlock<T>();
  uint32_t w[4];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t lane = i % per;
    if (lane == 0) randomBlock(key, counter + uint64_t(i / per), w);
    if constexpr (per == 4) {
      T v = T(lo + (hi - lo) * unit24(w[lane]));
      if (v >= T(hi) && hi > lo) v = std::nextafter(T(hi), T(lo));  // rounding up to hi
      out[i] = v;
    } else if constexpr (std::is_floating_point_v<T>) {
      T v = T(lo + (hi - lo) * unit53(w[2 * lane], w[2 * lane + 1]));
      if (v >= T(hi) && hi > lo) v = std::nextafter(T(hi), T(lo));
      out[i] = v;
    } else {
      double v = std::floor(lo + (hi - lo) * unit53(w[2 * lane], w[2 * lane + 1]));
      if (v >= hi) v = hi - 1;
      out[i] = saturateCast<T>(v);
    }
  }
}

// Normal(mean, stddev) by the Box-Muller transform on pairs of uniforms, computed in double.
template <class T>
void normalKernel(T* out, int64_t n, uint64_t key, uint64_t counter, double mean, double stddev) {
  constexpr int64_t per = valuesPerBlock<T>();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  uint32_t w[4];
  double z[4];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t lane = i % per;
    if (lane == 0) {
      randomBlock(key, counter + uint64_t(i / per), w);
      for (int p = 0; p < per / 2; ++p) {
        // u1 in (0, 1] keeps log finite.
        double u1, u2;
        if constexpr (per == 4) {
          u1 = (double(w[2 * p]) + 1.0) * 0x1p-32;
          u2 = double(w[2 * p + 1]) * 0x1p-32;
        } else {
          u1 = 1.0 - unit53(w[0], w[1]);
          u2 = unit53(w[2], w[3]);
        }
        const double r = std::sqrt(-2.0 * std::log(u1));
        z[2 * p] = r * std::cos(kTwoPi * u2);
        z[2 * p + 1] = r * std::sin(kTwoPi * u2);
      }
    }
    out[i] = T(mean + stddev * z[lane]);
  }
}

// Keras' truncated normal: n standard normals (in double, from `counter`); each beyond two
// standard deviations is drawn again from the next block, one value per block, until it is
// within; then mean + stddev * z. `z` holds n doubles (it may be `out` when T is double).
// Returns the counter after the last block taken: how far the stream moved depends on the draws.
template <class T>
uint64_t truncatedNormalKernel(T* out, int64_t n, uint64_t key, uint64_t counter, double mean, double stddev, double* z) {
  normalKernel(z, n, key, counter, 0.0, 1.0);
  counter += uint64_t(blocksFor<double>(n));
  for (int64_t i = 0; i < n; ++i)
    while (std::abs(z[i]) > 2) {
      normalKernel(z + i, 1, key, counter, 0.0, 1.0);
      counter += uint64_t(blocksFor<double>(1));
    }
  for (int64_t i = 0; i < n; ++i) out[i] = T(mean + stddev * z[i]);
  return counter;
}

// The scratch truncatedNormalKernel needs for n values of an element of `elementBytes`.
inline int64_t truncatedNormalWorkspaceBytes(int64_t n, int64_t elementBytes) { return elementBytes == 8 ? 0 : n * 8; }

}  // namespace weft::rt

#endif  // WEFT_RT_RANDOM_H
