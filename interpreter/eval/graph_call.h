// The graphs a graph function (@function) has traced, one per input signature (SPEC §4).
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../graph/executor.h"

namespace weft {

// How one parameter enters a traced graph: not at all (its argument is traced by value), as one
// graph input, or, for a list or tuple of tensors (a model's several inputs), as one per item,
// as tf.function takes nested tensors.
struct ParamInputs {
  std::vector<graph::TensorType> types;  // empty: by value
  Kind sequence = Kind::None;            // Kind::List or Kind::Tuple: the argument is one of these
};

struct GraphTraces {
  struct Entry {
    std::string key;
    graph::Graph graph;
    std::vector<std::shared_ptr<VariableObj>> variables;
    std::unique_ptr<graph::GraphRunner> executor;  // SPMD when its variables lie on a mesh
    // The graph inputs in order: a parameter, and the item of its list or tuple (-1: the argument).
    std::vector<std::pair<size_t, int>> inputSlots;
    // Per graph input, the layout its parameter's TensorSpec gives (an empty mesh: none).
    std::vector<std::pair<spmd::MeshAxes, spmd::Placements>> inputLayouts;
    Value structure;  // the traced result; its tensors stand for the graph's outputs, in order
  };
  std::vector<std::unique_ptr<Entry>> entries;
  int traceCount = 0;
  std::vector<std::set<std::string>> signaturesSeen;  // per parameter, for the retracing warning
  bool warned = false;
};

// Gives trace `e`'s graph `g` the mesh and placements of its variables' layouts and of its inputs'
// TensorSpec layouts (SPEC §7.1); returns the mesh's text ("" when nothing has a layout).
// Layouts on different meshes cannot meet in one graph: that is an error at `at`, naming the
// graph `name`.
std::string placeOnMesh(graph::Graph& g, const GraphTraces::Entry& e, const std::string& name, const SourceRange& at);

// The graph input type an annotation names (`f32[None, 3]`), or nullopt when it does not name a
// tensor type with its dimensions (`f32` alone, `int`, `str`, a module type).
std::optional<graph::TensorType> annotatedSignature(const ast::TypeExpr& t);

// Whether every parameter of graph function `fn` has such an annotation: weft check traces it
// from them alone.
bool fullyAnnotated(const FunctionObj& fn);

}  // namespace weft
