// The text form of a graph (docs/graphs.md): what `weft graph` prints, what a saved model stores
// and what graph golden tests compare. printText and parseText round-trip exactly:
// printText(parseText(printText(g))) == printText(g), and parseText(printText(g)) is identical to g.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../../grammar/source.h"
#include "graph.h"

namespace weft::graph {

std::string printText(const Graph& g);

// Parses one graph; a syntax error is a WeftError at its line and column. When nodeAt is given it
// receives where each node starts, in the order verify() numbers nodes (the order of the text),
// so that verify's errors point at the node's line.
Graph parseText(std::shared_ptr<const SourceFile> file, std::vector<SourceRange>* nodeAt = nullptr);

// Structural equality that is exact where the text is: float attributes and constants compare
// by their bits, so -0.0 differs from 0.0 and a NaN equals the same NaN.
bool identical(const Graph& a, const Graph& b);

// The text of one float or double that reads back to the same bits ("1.0", "-0.0", "inf",
// "nan", "nan:0x7fc00001" for a NaN other than the default one); shared with the DOT writer.
std::string floatText(double v);
std::string floatText(float v);
// Element i of a tensor with data, as the text form writes it.
std::string elementText(const Tensor& t, int64_t i);

}  // namespace weft::graph
