#include "builtins.h"

#include "../autodiff/rules.h"
#include "../eval/hooks.h"
#include "../graph/spmd_eager.h"
#include "../mesh/builtins.h"
#include "../onnx/load.h"
#include "../saved/snapshot.h"
#include "data.h"
#include "keras.h"

namespace weft {

void installBuiltins() {
  EvalHooks& hooks = evalHooks();
  hooks.registerNatives = registerBuiltins;
  hooks.summaryTable = summaryTable;
  installLayerAttrs(hooks);
  mesh::installHooks(hooks);
  autodiff::registerVjpRules();
  graph::installEagerSpmd();
}

void registerBuiltins(Env& env) {
  registerCoreBuiltins(env);
  registerTensorCreation(env);
  registerTensorMath(env);
  registerTensorShaping(env);
  registerKeras(env);
  registerClasses(env);
  registerNnOps(env);
  registerExports(env);
  registerAutodiff(env);
  registerDataFiles(env);     // load_csv, load_idx
  registerBatches(env);
  registerFashionMnist(env);
  mesh::registerBuiltins(env);  // Mesh, Layout, LayoutMap, layout_map_scope, plan
  saved::registerSavedBuiltins(env);  // save, load
  onnx::registerBuiltins(env);  // load_onnx, load_onnx_tensor
}

}  // namespace weft
