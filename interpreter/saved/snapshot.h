// Between live objects and saved models: snapshot() makes a SavedModel of a module (its tree,
// variables, meshes, and the graphs of its signatures and graph methods, traced here), and
// loadedModule() makes a module of a SavedModel whose methods run the saved graphs.
#pragma once
#include "../eval/interpreter.h"
#include "saved_model.h"

namespace weft::saved {

// `signatures` is none or a dict from names to graph functions, methods or callable modules.
SavedModel snapshot(Interpreter& in, const Value& obj, const Value& signatures);

// The root module of a loaded model: its submodules and variables as saved (names, paths,
// trainable flags, layouts), each graph method bound by name, `signatures` a dict of callables.
Value loadedModule(Interpreter& in, SavedModel model);

// The save and load builtins.
void registerSavedBuiltins(Env& env);

}  // namespace weft::saved
