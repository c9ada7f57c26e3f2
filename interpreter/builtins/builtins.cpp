#include "builtins.h"

namespace weft {

void registerBuiltins(Env& env) {
  registerCoreBuiltins(env);
  registerTensorCreation(env);
  registerTensorMath(env);
  registerTensorShaping(env);
  registerNnOps(env);
}

}  // namespace weft
