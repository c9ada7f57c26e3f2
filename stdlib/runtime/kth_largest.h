// The k-th largest value of each row, counted with its equals (the k-th of the row sorted from
// the largest down): a top-k filter's threshold (sample_logits). A NaN ranks above every number,
// as argmax ranks it. std::nth_element on a copy of the row: O(n) per row, whatever k is.
#ifndef WEFT_RT_KTH_LARGEST_H
#define WEFT_RT_KTH_LARGEST_H
#include <algorithm>
#include <cstdint>

namespace weft::rt {

// out[r] = the k-th largest of in[r, 0..n); the caller ensures 1 <= k <= n. `row` holds n values
// (the selection reorders a copy; generated code passes its workspace, so a call allocates nothing).
template <class T>
void kthLargestKernel(const T* in, T* out, int64_t rows, int64_t n, int64_t k, T* row) {
  const auto before = [](T a, T b) { return a != a ? b == b : a > b; };  // a NaN first, then larger
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(in + r * n, in + (r + 1) * n, row);
    std::nth_element(row, row + (k - 1), row + n, before);
    out[r] = row[k - 1];
  }
}

}  // namespace weft::rt

#endif  // WEFT_RT_KTH_LARGEST_H
