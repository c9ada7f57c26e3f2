// saved::readNpy on arbitrary bytes: a malformed .npy file is a WeftError, never a crash.
#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/saved/npy.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::memoryLimits().maxTensorBytes = 64 << 20;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::saved::readNpy(weft::fuzz::toFile(data, size, ".npy"));
  } catch (const weft::WeftError&) {
  }
  return 0;
}
