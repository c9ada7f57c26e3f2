// The manifest of a saved model (SPEC §8, docs/saved_models.md): what `saved_model.yaml` holds,
// as plain data. manifest_write.cpp prints it as YAML; manifest_read.cpp parses and validates it,
// so that every index and name in a Manifest it returns is in range and every file name is safe.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../graph/graph.h"

namespace weft::saved {

constexpr const char* kManifestFile = "saved_model.yaml";
constexpr const char* kFormatName = "weft-saved-model";
constexpr int kFormatVersion = 1;

// A reference held by a module attribute: a variable, a submodule, or a list of references.
struct AttrRef {
  enum class Kind { Variable, Module, List } kind = Kind::Variable;
  int index = 0;               // into Manifest::variables or Manifest::modules
  std::vector<AttrRef> items;  // a list's
};

struct ModuleEntry {
  std::string type;  // "DemoModule", "Sequential"
  std::string name;  // "demo_module"
  std::string path;  // object path from the root ("" for the root, "d1", "blocks.0")
  int parent = -1;   // index of the module it hangs below; -1 for the root (index 0)
  std::string key;   // its key in the parent ("d1", "blocks.0")
  bool trainable = true;
  std::vector<std::pair<std::string, AttrRef>> attributes;  // in order
  // A Keras layer's last output shape, for summary() of the loaded model (None for an open batch
  // dimension); absent for a module never called.
  std::optional<Shape> outputShape;
};

struct MeshEntry {
  std::string name;  // empty for Mesh(...)
  std::vector<std::string> dimNames;
  std::vector<int64_t> dimSizes;
};

struct LayoutEntry {
  int mesh = 0;  // into Manifest::meshes
  std::vector<std::optional<std::string>> dims;  // nullopt: unsharded
};

struct VariableEntry {
  std::string name;  // "demo_module/x"
  std::string path;  // "x"
  int owner = -1;    // the module whose attribute it is; -1 for none
  std::string key;   // its key in the owner ("x", "kernels.0")
  graph::TensorType type;  // fully known shape
  bool trainable = true;
  bool ownTrainable = true;  // its own flag (a frozen layer's variables keep theirs)
  std::optional<LayoutEntry> layout;
  std::string file;  // "variables/x.npy", relative to the saved model's folder
};

// An input or output of a saved function.
struct TensorSpecEntry {
  std::string name;
  graph::TensorType type;  // a dimension may be rt::kUnknownDim (None)
};

// How a function's outputs are returned: one output, a tuple, a list or a dict of them, or none.
struct ReturnShape {
  enum class Kind { Output, Tuple, List, Dict, None } kind = Kind::Output;
  int output = 0;
  std::vector<ReturnShape> items;
  std::vector<std::string> keys;  // a dict's, one per item
};

// A traced graph function: a signature's, or a method of the root module.
struct FunctionEntry {
  std::string name;    // "addprint"
  std::string method;  // the root module's attribute it is bound to ("addprint", "call"); may be empty
  std::string file;    // "graphs/addprint.txt"
  std::vector<TensorSpecEntry> inputs, outputs;
  std::vector<int> variables;  // the manifest variable behind each of the graph's variable slots
  ReturnShape returns;
};

struct Manifest {
  int version = kFormatVersion;
  std::vector<ModuleEntry> modules;  // modules[0] is the root
  std::vector<VariableEntry> variables;
  std::vector<MeshEntry> meshes;
  std::vector<FunctionEntry> functions;
  std::vector<std::pair<std::string, int>> signatures;  // name -> index into functions
};

// The YAML text of a manifest.
std::string writeManifest(const Manifest& m);
// Why save refuses the manifest, "" when it does not: a name, path, key or type holding a
// control character (load refuses those too: they would end a comment of generated code or drive
// a terminal).
std::string controlTextIn(const Manifest& m);
// Parses and validates manifest text; `file` names it in errors ("saved/saved_model.yaml").
// Throws WeftError on anything malformed, out of range or unsafe.
Manifest readManifest(const std::string& text, const std::string& file);

// "f32", "i64": as annotations write dtypes; "f32[None, 3]" for a type.
std::string shapeText(const Shape& s);  // "[None, 3]"

}  // namespace weft::saved
