// Differential fuzzing of graph functions: a random program (graph_program.h) run with its
// graphs and eagerly must print the same; any difference or crash is a finding.
#include <sstream>

#include "fuzz_util.h"
#include "graph_program.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"

namespace {

std::string run(const std::string& src, bool eager, int& status) {
  std::ostringstream out;
  weft::Interpreter interp(out, weft::fuzz::nullStream());
  interp.limits().maxSteps = 20000;
  interp.setRunFunctionsEagerly(eager);
  status = interp.runSource(std::make_shared<weft::SourceFile>("diff.model", src));
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::installBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string src = weft::fuzz::GraphProgram(std::vector<uint8_t>(data, data + size)).generate();
  weft::fuzz::withLargeStack([&] {
    int sg = 0, se = 0;
    std::string graph = run(src, false, sg), eager = run(src, true, se);
    if (sg != se || graph != eager) __builtin_trap();
  });
  return 0;
}
