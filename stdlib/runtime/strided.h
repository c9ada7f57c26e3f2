// Broadcasting and strided iteration shared by the elementwise, copy and layout kernels.
// A loop walks a contiguous row-major output while N inputs follow their own strides; size-1
// dimensions are dropped and dimensions contiguous in every input are merged, so that the
// innermost loop is as long as possible (same-shape operands become one flat loop).
#ifndef WEFT_RT_STRIDED_H
#define WEFT_RT_STRIDED_H
#include <algorithm>
#include <cstdint>

#include "shape.h"
#include "thread_pool.h"

namespace weft::rt {

// NumPy broadcasting of two shapes into `out`; false if they are incompatible.
inline bool broadcastShapes(const Shape& a, const Shape& b, Shape& out) {
  int r = a.rank() > b.rank() ? a.rank() : b.rank();
  Shape s;
  for (int i = 0; i < r; ++i) {
    int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    s.push_back(da == 1 ? db : da);
  }
  out = s;
  return true;
}

// Strides (in elements) of `in` read as if broadcast to `out`: 0 along broadcast dimensions.
// `in` must broadcast to `out`.
inline void broadcastStrides(const Shape& in, const Shape& out, int64_t* strides) {
  int shift = out.rank() - in.rank();
  int64_t acc = 1;
  for (int i = out.rank() - 1; i >= 0; --i) {
    int j = i - shift;
    if (j < 0 || in[j] == 1) {
      strides[i] = 0;
    } else {
      strides[i] = acc;
      acc *= in[j];
    }
  }
}

template <int N>
struct StridedLoop {
  int rank = 0;  // after collapsing; 0 means a single element
  int64_t dims[kMaxRank];
  int64_t strides[N][kMaxRank];

  int64_t inner() const { return rank ? dims[rank - 1] : 1; }
  int64_t innerStride(int k) const { return rank ? strides[k][rank - 1] : 0; }
};

// Builds the collapsed loop over `shape` for N operands with the given per-dimension strides.
template <int N>
StridedLoop<N> makeLoop(const Shape& shape, const int64_t* const* strides) {
  StridedLoop<N> L;
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    if (L.rank > 0) {
      int p = L.rank - 1;
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (L.strides[k][p] != strides[k][d] * shape[d]) merge = false;
      if (merge) {
        L.dims[p] *= shape[d];
        for (int k = 0; k < N; ++k) L.strides[k][p] = strides[k][d];
        continue;
      }
    }
    L.dims[L.rank] = shape[d];
    for (int k = 0; k < N; ++k) L.strides[k][L.rank] = strides[k][d];
    ++L.rank;
  }
  return L;
}

// Calls row(offsets[N], rowIndex) for every position of the dimensions [0, upTo) of L, in
// row-major order within blocks of rows that share out on the thread pool (row() writes only its
// own row); offsets are the operands' element offsets at that position.
template <int N, class F>
void forEachOuter(const StridedLoop<N>& L, int upTo, F&& row) {
  int64_t count = 1, rowLength = 1;
  for (int d = 0; d < upTo; ++d) count *= L.dims[d];
  for (int d = upTo; d < L.rank; ++d) rowLength *= L.dims[d];
  const int64_t per = std::max<int64_t>(1, kElementwiseBlock / std::max<int64_t>(1, rowLength));
  parallelFor(chunkCount(count, per), [&](int64_t chunk, int) {
    int64_t off[N] = {};
    int64_t idx[kMaxRank] = {};
    const int64_t first = chunk * per, end = std::min(count, first + per);
    for (int64_t d = upTo - 1, rest = first; d >= 0; rest /= L.dims[d], --d) {
      idx[d] = rest % L.dims[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * L.strides[k][d];
    }
    for (int64_t r = first; r < end; ++r) {
      row(static_cast<const int64_t*>(off), r);
      for (int d = upTo - 1; d >= 0; --d) {
        for (int k = 0; k < N; ++k) off[k] += L.strides[k][d];
        if (++idx[d] < L.dims[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= L.strides[k][d] * L.dims[d];
        idx[d] = 0;
      }
    }
  });
}

// Calls row(offsets[N], outOffset) for every innermost row of L; the output is contiguous, so
// row r starts at r * L.inner().
template <int N, class F>
void forEachRow(const StridedLoop<N>& L, F&& row) {
  int64_t inner = L.inner();
  int outer = L.rank ? L.rank - 1 : 0;
  forEachOuter(L, outer, [&](const int64_t* off, int64_t r) { row(off, r * inner); });
}

}  // namespace weft::rt

#endif  // WEFT_RT_STRIDED_H
