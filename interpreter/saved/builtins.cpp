// The save and load builtins (SPEC §8, docs/saved_models.md).
#include "../eval/args.h"
#include "../values/context.h"
#include "snapshot.h"

namespace weft::saved {

void registerSavedBuiltins(Env& env) {
  env.set(intern("save"), makeBuiltin("save", [](Interpreter& in, Args& a) {
    ArgReader r(a, "save", {"obj", "dir", "signatures?"});
    std::string dir = r.str(1);
    if (!writesFiles()) return Value();
    writeSavedModel(dir, snapshot(in, r.get(0), r.get(2)));
    return Value();
  }));
  env.set(intern("load"), makeBuiltin("load", [](Interpreter& in, Args& a) {
    ArgReader r(a, "load", {"dir"});
    return loadedModule(in, readSavedModelAtCall(r.str(0)));
  }));
}

}  // namespace weft::saved
