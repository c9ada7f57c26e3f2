// The implementations behind the op table (op_table.cpp): each checks its inputs and, when an
// input is abstract, returns an abstract result with the inferred dtype and shape instead of
// running its kernel — so the same function is the op's shape/dtype inference and its kernel
// call. Callers outside ops/ use ops.h (or ops::apply), which route through the table.
#pragma once
#include "../../stdlib/runtime/window.h"
#include "op_table.h"

namespace weft::ops::impl {

IntoFn unaryInto(UnaryOp op);
IntoFn binaryInto(BinaryOp op);

Tensor unary(UnaryOp op, const Tensor& x);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor cast(const Tensor& x, DType to);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi);
// With `reuse` of the result's dtype and shape and no other owner, writes the result into it.
Tensor matmul(const Tensor& a, const Tensor& b, const Tensor* reuse = nullptr, MatmulTransposes t = {});
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims);
Tensor argReduce(bool isMax, const Tensor& x, int axis, bool keepdims);
Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape);
Tensor transpose(const Tensor& x, const std::vector<int>& perm);
Tensor broadcastTo(const Tensor& x, const Shape& shape);
Tensor concat(const std::vector<Tensor>& xs, int axis);
Tensor stack(const std::vector<Tensor>& xs, int axis);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis);
Tensor squeeze(const Tensor& x, const std::vector<int>& axes);
Tensor expandDims(const Tensor& x, int axis);
Tensor shapeOf(const Tensor& x);
Tensor oneHot(const Tensor& indices, int64_t depth, DType dtype);
Tensor getItem(const Tensor& x, const std::vector<Subscript>& subs);
Tensor setItem(const Tensor& x, const std::vector<Subscript>& subs, const Tensor& value);
Tensor take(const Tensor& x, const Tensor& indices, int axis);
Tensor full(const Shape& shape, double value, DType dtype);
Tensor eye(int64_t n, int64_t m, DType dtype);
Tensor arange(double start, double stop, double step, DType dtype);
Tensor linspace(double start, double stop, int64_t num, DType dtype);
Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype);
Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype);
Tensor conv2d(const Tensor& x, const Tensor& w, std::array<int64_t, 2> strides, const std::string& padding,
              std::array<int64_t, 2> dilation);
Tensor pool2d(bool isMax, const Tensor& x, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
              const std::string& padding);
// The gradients of conv2d and the pools (conv.cpp). `inputSize` and `kernelSize` are the
// forward input's and kernel's (height, width): with strides, several sizes give one output size.
Tensor conv2dBackpropInput(const Tensor& dy, const Tensor& w, std::array<int64_t, 2> inputSize,
                           std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation);
Tensor conv2dBackpropFilter(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> kernelSize,
                            std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation);
Tensor maxPool2dGrad(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                     const std::string& padding);
Tensor avgPool2dGrad(const Tensor& dy, std::array<int64_t, 2> inputSize, std::array<int64_t, 2> pool,
                     std::array<int64_t, 2> strides, const std::string& padding);
Tensor maxPool2dGradGrad(const Tensor& x, const Tensor& gx, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                         const std::string& padding);

// What the code generator needs of the rules above, to emit the same kernel calls.
// The elements `x[subs]` selects from a tensor of shape s: the result shape, the offset of its
// first element and the step per result axis (0 for new axes); `whole` when it is all of x in
// order (the result is a view).
struct Selection {
  Shape shape;
  int64_t base = 0;
  int64_t strides[rt::kMaxRank] = {};
  bool whole = true;
};
Selection selection(const Shape& s, const std::vector<Subscript>& subs);
// The window geometry conv2d and the pools run with, for their input shape (and kernel shape).
rt::Window2D conv2dGeometry(const Shape& xs, const Shape& ws, std::array<int64_t, 2> strides,
                            const std::string& padding, std::array<int64_t, 2> dilation);
rt::Window2D pool2dGeometry(const Shape& xs, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                            const std::string& padding);

}  // namespace weft::ops::impl
