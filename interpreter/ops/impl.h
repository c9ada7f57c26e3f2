// The implementations behind the op table (op_table.cpp). Per op, `xxxType` is its shape and
// dtype inference: it checks the input types and attributes and gives the result's type; `xxx`
// is its kernel call on inputs with data, which makes the same checks (by calling xxxType or the
// plan it is built from) and then runs. `xxxWorkspace` is the scratch a kernel needs, in bytes.
// Callers outside ops/ use ops.h (or ops::apply), which route through the table.
#pragma once
#include "../../stdlib/runtime/window.h"
#include "op_table.h"
#include "symbolic_sizes.h"

namespace weft::ops::impl {

using Pair = std::array<int64_t, 2>;

// A per-thread buffer of at least `bytes`, 64-byte aligned, valid until the next call: the
// kernels' workspace, kept between calls as compiled code keeps it in its arena (it only grows).
void* scratch(int64_t bytes);
// The bytes this thread's scratch holds now (a kernel's requests, as tests check them).
int64_t scratchSize();

IntoFn unaryInto(UnaryOp op);
IntoFn binaryInto(BinaryOp op);

TensorType unaryType(UnaryOp op, const TensorType& x);
Tensor unary(UnaryOp op, const Tensor& x);
TensorType binaryType(BinaryOp op, const TensorType& a, const TensorType& b);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
TensorType castType(const TensorType& x, DType to);
TensorType geluType(const TensorType& x);  // gelu.cpp; `approximate`: the tanh form
Tensor gelu(const Tensor& x, bool approximate);
void geluInto(const Tensor& x, bool approximate, Tensor& out);
Tensor cast(const Tensor& x, DType to);
TensorType whereType(const TensorType& cond, const TensorType& a, const TensorType& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
TensorType clipType(const TensorType& x, const TensorType& lo, const TensorType& hi);
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi);

TensorType matmulType(const TensorType& a, const TensorType& b, MatmulTransposes t);
int64_t matmulWorkspace(const TensorType& a, const TensorType& b, MatmulTransposes t);
// With `reuse` of the result's dtype and shape, writes the result into it (the caller gives only a
// buffer it may overwrite).
Tensor matmul(const Tensor& a, const Tensor& b, const Tensor* reuse = nullptr, MatmulTransposes t = {});
// The fused form of fuse-epilogues: bias (one row of the result's width) + a @ b, then the
// activation `epilogue` (an op's name, or empty) in place; a is untransposed, b a matrix.
Tensor biasMatmul(const Tensor& a, const Tensor& b, const Tensor& bias, const std::string& epilogue,
                  const Tensor* reuse = nullptr);

TensorType reduceType(ReduceOp op, const TensorType& x, const std::vector<int>& axes, bool keepdims);
// A mean divides by its elements times `shards` (ops::meanShards).
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims, int64_t shards = 1);
TensorType argReduceType(bool isMax, const TensorType& x, int axis, bool keepdims);
Tensor argReduce(bool isMax, const Tensor& x, int axis, bool keepdims);
TensorType kthLargestType(const TensorType& x, int64_t k);
Tensor kthLargest(const Tensor& x, int64_t k);

TensorType reshapeType(const TensorType& x, const std::vector<int64_t>& shape);
Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape);
TensorType transposeType(const TensorType& x, const std::vector<int>& perm);
Tensor transpose(const Tensor& x, const std::vector<int>& perm);
TensorType broadcastToType(const TensorType& x, const Shape& shape);
Tensor broadcastTo(const Tensor& x, const Shape& shape);
TensorType concatType(std::span<const TensorType> xs, int axis);
Tensor concat(const std::vector<Tensor>& xs, int axis);
TensorType stackType(std::span<const TensorType> xs, int axis);
Tensor stack(const std::vector<Tensor>& xs, int axis);
std::vector<TensorType> splitTypes(const TensorType& x, const std::vector<int64_t>& sizes, int axis);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis);
TensorType squeezeType(const TensorType& x, const std::vector<int>& axes);
Tensor squeeze(const Tensor& x, const std::vector<int>& axes);
TensorType expandDimsType(const TensorType& x, int axis);
Tensor expandDims(const Tensor& x, int axis);
TensorType shapeOfType(const TensorType& x, const std::vector<int64_t>& blocks = {});
// Each size times blocks[i] (1 past its end): the global shape, on a device holding one block of a
// value split blocks[i] ways along dimension i (spmd/rules_shape.cpp).
Tensor shapeOf(const Tensor& x, const std::vector<int64_t>& blocks = {});

TensorType oneHotType(const TensorType& indices, int64_t depth, DType dtype);
Tensor oneHot(const Tensor& indices, int64_t depth, DType dtype);
TensorType getItemType(const TensorType& x, const std::vector<Subscript>& subs);
Tensor getItem(const Tensor& x, const std::vector<Subscript>& subs);
TensorType setItemType(const TensorType& x, const std::vector<Subscript>& subs, const TensorType& value);
Tensor setItem(const Tensor& x, const std::vector<Subscript>& subs, const Tensor& value);
TensorType takeType(const TensorType& x, const TensorType& indices, int axis);
Tensor take(const Tensor& x, const Tensor& indices, int axis, bool ids = false);
// A stack of rows: n copies of x (n an integer scalar, its row count unknown to inference), and x
// with row i replaced. updateRowInto writes into `out`, which may be x itself (a buffer that dies
// there): then only the row is written.
TensorType broadcastRowsType(const TensorType& x, const TensorType& n);
Tensor broadcastRows(const Tensor& x, const Tensor& n);
TensorType updateRowType(const TensorType& x, const TensorType& row, const TensorType& i);
void updateRowInto(const Tensor& x, const Tensor& row, const Tensor& i, Tensor& out);

TensorType fullType(const Shape& shape, DType dtype);
Tensor full(const Shape& shape, double value, DType dtype);
TensorType eyeType(int64_t n, int64_t m, DType dtype);
Tensor eye(int64_t n, int64_t m, DType dtype);
TensorType arangeType(double start, double stop, double step, DType dtype);
Tensor arange(double start, double stop, double step, DType dtype);
TensorType linspaceType(double start, double stop, int64_t num, DType dtype);
Tensor linspace(double start, double stop, int64_t num, DType dtype);
TensorType randomNormalType(const Shape& shape, double mean, double stddev, DType dtype);
// seed: an op-level seed's own stream from its start, leaving the context's untouched.
Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed);
TensorType randomUniformType(const Shape& shape, double lo, double hi, DType dtype);
Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype, std::optional<int64_t> seed);
TensorType randomTruncatedNormalType(const Shape& shape, double mean, double stddev, DType dtype);
Tensor randomTruncatedNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed);
int64_t randomTruncatedNormalWorkspace(const Shape& shape, DType dtype);

TensorType conv2dType(const TensorType& x, const TensorType& w, Pair strides, const std::string& padding,
                      Pair dilation);
int64_t conv2dWorkspace(const TensorType& x, const TensorType& w, Pair strides, const std::string& padding,
                        Pair dilation);
Tensor conv2d(const Tensor& x, const Tensor& w, Pair strides, const std::string& padding, Pair dilation);
TensorType pool2dType(bool isMax, const TensorType& x, Pair pool, Pair strides, const std::string& padding);
Tensor pool2d(bool isMax, const Tensor& x, Pair pool, Pair strides, const std::string& padding);
// The gradients of conv2d and the pools (conv.cpp). `inputSize` and `kernelSize` are the
// forward input's and kernel's (height, width): with strides, several sizes give one output size.
TensorType conv2dBackpropInputType(const TensorType& dy, const TensorType& w, Pair inputSize, Pair strides,
                                   const std::string& padding, Pair dilation);
int64_t conv2dBackpropInputWorkspace(const TensorType& dy, const TensorType& w, Pair inputSize, Pair strides,
                                     const std::string& padding, Pair dilation);
Tensor conv2dBackpropInput(const Tensor& dy, const Tensor& w, Pair inputSize, Pair strides, const std::string& padding,
                           Pair dilation);
TensorType conv2dBackpropFilterType(const TensorType& x, const TensorType& dy, Pair kernelSize, Pair strides,
                                    const std::string& padding, Pair dilation);
int64_t conv2dBackpropFilterWorkspace(const TensorType& x, const TensorType& dy, Pair kernelSize, Pair strides,
                                      const std::string& padding, Pair dilation);
Tensor conv2dBackpropFilter(const Tensor& x, const Tensor& dy, Pair kernelSize, Pair strides,
                            const std::string& padding, Pair dilation);
TensorType maxPool2dGradType(const TensorType& x, const TensorType& dy, Pair pool, Pair strides,
                             const std::string& padding);
Tensor maxPool2dGrad(const Tensor& x, const Tensor& dy, Pair pool, Pair strides, const std::string& padding);
TensorType avgPool2dGradType(const TensorType& dy, Pair inputSize, Pair pool, Pair strides, const std::string& padding);
Tensor avgPool2dGrad(const Tensor& dy, Pair inputSize, Pair pool, Pair strides, const std::string& padding);
TensorType maxPool2dGradGradType(const TensorType& x, const TensorType& gx, Pair pool, Pair strides,
                                 const std::string& padding);
Tensor maxPool2dGradGrad(const Tensor& x, const Tensor& gx, Pair pool, Pair strides, const std::string& padding);

// scaled_dot_product_attention and its gradient (attention.cpp), with the op table's signatures:
// inputs (q, k, v[, mask]) -> out and (q, k, v, out, dout[, mask]) -> (dq, dk, dv).
std::vector<TensorType> attentionTypes(std::span<const TensorType> in, const Attrs& a);
std::vector<Tensor> attention(std::span<const Tensor> in, const Attrs& a);
std::vector<TensorType> attentionGradTypes(std::span<const TensorType> in, const Attrs& a);
std::vector<Tensor> attentionGrad(std::span<const Tensor> in, const Attrs& a);
// The scale the kernels run with: the attribute, or 1/sqrt(depth) without it.
double attentionScale(const Attrs& a, int64_t depth);

// layer_norm and its gradient (layer_norm.cpp), with the op table's signatures: inputs
// (x, gamma, beta) -> y and (x, gamma, dy) -> (dx, dgamma, dbeta), over x's last axis.
std::vector<TensorType> layerNormTypes(std::span<const TensorType> in, const Attrs& a);
std::vector<Tensor> layerNorm(std::span<const Tensor> in, const Attrs& a);
std::vector<TensorType> layerNormGradTypes(std::span<const TensorType> in, const Attrs& a);
std::vector<Tensor> layerNormGrad(std::span<const Tensor> in, const Attrs& a);
int64_t layerNormGradWorkspace(std::span<const TensorType> in);  // bytes, for static shapes

// adam_update (adam.cpp): (w, g, m, s, alpha, 1 - beta_1, 1 - beta_2, epsilon) -> (w, m, s).
std::vector<TensorType> adamUpdateTypes(std::span<const TensorType> in, const Attrs& a);
std::vector<Tensor> adamUpdate(std::span<const Tensor> in, const Attrs& a);
// Into the given buffers of w's type (a graph executor's: the variables' own when it computes
// into them); each may be its input's (w, m or s).
void adamUpdateInto(std::span<const Tensor* const> in, const Attrs& a, std::span<Tensor* const> out);


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
rt::Window2D conv2dGeometry(const Shape& xs, const Shape& ws, Pair strides, const std::string& padding, Pair dilation);
rt::Window2D pool2dGeometry(const Shape& xs, Pair pool, Pair strides, const std::string& padding);

}  // namespace weft::ops::impl
