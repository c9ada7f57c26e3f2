// Static checks run by `weft check` (and before running): names that are used but bound
// nowhere in their scope chain. Collects every error; executes nothing.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "../../grammar/ast/stmt.h"
#include "../../grammar/diagnostics.h"
#include "../values/env.h"

namespace weft {

// Called for each call whose callee is a name no local scope binds (a global or a builtin).
using GlobalCallFn = std::function<void(const ast::Call& call, Symbol callee)>;

// The names visible to every program (builtins, the prelude, a session's globals): a set, or a
// scope chain looked up as it stands (a REPL line checks against thousands of globals without
// copying them).
class KnownNames {
 public:
  explicit KnownNames(const std::set<Symbol>& names) : set_(&names) {}
  explicit KnownNames(Env& scope) : scope_(&scope) {}
  bool contains(Symbol s) const;
  const Value* value(Symbol s) const;  // its value when known (a scope's), else null
  std::vector<Symbol> all() const;  // for "did you mean" only

 private:
  const std::set<Symbol>* set_ = nullptr;
  Env* scope_ = nullptr;
};

void checkNames(const ast::Program& program, const KnownNames& known, Diagnostics& diags,
                const GlobalCallFn& onGlobalCall = {});

// Adds the names a statement binds, wherever in it (assignments, loops, imports, declarations).
void bindNames(const ast::Stmt& st, std::set<Symbol>& out);

// Python's UnboundLocalError, found before anything runs where no assignment can come first: a
// function reads a name it assigns (`print(x); x = 1`), or changes with `x op= ...` a name that is
// not its own and cannot hold a Variable (`count = 0; fn inc() { count += 1 }`), which would make
// a new local and leave the outer value as it was. `outer`: whether the name is bound outside;
// `whose`: where ("global", "module attribute", ...). The run finds the second where it happens.
std::string readBeforeAssignmentMessage(const std::string& fn, const std::string& name, bool outer);
std::string augmentedOuterMessage(const std::string& fn, const std::string& name, const std::string& op,
                                  const std::string& whose);

// The deeper checks of `weft check` (static_checks.cpp), on a program whose names are fine:
// imports of missing files or of names the imported module does not define, calls of the
// program's own functions and modules with the wrong number or names of arguments, and literal
// arguments of the wrong type for an annotated parameter. `dir` is the program's directory.
void checkProgramStatically(const ast::Program& program, const std::set<Symbol>& known,
                            const std::string& dir, Diagnostics& diags);

}  // namespace weft
