// VJP rules of the unary and binary elementwise ops; a binary op's gradient is summed back over
// the dimensions broadcasting added to each operand.
#include <cmath>

#include "rules.h"

namespace weft::autodiff {
namespace {

using ops::BinaryOp;
using ops::UnaryOp;
using V = ops::VjpResult;

Tensor add(const Tensor& a, const Tensor& b) { return ops::binary(BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return ops::binary(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return ops::binary(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return ops::binary(BinaryOp::Div, a, b); }
Tensor un(UnaryOp op, const Tensor& x) { return ops::unary(op, x); }
Tensor k(double v, const Tensor& like) { return scalarOf(v, like.dtype()); }

// d out / d x as a function of x and out, times g.
template <Tensor (*D)(const Tensor& x, const Tensor& y, const Tensor& g)>
V unary(const ops::VjpArgs& a) {
  return {D(a.in[0], a.out[0], a.gout[0])};
}

Tensor dNeg(const Tensor&, const Tensor&, const Tensor& g) { return un(UnaryOp::Neg, g); }
Tensor dAbs(const Tensor& x, const Tensor&, const Tensor& g) { return mul(g, un(UnaryOp::Sign, x)); }
Tensor dExp(const Tensor&, const Tensor& y, const Tensor& g) { return mul(g, y); }
Tensor dLog(const Tensor& x, const Tensor&, const Tensor& g) { return div(g, x); }
Tensor dSqrt(const Tensor&, const Tensor& y, const Tensor& g) { return div(g, mul(y, k(2.0, y))); }
Tensor dRsqrt(const Tensor&, const Tensor& y, const Tensor& g) {
  return mul(g, mul(k(-0.5, y), mul(y, mul(y, y))));
}
Tensor dTanh(const Tensor&, const Tensor& y, const Tensor& g) { return mul(g, sub(k(1.0, y), mul(y, y))); }
Tensor dSigmoid(const Tensor&, const Tensor& y, const Tensor& g) { return mul(g, mul(y, sub(k(1.0, y), y))); }
Tensor dRelu(const Tensor& x, const Tensor&, const Tensor& g) {
  return mul(g, maskOf(ops::binary(BinaryOp::Gt, x, k(0.0, x)), x.dtype()));
}
Tensor dErf(const Tensor& x, const Tensor&, const Tensor& g) {
  return mul(g, mul(k(2.0 / std::sqrt(M_PI), x), un(UnaryOp::Exp, un(UnaryOp::Neg, mul(x, x)))));
}
Tensor dSin(const Tensor& x, const Tensor&, const Tensor& g) { return mul(g, un(UnaryOp::Cos, x)); }
Tensor dCos(const Tensor& x, const Tensor&, const Tensor& g) { return un(UnaryOp::Neg, mul(g, un(UnaryOp::Sin, x))); }
Tensor dLog1p(const Tensor& x, const Tensor&, const Tensor& g) { return div(g, add(x, k(1.0, x))); }
Tensor dExpm1(const Tensor&, const Tensor& y, const Tensor& g) { return mul(g, add(y, k(1.0, y))); }
Tensor dSquare(const Tensor& x, const Tensor&, const Tensor& g) { return mul(g, mul(x, k(2.0, x))); }

// Both operands' gradients before unbroadcasting.
using BinaryD = std::pair<Tensor, Tensor> (*)(const ops::VjpArgs& a);

template <BinaryD D>
V binary(const ops::VjpArgs& a) {
  auto [ga, gb] = D(a);
  V r(2);
  if (a.need[0] && ga.dtype() == a.in[0].dtype()) r[0] = unbroadcast(ga, a.in[0].shape());
  if (a.need[1] && gb.dtype() == a.in[1].dtype()) r[1] = unbroadcast(gb, a.in[1].shape());
  return r;
}

std::pair<Tensor, Tensor> dAdd(const ops::VjpArgs& a) { return {a.gout[0], a.gout[0]}; }
std::pair<Tensor, Tensor> dSub(const ops::VjpArgs& a) { return {a.gout[0], un(UnaryOp::Neg, a.gout[0])}; }
std::pair<Tensor, Tensor> dMul(const ops::VjpArgs& a) {
  const Tensor& g = a.gout[0];
  return {a.need[0] ? mul(g, a.in[1]) : Tensor(), a.need[1] ? mul(g, a.in[0]) : Tensor()};
}
std::pair<Tensor, Tensor> dDiv(const ops::VjpArgs& a) {
  const Tensor& g = a.gout[0];
  return {a.need[0] ? div(g, a.in[1]) : Tensor(),
          a.need[1] ? un(UnaryOp::Neg, div(mul(g, a.out[0]), a.in[1])) : Tensor()};
}
// a mod b = a - floor(a / b) * b.
std::pair<Tensor, Tensor> dMod(const ops::VjpArgs& a) {
  const Tensor& g = a.gout[0];
  return {g, a.need[1] ? un(UnaryOp::Neg, mul(g, un(UnaryOp::Floor, div(a.in[0], a.in[1])))) : Tensor()};
}
// d a^b / da = b a^(b-1); d a^b / db = a^b log a, taken as 0 where a <= 0 (TensorFlow's choice).
std::pair<Tensor, Tensor> dPow(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &p = a.in[1], &g = a.gout[0];
  Tensor gx, gp;
  if (a.need[0]) gx = mul(g, mul(p, ops::binary(BinaryOp::Pow, x, sub(p, k(1.0, p)))));
  if (a.need[1]) {
    Tensor pos = ops::binary(BinaryOp::Gt, x, k(0.0, x));
    Tensor safe = ops::where(pos, x, k(1.0, x));
    gp = mul(g, mul(a.out[0], ops::where(pos, un(UnaryOp::Log, safe), k(0.0, x))));
  }
  return {gx, gp};
}
// The larger operand takes the gradient; a tie gives it to the first (as TensorFlow).
template <bool IsMax>
std::pair<Tensor, Tensor> dOrder(const ops::VjpArgs& a) {
  const Tensor &x = a.in[0], &y = a.in[1], &g = a.gout[0];
  Tensor first = ops::binary(IsMax ? BinaryOp::Ge : BinaryOp::Le, x, y);
  Tensor m = maskOf(first, x.dtype());
  return {mul(g, m), mul(g, sub(k(1.0, m), m))};
}

// dy * gelu'(x), from x and dy alone, on primitives (so gradients of gradients follow, and the
// graph passes fuse it into one elementwise loop). x is held at -1000 as the forward pass holds
// it: below, the derivative is 0 (its mask), and at -1000 every form's derivative is 0 already.
// The erf form: Phi(x) + x phi(x). The tanh form x * s, s = sigmoid(z), z = 2u = k (x + a x^3):
// s + x s sigmoid(-z) k (1 + 3a x^2), with 1 - s as sigmoid(-z), without its cancellation.
ops::VjpResult geluVjp(const ops::VjpArgs& a) {
  const Tensor& x = a.in[0];
  const Tensor xc = ops::binary(BinaryOp::Maximum, x, k(-1000.0, x));
  Tensor d;
  if (a.attrs.b("approximate")) {
    const double c = 0.044715, root = 1.5957691216057308;  // 2 sqrt(2 / pi)
    const Tensor xx = mul(xc, xc);
    const Tensor z = mul(k(root, x), add(xc, mul(mul(k(c, x), xx), xc)));
    const Tensor s = un(UnaryOp::Sigmoid, z);
    const Tensor slope = mul(k(root, x), add(k(1.0, x), mul(k(3 * c, x), xx)));
    d = add(s, mul(mul(xc, mul(s, un(UnaryOp::Sigmoid, un(UnaryOp::Neg, z)))), slope));
  } else {
    const Tensor cdf = mul(k(0.5, x), add(k(1.0, x), un(UnaryOp::Erf, mul(xc, k(M_SQRT1_2, x)))));
    const Tensor pdf = mul(k(0.5 * M_2_SQRTPI * M_SQRT1_2, x), un(UnaryOp::Exp, mul(k(-0.5, x), mul(xc, xc))));
    d = add(cdf, mul(xc, pdf));
  }
  return {mul(a.gout[0], d)};
}

ops::VjpFn unaryRule(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return unary<dNeg>;
    case UnaryOp::Abs: return unary<dAbs>;
    case UnaryOp::Exp: return unary<dExp>;
    case UnaryOp::Log: return unary<dLog>;
    case UnaryOp::Sqrt: return unary<dSqrt>;
    case UnaryOp::Rsqrt: return unary<dRsqrt>;
    case UnaryOp::Tanh: return unary<dTanh>;
    case UnaryOp::Sigmoid: return unary<dSigmoid>;
    case UnaryOp::Relu: return unary<dRelu>;
    case UnaryOp::Erf: return unary<dErf>;
    case UnaryOp::Sin: return unary<dSin>;
    case UnaryOp::Cos: return unary<dCos>;
    case UnaryOp::Log1p: return unary<dLog1p>;
    case UnaryOp::Expm1: return unary<dExpm1>;
    case UnaryOp::Square: return unary<dSquare>;
    // Piecewise constant: zero almost everywhere.
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Sign:
    case UnaryOp::Not: return noGradient;
  }
  return noGradient;
}

ops::VjpFn binaryRule(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return binary<dAdd>;
    case BinaryOp::Sub: return binary<dSub>;
    case BinaryOp::Mul: return binary<dMul>;
    case BinaryOp::Div: return binary<dDiv>;
    case BinaryOp::Mod: return binary<dMod>;
    case BinaryOp::Pow: return binary<dPow>;
    case BinaryOp::Maximum: return binary<dOrder<true>>;
    case BinaryOp::Minimum: return binary<dOrder<false>>;
    case BinaryOp::FloorDiv:  // piecewise constant
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::And:
    case BinaryOp::Or: return noGradient;
  }
  return noGradient;
}

}  // namespace

void registerElementwiseVjps() {
#define WEFT_UNARY_VJP(F, Id, ...) ops::setVjp({ops::OpId::F##Id}, unaryRule(UnaryOp::Id));
  WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_VJP)
#undef WEFT_UNARY_VJP
#define WEFT_BINARY_VJP(F, Id, ...) ops::setVjp({ops::OpId::F##Id}, binaryRule(BinaryOp::Id));
  WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_VJP)
#undef WEFT_BINARY_VJP
  ops::setVjp({ops::OpId::Gelu}, geluVjp);
}

}  // namespace weft::autodiff
