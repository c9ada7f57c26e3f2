#include "builtins.h"

#include "../eval/args.h"
#include "../values/format.h"
#include "layout.h"
#include "plan.h"
#include "scope.h"

namespace weft::mesh {

namespace {

// Mesh(batch=2, model=4): dimensions in the order given, as the `mesh` declaration.
Value meshBuiltin(Interpreter&, Args& a) {
  if (!a.pos.empty())
    throw WeftError(a.site, "Mesh() takes its dimensions as keywords, as in Mesh(batch=2, model=4)");
  std::vector<std::string> names;
  std::vector<Value> sizes;
  for (const auto& [k, v] : a.kw) {
    names.push_back(symbolName(k));
    sizes.push_back(v);
  }
  try {
    return Value(makeMesh("", names, sizes));
  } catch (WeftError& e) {
    if (!e.at.valid()) e.at = a.site;
    throw;
  }
}

}  // namespace

void installHooks(EvalHooks& hooks) {
  hooks.declareMesh = declareMesh;
  hooks.declareLayoutMap = declareLayoutMap;
  hooks.variableLayoutAttr = variableAttr;
  hooks.tensorLayoutAttr = tensorAttr;
  hooks.moduleCreated = moduleCreated;
  hooks.variableAdopted = variableAdopted;
  hooks.finishProgram = finishProgram;
  hooks.variablePlacements = variablePlacements;
  installPlacementHook();
}

void registerBuiltins(Env& env) {
  env.set(intern("Mesh"), makeBuiltin("Mesh", meshBuiltin));
  env.set(intern("Layout"), layoutBuiltin());
  env.set(intern("UNSHARDED"), makeStr(kUnsharded));
  env.set(intern("LayoutMap"), layoutMapBuiltin());
  env.set(intern("layout_map_scope"), layoutMapScopeBuiltin());
  env.set(intern("plan"), planBuiltin());
  registerDistribute(env);
}

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
    throw WeftError(decl.meshRange, "'" + symbolName(decl.mesh) + "' is " + aTypeName(*mesh) + ", not a mesh");
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

Value variableAttr(Interpreter& in, const Value& self, VariableObj& var, const std::string& name) {
  resolve(in, var);  // first need: the path is taken as final now
  if (name == "layout") return layoutOf(var) ? Value(var.placement->layout) : Value();
  return makeBuiltin("shard", [](Interpreter& in, Args& a) {
    ArgReader r(a, "shard", {"device"});
    auto* v = a.self.as<VariableObj>();
    resolve(in, *v);
    const LayoutObj* l = layoutOf(*v);
    if (!l)
      throw WeftError(a.site, "Variable '" + v->name + "' has no layout, so no shards: it was not created in a "
                              "layout_map_scope");
    int64_t i = r.integer(0), n = l->mesh->numDevices();
    if (i < 0 || i >= n)
      r.fail(0, "must be a device of " + l->mesh->describe() + ", from 0 to " + std::to_string(n - 1) + ", not " +
                    std::to_string(i));
    return Value(shard(*v, i));
  }, self);
}

}  // namespace weft::mesh
