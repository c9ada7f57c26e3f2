// Emit rules of the control-flow nodes: cond as an if/else over its two blocks, while as a loop
// whose values live in the node's outputs (each iteration's results copied back).
#include <map>

#include "emit_rule.h"
#include "emitter.h"

namespace weft::codegen {
namespace {

using graph::Block;
using graph::Node;

void condSizes(Emitter& e, const Node& n) {
  e.sizes(n.blocks[0]);
  e.sizes(n.blocks[1]);
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (e.sizesOf(n.blocks[0].results[i]) != e.sizesOf(n.blocks[1].results[i]))
      e.unsupported(n, "its branches give results whose sizes may differ at run time");
    e.same(n.outputs[i], n.blocks[0].results[i]);
  }
}

void condCode(Emitter& e, const Node& n, const std::string& p) {
  for (int branch = 0; branch < 2; ++branch) {
    e.code() << p << (branch == 0 ? "if (" + e.ptr(n.inputs[0]) + "[0]) {\n" : "} else {\n");
    e.nodes(n.blocks[size_t(branch)], p + "  ");
    for (size_t i = 0; i < n.outputs.size(); ++i)
      e.code() << p << "  copy(" << e.ptr(n.outputs[i]) << ", " << e.ptr(n.blocks[size_t(branch)].results[i]) << ", "
               << e.bytes(n.outputs[i]) << ");\n";
  }
  e.code() << p << "}\n";
}

void whileSizes(Emitter& e, const Node& n) {
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    e.same(n.outputs[i], n.inputs[i]);
    for (const auto& b : n.blocks) e.same(b.params[i], n.inputs[i]);
  }
  e.sizes(n.blocks[0]);
  e.sizes(n.blocks[1]);
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (e.sizesOf(n.blocks[1].results[i]) != e.sizesOf(n.inputs[i])) e.unsupported(n, "a loop value's sizes may change at run time");
}

// The loop values are the node's outputs; the blocks' parameters are those bytes. A loop value
// whose initial value has bytes of its own outside the arena (a stack of rows sized when it
// runs) takes them over: that value must die there.
void whileMemory(Emitter& e, const Node& n) {
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!e.onHeap(n.inputs[i])) e.own(n.outputs[i]);
    else if (e.uses(n.inputs[i]) == 1) e.alias(n.outputs[i], n.inputs[i]);
    else e.unsupported(n, "a loop value starts from a stack of rows that other nodes read too");
    for (const auto& b : n.blocks) e.alias(b.params[i], n.outputs[i]);
  }
}

void whileCode(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& c = e.code();
  const Block &cond = n.blocks[0], &body = n.blocks[1];
  for (size_t i = 0; i < n.inputs.size(); ++i)
    c << p << "copy(" << e.ptr(n.outputs[i]) << ", " << e.ptr(n.inputs[i]) << ", " << e.bytes(n.outputs[i]) << ");\n";
  c << p << "for (;;) {\n";
  e.nodes(cond, p + "  ");
  c << p << "  if (!" << e.ptr(cond.results[0]) << "[0]) break;\n";
  e.nodes(body, p + "  ");
  // Results that are other loop values are copied first, in an order that reads each before
  // it is overwritten; then the newly computed ones.
  std::map<int, size_t> paramIndex;
  for (size_t i = 0; i < body.params.size(); ++i) paramIndex[body.params[i]] = i;
  std::vector<size_t> pending;
  for (size_t i = 0; i < body.results.size(); ++i) {
    auto it = paramIndex.find(body.results[i]);
    if (it != paramIndex.end() && it->second != i) pending.push_back(i);
  }
  while (!pending.empty()) {
    bool progress = false;
    for (size_t k = 0; k < pending.size(); ++k) {
      const size_t i = pending[k];
      // Slot i may be overwritten once no pending copy still reads it.
      bool read = false;
      for (size_t j : pending)
        if (j != i && paramIndex[body.results[j]] == i) read = true;
      if (read) continue;
      const size_t from = paramIndex[body.results[i]];
      c << p << "  copy(" << e.ptr(n.outputs[i]) << ", " << e.ptr(n.outputs[from]) << ", " << e.bytes(n.outputs[i]) << ");\n";
      pending.erase(pending.begin() + long(k));
      progress = true;
      break;
    }
    if (!progress) e.unsupported(n, "its loop values are exchanged in a cycle (a, b = b, a)");
  }
  for (size_t i = 0; i < body.results.size(); ++i)
    if (!paramIndex.count(body.results[i]))
      c << p << "  copy(" << e.ptr(n.outputs[i]) << ", " << e.ptr(body.results[i]) << ", " << e.bytes(n.outputs[i]) << ");\n";
  c << p << "}\n";
}

}  // namespace

const ops::EmitRule kCondRule{"", condSizes, nullptr, condCode};
const ops::EmitRule kWhileRule{"", whileSizes, whileMemory, whileCode};

void registerControlEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::Cond}, &kCondRule);
  ops::setEmit({OpId::While}, &kWhileRule);
}

}  // namespace weft::codegen
