// Unary and binary elementwise ops and cast: dtype rules from op_list.h, kernels from
// stdlib/runtime. binary() on same-shape or scalar operands does no work beyond the result
// allocation: no vectors, no broadcast plan, one switch and one dtype dispatch.
#include "../../stdlib/runtime/binary.h"
#include "../../stdlib/runtime/unary.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

#define WEFT_RULE(F, Id, N, A, Fn, R) F##Rule::R,
constexpr UnaryRule kUnaryRule[] = {WEFT_FOR_EACH_UNARY_OP(WEFT_RULE)};
constexpr BinaryRule kBinaryRule[] = {WEFT_FOR_EACH_BINARY_OP(WEFT_RULE)};
#undef WEFT_RULE

template <class T>
constexpr bool kIsBool = std::is_same_v<T, bool>;

template <class T>
constexpr bool unaryAccepts(UnaryRule r) {
  if (r == UnaryRule::Float) return std::is_floating_point_v<T>;
  if (r == UnaryRule::Logical) return kIsBool<T>;
  return !kIsBool<T>;
}

template <class T>
constexpr bool binaryAccepts(BinaryRule r) {
  if (r == BinaryRule::Logical) return kIsBool<T>;
  if (r == BinaryRule::Order || r == BinaryRule::Compare) return true;
  return !kIsBool<T>;
}

void checkUnaryDtype(UnaryOp op, DType t) {
  bool ok = rt::dispatch(t, [&](auto tag) { return unaryAccepts<decltype(tag)>(kUnaryRule[int(op)]); });
  if (ok) return;
  std::string msg = std::string(name(op)) + " is not defined for " + dtypeStr(t) + " tensors";
  if (kUnaryRule[int(op)] == UnaryRule::Float && t != DType::Bool) msg += " (cast to f32 first)";
  if (kUnaryRule[int(op)] == UnaryRule::Logical) msg += " (it takes bool)";
  fail(msg);
}

DType binaryResultDtype(BinaryOp op, DType t) {
  BinaryRule r = kBinaryRule[int(op)];
  bool ok = rt::dispatch(t, [&](auto tag) { return binaryAccepts<decltype(tag)>(r); });
  if (!ok)
    fail(std::string(name(op)) + " is not defined for " + dtypeStr(t) + " tensors" +
         (r == BinaryRule::Logical ? " (it takes bool)" : ""));
  if (r == BinaryRule::Compare || r == BinaryRule::Logical) return DType::Bool;
  if (r == BinaryRule::TrueDiv && rt::isInt(t)) return t == DType::I64 ? DType::F64 : DType::F32;
  return t;
}

// Integer // and % by zero, and integer ** with a negative exponent, are errors (NumPy would
// give garbage or raise); every element of b is used once the result is non-empty.
void checkIntOperand(BinaryOp op, const Tensor& b) {
  BinaryRule r = kBinaryRule[int(op)];
  if (!rt::isInt(b.dtype()) || (r != BinaryRule::IntDiv && r != BinaryRule::Power)) return;
  rt::dispatch(b.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsBool<T>) {
      if (std::string why = rt::intOperandError(b.data<T>(), b.numel(), r == BinaryRule::Power); !why.empty())
        fail(why);
    }
  });
}

template <class F, UnaryRule Rule>
void runUnary(const Tensor& x, Tensor& out) {
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (unaryAccepts<T>(Rule)) rt::unaryKernel<F>(x.data<T>(), out.data<T>(), x.numel());
  });
}

template <class F, BinaryRule Rule>
void runBinary(const Tensor& a, const Tensor& b, Tensor& out) {
  rt::dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (binaryAccepts<T>(Rule)) {
      using R = rt::BinaryResult<F, T>;
      rt::binaryKernel<F>(a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.data<R>(), out.shape());
    }
  });
}

}  // namespace

IntoFn unaryInto(UnaryOp op) {
  switch (op) {
#define WEFT_CASE(F, Id, N, A, Fn, Rule) \
  case UnaryOp::Id: return [](std::span<const Tensor* const> in, const Attrs&, Tensor& out) { runUnary<rt::Fn, UnaryRule::Rule>(*in[0], out); };
    WEFT_FOR_EACH_UNARY_OP(WEFT_CASE)
#undef WEFT_CASE
  }
  return nullptr;
}

IntoFn binaryInto(BinaryOp op) {
  switch (op) {
#define WEFT_CASE(F, Id, N, A, Fn, Rule)                                        \
  case BinaryOp::Id:                                                            \
    return [](std::span<const Tensor* const> in, const Attrs&, Tensor& out) {   \
      if (out.numel() > 0) checkIntOperand(BinaryOp::Id, *in[1]);              \
      runBinary<rt::Fn, BinaryRule::Rule>(*in[0], *in[1], out);                 \
    };
    WEFT_FOR_EACH_BINARY_OP(WEFT_CASE)
#undef WEFT_CASE
  }
  return nullptr;
}

}  // namespace weft::ops::impl

namespace weft::ops {

Shape broadcastShape(const Shape& a, const Shape& b) {
  Shape s;
  if (!ops::broadcastShapes(a, b, s)) fail("cannot broadcast shapes " + a.str() + " and " + b.str());
  return s;
}

}  // namespace weft::ops

namespace weft::ops::impl {

TensorType unaryType(UnaryOp op, const TensorType& x) {
  checkUnaryDtype(op, x.dtype);
  return x;
}

TensorType binaryType(BinaryOp op, const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype)
    fail("dtype mismatch: " + dtypeStr(a.dtype) + " and " + dtypeStr(b.dtype) + " (in " + name(op) +
         "; use cast() to convert one of them)");
  return {binaryResultDtype(op, a.dtype), a.shape == b.shape ? a.shape : broadcastShape(a.shape, b.shape)};
}

TensorType castType(const TensorType& x, DType to) { return {to, x.shape}; }

Tensor unary(UnaryOp op, const Tensor& x) {
  checkUnaryDtype(op, x.dtype());
  Tensor out = Tensor::empty(x.dtype(), x.shape());
  switch (op) {
#define WEFT_CASE(F, Id, N, A, Fn, Rule) \
  case UnaryOp::Id: runUnary<rt::Fn, UnaryRule::Rule>(x, out); break;
    WEFT_FOR_EACH_UNARY_OP(WEFT_CASE)
#undef WEFT_CASE
  }
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const TensorType t = binaryType(op, typeOf(a), typeOf(b));
  if (t.shape.numel() > 0) checkIntOperand(op, b);
  Tensor out = Tensor::empty(t.dtype, t.shape);
  switch (op) {
#define WEFT_CASE(F, Id, N, A, Fn, Rule) \
  case BinaryOp::Id: runBinary<rt::Fn, BinaryRule::Rule>(a, b, out); break;
    WEFT_FOR_EACH_BINARY_OP(WEFT_CASE)
#undef WEFT_CASE
  }
  return out;
}

Tensor cast(const Tensor& x, DType to) {
  if (x.dtype() == to) return x;  // storage is immutable, so sharing it is safe
  Tensor out = Tensor::empty(to, x.shape());
  rt::dispatch(x.dtype(), [&](auto from) {
    rt::dispatch(to, [&](auto dest) {
      using S = decltype(from);
      using D = decltype(dest);
      rt::castKernel<S, D>(x.data<S>(), out.data<D>(), x.numel());
    });
  });
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

template <UnaryOp U>
Out runUnary(In in, const Attrs&) { return {impl::unary(U, in[0])}; }
template <UnaryOp U>
Types inferUnary(Ty in, const Attrs&) { return {impl::unaryType(U, in[0])}; }
template <BinaryOp B>
Out runBinary(In in, const Attrs&) { return {impl::binary(B, in[0], in[1])}; }
template <BinaryOp B>
Types inferBinary(Ty in, const Attrs&) { return {impl::binaryType(B, in[0], in[1])}; }

// Elementwise: a step of a fused loop, written over a dying input of its size (inPlace) but for
// exp and sigmoid (op_table.h); a few unary ops are applied in place over a matmul's result too
// (fuse-epilogues).
void elementwise(OpDef& d) {
  const OpId id = d.id;
  d.fusible = true;
  d.inPlace = id != OpId::UnaryExp && id != OpId::UnarySigmoid;
  d.epilogue = id == OpId::UnaryRelu || id == OpId::UnaryTanh || id == OpId::UnaryErf || id == OpId::UnaryNeg ||
               id == OpId::UnaryAbs || id == OpId::UnarySquare;
}

}  // namespace

void defineElementwiseRows() {
#define WEFT_UNARY_ROW(F, Id, ...)                                                                        \
  {                                                                                                       \
    OpDef& d = defineRow(OpId::F##Id, Family::Unary);                                                     \
    elementwise(d);                                                                                       \
    d.infer = inferUnary<UnaryOp::Id>, d.run = runUnary<UnaryOp::Id>, d.into = impl::unaryInto(UnaryOp::Id); \
  }
  WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_ROW)
#undef WEFT_UNARY_ROW
#define WEFT_BINARY_ROW(F, Id, ...)                                                                             \
  {                                                                                                             \
    OpDef& d = defineRow(OpId::F##Id, Family::Binary);                                                          \
    elementwise(d);                                                                                             \
    d.infer = inferBinary<BinaryOp::Id>, d.run = runBinary<BinaryOp::Id>, d.into = impl::binaryInto(BinaryOp::Id); \
  }
  WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_ROW)
#undef WEFT_BINARY_ROW
  // A step of a fused loop too (bool to a float: the mask of a maximum's or a max's gradient);
  // a cast to the same dtype is its input's bytes.
  OpDef& d = defineRow(OpId::Cast, Family::Shape);
  d.attrs = {{"dtype", K::DType}};
  d.view = true;
  d.fusible = true;
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::castType(in[0], a.dtype("dtype"))}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::cast(in[0], a.dtype("dtype"))}; };
}

}  // namespace weft::ops
