// Runs a command once and prints "<wall microseconds> <peak RSS KiB> <exit status>".
// A small launcher: a fork from the Python harness would report the harness's RSS (Linux carries
// the pre-exec memory high-water mark into ru_maxrss). Child stdout goes to /dev/null.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_spawn COMMAND [ARGS...]\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  auto t1 = std::chrono::steady_clock::now();
  std::printf("%.1f %ld %d\n", std::chrono::duration<double, std::micro>(t1 - t0).count(), ru.ru_maxrss,
              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}
