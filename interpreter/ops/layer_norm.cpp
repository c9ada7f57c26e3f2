// layer_norm (normalisation over the last axis, scaled by gamma and shifted by beta) and its
// gradient: argument checks and shape rules here, the fused kernels in stdlib/runtime/layer_norm.h.
// Inputs (x, gamma, beta) and (x, gamma, dy); the attribute `epsilon` is added to the variance.
#include "../../stdlib/runtime/layer_norm.h"

#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

bool sameDim(int64_t a, int64_t b) { return a == rt::kUnknownDim || b == rt::kUnknownDim || sizes::same(a, b); }

// x [..., n] of a float dtype, and the named [n] parameters of x's dtype (and dy x's type).
void check(const std::string& op, std::span<const TensorType> in, const char* second, const char* third) {
  if (in.size() != 3) fail(op + " takes 3 inputs, given " + std::to_string(in.size()));
  const TensorType& x = in[0];
  if (x.shape.rank() < 1) fail(op + ": x must have rank 1 or more [..., features], got a scalar");
  if (!rt::isFloat(x.dtype)) fail(op + " is not defined for " + dtypeStr(x.dtype) + " tensors (use cast() to convert to f32)");
  const bool dy = std::string(third) == "dy";
  for (int i : {1, 2}) {
    const TensorType& t = in[size_t(i)];
    const char* name = i == 1 ? second : third;
    if (t.dtype != x.dtype) fail("dtype mismatch: " + dtypeStr(x.dtype) + " and " + dtypeStr(t.dtype) + " (in " + op + ")");
    bool fits = i == 2 && dy ? t.shape.rank() == x.shape.rank() : t.shape.rank() == 1;
    for (int a = 0; fits && a < t.shape.rank(); ++a) fits = sameDim(t.shape[a], x.shape[x.shape.rank() - t.shape.rank() + a]);
    if (!fits)
      fail(op + ": " + name + " has shape " + t.shape.str() + ", but x " + x.shape.str() + " needs " +
           (i == 2 && dy ? x.shape.str() : "[" + std::to_string(x.shape.back()) + "] (x's last axis)"));
  }
}

std::vector<TensorType> typesOf(std::span<const Tensor> in) {
  std::vector<TensorType> types;
  for (const Tensor& t : in) types.push_back(typeOf(t));
  return types;
}

}  // namespace

std::vector<TensorType> layerNormTypes(std::span<const TensorType> in, const Attrs&) {
  check("layer_norm", in, "gamma", "beta");
  return {in[0]};
}

std::vector<Tensor> layerNorm(std::span<const Tensor> in, const Attrs& a) {
  layerNormTypes(typesOf(in), a);
  const Tensor& x = in[0];
  Tensor y = Tensor::empty(x.dtype(), x.shape());
  const int64_t cols = x.shape().back(), rows = cols ? x.numel() / cols : 0;
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::layerNormForward(x.data<T>(), in[1].data<T>(), in[2].data<T>(), y.data<T>(), rows, cols, a.f("epsilon"));
  });
  return {y};
}

std::vector<TensorType> layerNormGradTypes(std::span<const TensorType> in, const Attrs&) {
  check("layer_norm_grad", in, "gamma", "dy");
  return {in[0], in[1], in[1]};
}

int64_t layerNormGradWorkspace(std::span<const TensorType> in) {
  const Shape& s = in[0].shape;
  int64_t rows = 1;
  for (int a = 0; a + 1 < s.rank(); ++a) {
    if (s[a] < 0) return 0;  // a size known only when it runs
    rows *= s[a];
  }
  if (s.rank() < 1 || s.back() <= 0) return 0;
  return rt::layerNormBackwardWorkspaceBytes(rows, s.back(), int64_t(rt::dtypeSize(in[0].dtype)));
}

std::vector<Tensor> layerNormGrad(std::span<const Tensor> in, const Attrs& a) {
  layerNormGradTypes(typesOf(in), a);
  const Tensor& x = in[0];
  std::vector<Tensor> d{Tensor::empty(x.dtype(), x.shape()), Tensor::empty(x.dtype(), in[1].shape()),
                        Tensor::empty(x.dtype(), in[1].shape())};
  const int64_t cols = x.shape().back(), rows = cols ? x.numel() / cols : 0;
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::layerNormBackward(x.data<T>(), in[1].data<T>(), in[2].data<T>(), d[0].data<T>(), d[1].data<T>(),
                            d[2].data<T>(), rows, cols, a.f("epsilon"),
                            static_cast<T*>(scratch(rt::layerNormBackwardWorkspaceBytes(rows, cols, sizeof(T)))));
  });
  return d;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

// Layer normalisation over the last axis (x, gamma, beta, fused) and its gradient (x, gamma, dy
// -> dx, dgamma, dbeta).
void defineLayerNormRows() {
  OpDef& f = defineRow(OpId::LayerNorm, Family::Norm);
  f.attrs = {{"epsilon", K::Float}};
  f.infer = impl::layerNormTypes;
  f.run = impl::layerNorm;
  OpDef& g = defineRow(OpId::LayerNormGrad, Family::Norm);
  g.attrs = {{"epsilon", K::Float}};
  g.infer = impl::layerNormGradTypes;
  g.run = impl::layerNormGrad;
  g.workspace = [](Ty in, const Attrs&) { return impl::layerNormGradWorkspace(in); };
}

}  // namespace weft::ops
