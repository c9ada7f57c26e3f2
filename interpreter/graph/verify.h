// The graph verifier (docs/graphs.md): re-runs each node's shape and dtype inference and checks
// that the graph is well formed — scoping, arity, attribute schemas, declared types, variables
// and the shape of cond and while nodes.
#pragma once
#include <vector>

#include "../../grammar/source.h"
#include "graph.h"

namespace weft::graph {

// Throws WeftError naming the first bad node and the reason. Nodes are numbered in the order of
// the text (a node, then the nodes of its blocks); with nodeAt from parseText the error points at
// the node's line in the text.
void verify(const Graph& g, const std::vector<SourceRange>* nodeAt = nullptr);

}  // namespace weft::graph
