// Constant lifting: a constant of more than 4,096 elements (weights a function captured from a
// global, a large folded value) becomes a variable slot holding it, read by a read_variable node,
// so that generated code stores it in its weights files rather than as C++ source.
#include "../passes.h"

namespace weft::graph {
namespace {

constexpr int64_t kMaxSourceConstant = 4096;

void lift(Block& b, Graph& g) {
  for (auto& n : b.nodes) {
    for (auto& inner : n.blocks) lift(inner, g);
    if (n.op != ops::OpId::Constant || n.attrs.tensor("value").numel() <= kMaxSourceConstant) continue;
    const Tensor t = n.attrs.tensor("value");
    g.variables.push_back({"constant_" + std::to_string(g.variables.size()), {t.dtype(), t.shape()}, "", t});
    n.op = ops::OpId::ReadVariable;
    n.attrs = ops::Attrs{{"var", int64_t(g.variables.size() - 1)}};
  }
}

}  // namespace

Graph liftConstants(const Graph& g) {
  Graph out = g;
  lift(out.body, out);
  return out;
}

}  // namespace weft::graph
