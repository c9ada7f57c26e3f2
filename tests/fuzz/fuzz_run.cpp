// `weft run` on arbitrary bytes, under small step, time and memory limits: every user error must
// be a WeftError, never a crash, a sanitizer report, a leak or a hang.
#include "fuzz_util.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/values/objects.h"
#include "interpreter/values/tensor.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::installBuiltins();
  weft::memoryLimits().maxTensorBytes = 1 << 20;  // keeps each op fast: a matmul stays under 1 s
  weft::memoryLimits().maxLiveBytes = 64 << 20;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  weft::fuzz::withLargeStack([&] {
    const weft::LiveBytes* counted;  // the interpreter's counter; counters outlive their context
    {
      weft::Interpreter interp(weft::fuzz::nullStream(), weft::fuzz::nullStream());
      counted = weft::context().liveBytes;
      interp.limits().maxSteps = 20000;
      interp.limits().timeoutSeconds = 2;
      // A mutated path could overwrite any file the fuzzer can write to.
      interp.globals()->set(weft::intern("save_npy"), weft::makeBuiltin("save_npy", [](weft::Interpreter&, weft::Args&) {
        return weft::Value();
      }));
      interp.runSource(std::make_shared<weft::SourceFile>("fuzz.model", weft::fuzz::text(data, size)));
    }
    // Every tensor must be freed with the interpreter (reference cycles are broken at exit).
    if (counted->bytes != 0) __builtin_trap();
  });
  return 0;
}
