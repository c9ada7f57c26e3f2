#include "builtins.h"

#include "../builtins/args.h"
#include "layout.h"
#include "layout_map.h"
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

void registerBuiltins(Env& env) {
  env.set(intern("Mesh"), makeBuiltin("Mesh", meshBuiltin));
  env.set(intern("Layout"), layoutBuiltin());
  env.set(intern("UNSHARDED"), makeStr(kUnsharded));
  env.set(intern("LayoutMap"), layoutMapBuiltin());
  env.set(intern("layout_map_scope"), layoutMapScopeBuiltin());
  env.set(intern("plan"), planBuiltin());
}

}  // namespace weft::mesh
