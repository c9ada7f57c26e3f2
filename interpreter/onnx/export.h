// A graph function's graph as an ONNX model (export_onnx, `weft export-onnx`; docs/onnx.md).
#pragma once
#include "../graph/graph.h"
#include "model_file.h"

namespace weft::onnx {

// The graph at opset 17: its inputs and outputs typed, its variables (with these values) as
// initializers named by their paths, each op as the ONNX nodes that compute it. What has no ONNX
// form (a variable assignment, print, a collective, a sharded layout, graph control flow) is a
// WeftError naming it and its source line.
ModelFile exportGraph(const graph::Graph& g, const std::vector<Tensor>& variables);

// Writes a model through the reader plugin (which holds protobuf); throws WeftError.
void writeModel(const ModelFile& m, const std::string& path);

}  // namespace weft::onnx
