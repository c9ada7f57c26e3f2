// An ONNX model as Weft source: one module whose constructor takes the model's tensors and whose
// `call` runs the graph, one line per node calling the ONNX op library (stdlib/onnx_ops.model).
// load_onnx runs this source; `weft import` writes it out for the user to read and edit.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "model_file.h"

namespace weft::onnx {

struct SourceOptions {
  std::string moduleName;      // an identifier: the module's type
  std::string origin;          // the model's path, for the header comment
  bool graphFunction = false;  // `call` is an @function
  // A program of its own (`weft import`): after the module, its tensors read from .npy files
  // (ModuleTensor::file, relative to the working directory) and an instance `model`.
  bool standalone = false;
  // Whether the op library defines a function of this name ("Relu", "Relu_v14").
  std::function<bool(const std::string&)> hasFunction;
};

// A tensor the module's constructor takes: `weights[key]` becomes a Variable, `constants[key]` a
// value the graph reads as it is.
struct ModuleTensor {
  std::string key;
  const TensorData* data;
  bool variable;
  std::string file;  // "tensors/NAME.npy", a file name made from key (standalone only)
};

struct Source {
  std::string text;
  std::vector<ModuleTensor> tensors;
};

// Throws WeftError naming the node (and op) that cannot be written: an unknown op or domain, an
// opset newer than Weft knows, an input no earlier node or initializer defines.
Source writeSource(const ModelFile& model, const SourceOptions& options);

// The newest ai.onnx opset Weft reads (ONNX 1.12's).
constexpr int64_t kMaxOpset = 17;

}  // namespace weft::onnx
