// The graph passes of `weft compile`, one per file, each a function from a graph to a graph. The
// pipeline (codegen/pipeline.cpp) runs them in a straight line; `--dump-after=PASS` prints the
// graph after one of them.
#pragma once
#include <map>
#include <vector>

#include "interpreter/graph/graph.h"

namespace weft::codegen {

// Nodes whose inputs are all constants run once, on the eager kernels, and become constants.
graph::Graph foldConstants(const graph::Graph& g);
// Nodes without effects whose results nothing uses are removed.
graph::Graph removeDeadCode(const graph::Graph& g);
// Within a block, a read of a variable whose value the block holds (read or assigned before) uses
// that value, and assignments move down to just before the next node that touches the variable.
graph::Graph forwardVariables(const graph::Graph& g);
// A node equal to an earlier one in scope (same op, inputs and attributes) reuses its result.
graph::Graph mergeCommonSubexpressions(const graph::Graph& g);
// matmul of a transposed matrix: the matmul reads the matrix transposed (`transpose_a`,
// `transpose_b` attributes), and the transpose goes unused.
graph::Graph foldTransposes(const graph::Graph& g);
// matmul, then a bias add, then an elementwise activation: one matmul node with a `bias` input
// and an `epilogue` attribute, so that the emitter writes the bias before the product
// accumulates and applies the activation in the same pass over the result.
graph::Graph fuseMatmulEpilogues(const graph::Graph& g);
// Runs of elementwise nodes whose intermediate results are used only inside the run become one
// loop: each node gets the `fuse` attribute with its group's number (fuse_elementwise.cpp).
graph::Graph fuseElementwise(const graph::Graph& g);

// Shared by the passes: how many times each value is used (node inputs, block results).
std::vector<int> useCounts(const graph::Graph& g);
// Rewrites every use of a value through `renamed` (old id -> new id).
void renameUses(graph::Block& b, const std::map<int, int>& renamed);
// Whether a node, or any node in its blocks, has an effect (variables, the random stream, print).
bool hasEffect(const graph::Node& n);

}  // namespace weft::codegen
