// Random ops on one global Philox stream. Each call takes the next blocks of the counter, so a
// program's sequence of random calls (eager or traced-graph) gives the same numbers every run.
#include <cmath>

#include "../../stdlib/runtime/random.h"
#include "check.h"
#include "impl.h"

namespace weft::ops::impl {
namespace {
RandomState gState;
}  // namespace
namespace {

// Reserves the blocks for n values of T and returns the first counter.
template <class T>
uint64_t takeBlocks(int64_t n) {
  uint64_t c = gState.counter;
  gState.counter += uint64_t(rt::blocksFor<T>(n));
  return c;
}

}  // namespace

}  // namespace weft::ops::impl

namespace weft::ops {

void seed(uint64_t s) { impl::gState = RandomState{s, 0}; }
RandomState randomState() { return impl::gState; }
void setRandomState(RandomState s) { impl::gState = s; }

}  // namespace weft::ops

namespace weft::ops::impl {

TensorType randomNormalType(const Shape& shape, double mean, double stddev, DType dtype) {
  checkShape("random.normal", shape);
  if (!rt::isFloat(dtype)) fail("random.normal makes float tensors, not " + dtypeStr(dtype));
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0)
    fail("random.normal: mean must be finite and stddev finite and non-negative");
  return {dtype, shape};
}

Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype) {
  Tensor out = Tensor::empty(dtype, randomNormalType(shape, mean, stddev, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::normalKernel(out.data<T>(), out.numel(), gState.key, takeBlocks<T>(out.numel()), mean, stddev);
  });
  return out;
}

TensorType randomUniformType(const Shape& shape, double lo, double hi, DType dtype) {
  checkShape("random.uniform", shape);
  if (dtype == DType::Bool) fail("random.uniform cannot make a bool tensor");
  if (!std::isfinite(lo) || !std::isfinite(hi)) fail("random.uniform: bounds must be finite");
  if (rt::isInt(dtype) ? !(lo < hi) : hi < lo)
    fail("random.uniform: the lower bound " + numStr(lo) + " must be below the upper bound " + numStr(hi));
  return {dtype, shape};
}

Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype) {
  Tensor out = Tensor::empty(dtype, randomUniformType(shape, lo, hi, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>)
      rt::uniformKernel(out.data<T>(), out.numel(), gState.key, takeBlocks<T>(out.numel()), lo, hi);
  });
  return out;
}

}  // namespace weft::ops::impl
