// A mesh's device threads (stdlib/runtime/device_threads.h): when the system will not start one
// of them, the constructor stops the ones it started and throws, rather than end the process
// (a joinable std::thread destroyed with its vector calls std::terminate).
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stdlib/runtime/device_threads.h"

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizer = true;  // they reserve address space that a limit on it would refuse
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitizer = true;
#else
constexpr bool kSanitizer = false;
#endif
#else
constexpr bool kSanitizer = false;
#endif

}  // namespace

TEST_CASE("device threads the system refuses are an exception, not the end of the process") {
  if (kSanitizer) return;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Address space for a few threads' stacks at most: a mesh of 4096 devices cannot start.
    const rlimit limit{size_t(512) << 20, size_t(512) << 20};
    setrlimit(RLIMIT_AS, &limit);
    try {
      weft::rt::DeviceThreads threads(4096);
      _exit(2);  // started them all: the limit did not bite
    } catch (...) {
      _exit(0);
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));  // not killed by std::terminate's abort
  CHECK(WEXITSTATUS(status) == 0);
}
