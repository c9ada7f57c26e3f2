// load_onnx on arbitrary bytes (interpreter/onnx/): a hostile model file is a WeftError, never a
// crash, a hang or a read outside its folder; a model that loads has source that parses and runs.
#include <sstream>

#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/onnx/load.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::memoryLimits().maxTensorBytes = 64 << 20;
  weft::installBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = weft::fuzz::toFile(data, size, ".onnx");
  std::ostringstream out, err;
  weft::Interpreter in(out, err);
  try {
    weft::onnx::loadOnnx(in, path);
  } catch (const weft::WeftError&) {
  }
  return 0;
}
