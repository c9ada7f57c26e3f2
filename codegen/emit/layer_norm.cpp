// Emit rules of layer_norm and its gradient: the fused kernels of stdlib/runtime/layer_norm.h,
// over rows of x's last axis (its size the graph must know; the leading axes may be open).
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/graph/text.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// (x, gamma, beta) -> y; the gradient (x, gamma, dy) -> dx, dgamma, dbeta.
void code(Emitter& e, const Node& n, const std::string& p) {
  const int64_t cols = e.type(n.inputs[0]).shape.back();
  if (cols == rt::kUnknownDim) e.unsupported(n, "the size of its normalised (last) axis must be known when it compiles");
  const std::string rows = cols == 0 ? "0" : "(" + e.numel(n.inputs[0]) + ") / " + std::to_string(cols);
  const std::string eps = graph::floatText(n.attrs.f("epsilon"));
  std::ostream& c = e.code();
  if (n.op == OpId::LayerNorm)
    c << p << "weft::rt::layerNormForward(" << e.ptr(n.inputs[0]) << ", " << e.ptr(n.inputs[1]) << ", "
      << e.ptr(n.inputs[2]) << ", " << e.ptr(n.outputs[0]);
  else
    c << p << "weft::rt::layerNormBackward(" << e.ptr(n.inputs[0]) << ", " << e.ptr(n.inputs[1]) << ", "
      << e.ptr(n.inputs[2]) << ", " << e.ptr(n.outputs[0]) << ", " << e.ptr(n.outputs[1]) << ", "
      << e.ptr(n.outputs[2]);
  c << ", " << rows << ", " << cols << ", " << eps;
  if (n.op == OpId::LayerNormGrad) c << ", static_cast<" << e.T(n.inputs[0]) << "*>(ws)";
  c << ");\n";
}

// The gradient's partial sums of dgamma and dbeta live in the arena's workspace.
void memory(Emitter& e, const Node& n) {
  e.ownResults(n);
  if (n.op != OpId::LayerNormGrad) return;
  const int64_t cols = e.type(n.inputs[0]).shape.back();
  if (cols > 0)
    e.workspace("size_t(weft::rt::layerNormBackwardWorkspaceBytes((" + e.numel(n.inputs[0]) + ") / " + std::to_string(cols) +
                ", " + std::to_string(cols) + ", sizeof(" + e.T(n.inputs[0]) + ")))");
}

}  // namespace

const ops::EmitRule kLayerNormRule{"layer_norm.h", nullptr, memory, code};

void registerLayerNormEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::LayerNorm, OpId::LayerNormGrad}, &kLayerNormRule);
}

}  // namespace weft::codegen
