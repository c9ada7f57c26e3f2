// Entry points registered with `export(fn, name=..., signature=[...])` for `weft compile`
// (SPEC §9), and TensorSpec, the type of one of their inputs.
#pragma once
#include <string>
#include <vector>

#include "../graph/graph.h"
#include "../values/objects.h"

namespace weft {

// TensorSpec(shape, dtype=f32, name=none, layout=none): tf.TensorSpec, and DTensor's layout of
// a graph function's input (SPEC §7.1).
struct TensorSpecObj : OpaqueObj {
  graph::TensorType type;
  std::string name;
  Value layout;                 // none, or the Layout the input arrives split by
  spmd::MeshAxes mesh;          // the layout as graph passes read it (empty: none)
  spmd::Placements placements;
  std::string typeName() const override { return "TensorSpec"; }
  std::string repr() const override;
  std::optional<Value> getAttr(Interpreter&, Symbol) override;
  bool equals(const OpaqueObj& o) const override;
};

struct Export {
  std::string name;   // a C++ identifier: the generated class and files are named after it
  Value fn;           // a FunctionObj
  std::vector<graph::TensorType> signature;  // one per parameter
  std::vector<std::string> inputNames;       // the parameters' names
  // Per parameter, the mesh and placements its TensorSpec's layout gives (empty: none).
  std::vector<std::pair<spmd::MeshAxes, spmd::Placements>> inputLayouts;
  SourceRange site;   // the export() call
};

}  // namespace weft
