// Keras' model containers, written natively because they manage other modules' names, paths
// and graphs: Input, Sequential, Model (functional), and summary().
#pragma once
#include "../eval/interpreter.h"

namespace weft {

void registerKeras(Env& env);
// The Keras summary table of a module (SPEC §5).
std::string summaryTable(Interpreter& in, ModuleObj& m);

}  // namespace weft
