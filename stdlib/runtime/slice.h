// Python's slice.indices(n) for one range subscript: the interpreter's indexing and generated
// code (for sizes known only at run time) clamp a slice the same way.
#pragma once
#include <cstdint>

namespace weft::rt {

struct SliceRange {
  int64_t start = 0, step = 1, count = 0;  // the first index, the step, how many are selected
};

// `step` is not zero (the caller refuses that). Steps beyond +-2^62 change nothing and are
// clamped, so that no arithmetic overflows.
inline SliceRange sliceRange(int64_t n, bool hasStart, int64_t start, bool hasStop, int64_t stop, int64_t step) {
  const int64_t big = int64_t(1) << 62;
  step = step > big ? big : (step < -big ? -big : step);
  const int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clamp = [&](bool has, int64_t i, int64_t dflt) {
    if (!has) return dflt;
    if (i < 0) {
      i += n;
      return i < lower ? lower : i;
    }
    return i > upper ? upper : i;
  };
  SliceRange r;
  r.step = step;
  r.start = clamp(hasStart, start, step > 0 ? lower : upper);
  const int64_t end = clamp(hasStop, stop, step > 0 ? upper : lower);
  if (step > 0) r.count = r.start < end ? (end - r.start - 1) / step + 1 : 0;
  else r.count = end < r.start ? (r.start - end - 1) / (-step) + 1 : 0;
  return r;
}

// The count and the first index of a range, as generated code computes sizes known only when it
// runs (the interpreter's inference names these); the first index is 0 when nothing is selected,
// so that an offset stays inside the tensor.
inline int64_t sliceCount(int64_t n, bool hasStart, int64_t start, bool hasStop, int64_t stop, int64_t step) {
  return sliceRange(n, hasStart, start, hasStop, stop, step).count;
}
inline int64_t sliceFirst(int64_t n, bool hasStart, int64_t start, bool hasStop, int64_t stop, int64_t step) {
  const SliceRange r = sliceRange(n, hasStart, start, hasStop, stop, step);
  return r.count > 0 ? r.start : 0;
}

}  // namespace weft::rt
