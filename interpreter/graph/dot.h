// A graph as Graphviz DOT (docs/graphs.md), for `weft graph -o F.dot|.svg|.png`: ops are boxes,
// edges carry the dtype and shape of the value they pass, variables are cylinders grouped in
// clusters by module (as TensorBoard groups by name scope), inputs and outputs are house shapes,
// and the blocks of cond and while nodes are clusters.
#pragma once
#include <string>

#include "graph.h"

namespace weft::graph {

std::string dotText(const Graph& g);

// `weft graph -o PATH` (dot_file.cpp): checks that PATH's extension names a form (.txt the text,
// .dot, .svg or .png) and, for .svg and .png, that Graphviz's `dot` program is on the PATH;
// throws WeftError otherwise. Called before any work, so that a usage error costs nothing.
void checkGraphFile(const std::string& path);
// Writes g to PATH in the form its extension names; throws WeftError when that fails.
void writeGraphFile(const Graph& g, const std::string& path);

}  // namespace weft::graph
