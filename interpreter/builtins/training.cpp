// The native half of Keras' training API (SPEC §6, docs/training.md): the methods compile, fit,
// evaluate and predict of Sequential and functional models, which hand the model to their Weft
// implementations in stdlib/training.model (_keras_compile, ...), and the two terminal helpers
// fit's progress bar needs.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "../eval/args.h"
#include "keras.h"

namespace weft {

void addTrainingMethods(Interpreter& in, const std::shared_ptr<ModuleObj>& model) {
  (void)in;
  for (const char* name : {"compile", "fit", "evaluate", "predict"}) {
    std::string impl = std::string("_keras_") + name;
    model->attrs->set(intern(name), makeBuiltin(name,
                                                [impl](Interpreter& in, Args& a) {
                                                  Value f = in.preludeValue(impl, a.site);
                                                  if (f.isNone())
                                                    throw WeftError(a.site, "internal error: " + impl +
                                                                                " is missing from the prelude");
                                                  Args fa;
                                                  fa.site = a.site;
                                                  fa.pos.push_back(a.self);
                                                  fa.pos.insert(fa.pos.end(), a.pos.begin(), a.pos.end());
                                                  fa.kw = a.kw;
                                                  return in.call(f, fa);
                                                },
                                                Value(model)));
  }
}

void registerTerminal(Env& env) {
  // Whether the program's standard output is a terminal (Python's sys.stdout.isatty()): fit draws
  // its progress bar in place there, and prints one line per epoch elsewhere.
  env.set(intern("isatty"), makeBuiltin("isatty", [](Interpreter& in, Args& a) {
            ArgReader r(a, "isatty", {});
            bool tty = &in.out() == &std::cout && ::isatty(STDOUT_FILENO) == 1;
            return Value(Tensor::scalar<bool>(tty));
          }));
  // _overwrite_line(text): "\r" and text, flushed: redraws the line the cursor is on (fit's
  // progress bar). The language's strings have no "\r" escape (SPEC §1).
  env.set(intern("_overwrite_line"), makeBuiltin("_overwrite_line", [](Interpreter& in, Args& a) {
            ArgReader r(a, "_overwrite_line", {"text"});
            in.out() << '\r' << r.str(0);
            in.out().flush();
            std::fflush(stdout);
            return Value();
          }));
}

}  // namespace weft
