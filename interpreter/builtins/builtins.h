// Functions written in C++ that every program sees (the native half of the prelude).
#pragma once
#include "../values/env.h"

namespace weft {

// The top level of every program calls this once at startup, before making an Interpreter: each
// Interpreter then binds the builtins below in its native scope, and the evaluator reaches the
// layers above it through the hooks this fills (interpreter/eval/hooks.h). It also registers the
// VJP rules into the op table (interpreter/autodiff/rules.h).
void installBuiltins();

void registerBuiltins(Env& env);

// One per family; each defines its names in env.
void registerCoreBuiltins(Env& env);
void registerTensorCreation(Env& env);
void registerTensorMath(Env& env);
void registerTensorShaping(Env& env);
void registerNnOps(Env& env);  // conv2d, pooling, load_npy, save_npy
void registerExports(Env& env);  // export, TensorSpec
void registerAutodiff(Env& env);  // value_and_grad, grad, optimizer slots

}  // namespace weft
