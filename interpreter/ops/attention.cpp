// scaled_dot_product_attention (PyTorch's F.scaled_dot_product_attention) and its gradient:
// argument checks and shape rules here, the fused kernels in stdlib/runtime/attention.h.
// Inputs (q, k, v[, mask]) and (q, k, v, out, dout[, mask]); attributes `causal` and an optional
// `scale` (absent: 1/sqrt(d), d the last axis of q).
#include "../../stdlib/runtime/attention.h"

#include <cmath>

#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

constexpr const char* kOp = "scaled_dot_product_attention";
constexpr const char* kGradOp = "scaled_dot_product_attention_grad";

bool sameDim(int64_t a, int64_t b) { return a == rt::kUnknownDim || b == rt::kUnknownDim || sizes::same(a, b); }
int64_t knownOf(int64_t a, int64_t b) { return a == rt::kUnknownDim ? b : a; }

// q [..., tq, d], k [..., tk, d], v [..., tk, dv] with the same leading axes; a mask that
// broadcasts to the scores [..., tq, tk], bool or of q's dtype.
// Returns the result's type [lead..., tq, dv].
TensorType check(const std::string& op, std::span<const TensorType> qkv, const TensorType* mask) {
  const TensorType &q = qkv[0], &k = qkv[1], &v = qkv[2];
  const std::string shapes = "(q " + q.shape.str() + ", k " + k.shape.str() + ", v " + v.shape.str() + ")";
  if (q.shape.rank() < 2)
    fail(op + ": q must have rank 2 or more [..., queries, depth], got " + q.shape.str());
  if (!rt::isFloat(q.dtype)) fail(op + " is not defined for " + dtypeStr(q.dtype) + " tensors (use cast() to convert to f32)");
  for (const TensorType* t : {&k, &v})
    if (t->dtype != q.dtype) fail("dtype mismatch: " + dtypeStr(q.dtype) + " and " + dtypeStr(t->dtype) + " (in " + op + ")");
  const int r = q.shape.rank();
  if (k.shape.rank() != r || v.shape.rank() != r)
    fail(op + ": q, k and v must have the same rank " + shapes);
  Shape out = q.shape;
  for (int a = 0; a < r - 2; ++a) {
    if (!sameDim(q.shape[a], k.shape[a]) || !sameDim(q.shape[a], v.shape[a]))
      fail(op + ": q, k and v must have the same leading (batch) axes " + shapes);
    out[a] = knownOf(knownOf(q.shape[a], k.shape[a]), v.shape[a]);
  }
  if (!sameDim(q.shape[r - 1], k.shape[r - 1]))
    fail(op + ": q and k must have the same depth (last axis) " + shapes);
  if (!sameDim(k.shape[r - 2], v.shape[r - 2]))
    fail(op + ": k and v must have the same number of keys (second-to-last axis) " + shapes);
  out[r - 1] = v.shape[r - 1];
  if (mask) {
    Shape scores = out;
    scores[r - 1] = knownOf(k.shape[r - 2], v.shape[r - 2]);
    const Shape& m = mask->shape;
    bool fits = m.rank() <= r;
    for (int a = 0; fits && a < m.rank(); ++a) {
      const int64_t want = scores[r - m.rank() + a];
      fits = m[a] == 1 || sameDim(m[a], want);
    }
    if (!fits)
      fail(op + ": the mask has shape " + m.str() + ", which does not broadcast to the scores' shape " + scores.str() +
           " [..., queries, keys]");
    if (mask->dtype != DType::Bool && mask->dtype != q.dtype)
      fail(op + ": the mask must be bool (true: attend) or " + dtypeStr(q.dtype) + " (added to the scores), got " +
           dtypeStr(mask->dtype));
  }
  return {q.dtype, out};
}

// The inputs' count, or a failure naming what the op takes.
void checkCount(const std::string& op, size_t n, size_t base) {
  if (n != base && n != base + 1)
    fail(op + " takes " + std::to_string(base) + " or " + std::to_string(base + 1) + " inputs, given " +
         std::to_string(n));
}

// Runs the kernel for f32 or f64 with the mask's element type.
template <class F>
void withTypes(DType t, const Tensor* mask, F f) {
  rt::dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (mask && mask->dtype() == t) f(T(), mask->data<T>());
      else f(T(), mask ? mask->data<bool>() : static_cast<const bool*>(nullptr));
    }
  });
}

}  // namespace

double attentionScale(const Attrs& a, int64_t depth) {
  return a.has("scale") ? a.f("scale") : 1.0 / std::sqrt(double(std::max<int64_t>(depth, 1)));
}

std::vector<TensorType> attentionTypes(std::span<const TensorType> in, const Attrs&) {
  checkCount(kOp, in.size(), 3);
  return {check(kOp, in.first(3), in.size() == 4 ? &in[3] : nullptr)};
}

std::vector<Tensor> attention(std::span<const Tensor> in, const Attrs& a) {
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(typeOf(t));
  const TensorType out = attentionTypes(types, a)[0];
  const Tensor* mask = in.size() == 4 ? &in[3] : nullptr;
  const Shape maskShape = mask ? mask->shape() : Shape{};
  const rt::Attention g = rt::attentionGeometry(in[0].shape(), in[1].shape(), in[2].shape(), mask ? &maskShape : nullptr,
                                                a.b("causal"), attentionScale(a, in[0].shape().back()));
  Tensor y = Tensor::empty(out.dtype, out.shape);
  withTypes(out.dtype, mask, [&](auto tag, const auto* m) {
    using T = decltype(tag);
    rt::attentionForward(in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), m, y.data<T>(), g);
  });
  return {y};
}

std::vector<TensorType> attentionGradTypes(std::span<const TensorType> in, const Attrs&) {
  const std::string op = kGradOp;
  checkCount(op, in.size(), 5);
  const TensorType out = check(op, in.first(3), in.size() == 6 ? &in[5] : nullptr);
  for (int i : {3, 4}) {
    const TensorType& t = in[size_t(i)];
    bool same = t.dtype == out.dtype && t.shape.rank() == out.shape.rank();
    for (int a = 0; same && a < t.shape.rank(); ++a) same = sizes::same(t.shape[a], out.shape[a]);
    if (!same)
      fail(op + ": " + (i == 3 ? "the output" : "the output's gradient") + " has type " + dtypeStr(in[size_t(i)].dtype) +
           in[size_t(i)].shape.str() + ", but attention of these q, k, v gives " + dtypeStr(out.dtype) +
           out.shape.str());
  }
  return {in[0], in[1], in[2]};
}

std::vector<Tensor> attentionGrad(std::span<const Tensor> in, const Attrs& a) {
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(typeOf(t));
  attentionGradTypes(types, a);
  const Tensor* mask = in.size() == 6 ? &in[5] : nullptr;
  const Shape maskShape = mask ? mask->shape() : Shape{};
  const rt::Attention g = rt::attentionGeometry(in[0].shape(), in[1].shape(), in[2].shape(), mask ? &maskShape : nullptr,
                                                a.b("causal"), attentionScale(a, in[0].shape().back()));
  std::vector<Tensor> d;
  for (int i = 0; i < 3; ++i) d.push_back(Tensor::empty(in[size_t(i)].dtype(), in[size_t(i)].shape()));
  withTypes(in[0].dtype(), mask, [&](auto tag, const auto* m) {
    using T = decltype(tag);
    rt::attentionBackward(in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), m, in[3].data<T>(), in[4].data<T>(),
                          d[0].data<T>(), d[1].data<T>(), d[2].data<T>(), g);
  });
  return d;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

// PyTorch's F.scaled_dot_product_attention, fused, and its gradient (dq, dk, dv).
void defineAttentionRows() {
  const auto row = [](OpId id, InferFn infer, RunFn run) {
    OpDef& d = defineRow(id, Family::Attention);
    d.attrs = {{"causal", K::Bool}, {"scale", K::Float, true}};
    d.infer = infer;
    d.run = run;
  };
  row(OpId::Attention, impl::attentionTypes, impl::attention);
  row(OpId::AttentionGrad, impl::attentionGradTypes, impl::attentionGrad);
}

}  // namespace weft::ops
