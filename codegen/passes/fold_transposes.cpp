// Transposes into products: `matmul(transpose(x), g)` and `matmul(g, transpose(w))` of matrices,
// as every dense layer's gradient computes them, become one matmul whose `transpose_a` or
// `transpose_b` attribute tells the GEMM to read that operand transposed where it lies, so no
// transposed copy is made. The transposes, then unused, go with dead-code removal.
#include "passes.h"

namespace weft::codegen {
namespace {

using ops::OpId;

// Whether n swaps the two axes of a matrix (no permutation given, or [1, 0]).
bool isMatrixTranspose(const graph::Node& n, const graph::Graph& g) {
  if (n.op != OpId::Transpose || g.values[size_t(n.inputs[0])].shape.rank() != 2) return false;
  const auto& perm = n.attrs.ints("perm");
  return perm.empty() || (perm.size() == 2 && perm[0] == 1 && perm[1] == 0);
}

void fold(graph::Block& b, const graph::Graph& g, std::map<int, int>& transposeOf) {
  for (auto& n : b.nodes) {
    for (auto& inner : n.blocks) fold(inner, g, transposeOf);
    if (isMatrixTranspose(n, g)) transposeOf[n.outputs[0]] = n.inputs[0];
    if (n.op != OpId::MatMul || n.inputs.size() != 2 || n.attrs.has("transpose_a")) continue;
    bool flags[2] = {false, false};
    for (int side = 0; side < 2; ++side) {
      auto t = transposeOf.find(n.inputs[size_t(side)]);
      if (g.values[size_t(n.inputs[size_t(side)])].shape.rank() != 2 || t == transposeOf.end()) continue;
      n.inputs[size_t(side)] = t->second;
      flags[side] = true;
    }
    if (flags[0] || flags[1]) n.attrs.set("transpose_a", flags[0]).set("transpose_b", flags[1]);
  }
}

}  // namespace

graph::Graph foldTransposes(const graph::Graph& g) {
  graph::Graph out = g;
  std::map<int, int> transposeOf;  // a transpose's result -> the matrix it transposes
  fold(out.body, out, transposeOf);
  return out;
}

}  // namespace weft::codegen
