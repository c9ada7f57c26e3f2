// GFLOP/s of each GEMM library Weft can run (Eigen, OpenBLAS, BLIS) and of Weft's own gemm (the
// library its measured plan picks for the shape) on 1024^3 and the products of the MLP
// 784-512-512-10: the forward layers at batch 1, 32 and 256 and the train step's transposed
// products at batch 64 (x^T @ g, g @ w^T). f32, row-major; every contender runs each shape in 7
// interleaved rounds of at least 10 ms and reports its best round. On one thread the products are
// timed in the thread's CPU time (what other processes on a shared machine take is not counted);
// on THREADS, in wall time. Target: Weft >= 0.95x the best library, at one thread and at THREADS.
// Usage: bench_gemm [THREADS=1]: with THREADS > 1, a second table on that many threads.
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

// Sets OpenBLAS's own thread count (the runtime set it to 1).
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

// The contenders of one table. On one thread: each library on the whole product (Eigen's GEMV for
// a vector, as gemm runs it), and Weft's gemm, which runs the plan's library on gemmSplit's blocks
// one after the other. On N threads: each library on the same blocks over Weft's pool of N,
// OpenBLAS also on the whole product on its own N threads (its default), and Weft's gemm on the pool.
enum Contender { kEigen, kOpenBLAS, kBLIS, kOpenBLASOwn, kWeft, kContenders };
const char* const kHeads[kContenders] = {"eigen", "openblas", "blis", "ob-own", "weft"};

void table(int threads) {
  rt::ThreadPool pool(threads);
  std::printf("\n%d thread%s (GFLOP/s, best of 7 rounds; %s)\n", threads, threads == 1 ? "" : "s",
              threads == 1 ? "each library on the whole product, CPU time"
                           : "each library on Weft's blocks over its pool, ob-own: OpenBLAS's own threads; wall time");
  std::printf("%-36s %7s %9s %7s %7s %7s %-9s %9s\n", "product (m x k x n)", kHeads[0], kHeads[1], kHeads[2],
              threads == 1 ? "" : kHeads[3], kHeads[4], "(runs)", "weft/best");
  double worst = 1e9;
  for (const Shape& s : kShapes) {
    std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.25f - 0.75f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.5f - 1.0f;
    const int64_t wholeBytes = rt::GemmBlocking<float>(s.m, s.k, s.n).elements() * int64_t(sizeof(float)) + 64;
    std::vector<char> ws(size_t(std::max(wholeBytes, rt::gemmWorkspaceBytes<float>(s.m, s.k, s.n))) + 64);
    const int64_t lda = s.transA ? s.m : s.k, ldb = s.transB ? s.k : s.n;
    std::vector<double> samples[kContenders];
    for (int round = 0; round < 7; ++round)
      for (int l = 0; l < kContenders; ++l) {
        const bool library = l < rt::kGemmLibs || l == kOpenBLASOwn;
        const GemmLib lib = l == kOpenBLASOwn ? GemmLib::OpenBLAS : GemmLib(l < rt::kGemmLibs ? l : 0);
        if (library && !rt::gemmLibrary(lib).loaded()) continue;
        if (l == kOpenBLASOwn && threads == 1) continue;
        if (l == kOpenBLASOwn) setOpenBlasThreads(threads);
        rt::PoolScope scope(threads == 1 || l == kOpenBLASOwn ? nullptr : &pool);
        samples[l].push_back(secondsPerCall(threads == 1, [&] {
          if (l == kWeft)
            rt::gemm(a.data(), b.data(), c.data(), s.m, s.k, s.n, ws.data(), false, s.transA, s.transB);
          else if ((threads == 1 || l == kOpenBLASOwn) && !(l == kEigen && rt::gemmIsDirect(s.m, s.k, s.n)))
            rt::detail::gemmBlock(lib, a.data(), lda, b.data(), ldb, c.data(), s.n, s.m, s.k, s.n, ws.data(), false,
                                  s.transA, s.transB, static_cast<const float*>(nullptr));
          else
            rt::gemmOn(lib, a.data(), b.data(), c.data(), s.m, s.k, s.n, ws.data(), false, s.transA, s.transB);
        }));
        if (l == kOpenBLASOwn) setOpenBlasThreads(1);
      }
    const double flops = 2.0 * s.m * s.k * s.n;
    double g[kContenders] = {}, best = 0;
    for (int l = 0; l < kContenders; ++l) {
      g[l] = samples[l].empty() ? 0 : flops / *std::min_element(samples[l].begin(), samples[l].end()) / 1e9;
      if (l != kWeft) best = std::max(best, g[l]);
    }
    const GemmLib runs = rt::gemmPlan().use[rt::gemmClass(s.m, s.k, s.n, s.transA, s.transB)];
    char shape[96], own[16] = "";
    std::snprintf(shape, sizeof shape, "%s (%dx%dx%d%s)", s.what, s.m, s.k, s.n,
                  s.transA ? ", tA" : s.transB ? ", tB" : "");
    if (threads > 1) std::snprintf(own, sizeof own, "%.1f", g[kOpenBLASOwn]);
    std::printf("%-36s %7.1f %9.1f %7.1f %7s %7.1f %-9s %9.2f\n", shape, g[kEigen], g[kOpenBLAS], g[kBLIS], own,
                g[kWeft], rt::kGemmLibNames[int(runs)], g[kWeft] / best);
    worst = std::min(worst, g[kWeft] / best);
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
