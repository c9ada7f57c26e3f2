// adam_update: Adam's update of a variable w and its moments m and s by the gradient g, in one
// pass (stdlib/runtime/adam.h). Inputs (w, g, m, s, alpha, 1 - beta_1, 1 - beta_2, epsilon):
// four tensors of one shape and float dtype, then four scalars of that dtype; results (w, m, s).
#include "../../stdlib/runtime/adam.h"

#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

const char* const kNames[] = {"w", "g", "m", "s", "alpha", "1 - beta_1", "1 - beta_2", "epsilon"};

bool sameDim(int64_t a, int64_t b) { return a == rt::kUnknownDim || b == rt::kUnknownDim || sizes::same(a, b); }

}  // namespace

std::vector<TensorType> adamUpdateTypes(std::span<const TensorType> in, const Attrs&) {
  if (in.size() != 8) fail("adam_update takes 8 inputs, given " + std::to_string(in.size()));
  const TensorType& w = in[0];
  if (!rt::isFloat(w.dtype)) fail("adam_update is not defined for " + dtypeStr(w.dtype) + " variables");
  for (size_t i = 1; i < in.size(); ++i) {
    const TensorType& t = in[i];
    if (t.dtype != w.dtype)
      fail("dtype mismatch: " + dtypeStr(w.dtype) + " and " + dtypeStr(t.dtype) + " (adam_update's " + kNames[i] + ")");
    bool fits = i < 4 ? t.shape.rank() == w.shape.rank() : t.shape.rank() == 0;
    for (int a = 0; fits && i < 4 && a < t.shape.rank(); ++a) fits = sameDim(t.shape[a], w.shape[a]);
    if (!fits)
      fail(std::string("adam_update: ") + kNames[i] + " has shape " + t.shape.str() + ", but needs " +
           (i < 4 ? w.shape.str() + " (w's)" : std::string("[] (a scalar)")));
  }
  return {w, w, w};
}

void adamUpdateInto(std::span<const Tensor* const> in, const Attrs& a, std::span<Tensor* const> out) {
  std::vector<TensorType> types;
  for (const Tensor* t : in) types.push_back(typeOf(*t));
  adamUpdateTypes(types, a);
  const Tensor& w = *in[0];
  rt::dispatch(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::adamUpdate(w.data<T>(), in[1]->data<T>(), in[2]->data<T>(), in[3]->data<T>(), in[4]->data<T>()[0],
                     in[5]->data<T>()[0], in[6]->data<T>()[0], in[7]->data<T>()[0], out[0]->data<T>(),
                     out[1]->data<T>(), out[2]->data<T>(), w.numel());
  });
}

std::vector<Tensor> adamUpdate(std::span<const Tensor> in, const Attrs& a) {
  if (in.size() != 8) fail("adam_update takes 8 inputs, given " + std::to_string(in.size()));
  const Tensor& w = in[0];
  std::vector<Tensor> out{Tensor::empty(w.dtype(), w.shape()), Tensor::empty(w.dtype(), w.shape()),
                          Tensor::empty(w.dtype(), w.shape())};
  const Tensor* ins[8];
  for (size_t i = 0; i < 8; ++i) ins[i] = &in[i];
  Tensor* outs[3] = {&out[0], &out[1], &out[2]};
  adamUpdateInto(ins, a, outs);
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

// Adam's update of a variable and its two moments in one pass (w, g, m, s, alpha, 1 - beta_1,
// 1 - beta_2, epsilon -> w, m, s): each result at i reads its inputs at i only.
void defineAdamRows() {
  OpDef& d = defineRow(OpId::AdamUpdate, Family::Update);
  d.inPlace = true;
  d.infer = impl::adamUpdateTypes;
  d.run = impl::adamUpdate;
  d.intoAll = impl::adamUpdateInto;
}

}  // namespace weft::ops
