// `weft compile FILE.model -o DIR [--main] [--force] [--dump-after=PASS]` (SPEC §9,
// docs/compiled_code.md): runs the program, traces each export from its signature, runs the
// graph passes and writes C++ for every export into DIR. `weft compile SAVED_DIR -o DIR` does the
// same for a saved model's signatures, from its graph texts and variables alone.
#include <filesystem>
#include <iostream>

#include "codegen/collect.h"
#include "codegen/emit/files.h"
#include "codegen/pipeline.h"
#include "interpreter/graph/pipeline.h"
#include "commands.h"
#include "grammar/shown_text.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/values/context.h"
#include "limit_options.h"

namespace weft::cli {

int compileCommand(const std::vector<std::string>& given) {
  const char* usage =
      "usage: weft compile [LIMITS] FILE.model -o DIR [--main] [--force] [--no-comm-buckets] [--dump-after=PASS]\n"
      "       weft compile SAVED_DIR -o DIR [...]  (a saved model's signatures)\n"
      "  --main        also emit a driver NAME_main [--time N] IN.npy... OUT.npy... per export\n"
      "  --force       write into DIR even if it holds other files (nothing is deleted)\n"
      "  --no-comm-buckets  each small collective of a sharded export is a call of its own\n"
      "  --dump-after  print the graph after a pass: fold-constants, forward-variables,\n"
      "                common-subexpressions, bucket-collectives, fold-transposes, dead-code,\n"
      "                fuse-epilogues, fuse-elementwise\n";
  std::vector<std::string> args;
  std::string out, dumpAfter;
  bool noBuckets = false;
  codegen::EmitOptions options;
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string& a = given[i];
    if (a == "-o") {
      if (i + 1 >= given.size() || !out.empty()) {
        std::cerr << "weft compile: -o needs one folder\n" << usage;
        return 2;
      }
      out = given[++i];
    } else if (a == "--main") {
      options.main = true;
    } else if (a == "--force") {
      options.force = true;
    } else if (a == "--no-comm-buckets") {
      noBuckets = true;
    } else if (a.rfind("--dump-after=", 0) == 0) {
      dumpAfter = a.substr(13);
      if (!knownPass("compile", dumpAfter, usage)) return 2;
    } else {
      args.push_back(a);
    }
  }
  std::ostream discard(nullptr);  // the program's own output is not the compiler's
  Interpreter interp(discard, std::cerr);
  context().noCommBuckets = noBuckets;  // the interpreter's context, made with it
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (args.size() != size_t(file) + 1 || out.empty()) {
    std::cerr << (out.empty() ? "weft compile: where to? give -o DIR\n" : "") << usage;
    return 2;
  }
  auto emit = [&](codegen::CompileUnit unit) {
    codegen::lowerUnit(unit, dumpAfter, std::cout);
    codegen::writeUnit(unit, out, options);
  };
  std::error_code ec;
  if (std::filesystem::is_directory(args[file], ec)) {  // a saved model: its signatures, without the source
    bool ok = interp.reportingErrors([&] { emit(codegen::collectSavedUnit(args[file])); });
    return ok ? 0 : 1;
  }
  if (int status = interp.runFile(args[file]); status != 0) return status;
  if (interp.exports().empty()) {
    std::cerr << shownText(args[file]) << ": error: the program exports nothing: call export(fn) for each entry point, "
              << "as in export(predict, signature=[TensorSpec([None, 784], f32)])\n";
    return 1;
  }
  bool ok = interp.reportingErrors([&] { emit(codegen::collectUnit(interp, args[file])); });
  return ok ? 0 : 1;
}

}  // namespace weft::cli
