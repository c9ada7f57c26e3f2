// Tensor creation: full, eye, arange, linspace. Values are computed in double and converted
// once; integer dtypes saturate (see rt::saturateCast).
#include <cmath>

#include "../../stdlib/runtime/fill.h"
#include "check.h"
#include "impl.h"
#include "row.h"

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

namespace weft::ops {

using namespace rows;

void defineCreateRows() {
  {
    OpDef& d = defineRow(OpId::Full, Family::Creation);
    d.attrs = {{"shape", K::Ints}, {"value", K::Float}, {"dtype", K::DType}};
    d.infer = [](Ty, const Attrs& a) -> Types { return {impl::fullType(shapeOf(a.ints("shape")), a.dtype("dtype"))}; };
    d.run = [](In, const Attrs& a) -> Out { return {impl::full(shapeOf(a.ints("shape")), a.f("value"), a.dtype("dtype"))}; };
  }
  {
    OpDef& d = defineRow(OpId::Eye, Family::Creation);
    d.attrs = {{"n", K::Int}, {"m", K::Int}, {"dtype", K::DType}};
    d.infer = [](Ty, const Attrs& a) -> Types { return {impl::eyeType(a.i("n"), a.i("m"), a.dtype("dtype"))}; };
    d.run = [](In, const Attrs& a) -> Out { return {impl::eye(a.i("n"), a.i("m"), a.dtype("dtype"))}; };
  }
  {
    OpDef& d = defineRow(OpId::Arange, Family::Creation);
    d.attrs = {{"start", K::Float}, {"stop", K::Float}, {"step", K::Float}, {"dtype", K::DType}};
    d.infer = [](Ty, const Attrs& a) -> Types {
      return {impl::arangeType(a.f("start"), a.f("stop"), a.f("step"), a.dtype("dtype"))};
    };
    d.run = [](In, const Attrs& a) -> Out {
      return {impl::arange(a.f("start"), a.f("stop"), a.f("step"), a.dtype("dtype"))};
    };
  }
  OpDef& d = defineRow(OpId::Linspace, Family::Creation);
  d.attrs = {{"start", K::Float}, {"stop", K::Float}, {"num", K::Int}, {"dtype", K::DType}};
  d.infer = [](Ty, const Attrs& a) -> Types {
    return {impl::linspaceType(a.f("start"), a.f("stop"), a.i("num"), a.dtype("dtype"))};
  };
  d.run = [](In, const Attrs& a) -> Out {
    return {impl::linspace(a.f("start"), a.f("stop"), a.i("num"), a.dtype("dtype"))};
  };
}

}  // namespace weft::ops
