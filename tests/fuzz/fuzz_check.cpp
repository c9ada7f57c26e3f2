// `weft check` on arbitrary bytes: reading, decoding, lexing, parsing, the AST builder and the
// name checks.
#include "fuzz_util.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::installBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = weft::fuzz::toFile(data, size, ".model");
  weft::fuzz::withLargeStack([&] {
    weft::Interpreter interp(weft::fuzz::nullStream(), weft::fuzz::nullStream());
    interp.checkFile(path);
  });
  return 0;
}
