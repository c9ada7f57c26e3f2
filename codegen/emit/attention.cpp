// Emit rules of scaled_dot_product_attention and its gradient: the fused kernels of
// stdlib/runtime/attention.h on the geometry the interpreter computes.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/graph/text.h"
#include "interpreter/ops/impl.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

bool isGrad(const Node& n) { return n.op == OpId::AttentionGrad; }

// The leading (batch) axes of q, k and v (and of the gradient's out and dout) may be open and
// must agree; the lengths, depths and the mask are static. The gradient's results have the
// shapes of q, k and v.
void sizes(Emitter& e, const Node& n) {
  const Dims& q = e.dims(n.inputs[0]);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Dims& d = e.dims(n.inputs[i]);
    const bool batched = i < 3 || (isGrad(n) && i < 5);
    for (size_t a = batched ? d.size() - 2 : 0; a < d.size(); ++a)
      if (!isLiteral(d[a])) e.unsupported(n, "only its batch axes may have sizes known only at run time");
    if (batched)
      for (size_t a = 0; a + 2 < d.size(); ++a)
        if (d[a] != q[a])
          e.check(n, d[a] + " == " + q[a], "\"" + std::string(ops::opName(n.op)) + ": the batch axes differ\"");
  }
  if (isGrad(n)) {
    for (size_t i = 0; i < 3; ++i) e.same(n.outputs[i], n.inputs[i]);
    return;
  }
  Dims r = q;
  r.back() = e.dims(n.inputs[2]).back();
  for (size_t a = 0; a < r.size(); ++a) r[a] = e.dim(n.outputs[0], int(a), r[a]);
  e.setDims(n.outputs[0], r);
}

// (q, k, v[, mask]) -> out; the gradient (q, k, v, out, dout[, mask]) -> dq, dk, dv.
void code(Emitter& e, const Node& n, const std::string& p) {
  const size_t maskAt = isGrad(n) ? 5 : 3;
  const bool masked = n.inputs.size() > maskAt;
  const double scale = ops::impl::attentionScale(n.attrs, e.type(n.inputs[0]).shape.back());
  std::ostream& c = e.code();
  c << p << "{\n"
    << p << "  const Shape maskShape = " << (masked ? e.shape(n.inputs[maskAt]) : "Shape{}") << ";\n"
    << p << "  const weft::rt::Attention g = weft::rt::attentionGeometry(" << e.shape(n.inputs[0]) << ", "
    << e.shape(n.inputs[1]) << ", " << e.shape(n.inputs[2]) << ", " << (masked ? "&maskShape" : "nullptr") << ", "
    << (n.attrs.b("causal") ? "true" : "false") << ", " << graph::floatText(scale) << ");\n"
    << p << "  weft::rt::" << (isGrad(n) ? "attentionBackward(" : "attentionForward(") << e.ptr(n.inputs[0]) << ", "
    << e.ptr(n.inputs[1]) << ", " << e.ptr(n.inputs[2]) << ", "
    << (masked ? e.ptr(n.inputs[maskAt]) : std::string("static_cast<const bool*>(nullptr)"));
  if (isGrad(n))
    c << ", " << e.ptr(n.inputs[3]) << ", " << e.ptr(n.inputs[4]) << ", " << e.ptr(n.outputs[0]) << ", "
      << e.ptr(n.outputs[1]) << ", " << e.ptr(n.outputs[2]);
  else
    c << ", " << e.ptr(n.outputs[0]);
  c << ", g);\n" << p << "}\n";
}

}  // namespace

const ops::EmitRule kAttentionRule{"attention.h", sizes, nullptr, code};

}  // namespace weft::codegen
