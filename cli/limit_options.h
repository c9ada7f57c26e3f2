// The resource-limit options of `weft run` and `weft check` (docs/robustness.md):
//   --max-steps=N  --timeout=SECONDS  --max-call-depth=N  --max-tensor-bytes=SIZE  --max-memory=SIZE
// SIZE is a byte count with an optional K, M, G or T suffix (powers of 1024).
#pragma once
#include <string>
#include <vector>

namespace weft {
class Interpreter;
}

namespace weft::cli {

extern const char* kLimitOptionsHelp;

// Takes the leading `--option=value` arguments of args (from index `first` on) and applies
// them to interp and the global memory limits; returns the index of the first other argument,
// or -1 after printing an error for an unknown option or a bad value.
int applyLimitOptions(const std::vector<std::string>& args, size_t first, Interpreter& interp);

}  // namespace weft::cli
