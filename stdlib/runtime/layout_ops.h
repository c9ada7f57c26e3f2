// Layout kernels that move whole blocks: concat / split along an axis, gather (take), one_hot.
// Each views its tensors as [outer, axis, inner] so that the work is a sequence of memcpy calls.
// Transpose, slicing and broadcast_to are strided copies (copy.h).
#ifndef WEFT_RT_LAYOUT_OPS_H
#define WEFT_RT_LAYOUT_OPS_H
#include <cstdint>
#include <cstring>
#include <string>

namespace weft::rt {

// Appends, for each outer index, the chunks of every input: input j contributes chunks[j]
// contiguous elements per outer index (its axis length times inner).
template <class T>
void concatKernel(const T* const* inputs, const int64_t* chunks, int count, int64_t outer, T* out) {
  for (int64_t o = 0; o < outer; ++o)
    for (int j = 0; j < count; ++j) {
      std::memcpy(out, inputs[j] + o * chunks[j], size_t(chunks[j]) * sizeof(T));
      out += chunks[j];
    }
}

// The inverse of concat for one output: per outer index, `chunk` elements starting at `offset`
// within the input's `total` elements.
template <class T>
void splitKernel(const T* in, int64_t outer, int64_t total, int64_t offset, int64_t chunk, T* out) {
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + o * chunk, in + o * total + offset, size_t(chunk) * sizeof(T));
}

// The first of nidx indices outside [-n, n) (a gather's bounds), or outside [0, n) for `ids`
// (an embedding's, where -1 is no row), as an error text, or "".
template <class Idx>
std::string gatherIndexError(const Idx* idx, int64_t nidx, int64_t n, int axis, bool ids = false) {
  const int64_t low = ids ? 0 : -n;
  for (int64_t j = 0; j < nidx; ++j)
    if (int64_t(idx[j]) < low || int64_t(idx[j]) >= n)
      return "index " + std::to_string(int64_t(idx[j])) + " is out of range for axis " + std::to_string(axis);
  return "";
}

// out[o, j, i] = in[o, idx[j], i] with in viewed as [outer, n, inner]. Indices must be in
// [-n, n) (gatherIndexError); negative ones count from the end.
template <class T, class Idx>
void gatherKernel(const T* in, int64_t outer, int64_t n, int64_t inner, const Idx* idx,
                  int64_t nidx, T* out) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* src = in + o * n * inner;
    for (int64_t j = 0; j < nidx; ++j) {
      int64_t k = int64_t(idx[j]);
      if (k < 0) k += n;
      const T* row = src + k * inner;
      if (inner == 1) {
        *out++ = *row;
      } else {
        std::memcpy(out, row, size_t(inner) * sizeof(T));
        out += inner;
      }
    }
  }
}

// out[j, :] is 1 at idx[j] and 0 elsewhere; an index outside [0, depth) gives a zero row
// (TensorFlow's rule).
template <class T, class Idx>
void oneHotKernel(const Idx* idx, int64_t n, int64_t depth, T* out) {
  for (int64_t j = 0; j < n; ++j) {
    T* row = out + j * depth;
    for (int64_t d = 0; d < depth; ++d) row[d] = T(0);
    int64_t k = int64_t(idx[j]);
    if (k >= 0 && k < depth) row[k] = T(1);
  }
}

}  // namespace weft::rt

#endif  // WEFT_RT_LAYOUT_OPS_H
