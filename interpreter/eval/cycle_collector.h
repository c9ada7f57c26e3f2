// Frees reference cycles that nothing outside them holds: a closure and the scope it captured
// (`fn step() => x + i` inside a function), a list that holds itself. Values are reference
// counted (std::shared_ptr); a cycle's counts never reach zero, so without this a loop that
// makes a closure per call would keep every one until the program ends.
//
// The method is trial deletion (as CPython's collector): starting from the tracked scopes and
// containers, it walks every scope, function, module type, container, bound builtin and
// namespace it reaches, and subtracts from each one's strong count the references the walked
// objects hold. What keeps a count above zero is held from outside the walk (the interpreter's
// globals, a C++ local, a module, a native closure): it and all it reaches stay. What is left is
// only held by other leftovers: garbage, whose references are moved out and then dropped.
// A reference the walk does not see can only keep an object alive, never free a live one.
// Modules are walked too (a module's scope holds `self`: each is a cycle); what names a module
// without holding it — a variable's owner, a module's parent — does so by weak pointer.
#pragma once
#include <cstdint>

#include "../values/env.h"
#include "cycle_roots.h"

namespace weft {

struct CycleCollection {
  int64_t objects = 0;  // scopes and objects walked
  int64_t edges = 0;    // references among them
  int64_t freed = 0;    // scopes and objects found to be garbage
  int64_t liveWork = 0;  // values and links held by what stays: the next run looks at them again
};

CycleCollection collectCycles(CycleRoots<Env>& envs, CycleRoots<Object>& containers);

}  // namespace weft
