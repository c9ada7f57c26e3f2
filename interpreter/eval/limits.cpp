// The step, time and stack limits of InterpreterLimits (docs/robustness.md).
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "asan.h"
#include "interpreter.h"
#include "stack_bound.h"

namespace weft {
namespace {

// Reading the clock costs about as much as a cheap step; look at it once per this many steps.
constexpr int64_t kClockEvery = 1024;

// The lowest address calls may reach on this thread's stack: a margin above its end is kept for
// what runs between two calls (a 200-level expression, a builtin, parsing an import). Null when
// the stack is unknown.
const char* stackFloor() {
  thread_local const char* floor = [] {
    pthread_attr_t attr;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return static_cast<const char*>(nullptr);
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    if (!addr) return static_cast<const char*>(nullptr);
    const char* floor = static_cast<const char*>(addr) + std::min(size / 4, size_t(32) << 20);
#if WEFT_ASAN
    // AddressSanitizer cannot unwind an exception thrown with more than 64 MiB of stack in use
    // (google/sanitizers#189): sanitized builds stop calls before that.
    floor = std::max(floor, static_cast<const char*>(addr) + size - (size_t(48) << 20));
#endif
    return floor;
  }();
  return floor;
}

}  // namespace

const char* const kExpressionTooDeep =
    "expression nested too deeply for the stack (a chain of calls or indexes this long, or nested in calls)";

bool stackNearlyFull(size_t below) {
  const char* floor = stackFloor();
  return floor && static_cast<const char*>(__builtin_frame_address(0)) < floor - below;
}

void Interpreter::recursionTooDeep(const SourceRange& at, const std::string& function) {
  if (callDepth_ >= limits_.maxCallDepth)
    throw WeftError(at, "maximum recursion depth (" + std::to_string(limits_.maxCallDepth) + ") exceeded in " +
                            function + "()");
  // Few calls deep, the stack went to an expression: a chain of calls (f(1)(1)...) is one.
  if (callDepth_ < 10) throw WeftError(at, kExpressionTooDeep);
  throw WeftError(at, "recursion too deep for the stack (" + std::to_string(callDepth_) + " calls) in " + function +
                          "()");
}

void Interpreter::checkLimits(const SourceRange& at) {
  if (limits_.maxSteps > 0 && steps_ > limits_.maxSteps)
    throw WeftError(at, "step limit of " + std::to_string(limits_.maxSteps) + " exceeded (--max-steps)");
  checkTime(at);
  int64_t next = std::numeric_limits<int64_t>::max();
  if (limits_.maxSteps > 0) next = limits_.maxSteps + 1;
  if (limits_.timeoutSeconds > 0) next = std::min(next, steps_ + kClockEvery);
  nextLimitCheck_ = next;
}

void Interpreter::pollFromBelow(void* self) {
  auto& in = *static_cast<Interpreter*>(self);
  if (interruptRequested_) {
    interruptRequested_ = false;
    throw WeftError("interrupted");
  }
  in.checkTime({});
}

void Interpreter::checkTime(const SourceRange& at) {
  if (limits_.timeoutSeconds > 0) {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed.count() > limits_.timeoutSeconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", limits_.timeoutSeconds);
      throw WeftError(at, std::string("time limit of ") + seconds + " s exceeded (--timeout)");
    }
  }
}

}  // namespace weft
