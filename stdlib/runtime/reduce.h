// Reductions. The input's dimensions are collapsed into alternating kept/reduced blocks; each
// reduced block is one [outer, reduce, inner] pass: inner == 1 reduces contiguous rows (Eigen's
// vectorised redux, or a pairwise sum), otherwise whole rows are combined elementwise (vectorised
// too). Several reduced blocks run as successive passes (all reducers are associative).
// Float sums are pairwise (NumPy's algorithm) in both forms, so a sum of n values is off by
// O(log n) roundings rather than O(n): a million f32 0.1s sum to within 1e-6 relative.
#ifndef WEFT_RT_REDUCE_H
#define WEFT_RT_REDUCE_H
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "instances.h"
#include "scalar_math.h"
#include "shape.h"
#include "thread_pool.h"

namespace weft::rt {

template <class T>
using ArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// NumPy's pairwise_sum: blocks of up to 128 values are summed in 8 independent lanes (which the
// compiler vectorises), and blocks are combined in a binary tree.
template <class T>
T pairwiseSum(const T* x, int64_t n) {
  if (n < 8) {
    T s = n > 0 ? x[0] : T(0);  // from the first value, so that a sum of -0.0 is -0.0
    for (int64_t i = 1; i < n; ++i) s += x[i];
    return s;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = x[j];
    int64_t i = 8;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += x[i + j];
    T s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += x[i];
    return s;
  }
  int64_t h = n / 2;
  h -= h % 8;
  return pairwiseSum(x, h) + pairwiseSum(x + h, n - h);
}

// dst[i] = sum over r < R of src[r * stride + i] for i < I, pairwise over r (halves summed apart,
// then added); each column's sum is the same whatever I. `tmp` has room for I values per level
// of the tree: I * (1 + log2(R)).
template <class T>
void pairwiseSumRows(const T* src, int64_t R, int64_t I, T* dst, T* tmp, int64_t stride) {
  if (R <= 8) {
    std::memcpy(dst, src, size_t(I) * sizeof(T));
    for (int64_t r = 1; r < R; ++r)
      for (int64_t i = 0; i < I; ++i) dst[i] += src[r * stride + i];
    return;
  }
  int64_t h = R / 2;
  pairwiseSumRows(src, h, I, dst, tmp + I, stride);
  pairwiseSumRows(src + h * stride, R - h, I, tmp, tmp + I, stride);
  for (int64_t i = 0; i < I; ++i) dst[i] += tmp[i];
}

struct SumR {
  template <class T> static T init() { return T(0); }
  template <class T> static T combine(T a, T b) { return wrapAdd(a, b); }
  template <class T> static T row(const T* x, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) return pairwiseSum(x, n);
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s = wrapAdd(s, x[i]);
    return s;
  }
};
struct ProdR {
  template <class T> static T init() { return T(1); }
  template <class T> static T combine(T a, T b) { return wrapMul(a, b); }
  template <class T> static T row(const T* x, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) return ArrayMap<T>(x, n).prod();
    T s = 1;
    for (int64_t i = 0; i < n; ++i) s = wrapMul(s, x[i]);
    return s;
  }
};
// Max/Min propagate NaN and order -0.0 below 0.0 as maximum/minimum do (scalar_math.h); callers
// rule out empty reductions. Eigen's vectorised max of a row returns whichever zero its lanes
// met last, so a zero result is settled by the row's zeros.
template <class T>
T zeroOfMax(const T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (x[i] == 0 && !std::signbit(x[i])) return T(0);
  return -T(0);
}
template <class T>
T zeroOfMin(const T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (x[i] == 0 && std::signbit(x[i])) return -T(0);
  return T(0);
}
struct MaxR {
  template <class T> static T init() { return std::numeric_limits<T>::lowest(); }
  template <class T> static T combine(T a, T b) { return maxOf(a, b); }
  template <class T> static T row(const T* x, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      T m = ArrayMap<T>(x, n).template maxCoeff<Eigen::PropagateNaN>();
      return m == 0 ? zeroOfMax(x, n) : m;
    }
    T s = x[0];
    for (int64_t i = 1; i < n; ++i) s = combine(s, x[i]);
    return s;
  }
};
struct MinR {
  template <class T> static T init() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  template <class T> static T combine(T a, T b) { return minOf(a, b); }
  template <class T> static T row(const T* x, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      T m = ArrayMap<T>(x, n).template minCoeff<Eigen::PropagateNaN>();
      return m == 0 ? zeroOfMin(x, n) : m;
    }
    T s = x[0];
    for (int64_t i = 1; i < n; ++i) s = combine(s, x[i]);
    return s;
  }
};
struct AnyR {
  template <class T> static T init() { return false; }
  template <class T> static T combine(T a, T b) { return a || b; }
  template <class T> static T row(const T* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (x[i]) return true;
    return false;
  }
};
struct AllR {
  template <class T> static T init() { return true; }
  template <class T> static T combine(T a, T b) { return a && b; }
  template <class T> static T row(const T* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (!x[i]) return false;
    return true;
  }
};

// out[o, i] = reduce over r of in[o, r, i]. `tmp`: I * (levels of the pairwise sum) values, or null.
// Each o is reduced alone, in the same order at any thread count: blocks of o share out on the
// thread pool (each thread with partial rows of its own) when there is enough to share.
template <class Red, class T>
void reduceORI(const T* in, T* out, int64_t O, int64_t R, int64_t I, T* tmp = nullptr) {
  if (I == 1) {
    if (R == 0) {
      for (int64_t o = 0; o < O; ++o) out[o] = Red::template init<T>();
      return;
    }
    const int64_t per = std::max<int64_t>(1, kElementwiseBlock / R);
    parallelRange(O, per, [&](int64_t from, int64_t to) {
      for (int64_t o = from; o < to; ++o) out[o] = Red::row(in + o * R, R);
    });
    return;
  }
  int levels = 1;
  for (int64_t r = R; r > 8; r = (r + 1) / 2) ++levels;
  constexpr bool pairwise = std::is_same_v<Red, SumR> && std::is_floating_point_v<T>;
  // Columns [i0, i0 + w) of output o; each column is reduced alone, in the same order whatever
  // the blocks.
  auto reduceColumns = [&](int64_t o, int64_t i0, int64_t w, T* partial) {
    T* dst = out + o * I + i0;
    const T* src = in + o * R * I + i0;
    if (R == 0) {
      for (int64_t i = 0; i < w; ++i) dst[i] = Red::template init<T>();
      return;
    }
    if constexpr (pairwise) {
      pairwiseSumRows(src, R, w, dst, partial, I);
      return;
    }
    std::memcpy(dst, src, size_t(w) * sizeof(T));
    for (int64_t r = 1; r < R; ++r) {
      const T* row = src + r * I;
      for (int64_t i = 0; i < w; ++i) dst[i] = Red::combine(dst[i], row[i]);
    }
  };
  std::unique_ptr<T[]> own;  // the pairwise sum's partial rows, when no workspace was given
  if (pairwise && !tmp) {
    own.reset(new T[size_t(I * levels)]);
    tmp = own.get();
  }
  // Blocks of whole outputs when there are enough of them, else blocks of each one's columns
  // (a bias's gradient: one output of 512 columns over the batch), on the thread pool: at least
  // 64 columns each, or the pairwise sum's short row loops cost more than the sums.
  const int64_t width = O >= 16 ? I : std::min(I, std::max<int64_t>(64, kElementwiseBlock / std::max<int64_t>(1, R)) / 16 * 16);
  const int64_t columnBlocks = chunkCount(I, width);
  const int64_t per = width < I ? 1 : std::max<int64_t>(1, kElementwiseBlock / std::max<int64_t>(1, R * I));
  const size_t partialBytes = size_t(width * levels) * sizeof(T);
  ThreadPool* pool = currentPool();
  parallelFor(chunkCount(O * columnBlocks, per), [&](int64_t chunk, int worker) {
    T* partial = tmp;
    if (pairwise && worker != 0) partial = reinterpret_cast<T*>(pool->scratch(worker).data());
    for (int64_t item = chunk * per; item < std::min(O * columnBlocks, (chunk + 1) * per); ++item) {
      const int64_t o = item / columnBlocks, i0 = item % columnBlocks * width;
      reduceColumns(o, i0, std::min(width, I - i0), partial);
    }
  }, pairwise ? partialBytes : 0);
}

// The workspace reduceKernel may use, in values: two intermediate results (each at most half the
// input) and the pairwise sum's partial rows (at most the input).
inline int64_t reduceWorkspaceElements(int64_t numel) { return 2 * numel + 64; }
// A reduction's whole workspace, for `numel` input values of `valueBytes` each (the result's
// dtype): first the input cast to that dtype (sum of bools, mean of integers), 64-byte aligned,
// then reduceKernel's values.
inline int64_t reduceCastBytes(int64_t numel, int64_t valueBytes) { return (numel * valueBytes + 63) / 64 * 64; }
inline int64_t reduceWorkspaceBytes(int64_t numel, int64_t valueBytes) {
  return reduceCastBytes(numel, valueBytes) + reduceWorkspaceElements(numel) * valueBytes;
}

// Reduces `in` (shape `shape`) over the dimensions with reduced[d] set into contiguous `out`
// (the kept dimensions in order). Reductions with no elements give the reducer's identity.
// `workspace` holds reduceWorkspaceElements(numel) values, or is null: then they are allocated.
template <class Red, class T>
void reduceKernel(const T* in, const Shape& shape, const bool* reduced, T* out, T* workspace = nullptr) {
  // Collapse into alternating blocks, skipping size-1 dimensions.
  int nb = 0;
  int64_t dims[kMaxRank];
  bool red[kMaxRank];
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    if (nb > 0 && red[nb - 1] == reduced[d]) {
      dims[nb - 1] *= shape[d];
    } else {
      dims[nb] = shape[d];
      red[nb++] = reduced[d];
    }
  }
  int64_t total = shape.numel();
  if (nb == 0 || (nb == 1 && !red[0]) || total == 0) {
    // Nothing to combine (every reduction has one element), or no elements at all.
    int64_t outN = 1;
    for (int d = 0; d < shape.rank(); ++d)
      if (!reduced[d]) outN *= shape[d];
    if (total == 0) {
      for (int64_t i = 0; i < outN; ++i) out[i] = Red::template init<T>();
    } else {
      std::memcpy(out, in, size_t(outN) * sizeof(T));
    }
    return;
  }
  // Reduce the innermost reduced block first; intermediate results go to scratch buffers.
  std::unique_ptr<T[]> scratch[2];
  const int64_t half = (total + 1) / 2;
  const T* src = in;
  int pass = 0;
  while (true) {
    int b = nb - 1;
    while (!red[b]) --b;
    int64_t O = 1, I = 1;
    for (int i = 0; i < b; ++i) O *= dims[i];
    for (int i = b + 1; i < nb; ++i) I *= dims[i];
    bool last = true;
    for (int i = 0; i < b; ++i)
      if (red[i]) last = false;
    T* dst = out;
    if (!last) {
      if (workspace) {
        dst = workspace + (pass % 2) * half;
      } else {
        scratch[pass % 2].reset(new T[size_t(O * I)]);
        dst = scratch[pass % 2].get();
      }
    }
    reduceORI<Red>(src, dst, O, dims[b], I, workspace ? workspace + 2 * half : nullptr);
    if (last) return;
    // Drop block b and merge its neighbours if both are kept.
    for (int i = b; i + 1 < nb; ++i) dims[i] = dims[i + 1], red[i] = red[i + 1];
    --nb;
    if (b > 0 && b < nb && !red[b - 1] && !red[b]) {
      dims[b - 1] *= dims[b];
      for (int i = b; i + 1 < nb; ++i) dims[i] = dims[i + 1], red[i] = red[i + 1];
      --nb;
    }
    src = dst;
    ++pass;
  }
}

// A mean from a sum: divided (not multiplied by 1/count) to match NumPy; an empty mean is 0/0 = nan.
template <class T>
void meanFromSum(T* p, int64_t n, int64_t count) {
  const T c = T(count);
  for (int64_t i = 0; i < n; ++i) p[i] /= c;
}

// The mean of integers or bools, R the result's dtype (f32 for i32 and bool, f64 for i64): summed
// and divided in f64, then rounded once to R. i32 values and their sums (up to 2^53) are exact in
// f64, so mean(tensor([16777217, 1, 0, 0])) is 4194304.5, where a sum in f32 would give 4194304.0;
// i64 values round to f64 first, as in NumPy. `workspace` holds intMeanWorkspaceElements(numel)
// values, or is null: then they are allocated. outN values go to out, each the mean of `count`.
inline int64_t intMeanWorkspaceElements(int64_t numel) { return 2 * numel + reduceWorkspaceElements(numel); }
template <class S, class R>
void intMeanKernel(const S* in, const Shape& shape, const bool* reduced, R* out, int64_t outN, int64_t count,
                   double* workspace = nullptr) {
  const int64_t n = shape.numel();
  std::unique_ptr<double[]> own;
  if (!workspace) {
    own.reset(new double[size_t(intMeanWorkspaceElements(n))]);
    workspace = own.get();
  }
  double* values = workspace;
  double* sums = workspace + n;
  for (int64_t i = 0; i < n; ++i) values[i] = double(in[i]);
  reduceKernel<SumR>(values, shape, reduced, sums, sums + n);
  const double c = double(count);
  for (int64_t i = 0; i < outN; ++i) out[i] = R(sums[i] / c);
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(float pairwiseSum<float>(const float*, int64_t))

}  // namespace weft::rt

#endif  // WEFT_RT_REDUCE_H
