#include "declarations.h"

#include "../values/format.h"

namespace weft::mesh {

Value declareMesh(const ast::MeshDecl& decl, const std::vector<Value>& sizes) {
  std::vector<std::string> names;
  std::vector<SourceRange> at;
  for (const auto& d : decl.dims) {
    names.push_back(symbolName(d.name));
    at.push_back(d.size->range);
  }
  try {
    return Value(makeMesh(symbolName(decl.name), names, sizes, at));
  } catch (WeftError& e) {
    if (!e.at.valid()) e.at = decl.range;
    throw;
  }
}

Value declareLayoutMap(const ast::LayoutMapDecl& decl, const Value* mesh) {
  if (!mesh) throw WeftError(decl.meshRange, "mesh '" + symbolName(decl.mesh) + "' is not defined");
  if (!dynamic_cast<MeshObj*>(mesh->object()))
    throw WeftError(decl.meshRange, "'" + symbolName(decl.mesh) + "' is a " + typeNameOf(*mesh) + ", not a mesh");
  auto lm = std::make_shared<LayoutMapObj>();
  lm->name = symbolName(decl.name);
  lm->mesh = std::static_pointer_cast<MeshObj>(mesh->objectPtr());
  for (const auto& e : decl.entries) {
    std::vector<std::optional<std::string>> dims;
    for (const auto& d : e.dims) dims.push_back(d ? std::optional<std::string>(symbolName(*d)) : std::nullopt);
    lm->add(e.key, makeLayout(std::move(dims), lm->mesh, e.dimRanges), e.keyRange);
  }
  return Value(lm);
}

}  // namespace weft::mesh
