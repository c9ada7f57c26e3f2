// Tensor creation: full, eye, arange, linspace. Values are computed in double and converted
// once; integer dtypes saturate (see rt::saturateCast).
#include <cmath>

#include "../../stdlib/runtime/fill.h"
#include "check.h"
#include "impl.h"

namespace weft::ops::impl {
namespace {

void checkFinite(const char* op, const char* what, double v) {
  if (!std::isfinite(v)) fail(std::string(op) + ": " + what + " must be finite, got " + numStr(v));
}

void checkNumeric(const char* op, DType dtype) {
  if (dtype == DType::Bool) fail(std::string(op) + " cannot make a bool tensor");
}

}  // namespace
}  // namespace weft::ops::impl

namespace weft::ops {

bool shapesOnly() { return context().shapesOnly; }
void setShapesOnly(bool on) { context().shapesOnly = on; }

Shape makeShape(const char* op, const std::vector<int64_t>& dims) {
  checkRank(op, int(dims.size()));
  Shape s;
  for (int64_t d : dims) s.push_back(d);
  checkShape(op, s);
  return s;
}

}  // namespace weft::ops

namespace weft::ops::impl {

TensorType fullType(const Shape& shape, DType dtype) {
  checkShape("full", shape);
  return {dtype, shape};
}

Tensor full(const Shape& shape, double value, DType dtype) {
  Tensor out = Tensor::empty(dtype, fullType(shape, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    rt::fillKernel(out.data<T>(), out.numel(), rt::saturateCast<T>(value));
  });
  return out;
}

TensorType eyeType(int64_t n, int64_t m, DType dtype) {
  if (n < 0 || m < 0)
    fail("eye: sizes must be non-negative, got " + std::to_string(n) + " and " + std::to_string(m));
  return {dtype, Shape{n, m}};
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
  Tensor out = Tensor::empty(dtype, eyeType(n, m, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    rt::eyeKernel(out.data<T>(), n, m);
  });
  return out;
}

TensorType arangeType(double start, double stop, double step, DType dtype) {
  checkNumeric("arange", dtype);
  checkFinite("arange", "start", start);
  checkFinite("arange", "stop", stop);
  checkFinite("arange", "step", step);
  if (step == 0) fail("arange: step must not be zero");
  const int64_t n = rt::arangeCount(start, stop, step);
  if (n < 0) fail("arange: too many elements");
  return {dtype, Shape{n}};
}

Tensor arange(double start, double stop, double step, DType dtype) {
  Tensor out = Tensor::empty(dtype, arangeType(start, stop, step, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    rt::arangeKernel(out.data<T>(), out.numel(), start, step);
  });
  return out;
}

TensorType linspaceType(double start, double stop, int64_t num, DType dtype) {
  checkNumeric("linspace", dtype);
  checkFinite("linspace", "start", start);
  checkFinite("linspace", "stop", stop);
  if (num < 0) fail("linspace: the number of samples must be non-negative, got " + std::to_string(num));
  return {dtype, Shape{num}};
}

Tensor linspace(double start, double stop, int64_t num, DType dtype) {
  Tensor out = Tensor::empty(dtype, linspaceType(start, stop, num, dtype).shape);
  rt::dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    rt::linspaceKernel(out.data<T>(), num, start, stop);
  });
  return out;
}

}  // namespace weft::ops::impl
