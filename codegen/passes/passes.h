// The graph passes of `weft compile` of its own, one per file, each a function from a graph to a
// graph; the others are interpreter/graph/passes.h's. The pipeline (codegen/pipeline.cpp) runs
// them all in a straight line; `--dump-after=PASS` prints the graph after one of them.
#pragma once
#include "interpreter/graph/passes.h"  // the passes the executor runs too

namespace weft::codegen {

// Nodes whose inputs are all constants run once, on the eager kernels, and become constants.
graph::Graph foldConstants(const graph::Graph& g);
// matmul, then a bias add, then an elementwise activation: one matmul node with a `bias` input
// and an `epilogue` attribute, so that the emitter writes the bias before the product
// accumulates and applies the activation in the same pass over the result.
graph::Graph fuseMatmulEpilogues(const graph::Graph& g);

}  // namespace weft::codegen
