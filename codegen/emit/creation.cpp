// Emit rules of the ops without inputs: the creation ops (full, eye, arange, linspace) are
// computed once, by the interpreter's kernels, into constants of the generated code; the random
// ops draw from the state's stream, advanced as the interpreter's is (stdlib/runtime/random.h).
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/graph/text.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// Creation ops depend on their attributes alone: their value is a constant.
void creationMemory(Emitter& e, const Node& n) {
  const Tensor value = ops::opDef(n.op).run({}, n.attrs).at(0);
  e.point(n.outputs[0], e.constant(value, "c" + std::to_string(n.outputs[0])));
}
void noCode(Emitter&, const Node&, const std::string&) {}

// The truncated normal's scratch (the table's workspace column, from the runtime's formula).
void randomMemory(Emitter& e, const Node& n) {
  e.ownResults(n);
  if (n.op == OpId::RandomTruncatedNormal)
    e.workspace("size_t(weft::rt::truncatedNormalWorkspaceBytes(" + e.numel(n.outputs[0]) + ", sizeof(" + e.T(n.outputs[0]) +
                ")))");
}

// The state's stream, advanced as the interpreter's is; an op-level seed draws from the start of
// its own stream, and the state's stays as it was.
void randomCode(Emitter& e, const Node& n, const std::string& p) {
  const int out = n.outputs[0];
  const bool seeded = n.attrs.has("seed");
  const std::string key = seeded ? std::to_string(uint64_t(n.attrs.i("seed"))) + "ULL" : "st.random_key";
  const std::string counter = seeded ? "0" : "st.random_counter";
  const std::string ptr = e.ptr(out), count = e.numel(out);
  if (n.op == OpId::RandomTruncatedNormal) {
    const std::string z = e.T(out) == "double" ? ptr : "static_cast<double*>(ws)";
    e.code() << p << (seeded ? "(void)" : "st.random_counter = ") << "weft::rt::truncatedNormalKernel(" << ptr << ", "
             << count << ", " << key << ", " << counter << ", " << graph::floatText(n.attrs.f("mean")) << ", "
             << graph::floatText(n.attrs.f("stddev")) << ", " << z << ");\n";
    return;
  }
  const bool normal = n.op == OpId::RandomNormal;
  e.code() << p << "weft::rt::" << (normal ? "normalKernel(" : "uniformKernel(") << ptr << ", " << count << ", " << key
           << ", " << counter << ", " << graph::floatText(n.attrs.f(normal ? "mean" : "minval")) << ", "
           << graph::floatText(n.attrs.f(normal ? "stddev" : "maxval")) << ");\n";
  if (!seeded) e.code() << p << "st.random_counter += uint64_t(weft::rt::blocksFor<" << e.T(out) << ">(" << count << "));\n";
}

}  // namespace

const ops::EmitRule kCreationRule{"", nullptr, creationMemory, noCode};
const ops::EmitRule kRandomRule{"random.h", nullptr, randomMemory, randomCode};

void registerCreationEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::Full, OpId::Eye, OpId::Arange, OpId::Linspace}, &kCreationRule);
  ops::setEmit({OpId::RandomNormal, OpId::RandomUniform, OpId::RandomTruncatedNormal}, &kRandomRule);
}

}  // namespace weft::codegen
