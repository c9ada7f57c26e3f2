// Collectives between the devices of a mesh (SPEC §7.1): the interface the SPMD kernels call,
// in the interpreter and in generated code. A device belongs, along each mesh dimension, to the
// group of devices whose coordinates differ from its own only there; every collective is over
// one such group, and every member must call it with the same sizes. Results are combined in
// coordinate order, so they are the same on every member and from run to run. A result buffer
// never overlaps an input: a peer may read one member's input while another writes its result.
// comm_threads.h implements it for devices that are threads of one process.
#ifndef WEFT_RT_COMM_H
#define WEFT_RT_COMM_H
#include <cstdint>
#include <stdexcept>
#include <string>

#include "dtype.h"

namespace weft::rt {

// A collective that cannot complete: the members disagree on sizes, or a member stopped.
struct CommError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int meshRank() const = 0;                  // the mesh's number of dimensions
  virtual int64_t groupSize(int meshDim) const = 0;  // the mesh's size along meshDim
  virtual int64_t coordinate(int meshDim) const = 0;  // this device's position along it
  virtual int64_t device() const = 0;                 // this device's number (row-major)

  // Each member gives `bytes` bytes at `in`; every member receives all of them at `out`,
  // concatenated in coordinate order (groupSize * bytes).
  virtual void allGather(int meshDim, const void* in, void* out, int64_t bytes) = 0;
  // Each member gives n elements; every member receives their sum at `out`.
  virtual void allReduce(int meshDim, DType dtype, const void* in, void* out, int64_t n) = 0;
  // Each member gives groupSize blocks of n elements; member j receives the sum of every
  // member's block j at `out`.
  virtual void reduceScatter(int meshDim, DType dtype, const void* in, void* out, int64_t n) = 0;
  // Each member gives groupSize blocks of `bytes`; member j receives block j of every member,
  // in coordinate order, at `out`.
  virtual void allToAll(int meshDim, const void* in, void* out, int64_t bytes) = 0;
  // allToAll of blocks that lie apart: a member's input, viewed as [splitOuter, groupSize,
  // splitChunk] bytes, holds block j at j; its output, viewed as [concatOuter, groupSize,
  // concatChunk] bytes, receives each member's block at that member's coordinate (a block's bytes
  // in order either way). False when not supported: the caller makes the blocks contiguous.
  virtual bool allToAllApart(int /*meshDim*/, const void* /*in*/, int64_t /*splitOuter*/, int64_t /*splitChunk*/,
                             int64_t /*concatOuter*/, int64_t /*concatChunk*/, void* /*out*/) {
    return false;
  }
};

// out[i] = a[i] + b[i] for n elements of dtype (bool: or), the reduction every collective uses.
inline void addInto(DType dtype, const void* a, const void* b, void* out, int64_t n) {
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    T* z = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) z[i] = x[i] || y[i];
      else z[i] = x[i] + y[i];
    }
  });
}

}  // namespace weft::rt

#endif
