// The `weft` command: run, check, graph, compile, show, info, repl.
#include <pthread.h>

#include <cstring>
#include <exception>
#include <functional>
#include <iostream>

#include "commands.h"
#include "interpreter/builtins/builtins.h"
#include "stdlib/gemm_choice.h"

namespace {

// The parser and evaluator recurse on nested source; a large stack makes the depth limits, not
// the OS stack, decide when a program is too deep. Pages are only committed when touched.
int runWithLargeStack(std::function<int()> fn) {
  constexpr size_t kStackBytes = size_t(1) << 30;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  struct Job {
    std::function<int()> fn;
    int status = 0;
  } job{std::move(fn)};
  pthread_t thread;
  auto entry = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    j->status = j->fn();
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &job) != 0) return job.fn();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.status;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  weft::installBuiltins();
  weft::gemm::installPlanner();  // GEMMs run on the library measured fastest here
  std::vector<std::string> args(argv + 1, argv + argc);
  return runWithLargeStack([&] {
    try {
      return weft::cli::dispatch(args);
    } catch (const std::exception& bug) {  // a broken invariant: said, with its status, not a crash
      std::cout.flush();
      std::cerr << "weft: internal error: " << bug.what() << "\n";
      return 70;  // EX_SOFTWARE
    }
  });
}
