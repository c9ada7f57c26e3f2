// GFLOP/s of each GEMM library Weft can run (Eigen, OpenBLAS, BLIS) and of Weft's own gemm (the
// library its measured plan picks for the shape) on 1024^3 and the products of the MLP
// 784-512-512-10: the forward layers at batch 1, 32 and 256 and the train step's transposed
// products at batch 64 (x^T @ g, g @ w^T). f32, row-major; every contender runs each shape in 7
// interleaved rounds of at least 10 ms and reports its best round. One-threaded products are timed
// in the thread's CPU time (what other processes on a shared machine take is not counted), the
// libraries' own threads in wall time. Target: Weft >= 0.95x the best library.
// Usage: bench_gemm [THREADS=1]. With THREADS > 1 OpenBLAS also runs on that many threads (its own
// pool), at its default. BLIS is its single-threaded build (the one Weft loads), and Eigen is
// built without OpenMP here as in Weft (it would change the inline GEMM code every target
// shares), so those columns and Weft's stay one-threaded (Weft has no intra-op threads yet).
#include <dlfcn.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stdlib/gemm_choice.h"
#include "stdlib/runtime/matmul.h"

using namespace weft;
using rt::GemmLib;

namespace {

struct Shape {
  const char* what;
  int m, k, n;
  bool transA, transB;
};

const Shape kShapes[] = {
    {"1024^3", 1024, 1024, 1024, false, false},
    {"fwd b1 784->512", 1, 784, 512, false, false},
    {"fwd b1 512->512", 1, 512, 512, false, false},
    {"fwd b1 512->10", 1, 512, 10, false, false},
    {"fwd b32 784->512", 32, 784, 512, false, false},
    {"fwd b32 512->512", 32, 512, 512, false, false},
    {"fwd b32 512->10", 32, 512, 10, false, false},
    {"fwd b256 784->512", 256, 784, 512, false, false},
    {"fwd b256 512->512", 256, 512, 512, false, false},
    {"fwd b256 512->10", 256, 512, 10, false, false},
    {"train dW1 = x^T g1", 784, 64, 512, true, false},
    {"train dW2 = h1^T g2", 512, 64, 512, true, false},
    {"train dW3 = h2^T gy", 512, 64, 10, true, false},
    {"train g2 = gy W3^T", 64, 10, 512, false, true},
    {"train g1 = g2 W2^T", 64, 512, 512, false, true},
};

// Sets OpenBLAS's thread count (the runtime set it to 1). Weft loads BLIS's single-threaded build.
void setOpenBlasThreads(int threads) {
#ifdef WEFT_OPENBLAS_FILE
  if (!rt::gemmLibrary(GemmLib::OpenBLAS).loaded()) return;
  void* h = dlopen(WEFT_OPENBLAS_FILE, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return;
  reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))(threads);
  dlclose(h);
#else
  (void)threads;
#endif
}

void setThreads(int threads) { setOpenBlasThreads(threads); }

// Seconds per call of f over at least 10 ms: of this thread's CPU time when `cpu`, else of wall time.
template <class F>
double secondsPerCall(bool cpu, F&& f) {
  auto now = [cpu] {
    timespec t;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  };
  int calls = 0;
  const double t0 = now();
  double el = 0;
  do {
    f();
    ++calls;
    el = now() - t0;
  } while (el < 0.01);
  return el / calls;
}

// One table: each library at `threads`, and Weft's gemm (one thread) beside them.
void table(int threads) {
  const int contenders = rt::kGemmLibs + 1;  // the libraries, then Weft
  setThreads(threads);
  std::printf("\nOpenBLAS on %d thread%s (GFLOP/s, best of 7 rounds; Eigen, BLIS and Weft's gemm on 1)\n", threads,
              threads == 1 ? "" : "s");
  std::printf("%-34s %7s %9s %7s %7s %-9s %9s\n", "product (m x k x n)", "eigen", "openblas", "blis", "weft", "(runs)",
              "weft/best");
  double worst = 1e9;
  for (const Shape& s : kShapes) {
    std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.25f - 0.75f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.5f - 1.0f;
    std::vector<char> ws(size_t(rt::gemmWorkspaceBytes<float>(s.m, s.k, s.n)) + 64);
    std::vector<double> samples[contenders];
    for (int round = 0; round < 7; ++round)
      for (int l = 0; l < contenders; ++l) {
        if (l < rt::kGemmLibs && !rt::gemmLibrary(GemmLib(l)).loaded()) continue;
        if (l == rt::kGemmLibs) setThreads(1);
        const bool oneThread = threads == 1 || l != int(GemmLib::OpenBLAS);
        samples[l].push_back(secondsPerCall(oneThread, [&] {
          if (l < rt::kGemmLibs)
            rt::gemmOn(GemmLib(l), a.data(), b.data(), c.data(), s.m, s.k, s.n, ws.data(), false, s.transA, s.transB);
          else
            rt::gemm(a.data(), b.data(), c.data(), s.m, s.k, s.n, ws.data(), false, s.transA, s.transB);
        }));
        if (l == rt::kGemmLibs) setThreads(threads);
      }
    const double flops = 2.0 * s.m * s.k * s.n;
    double g[contenders] = {}, best = 0;
    for (int l = 0; l < contenders; ++l) {
      g[l] = samples[l].empty() ? 0 : flops / *std::min_element(samples[l].begin(), samples[l].end()) / 1e9;
      if (l < rt::kGemmLibs) best = std::max(best, g[l]);
    }
    const GemmLib runs = rt::gemmPlan().use[rt::gemmClass(s.m, s.k, s.n, s.transA, s.transB)];
    char shape[96];
    std::snprintf(shape, sizeof shape, "%s (%dx%dx%d%s)", s.what, s.m, s.k, s.n,
                  s.transA ? ", tA" : s.transB ? ", tB" : "");
    std::printf("%-34s %7.1f %9.1f %7.1f %7.1f %-9s %9.2f\n", shape, g[0], g[1], g[2], g[3], rt::kGemmLibNames[int(runs)],
                g[3] / best);
    worst = std::min(worst, g[3] / best);
  }
  std::printf("lowest weft/best: %.2f (target >= 0.95)\n", worst);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  gemm::installPlanner();
  std::printf("%s", gemm::describe().c_str());
  table(1);
  if (threads > 1) table(threads);
  return 0;
}
