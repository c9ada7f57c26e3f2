// Constant folding by running the eager kernels: the folded value is the one eager code computes.
#include <map>

#include "../../../grammar/diagnostics.h"
#include "../passes.h"

namespace weft::graph {
namespace {

constexpr int64_t kMaxFoldedElements = 1 << 16;  // larger results stay computed: no huge sources

using ops::OpId;

bool foldable(const graph::Node& n) {
  if (!n.blocks.empty() || n.op == OpId::Constant || n.op == OpId::ReadVariable) return false;
  const ops::OpDef& def = ops::opDef(n.op);
  return def.run && !def.effect && !n.attrs.has("epilogue");
}

void fold(graph::Block& b, const graph::Graph& g, std::map<int, Tensor>& constants) {
  for (auto& n : b.nodes) {
    for (auto& inner : n.blocks) fold(inner, g, constants);
    if (n.op == OpId::Constant) {
      constants[n.outputs[0]] = n.attrs.tensor("value");
      continue;
    }
    if (!foldable(n)) continue;
    std::vector<Tensor> in;
    for (int i : n.inputs) {
      auto it = constants.find(i);
      if (it == constants.end()) break;
      in.push_back(it->second);
    }
    if (in.size() != n.inputs.size()) continue;
    bool small = true;
    for (int o : n.outputs) small = small && g.values[size_t(o)].shape.checkedNumel().value_or(INT64_MAX) <= kMaxFoldedElements;
    if (!small || n.outputs.size() != 1) continue;
    std::vector<Tensor> out;
    try {
      out = ops::opDef(n.op).run(in, n.attrs);
    } catch (const WeftError&) {
      continue;  // an error the compiled code reports when it runs, as eager code does
    }
    constants[n.outputs[0]] = out[0];
    n.op = OpId::Constant;
    n.inputs.clear();
    n.attrs = ops::Attrs{{"value", out[0]}};
  }
}

}  // namespace

graph::Graph foldConstants(const graph::Graph& g) {
  graph::Graph out = g;
  std::map<int, Tensor> constants;
  fold(out.body, out, constants);
  return out;
}

}  // namespace weft::graph
