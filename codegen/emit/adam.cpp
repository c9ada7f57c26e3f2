// Emit rule of adam_update: stdlib/runtime/adam.h over the variable's elements. Each result that
// the graph assigns to its variable is computed into the variable's state (the plan's
// computedInto), so the update reads and writes each weight and slot once.
#include "emit_rule.h"
#include "emitter.h"

namespace weft::codegen {
namespace {

using graph::Node;

// (w, g, m, s, alpha, 1 - beta_1, 1 - beta_2, epsilon) -> (w, m, s); the last four are scalars.
void code(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& c = e.code();
  c << p << "weft::rt::adamUpdate(";
  for (size_t i = 0; i < 4; ++i) c << e.ptr(n.inputs[i]) << ", ";
  for (size_t i = 4; i < 8; ++i) c << e.ptr(n.inputs[i]) << "[0], ";
  for (int o : n.outputs) c << e.ptr(o) << ", ";
  c << "int64_t(" << e.numel(n.inputs[0]) << "));\n";
}

}  // namespace

const ops::EmitRule kAdamUpdateRule{"adam.h", nullptr, nullptr, code};

void registerAdamEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::AdamUpdate}, &kAdamUpdateRule);
}

}  // namespace weft::codegen
