// Shared by the fuzz targets (docs/robustness.md).
#pragma once
#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>

#include "interpreter/values/context.h"

namespace weft::fuzz {

// An ostream that drops everything: programs print, and the fuzzer needs no output.
inline std::ostream& nullStream() {
  static std::ostream s(nullptr);
  return s;
}

// Runs fn on a thread with the same large stack as the `weft` command (cli/main.cpp), so that
// the parser's and evaluator's depth limits, not the default 8 MiB stack, bound recursion. A new
// thread starts with a context of its own: the caller's memory limits are carried over to it.
template <class F>
void withLargeStack(F fn) {
  struct Job {
    F* fn;
    MemoryLimits limits;
  } job{&fn, context().limits};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t thread;
  auto entry = [](void* p) -> void* {
    Job& j = *static_cast<Job*>(p);
    ExecutionContext limited(j.limits);
    ContextScope current(limited);
    (*j.fn)();
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &job) != 0) __builtin_trap();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

inline std::string text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Writes the input to a file of this process (for entry points that take a path) and returns it.
inline const std::string& toFile(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string path = "/tmp/weft_fuzz_" + std::to_string(getpid()) + suffix;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace weft::fuzz
