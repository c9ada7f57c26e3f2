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
// or -1 after printing an error for an unknown option or a bad value. WEFT_NUM_THREADS comes
// first, --threads after it; then the calling thread's kernels enter the pool of threads.
int applyLimitOptions(const std::vector<std::string>& args, size_t first, Interpreter& interp);

// WEFT_NUM_THREADS alone (the REPL, which takes no options); false after printing an error.
bool applyThreadsVariable();

}  // namespace weft::cli
