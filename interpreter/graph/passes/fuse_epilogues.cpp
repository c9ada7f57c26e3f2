// Epilogue fusion: `matmul(x, w)`, then `+ b` with b one row of the result's width, then
// optionally one elementwise activation, become one matmul node with `b` as a third input and
// the activation's name in its `epilogue` attribute. The emitter then writes the bias rows into
// the result, lets the product accumulate onto them, and runs the activation in one pass.
#include "../passes.h"

namespace weft::graph {
namespace {

using ops::OpId;

// Activations the emitter applies in place, after the product (the op table's epilogue set).
bool isEpilogue(OpId op) { return ops::opDef(op).epilogue; }

void fuse(graph::Block& b, const graph::Graph& g, const std::vector<int>& uses) {
  for (auto& n : b.nodes)
    for (auto& inner : n.blocks) fuse(inner, g, uses);
  std::map<int, size_t> producer;  // value -> index of its node in this block
  for (size_t i = 0; i < b.nodes.size(); ++i)
    for (int o : b.nodes[i].outputs) producer[o] = i;
  std::vector<bool> gone(b.nodes.size(), false);
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    graph::Node& add = b.nodes[i];
    if (add.op != OpId::BinaryAdd || gone[i]) continue;
    for (int side = 0; side < 2; ++side) {
      int m = add.inputs[size_t(side)], bias = add.inputs[size_t(1 - side)];
      auto p = producer.find(m);
      if (p == producer.end() || p->second >= i || uses[size_t(m)] != 1) continue;
      graph::Node& mm = b.nodes[p->second];
      if (mm.op != OpId::MatMul || mm.inputs.size() != 2 || mm.attrs.has("transpose_a") || mm.attrs.has("transpose_b") || gone[p->second]) continue;
      const graph::TensorType &mt = g.values[size_t(m)], &bt = g.values[size_t(bias)],
                              &wt = g.values[size_t(mm.inputs[1])], &at = g.values[size_t(mm.inputs[0])];
      const int64_t n = mt.shape.rank() ? mt.shape.back() : -1;
      const bool row = bt.shape.rank() == 1 || (bt.shape.rank() == 2 && bt.shape[0] == 1);
      if (!rt::isFloat(mt.dtype) || wt.shape.rank() != 2 || at.shape.rank() < 2 || !row || n < 0 ||
          bt.shape.back() != n || g.values[size_t(add.outputs[0])] != mt)
        continue;
      // The fused node takes the add's place (the bias may be defined after the matmul).
      graph::Node fused = mm;
      fused.inputs.push_back(bias);
      fused.outputs = add.outputs;
      std::string epilogue;
      size_t last = i;
      for (size_t j = i + 1; j < b.nodes.size() && uses[size_t(add.outputs[0])] == 1; ++j) {
        const graph::Node& act = b.nodes[j];
        if (act.inputs.size() == 1 && act.inputs[0] == add.outputs[0]) {
          if (isEpilogue(act.op)) {
            epilogue = ops::opName(act.op);
            fused.outputs = act.outputs;
            last = j;
          }
          break;
        }
      }
      fused.attrs.set("epilogue", epilogue);
      gone[p->second] = true;
      if (last != i) gone[i] = true;
      b.nodes[last] = std::move(fused);
      break;
    }
  }
  std::vector<graph::Node> kept;
  for (size_t i = 0; i < b.nodes.size(); ++i)
    if (!gone[i]) kept.push_back(std::move(b.nodes[i]));
  b.nodes = std::move(kept);
}

}  // namespace

graph::Graph fuseMatmulEpilogues(const graph::Graph& g) {
  graph::Graph out = g;
  fuse(out.body, out, graph::useCounts(out));
  return out;
}

}  // namespace weft::graph
