#include "builtins.h"

#include "../mesh/builtins.h"
#include "data.h"
#include "keras.h"

namespace weft {

void registerBuiltins(Env& env) {
  registerCoreBuiltins(env);
  registerTensorCreation(env);
  registerTensorMath(env);
  registerTensorShaping(env);
  registerKeras(env);
  registerNnOps(env);
  registerDataFiles(env);     // load_csv, load_idx
  registerBatches(env);
  registerFashionMnist(env);
  mesh::registerBuiltins(env);  // Mesh, Layout, LayoutMap, layout_map_scope, plan
}

}  // namespace weft
