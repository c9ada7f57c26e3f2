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

// Only the leading (batch) axes of q, k and v (and of the gradient's out and dout) may be open:
// the kernels' geometry is the lengths and depths the graph knows (the inference checks that
// the batch axes agree).
void checkStatic(Emitter& e, const Node& n) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Shape& s = e.type(n.inputs[i]).shape;
    const bool batched = i < 3 || (isGrad(n) && i < 5);
    for (int a = batched ? s.rank() - 2 : 0; a < s.rank(); ++a)
      if (s[a] == rt::kUnknownDim) e.unsupported(n, "only its batch axes may have sizes known only at run time");
  }
}

// (q, k, v[, mask]) -> out; the gradient (q, k, v, out, dout[, mask]) -> dq, dk, dv.
void code(Emitter& e, const Node& n, const std::string& p) {
  checkStatic(e, n);
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

const ops::EmitRule kAttentionRule{"attention.h", nullptr, nullptr, code};

void registerAttentionEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::Attention, OpId::AttentionGrad}, &kAttentionRule);
}

}  // namespace weft::codegen
