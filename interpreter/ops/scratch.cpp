// The kernels' workspace: one buffer per thread that only grows, so that a product or a
// convolution allocates nothing once its size has been seen (compiled code keeps the same
// workspace in its arena, sized by the op table's workspace column).
#include <cstdlib>
#include <memory>
#include <new>

#include "impl.h"

namespace weft::ops::impl {

namespace {

struct Free {
  void operator()(void* p) const { std::free(p); }
};
thread_local std::unique_ptr<void, Free> buffer;
thread_local int64_t size = 0;

}  // namespace

int64_t scratchSize() { return size; }

void* scratch(int64_t bytes) {
  if (bytes <= size) return buffer.get();
  const int64_t rounded = (bytes + 63) / 64 * 64;
  buffer.reset(std::aligned_alloc(64, size_t(rounded)));
  if (!buffer) {
    size = 0;
    throw std::bad_alloc();
  }
  size = rounded;
  return buffer.get();
}

}  // namespace weft::ops::impl
