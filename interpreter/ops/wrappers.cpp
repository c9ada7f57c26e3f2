// The typed entry points of ops.h, each one call of the op table's funnel.
#include "impl.h"

namespace weft::ops {
namespace {

Tensor one(OpId op, std::initializer_list<Tensor> in, const Attrs& a = {}) {
  return apply1(op, std::span<const Tensor>(in.begin(), in.size()), a);
}
std::vector<int64_t> wide(const std::vector<int>& v) { return std::vector<int64_t>(v.begin(), v.end()); }
std::vector<int64_t> dimsOf(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }
std::vector<int64_t> pair(std::array<int64_t, 2> p) { return {p[0], p[1]}; }

}  // namespace

// Elementwise ops are the interpreter's hottest path: on values outside a trace they call the
// row's kernel directly, as apply() would, without building argument and result vectors; a
// tensor without storage of its own (abstract, or sharded) takes the funnel.
Tensor unary(UnaryOp op, const Tensor& x) {
  return hooked() || !x.isWhole() ? one(opId(op), {x}) : impl::unary(op, x);
}
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  return hooked() || !a.isWhole() || !b.isWhole() ? one(opId(op), {a, b}) : impl::binary(op, a, b);
}
Tensor cast(const Tensor& x, DType to) { return x.dtype() == to ? x : one(OpId::Cast, {x}, {{"dtype", to}}); }
Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return one(OpId::Where, {c, a, b}); }
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi) { return one(OpId::Clip, {x, lo, hi}); }
Tensor matmul(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB) {
  if (!transposeA && !transposeB) return one(OpId::MatMul, {a, b});
  return one(OpId::MatMul, {a, b}, {{"transpose_a", transposeA}, {"transpose_b", transposeB}});
}
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims) {
  return one(opId(op), {x}, {{"axes", wide(axes)}, {"keepdims", keepdims}});
}
Tensor argReduce(bool isMax, const Tensor& x, int axis, bool keepdims) {
  return one(isMax ? OpId::ArgMax : OpId::ArgMin, {x}, {{"axis", int64_t(axis)}, {"keepdims", keepdims}});
}
Tensor kthLargest(const Tensor& x, int64_t k) { return one(OpId::KthLargest, {x}, {{"k", k}}); }
Tensor reshape(const Tensor& x, const std::vector<int64_t>& shape) { return one(OpId::Reshape, {x}, {{"shape", shape}}); }
Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
  return one(OpId::Transpose, {x}, {{"perm", wide(perm)}});
}
Tensor broadcastTo(const Tensor& x, const Shape& shape) { return one(OpId::BroadcastTo, {x}, {{"shape", dimsOf(shape)}}); }
Tensor concat(const std::vector<Tensor>& xs, int axis) { return apply1(OpId::Concat, xs, {{"axis", int64_t(axis)}}); }
Tensor stack(const std::vector<Tensor>& xs, int axis) { return apply1(OpId::Stack, xs, {{"axis", int64_t(axis)}}); }
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis) {
  Tensor in[] = {x};
  return apply(OpId::Split, in, {{"sizes", sizes}, {"axis", int64_t(axis)}});
}
Tensor squeeze(const Tensor& x, const std::vector<int>& axes) { return one(OpId::Squeeze, {x}, {{"axes", wide(axes)}}); }
Tensor expandDims(const Tensor& x, int axis) { return one(OpId::ExpandDims, {x}, {{"axis", int64_t(axis)}}); }
Tensor shapeOf(const Tensor& x) { return one(OpId::ShapeOf, {x}); }
Tensor oneHot(const Tensor& indices, int64_t depth, DType dtype) {
  return one(OpId::OneHot, {indices}, {{"depth", depth}, {"dtype", dtype}});
}
Tensor getItem(const Tensor& x, const std::vector<Subscript>& subs) {
  return one(OpId::GetItem, {x}, {{"subs", encodeSubscripts(subs)}});
}
Tensor setItem(const Tensor& x, const std::vector<Subscript>& subs, const Tensor& value) {
  return one(OpId::SetItem, {x, value}, {{"subs", encodeSubscripts(subs)}});
}
Tensor take(const Tensor& x, const Tensor& indices, int axis) { return one(OpId::Take, {x, indices}, {{"axis", int64_t(axis)}}); }
Tensor takeIds(const Tensor& x, const Tensor& ids) {
  return one(OpId::Take, {x, ids}, {{"axis", int64_t(0)}, {"ids", true}});
}
Tensor broadcastRows(const Tensor& x, const Tensor& n) { return one(OpId::BroadcastRows, {x, n}); }
Tensor updateRow(const Tensor& x, const Tensor& row, const Tensor& i) { return one(OpId::UpdateRow, {x, row, i}); }
Tensor full(const Shape& shape, double value, DType dtype) {
  return one(OpId::Full, {}, {{"shape", dimsOf(shape)}, {"value", value}, {"dtype", dtype}});
}
Tensor eye(int64_t n, int64_t m, DType dtype) { return one(OpId::Eye, {}, {{"n", n}, {"m", m}, {"dtype", dtype}}); }
Tensor arange(double start, double stop, double step, DType dtype) {
  return one(OpId::Arange, {}, {{"start", start}, {"stop", stop}, {"step", step}, {"dtype", dtype}});
}
Tensor linspace(double start, double stop, int64_t num, DType dtype) {
  return one(OpId::Linspace, {}, {{"start", start}, {"stop", stop}, {"num", num}, {"dtype", dtype}});
}
namespace {
// The random ops' attributes, with an op-level seed when given.
Attrs randomAttrs(Attrs a, std::optional<int64_t> seed) {
  if (seed) a.set("seed", *seed);
  return a;
}
}  // namespace
Tensor randomNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed) {
  return one(OpId::RandomNormal, {},
             randomAttrs({{"shape", dimsOf(shape)}, {"mean", mean}, {"stddev", stddev}, {"dtype", dtype}}, seed));
}
Tensor randomTruncatedNormal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<int64_t> seed) {
  return one(OpId::RandomTruncatedNormal, {},
             randomAttrs({{"shape", dimsOf(shape)}, {"mean", mean}, {"stddev", stddev}, {"dtype", dtype}}, seed));
}
Tensor randomUniform(const Shape& shape, double lo, double hi, DType dtype, std::optional<int64_t> seed) {
  return one(OpId::RandomUniform, {},
             randomAttrs({{"shape", dimsOf(shape)}, {"minval", lo}, {"maxval", hi}, {"dtype", dtype}}, seed));
}
Tensor conv2d(const Tensor& x, const Tensor& w, std::array<int64_t, 2> strides, const std::string& padding,
              std::array<int64_t, 2> dilation) {
  return one(OpId::Conv2D, {x, w}, {{"strides", pair(strides)}, {"padding", padding}, {"dilation", pair(dilation)}});
}
Tensor pool2d(bool isMax, const Tensor& x, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
              const std::string& padding) {
  return one(isMax ? OpId::MaxPool2D : OpId::AvgPool2D, {x},
             {{"pool", pair(pool)}, {"strides", pair(strides)}, {"padding", padding}});
}
Tensor conv2dBackpropInput(const Tensor& dy, const Tensor& w, std::array<int64_t, 2> inputSize,
                           std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation) {
  return one(OpId::Conv2DBackpropInput, {dy, w},
             {{"input_size", pair(inputSize)}, {"strides", pair(strides)}, {"padding", padding}, {"dilation", pair(dilation)}});
}
Tensor conv2dBackpropFilter(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> kernelSize,
                            std::array<int64_t, 2> strides, const std::string& padding, std::array<int64_t, 2> dilation) {
  return one(OpId::Conv2DBackpropFilter, {x, dy},
             {{"kernel_size", pair(kernelSize)}, {"strides", pair(strides)}, {"padding", padding}, {"dilation", pair(dilation)}});
}
Tensor maxPool2dGrad(const Tensor& x, const Tensor& dy, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                     const std::string& padding) {
  return one(OpId::MaxPool2DGrad, {x, dy}, {{"pool", pair(pool)}, {"strides", pair(strides)}, {"padding", padding}});
}
Tensor avgPool2dGrad(const Tensor& dy, std::array<int64_t, 2> inputSize, std::array<int64_t, 2> pool,
                     std::array<int64_t, 2> strides, const std::string& padding) {
  return one(OpId::AvgPool2DGrad, {dy},
             {{"input_size", pair(inputSize)}, {"pool", pair(pool)}, {"strides", pair(strides)}, {"padding", padding}});
}
Tensor maxPool2dGradGrad(const Tensor& x, const Tensor& gx, std::array<int64_t, 2> pool, std::array<int64_t, 2> strides,
                         const std::string& padding) {
  return one(OpId::MaxPool2DGradGrad, {x, gx}, {{"pool", pair(pool)}, {"strides", pair(strides)}, {"padding", padding}});
}

namespace {
Attrs attentionAttrs(bool causal, std::optional<double> scale) {
  Attrs a{{"causal", causal}};
  if (scale) a.set("scale", *scale);
  return a;
}
}  // namespace
Tensor scaledDotProductAttention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                                 std::optional<double> scale) {
  std::vector<Tensor> in{q, k, v};
  if (mask) in.push_back(*mask);
  return apply1(OpId::Attention, in, attentionAttrs(causal, scale));
}
std::vector<Tensor> scaledDotProductAttentionGrad(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                                                  const Tensor& dout, const Tensor* mask, bool causal,
                                                  std::optional<double> scale) {
  std::vector<Tensor> in{q, k, v, out, dout};
  if (mask) in.push_back(*mask);
  return apply(OpId::AttentionGrad, in, attentionAttrs(causal, scale));
}
Tensor gelu(const Tensor& x, bool approximate) { return one(OpId::Gelu, {x}, {{"approximate", approximate}}); }
Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon) {
  return one(OpId::LayerNorm, {x, gamma, beta}, {{"epsilon", epsilon}});
}
std::vector<Tensor> layerNormGrad(const Tensor& x, const Tensor& gamma, const Tensor& dy, double epsilon) {
  return apply(OpId::LayerNormGrad, std::vector<Tensor>{x, gamma, dy}, {{"epsilon", epsilon}});
}
std::vector<Tensor> adamUpdate(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& s, const Tensor& alpha,
                               const Tensor& b1c, const Tensor& b2c, const Tensor& eps) {
  return apply(OpId::AdamUpdate, std::vector<Tensor>{w, g, m, s, alpha, b1c, b2c, eps}, {});
}

}  // namespace weft::ops
