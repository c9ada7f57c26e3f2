// The layout API as programs see it: the builtins (Mesh, Layout, UNSHARDED, LayoutMap,
// layout_map_scope, plan), the declarative `mesh` and `layout_map` statements, and the layout
// attributes of a Variable (`v.layout`, `v.shard(i)`).
#pragma once
#include "../eval/hooks.h"
#include "../values/env.h"

namespace weft::mesh {

struct LayoutObj;

// What the evaluator and the values call here: the statements and attributes below, the layout
// scope hooks (scope.h) and the placement hook (shards.h).
void installHooks(EvalHooks& hooks);
void registerBuiltins(Env& env);

// `mesh NAME(dim=size, ...)`; `sizes` are the evaluated size expressions, one per dimension.
Value declareMesh(const ast::MeshDecl& decl, const std::vector<Value>& sizes);
// `layout_map NAME on MESH { ... }`; `mesh` is the value MESH is bound to (null when unbound).
Value declareLayoutMap(const ast::LayoutMapDecl& decl, const Value* mesh);

// A variable's layout as placements on its mesh, for the graph passes (placements.cpp).
bool variablePlacements(const VariableObj& var, spmd::MeshAxes& axes, spmd::Placements& placements);
// A layout as placements on its mesh; false when it has no mesh.
bool layoutPlacements(const LayoutObj& layout, spmd::MeshAxes& axes, spmd::Placements& placements);

// distribute() and relayout() (distribute.cpp).
void registerDistribute(Env& env);
// A tensor's `x.layout` and `x.shard` (distribute.cpp).
Value tensorAttr(Interpreter& in, const Value& self, const std::string& name);
// `v.layout` and `v.shard`.
Value variableAttr(Interpreter& in, const Value& self, VariableObj& var, const std::string& name);

}  // namespace weft::mesh
