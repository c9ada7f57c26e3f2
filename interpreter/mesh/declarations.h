// The declarative forms: `mesh NAME(dim=size, ...)` and `layout_map NAME on MESH { ... }`.
#pragma once
#include "layout_map.h"

namespace weft::mesh {

// `sizes` are the evaluated size expressions, one per dimension.
Value declareMesh(const ast::MeshDecl& decl, const std::vector<Value>& sizes);
// `mesh` is the value the MESH name is bound to (null when unbound).
Value declareLayoutMap(const ast::LayoutMapDecl& decl, const Value* mesh);

}  // namespace weft::mesh
