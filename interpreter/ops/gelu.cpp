// gelu: the erf form, or with `approximate` the tanh form (stdlib/runtime/gelu.h); floats only.
#include "../../stdlib/runtime/gelu.h"

#include "check.h"
#include "impl.h"

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
