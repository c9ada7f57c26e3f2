// Memory plans (docs/layouts.md): running a program on shapes alone. `weft check --plan` turns
// plan mode on for a whole run; `with plan() { ... }` for a block of a program.
#pragma once
#include <iosfwd>

#include "scope.h"

namespace weft::mesh {

// The `plan()` builtin: a context in which creation ops and Variable() make shape-only tensors.
Value planBuiltin();

// The layout report of `weft check`: each placed variable, the key it matched, its layout and
// shard shape; then the keys that matched nothing. Prints nothing when no scope was entered.
void printLayoutReport(Interpreter& in, std::ostream& out);

// Whether a program declares or uses meshes or layouts (so that `weft check` must run it).
bool usesLayouts(const ast::Program& program);
// Whether it declares a graph function (@function) or exports one, which `weft check` traces.
bool hasGraphFunctions(const ast::Program& program);

// `weft check` of a program with layouts, and `weft check --plan`: runs the file on shapes alone
// in `in`, then prints the layout report to `report`. Returns the exit status.
int runPlan(Interpreter& in, const std::string& path, std::ostream& report);

}  // namespace weft::mesh
