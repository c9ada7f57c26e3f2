// The sliding-window geometry shared by conv2d and the 2-D poolings (NHWC): output sizes and
// the zero padding of TensorFlow's "valid" and "same" schemes. The interpreter and generated
// code both call windowSize(), so their shapes cannot disagree.
#ifndef WEFT_RT_WINDOW_H
#define WEFT_RT_WINDOW_H
#include <cstdint>
#include <limits>

namespace weft::rt {

// One spatial axis. TF's "same": out = ceil(in / stride) and the total padding is split with the
// extra element after (bottom/right); "valid": no padding, the window must fit in the input.
struct Window1D {
  int64_t out = 0;        // output length
  int64_t padBefore = 0;  // padding before the first input element (top/left)
  int64_t extent = 0;     // (k - 1) * dilation + 1, the dilated window's span
};

enum class WindowStatus { Ok, TooLarge, DilationOverflow };

// in >= 0, k >= 1, stride >= 1, dilation >= 1 (the caller checks). TooLarge: the (dilated)
// window does not fit in the "valid" input; DilationOverflow: (k - 1) * dilation overflows.
inline WindowStatus windowSize(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same,
                               Window1D& w) {
  if (k > 1 && dilation > (std::numeric_limits<int64_t>::max() - 1) / (k - 1))
    return WindowStatus::DilationOverflow;
  w.extent = (k - 1) * dilation + 1;
  if (same) {
    w.out = in == 0 ? 0 : (in - 1) / stride + 1;  // ceil without overflowing in + stride
    // (out - 1) * stride <= in - 1, so this cannot overflow.
    int64_t total = in == 0 ? 0 : (w.out - 1) * stride + w.extent - in;
    w.padBefore = total > 0 ? total / 2 : 0;
    return WindowStatus::Ok;
  }
  if (w.extent > in) return WindowStatus::TooLarge;
  w.out = (in - w.extent) / stride + 1;
  w.padBefore = 0;
  return WindowStatus::Ok;
}

// The input length seen through the padding: enough for every window of the output.
inline int64_t paddedSize(int64_t in, const Window1D& w, int64_t stride) {
  const int64_t need = w.out == 0 ? 0 : (w.out - 1) * stride + w.extent;
  return need > in + w.padBefore ? need : in + w.padBefore;
}

// The full 2-D geometry of one conv or pooling call on an NHWC input.
struct Window2D {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input [N, H, W, C]
  int64_t kh = 1, kw = 1;              // window (kernel or pool) size
  int64_t sh = 1, sw = 1;              // strides
  int64_t dh = 1, dw = 1;              // dilation (1 for pooling)
  int64_t padTop = 0, padLeft = 0;     // implicit padding before row 0 / column 0
  int64_t oh = 0, ow = 0;              // output height and width
};

// The range [lo, hi) of window taps t whose input index start + t * step lies in [0, size).
// Used to skip the padding without testing every tap.
inline void validTaps(int64_t start, int64_t step, int64_t taps, int64_t size, int64_t& lo,
                      int64_t& hi) {
  lo = start >= 0 ? 0 : (-start + step - 1) / step;
  hi = start >= size ? 0 : (size - start + step - 1) / step;
  if (hi > taps) hi = taps;
  if (lo > hi) lo = hi;
}

}  // namespace weft::rt

#endif  // WEFT_RT_WINDOW_H
