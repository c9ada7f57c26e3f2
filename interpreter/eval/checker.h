// Static checks run by `weft check` (and before running): names that are used but bound
// nowhere in their scope chain. Collects every error; executes nothing.
#pragma once
#include <set>

#include "../../grammar/ast/stmt.h"
#include "../../grammar/diagnostics.h"

namespace weft {

// `known` holds the names visible to every program (builtins and the prelude).
void checkNames(const ast::Program& program, const std::set<Symbol>& known, Diagnostics& diags);

}  // namespace weft
