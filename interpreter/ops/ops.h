// The primitive ops on weft::Tensor, as the evaluator and the tracer call them. Each op checks
// its inputs (ranks, axes, dtypes, shapes) and throws WeftError with both shapes named; when an
// input is abstract it returns Tensor::abstract with the inferred dtype and shape and runs no
// kernel. The math lives in stdlib/runtime/ (shared with generated code).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../values/tensor.h"
#include "attrs.h"
#include "op_list.h"

namespace weft::ops {

enum class UnaryOp {
#define WEFT_OP_ENUM(F, Id, ...) Id,
  WEFT_FOR_EACH_UNARY_OP(WEFT_OP_ENUM)
};
enum class BinaryOp { WEFT_FOR_EACH_BINARY_OP(WEFT_OP_ENUM) };
enum class ReduceOp { WEFT_FOR_EACH_REDUCE_OP(WEFT_OP_ENUM) };
#undef WEFT_OP_ENUM

const char* name(UnaryOp op);
const char* name(BinaryOp op);
const char* name(ReduceOp op);
OpId opId(UnaryOp op);
OpId opId(BinaryOp op);
OpId opId(ReduceOp op);

// Elementwise. binary() broadcasts as NumPy; both operands must have the same dtype.
Tensor unary(UnaryOp op, const Tensor& x);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor cast(const Tensor& x, DType to);
// GELU, x * Phi(x): the erf form, or with `approximate` the tanh form (docs/numerics.md).
Tensor gelu(const Tensor& x, bool approximate);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi);
// The broadcast shape of a and b, or a WeftError naming both.
Shape broadcastShape(const Shape& a, const Shape& b);

// Operands a matmul reads transposed where they lie (its optional transpose_a/_b attributes): a
// transposed operand is a matrix, `a` only when `b` is one too. Gradients use them (dx = g @ w^T,
// dw = x^T @ g) so that no transposed copy is made.
struct MatmulTransposes {
  bool a = false, b = false;
};
inline MatmulTransposes transposes(const Attrs& at) {
  return {at.has("transpose_a") && at.b("transpose_a"), at.has("transpose_b") && at.b("transpose_b")};
}

// NumPy matmul: 1-D operands are promoted and the added axis removed; batch axes broadcast.
// transposeA/B read that operand, a matrix, transposed (impl::MatmulTransposes).
Tensor matmul(const Tensor& a, const Tensor& b, bool transposeA = false, bool transposeB = false);

// axes empty = all; negative axes count from the end. Sum of bool counts (i32), Mean of an
// integer or bool tensor is float (i32/bool -> f32, i64 -> f64), Any/All take bool.
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims);
// Index of the first max/min along axis, as i32.
Tensor argReduce(bool isMax, const Tensor& x, int axis, bool keepdims);
// The k-th largest of each row along the last axis (a NaN ranks first), as [..., 1].
Tensor kthLargest(const Tensor& x, int64_t k);

// Layout. reshape/squeeze/expandDims share storage with x.
Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape);
Tensor transpose(const Tensor& x, const std::vector<int>& perm);  // empty = reverse the axes
Tensor broadcastTo(const Tensor& x, const Shape& shape);
Tensor concat(const std::vector<Tensor>& xs, int axis);
Tensor stack(const std::vector<Tensor>& xs, int axis);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis);
Tensor squeeze(const Tensor& x, const std::vector<int>& axes);  // empty = all size-1 axes
Tensor expandDims(const Tensor& x, int axis);
// x's shape as an i64 vector; in a graph, its unknown dimensions are known when the graph runs.
Tensor shapeOf(const Tensor& x);
// An index outside [0, depth) gives a row of zeros (TensorFlow's rule).
Tensor oneHot(const Tensor& indices, int64_t depth, DType dtype);

// Indexing: one entry per subscript, already evaluated by the interpreter.
struct Subscript {
  enum Kind { Index, Range, NewAxis, Ellipsis } kind = Index;
  int64_t index = 0;
  std::optional<int64_t> start, stop, step;
};
// NumPy basic indexing (always a copy).
Tensor getItem(const Tensor& x, const std::vector<Subscript>& subs);
// x with x[subs] replaced by value (broadcast to the selection's shape, same dtype): a new tensor.
Tensor setItem(const Tensor& x, const std::vector<Subscript>& subs, const Tensor& value);
// Gather along axis with i32/i64 indices in [-n, n) (negative ones count from the end).
Tensor take(const Tensor& x, const Tensor& indices, int axis);
// The rows of x for ids in [0, rows): a negative id is an error too (Embedding's lookup, where
// take would read a row from the end), in eager code, graphs and compiled code alike.
Tensor takeIds(const Tensor& x, const Tensor& ids);
Tensor broadcastRows(const Tensor& x, const Tensor& n);
Tensor updateRow(const Tensor& x, const Tensor& row, const Tensor& i);

// Plan mode (docs/layouts.md): while on, the creation and random ops below return abstract
// tensors, so that a program runs on shapes alone and allocates no tensor data.
bool shapesOnly();
void setShapesOnly(bool on);

// Creation. makeShape turns a user's dims list into a Shape, failing on a negative dimension or
// a rank above rt::kMaxRank ("zeros: negative dimension in shape [2, -1]").
Shape makeShape(const char* op, const std::vector<int64_t>& dims);
Tensor full(const Shape& shape, double value, DType dtype);
Tensor eye(int64_t n, int64_t m, DType dtype);
Tensor arange(double start, double stop, double step, DType dtype);
Tensor linspace(double start, double stop, int64_t num, DType dtype);

// Random numbers from the execution context's Philox stream: seed(s) sets the key and restarts the counter.
// Before any seed() call the seed is 0, so runs are reproducible by default.
void seed(uint64_t s);
struct RandomState {
  uint64_t key = 0;
  uint64_t counter = 0;  // next Philox block
};
RandomState randomState();
void setRandomState(RandomState s);
// `seed`: an op-level seed (TensorFlow's, Keras'): the op draws from the start of the stream of
// that seed, the same numbers wherever the call is, and the context's stream stays as it was.
Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed = {});
Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype, std::optional<int64_t> seed = {});
// Keras' truncated normal: values beyond two standard deviations are drawn again.
Tensor randomTruncatedNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed = {});

// Convolution and pooling, NHWC (Keras' layout). padding is "valid" or "same" (TensorFlow's:
// output ceil(in / stride), the odd padding element at the bottom/right); strides, dilation and
// pool are (height, width). conv2d's kernel is HWIO [kh, kw, cin, cout]. Floats only.
Tensor conv2d(const Tensor& x, const Tensor& w, std::array<int64_t, 2> strides, const std::string& padding,
              std::array<int64_t, 2> dilation);
// Max ignores the padding; the average divides by the number of elements inside the input.
Tensor pool2d(bool isMax, const Tensor& x, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
              const std::string& padding);
// Their gradients (TensorFlow's Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad), given the
// forward op's attributes and the gradient dy of its output: conv2d's with respect to its input
// (of height and width `inputSize`) and its kernel (`kernelSize`), the pools' with respect to
// their input. Max pooling's goes to the first maximum of each window (row-major) on ties.
Tensor conv2dBackpropInput(const Tensor& dy, const Tensor& w, std::array<int64_t, 2> inputSize,
                           std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation);
Tensor conv2dBackpropFilter(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> kernelSize,
                            std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation);
Tensor maxPool2dGrad(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                     const std::string& padding);
Tensor avgPool2dGrad(const Tensor& dy, std::array<int64_t, 2> inputSize, std::array<int64_t, 2> pool,
                     std::array<int64_t, 2> strides, const std::string& padding);
// The gradient of maxPool2dGrad(x, dy) with respect to dy (TensorFlow's MaxPoolGradGrad), given
// a gradient gx of its result (x's shape): of max pooling's output shape, each window's element
// of gx at x's maximum (the element maxPool2dGrad picks).
Tensor maxPool2dGradGrad(const Tensor& x, const Tensor& gx, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                         const std::string& padding);

// softmax(scale * q k^T + mask) v over the last two axes (PyTorch's F.scaled_dot_product_attention),
// fused: q [..., tq, d], k [..., tk, d], v [..., tk, dv] -> [..., tq, dv]. The mask broadcasts to
// [..., tq, tk], bool (true: attend) or float (added); `causal` keeps key j for query i <= j;
// `scale` defaults to 1/sqrt(d). The gradient op gives (dq, dk, dv) from the result and its
// gradient; the mask has none.
Tensor scaledDotProductAttention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                                 std::optional<double> scale);
std::vector<Tensor> scaledDotProductAttentionGrad(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                                                  const Tensor& dout, const Tensor* mask, bool causal,
                                                  std::optional<double> scale);

// Layer normalisation over x's last axis: (x - mean) / sqrt(var + epsilon) * gamma + beta, the
// variance biased (Keras' LayerNormalization, PyTorch's F.layer_norm), gamma and beta [n] for x
// [..., n]; fused. The gradient op gives (dx, dgamma, dbeta) from x, gamma and dy.
Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon);
std::vector<Tensor> layerNormGrad(const Tensor& x, const Tensor& gamma, const Tensor& dy, double epsilon);
// Adam's update in one pass (stdlib/runtime/adam.h): m2 = m + (g - m) * b1c, s2 = s + (g * g - s) *
// b2c, w2 = w - alpha * m2 / (sqrt(s2) + eps); returns (w2, m2, s2). alpha, b1c (1 - beta_1),
// b2c and eps are scalars of w's dtype.
std::vector<Tensor> adamUpdate(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& s, const Tensor& alpha,
                               const Tensor& b1c, const Tensor& b2c, const Tensor& eps);

}  // namespace weft::ops
