// Random ops on the execution context's Philox stream. Each call takes the next blocks of the
// counter, so a program's sequence of random calls (eager or traced-graph) gives the same numbers
// every run.
#include <cmath>

#include "../../stdlib/runtime/random.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

// The stream an op draws from: its own seed's from the start (an op-level seed=, which leaves
// the context's stream as it was), or the context's, whose next blocks it takes.
struct Stream {
  uint64_t key, counter;
  bool own;
};
Stream streamOf(std::optional<int64_t> seed) {
  if (seed) return {uint64_t(*seed), 0, true};
  return {context().randomKey, context().randomCounter, false};
}
// The context's stream moves on to `counter` (nothing for an op-level seed).
void advance(const Stream& s, uint64_t counter) {
  if (!s.own) context().randomCounter = counter;
}

}  // namespace

}  // namespace weft::ops::impl

namespace weft::ops {

void seed(uint64_t s) { setRandomState(RandomState{s, 0}); }
RandomState randomState() { return {context().randomKey, context().randomCounter}; }
void setRandomState(RandomState s) {
  context().randomKey = s.key;
  context().randomCounter = s.counter;
}

}  // namespace weft::ops

namespace weft::ops::impl {

TensorType randomNormalType(const Shape& shape, double mean, double stddev, DType dtype) {
  checkShape("random.normal", shape);
  if (!rt::isFloat(dtype)) fail("random.normal makes float tensors, not " + dtypeStr(dtype));
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0)
    fail("random.normal: mean must be finite and stddev finite and non-negative");
  return {dtype, shape};
}

Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed) {
  Tensor out = Tensor::empty(dtype, randomNormalType(shape, mean, stddev, dtype).shape);
  const Stream s = streamOf(seed);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      rt::normalKernel(out.data<T>(), out.numel(), s.key, s.counter, mean, stddev);
      advance(s, s.counter + uint64_t(rt::blocksFor<T>(out.numel())));
    }
  });
  return out;
}

TensorType randomTruncatedNormalType(const Shape& shape, double mean, double stddev, DType dtype) {
  checkShape("random.truncated_normal", shape);
  if (!rt::isFloat(dtype)) fail("random.truncated_normal makes float tensors, not " + dtypeStr(dtype));
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0)
    fail("random.truncated_normal: mean must be finite and stddev finite and non-negative");
  return {dtype, shape};
}

Tensor randomTruncatedNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed) {
  Tensor out = Tensor::empty(dtype, randomTruncatedNormalType(shape, mean, stddev, dtype).shape);
  const Stream s = streamOf(seed);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const int64_t n = out.numel();
      double* z = std::is_same_v<T, double> ? reinterpret_cast<double*>(out.data<T>())
                                            : static_cast<double*>(scratch(rt::truncatedNormalWorkspaceBytes(n, sizeof(T))));
      advance(s, rt::truncatedNormalKernel(out.data<T>(), n, s.key, s.counter, mean, stddev, z));
    }
  });
  return out;
}

int64_t randomTruncatedNormalWorkspace(const Shape& shape, DType dtype) {
  return rt::truncatedNormalWorkspaceBytes(shape.numel(), int64_t(rt::dtypeSize(dtype)));
}

TensorType randomUniformType(const Shape& shape, double lo, double hi, DType dtype) {
  checkShape("random.uniform", shape);
  if (dtype == DType::Bool) fail("random.uniform cannot make a bool tensor");
  if (!std::isfinite(lo) || !std::isfinite(hi)) fail("random.uniform: bounds must be finite");
  if (rt::isInt(dtype) ? !(lo < hi) : hi < lo)
    fail("random.uniform: the lower bound " + numStr(lo) + " must be below the upper bound " + numStr(hi));
  return {dtype, shape};
}

Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype, std::optional<int64_t> seed) {
  Tensor out = Tensor::empty(dtype, randomUniformType(shape, lo, hi, dtype).shape);
  const Stream s = streamOf(seed);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      rt::uniformKernel(out.data<T>(), out.numel(), s.key, s.counter, lo, hi);
      advance(s, s.counter + uint64_t(rt::blocksFor<T>(out.numel())));
    }
  });
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

std::optional<int64_t> seedOf(const Attrs& a) { return a.has("seed") ? std::optional(a.i("seed")) : std::nullopt; }

}  // namespace

// The random ops advance the context's stream (an effect), unless an op-level `seed` gives them a
// stream of their own.
void defineRandomRows() {
  {
    OpDef& d = defineRow(OpId::RandomNormal, Family::Random);
    d.attrs = {{"shape", K::Ints}, {"mean", K::Float}, {"stddev", K::Float}, {"dtype", K::DType}, {"seed", K::Int, true}};
    d.effect = true;
    d.infer = [](Ty, const Attrs& a) -> Types {
      return {impl::randomNormalType(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"))};
    };
    d.run = [](In, const Attrs& a) -> Out {
      return {impl::randomNormal(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"), seedOf(a))};
    };
  }
  {
    OpDef& d = defineRow(OpId::RandomTruncatedNormal, Family::Random);
    d.attrs = {{"shape", K::Ints}, {"mean", K::Float}, {"stddev", K::Float}, {"dtype", K::DType}, {"seed", K::Int, true}};
    d.effect = true;
    d.infer = [](Ty, const Attrs& a) -> Types {
      return {impl::randomTruncatedNormalType(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"))};
    };
    d.run = [](In, const Attrs& a) -> Out {
      return {impl::randomTruncatedNormal(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"), seedOf(a))};
    };
    d.workspace = [](Ty, const Attrs& a) {
      return impl::randomTruncatedNormalWorkspace(shapeOf(a.ints("shape")), a.dtype("dtype"));
    };
  }
  OpDef& d = defineRow(OpId::RandomUniform, Family::Random);
  d.attrs = {{"shape", K::Ints}, {"minval", K::Float}, {"maxval", K::Float}, {"dtype", K::DType}, {"seed", K::Int, true}};
  d.effect = true;
  d.infer = [](Ty, const Attrs& a) -> Types {
    return {impl::randomUniformType(shapeOf(a.ints("shape")), a.f("minval"), a.f("maxval"), a.dtype("dtype"))};
  };
  d.run = [](In, const Attrs& a) -> Out {
    return {impl::randomUniform(shapeOf(a.ints("shape")), a.f("minval"), a.f("maxval"), a.dtype("dtype"), seedOf(a))};
  };
}

}  // namespace weft::ops
