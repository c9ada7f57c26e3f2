// Static checks run by `weft check` (and before running): names that are used but bound
// nowhere in their scope chain. Collects every error; executes nothing.
#pragma once
#include <functional>
#include <set>
#include <string>

#include "../../grammar/ast/stmt.h"
#include "../../grammar/diagnostics.h"

namespace weft {

// Called for each call whose callee is a name no local scope binds (a global or a builtin).
using GlobalCallFn = std::function<void(const ast::Call& call, Symbol callee)>;

// `known` holds the names visible to every program (builtins and the prelude).
void checkNames(const ast::Program& program, const std::set<Symbol>& known, Diagnostics& diags,
                const GlobalCallFn& onGlobalCall = {});

// Adds the names a statement binds, wherever in it (assignments, loops, imports, declarations).
void bindNames(const ast::Stmt& st, std::set<Symbol>& out);

// The deeper checks of `weft check` (static_checks.cpp), on a program whose names are fine:
// imports of missing files or of names the imported module does not define, calls of the
// program's own functions and modules with the wrong number or names of arguments, and literal
// arguments of the wrong type for an annotated parameter. `dir` is the program's directory.
void checkProgramStatically(const ast::Program& program, const std::set<Symbol>& known,
                            const std::string& dir, Diagnostics& diags);

}  // namespace weft
