#include "builtins.h"

#include "keras.h"

namespace weft {

void registerBuiltins(Env& env) {
  registerCoreBuiltins(env);
  registerTensorCreation(env);
  registerTensorMath(env);
  registerTensorShaping(env);
  registerKeras(env);
  registerNnOps(env);
}

}  // namespace weft
