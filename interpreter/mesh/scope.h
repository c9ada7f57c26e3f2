// layout_map_scope (SPEC §7): which variables take their layouts from which map, and when.
//
// A module constructed while a scope is active remembers the innermost one; so does a variable
// created while one is active. A variable's scope is that of the nearest module above it that
// remembers one (so weights built lazily after the scope has ended still find it), else its
// own. Its key is its object path from the outermost module constructed in that scope. It is
// resolved — matched, checked and cut into shards — once that path is final: when its scope
// ends, or when a module adopts it after that (a lazy build), or on first need (`.layout`,
// `.shard(i)`, summary(), the layout report).
#pragma once
#include "shards.h"

namespace weft::mesh {

struct Scope {
  std::shared_ptr<LayoutMapObj> map;
  bool ended = false;
  std::vector<std::weak_ptr<VariableObj>> pending;  // to resolve when the scope ends
  std::vector<std::weak_ptr<ModuleObj>> modules;    // constructed in it
  std::vector<int64_t> hits;                        // variables matched, per key of the map
  bool reportAtEnd = false;  // unbuilt modules at its end: report unmatched keys at program end
};

struct State {
  std::vector<std::shared_ptr<Scope>> active;  // innermost last
  std::vector<std::shared_ptr<Scope>> all;     // in order of entry
  std::vector<std::weak_ptr<VariableObj>> placed;  // in order of resolution, for the report
};

// The layout state of an interpreter (Interpreter::layoutState), made on first use.
State& stateOf(Interpreter& in);

// Hooks called by the evaluator (through interpreter/eval/hooks.h).
void moduleCreated(Interpreter& in, ModuleObj& m);
void variableCreated(Interpreter& in, VariableObj& var);
void variableAdopted(Interpreter& in, VariableObj& var);
// Resolves now if it belongs to a scope and is not yet resolved (first need).
void resolve(Interpreter& in, VariableObj& var);
void enterScope(Interpreter& in, const std::shared_ptr<LayoutMapObj>& map);
void exitScope(Interpreter& in, const LayoutMapObj& map);
// At the end of a program: resolves what is left and reports keys that never matched.
void finishProgram(Interpreter& in);

// The `layout_map_scope(lm)` builtin.
Value layoutMapScopeBuiltin();

}  // namespace weft::mesh
