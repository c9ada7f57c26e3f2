// gelu: the erf form, or with `approximate` the tanh form (stdlib/runtime/gelu.h); floats only.
#include "../../stdlib/runtime/gelu.h"

#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {

TensorType geluType(const TensorType& x) {
  if (!rt::isFloat(x.dtype)) fail("gelu is not defined for " + dtypeStr(x.dtype) + " tensors (cast to f32 first)");
  return x;
}

void geluInto(const Tensor& x, bool approximate, Tensor& out) {
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (approximate) rt::unaryKernel<rt::GeluTanh>(x.data<T>(), out.data<T>(), x.numel());
      else rt::unaryKernel<rt::Gelu>(x.data<T>(), out.data<T>(), x.numel());
    }
  });
}

Tensor gelu(const Tensor& x, bool approximate) {
  Tensor out = Tensor::empty(geluType(typeOf(x)).dtype, x.shape());
  geluInto(x, approximate, out);
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

// Elementwise, its form the attribute `approximate`; its gradient is built from primitives.
void defineGeluRows() {
  OpDef& d = defineRow(OpId::Gelu, Family::Unary);
  d.attrs = {{"approximate", K::Bool}};
  d.fusible = true;
  d.inPlace = true;
  d.infer = [](Ty in, const Attrs&) -> Types { return {impl::geluType(in[0])}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::gelu(in[0], a.b("approximate"))}; };
  d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
    impl::geluInto(*in[0], a.b("approximate"), out);
  };
}

}  // namespace weft::ops
