// load_onnx: an ONNX model as a Weft module (docs/onnx.md).
#pragma once
#include "../eval/interpreter.h"
#include "source.h"

namespace weft::onnx {

// The module type's name for a model file: its stem in CamelCase ("resnet-18.onnx" -> Resnet18).
std::string moduleNameFor(const std::string& path);

// The model at path as a module: its float initializers are Variables named as in the graph, its
// call runs the graph (as an @function when graphFunction).
Value loadOnnx(Interpreter& in, const std::string& path, bool graphFunction = false);

// `weft import`: the model as a program of its own in outDir (NAME.model, tensors/*.npy); returns
// the program's path.
std::string importOnnx(Interpreter& in, const std::string& path, const std::string& outDir);

void registerBuiltins(Env& env);  // load_onnx, load_onnx_tensor, export_onnx

}  // namespace weft::onnx
