// Holds `weft run` of print(1) to at most 2x the start-up of a C++ main that links the same core
// libraries (anchor.cpp), and checks that such a run loads none of the libraries Weft loads only
// when a program needs them (Open MPI under mpirun, GEMM libraries, the ONNX reader).
// Usage: weft_startup_ratio ANCHOR WEFT PROGRAM.model
// The two run in turn, in rounds of kRuns each, and their least CPU times (user and system, of
// the process and its threads) are compared: on a machine shared with other work, load only ever
// adds time, so the least is the nearest to the cost itself, and CPU time leaves out the time a
// process waits for a core, which under load grows with its length (a process that needs two
// time slices waits at least once). Their wall times are printed beside them. While the bound is
// missed, up to kRounds rounds are run.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kRuns = 31, kRounds = 6;
constexpr double kBound = 2.0;
// Loaded only when a program asks for them: seeing one in print(1)'s run is a start-up regression.
const char* const kLoadedOnDemand[] = {"libmpi", "libopen-pal", "libhwloc", "libopenblas", "libblis", "libprotobuf",
                                       "weft_mpi_ranks", "weft_onnx_reader"};

struct Times {
  double wall = -1, cpu = -1;  // seconds; negative when the run failed
};

// Runs argv with stdout to /dev/null (stderr to `err` when given).
Times run(const std::vector<const char*>& argv, bool traceLibs = false, std::string* err = nullptr) {
  int pipeFds[2] = {-1, -1};
  if (err && pipe(pipeFds) != 0) return {};
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    if (err) dup2(pipeFds[1], STDERR_FILENO);
    if (traceLibs) setenv("LD_DEBUG", "libs", 1);
    execv(argv[0], const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  if (err) {
    close(pipeFds[1]);
    char buf[4096];
    for (ssize_t n; (n = read(pipeFds[0], buf, sizeof buf)) > 0;) err->append(buf, size_t(n));
    close(pipeFds[0]);
  }
  int status = 0;
  rusage use{};
  wait4(pid, &status, 0, &use);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
          seconds(use.ru_utime) + seconds(use.ru_stime)};
}

double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: weft_startup_ratio ANCHOR WEFT PROGRAM.model\n");
    return 2;
  }
  const std::vector<const char*> anchor = {argv[1], nullptr}, weft = {argv[2], "run", argv[3], nullptr};
  std::string libs;
  if (run(weft, true, &libs).wall < 0) {
    std::fprintf(stderr, "%s run %s failed:\n%s", argv[2], argv[3], libs.c_str());
    return 1;
  }
  int failed = 0;
  for (const char* lib : kLoadedOnDemand)
    if (libs.find(lib) != std::string::npos) {
      std::printf("FAIL: weft run of print(1) loads %s, which only some programs need\n", lib);
      failed = 1;
    }
  std::vector<double> aWall, aCpu, wWall, wCpu;
  double ratio = 0;
  for (int round = 0; round < kRounds && (round == 0 || ratio > kBound); ++round) {
    for (int i = 0; i < kRuns; ++i) {
      const Times a = run(anchor), w = run(weft);
      if (a.wall < 0 || w.wall < 0) {
        std::fprintf(stderr, "a run failed\n");
        return 1;
      }
      aWall.push_back(a.wall), aCpu.push_back(a.cpu), wWall.push_back(w.wall), wCpu.push_back(w.cpu);
    }
    ratio = least(wCpu) / least(aCpu);
  }
  std::printf("start-up over %zu runs each, least (median), CPU time: anchor %.2f ms (%.2f), weft run print(1) %.2f ms "
              "(%.2f): %.2fx, bound %.1fx; wall: anchor %.2f ms (%.2f), weft %.2f ms (%.2f): %.2fx\n",
              aCpu.size(), 1e3 * least(aCpu), 1e3 * median(aCpu), 1e3 * least(wCpu), 1e3 * median(wCpu), ratio, kBound,
              1e3 * least(aWall), 1e3 * median(aWall), 1e3 * least(wWall), 1e3 * median(wWall),
              least(wWall) / least(aWall));
  if (ratio > kBound) {
    std::printf("FAIL: weft's start-up is over %.1fx the anchor's\n", kBound);
    failed = 1;
  }
  return failed;
}
