// data::readIdx on arbitrary bytes, plain or gzip (the first two bytes decide), and data::readCsv
// on the same bytes: a hostile data file is a WeftError, never a crash or a huge allocation.
#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/builtins/data.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::memoryLimits().maxTensorBytes = 64 << 20;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = weft::fuzz::toFile(data, size, ".idx");
  try {
    weft::data::readIdx(path);
  } catch (const weft::WeftError&) {
  }
  try {
    weft::data::readCsv(path, {});
  } catch (const weft::WeftError&) {
  }
  return 0;
}
