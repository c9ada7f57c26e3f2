// What the evaluator calls in the layers above it, which it never includes (docs/internals.md, "Layers"):
// the builtins written in C++ (interpreter/builtins), layouts (interpreter/mesh) and the Keras
// summary table. The top level of a program fills the table once at startup, before the first
// Interpreter is made: weft::installBuiltins() (interpreter/builtins/builtins.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../../grammar/ast/stmt.h"
#include "../spmd/placement.h"
#include "../values/env.h"
#include "../values/objects.h"

namespace weft {

struct EvalHooks {
  // Binds the functions written in C++ (the native half of the prelude) in a new interpreter.
  void (*registerNatives)(Env& env) = nullptr;

  // Layouts (interpreter/mesh/builtins.h, scope.h).
  // `mesh NAME(dim=size, ...)`; `sizes` are the evaluated size expressions, one per dimension.
  Value (*declareMesh)(const ast::MeshDecl& decl, const std::vector<Value>& sizes) = nullptr;
  // `layout_map NAME on MESH { ... }`; `mesh` is the value MESH is bound to (null when unbound).
  Value (*declareLayoutMap)(const ast::LayoutMapDecl& decl, const Value* mesh) = nullptr;
  // `v.layout` and `v.shard`.
  Value (*variableLayoutAttr)(Interpreter& in, const Value& self, VariableObj& var, const std::string& name) = nullptr;
  // A tensor's `x.layout` and `x.shard`.
  Value (*tensorLayoutAttr)(Interpreter& in, const Value& self, const std::string& name) = nullptr;
  // A module was constructed (it remembers an active layout_map_scope).
  void (*moduleCreated)(Interpreter& in, ModuleObj& m) = nullptr;
  // A module adopted a variable (a lazily built weight may now find its layout).
  void (*variableAdopted)(Interpreter& in, VariableObj& var) = nullptr;
  // The main program ended without an error: layouts of variables built last, keys that never
  // matched.
  void (*finishProgram)(Interpreter& in) = nullptr;

  // `model.summary()`: the Keras summary table of a module (interpreter/builtins/keras.h).
  std::string (*summaryTable)(Interpreter& in, ModuleObj& m) = nullptr;
  // Keras' weight attributes of a module (weights, get_weights, set_weights, count_params,
  // output_shape; interpreter/builtins/keras_weights.cpp), or nothing for another name.
  std::optional<Value> (*layerAttr)(Interpreter& in, const Value& self, ModuleObj& m, const std::string& name) = nullptr;

  // A variable's layout as placements on its mesh (interpreter/mesh/), or false when it has none.
  bool (*variablePlacements)(const VariableObj& var, spmd::MeshAxes& mesh, spmd::Placements& placements) = nullptr;

  bool complete() const {
    return registerNatives && declareMesh && declareLayoutMap && variableLayoutAttr && tensorLayoutAttr && moduleCreated &&
           variableAdopted && finishProgram && summaryTable && layerAttr && variablePlacements;
  }
};

// The process's one table.
EvalHooks& evalHooks();

}  // namespace weft
