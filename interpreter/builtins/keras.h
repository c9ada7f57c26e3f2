// Keras' model containers, written natively because they manage other modules' names, paths
// and graphs: Input, Sequential, Model (functional), and summary().
#pragma once
#include "../eval/interpreter.h"

namespace weft {

void registerKeras(Env& env);
// isinstance, issubclass, clear_session (interpreter/builtins/classes.cpp).
void registerClasses(Env& env);
// The Keras summary table of a module (SPEC §5).
// Keras' training methods (compile, fit, evaluate, predict) on a Sequential or functional model:
// each calls its Weft half in stdlib/training.model (interpreter/builtins/training.cpp).
void addTrainingMethods(Interpreter& in, const std::shared_ptr<ModuleObj>& model);
// isatty(), _overwrite_line(text) (interpreter/builtins/training.cpp).
void registerTerminal(Env& env);
std::string summaryTable(Interpreter& in, ModuleObj& m);

}  // namespace weft
