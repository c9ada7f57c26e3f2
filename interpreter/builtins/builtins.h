// Functions written in C++ that every program sees (the native half of the prelude).
#pragma once
#include "../values/env.h"

namespace weft {

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
