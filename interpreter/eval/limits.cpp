// The step and time limits of InterpreterLimits (docs/robustness.md).
#include <algorithm>
#include <cstdio>
#include <limits>

#include "interpreter.h"

namespace weft {
namespace {

// Reading the clock costs about as much as a cheap step; look at it once per this many steps.
constexpr int64_t kClockEvery = 1024;

}  // namespace

void Interpreter::checkLimits(const SourceRange& at) {
  if (limits_.maxSteps > 0 && steps_ > limits_.maxSteps)
    throw WeftError(at, "step limit of " + std::to_string(limits_.maxSteps) + " exceeded (--max-steps)");
  if (limits_.timeoutSeconds > 0) {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed.count() > limits_.timeoutSeconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", limits_.timeoutSeconds);
      throw WeftError(at, std::string("time limit of ") + seconds + " s exceeded (--timeout)");
    }
  }
  int64_t next = std::numeric_limits<int64_t>::max();
  if (limits_.maxSteps > 0) next = limits_.maxSteps + 1;
  if (limits_.timeoutSeconds > 0) next = std::min(next, steps_ + kClockEvery);
  nextLimitCheck_ = next;
}

}  // namespace weft
