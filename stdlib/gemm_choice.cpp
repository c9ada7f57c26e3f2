#include "gemm_choice.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <vector>

#include "runtime/cpu_name.h"
#include "runtime/matmul.h"

namespace weft::gemm {
namespace {

namespace fs = std::filesystem;
using rt::GemmLib;
using rt::kGemmClasses;
using rt::kGemmLibs;

// The shapes each size of class is measured on (m, k, n), in each form (gemmForm: plain, a
// transposed, b transposed): the products of dense layers and of their gradients (x^T @ g,
// g @ w^T) that fall in the size, and a few more. None for a vector: gemm() runs every product
// with a vector on either side as Eigen's GEMV (gemmIsDirect), whatever the plan says.
struct Shape {
  int m, k, n;
  bool transA, transB;
};
const std::vector<Shape> kShapes[rt::kGemmSizes] = {
    {},
    {{32, 512, 10}, {256, 512, 10}, {512, 64, 10}, {8, 256, 256}},
    {{64, 10, 512}, {784, 8, 512}, {128, 16, 256}},
    {{32, 128, 128}, {64, 64, 64}, {100, 150, 120}},
    {{784, 64, 512}, {512, 64, 512}, {512, 32, 512}, {2048, 128, 384}},
    {{32, 784, 512}, {32, 512, 512}, {64, 512, 784}},
    {{256, 784, 512}, {256, 512, 512}, {512, 256, 512}},
};

// CPU time in seconds: of this thread (`whole` false), or of the process, its threads' together.
// The products are timed without the time other processes on a shared machine take from them, and
// a product on one thread without what the pool's idle threads spend.
double cpuSeconds(bool whole) {
  timespec t;
  clock_gettime(whole ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// One product on `lib`, as gemm() runs it: in gemmSplit's blocks, or `whole` in one call.
template <class T>
void product(GemmLib lib, const Shape& s, const T* a, const T* b, T* c, void* ws, bool whole) {
  if (whole)
    rt::detail::gemmBlock(lib, a, s.transA ? s.m : s.k, b, s.transB ? s.k : s.n, c, s.n, s.m, s.k, s.n, nullptr, false,
                          s.transA, s.transB, static_cast<const T*>(nullptr));
  else
    rt::gemmOn(lib, a, b, c, s.m, s.k, s.n, ws, false, s.transA, s.transB);
}

// CPU seconds per call of one product on `lib` (over the pool's threads when `pooled`), over at
// least 2 ms.
double secondsPerCall(GemmLib lib, const Shape& s, std::vector<float>& a, std::vector<float>& b, std::vector<float>& c,
                      std::vector<char>& ws, bool pooled, bool whole) {
  int calls = 0;
  const double t0 = cpuSeconds(pooled);
  double elapsed = 0;
  do {
    product(lib, s, a.data(), b.data(), c.data(), ws.data(), whole);
    ++calls;
    elapsed = cpuSeconds(pooled) - t0;
  } while (elapsed < 0.002);
  return elapsed / calls;
}

// Whether `lib` computes each element of a product to the same bits whole and in gemmSplit's
// blocks over `pool`: float and double, every form, on the classes' shapes and a few odd ones, from
// random values. Eigen and OpenBLAS do not (their kernels take other paths at a block's edges);
// BLIS 0.9 with its AVX-512 kernels did on every product tried, with its Haswell and Zen kernels
// (which switch to unpacked kernels for small sizes) not. Eigen is never asked: it packs into
// gemm()'s workspace, sized for a block.
template <class T>
bool sameBitsWhole(GemmLib lib, rt::ThreadPool& pool, const Shape& s, std::mt19937& random) {
  std::normal_distribution<T> normal;
  std::vector<T> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), whole(size_t(s.m) * s.n), blocks(whole.size());
  for (T& v : a) v = normal(random);
  for (T& v : b) v = normal(random);
  std::vector<char> ws(size_t(rt::gemmWorkspaceBytes<T>(s.m, s.k, s.n)) + 64);
  product(lib, s, a.data(), b.data(), whole.data(), ws.data(), true);
  rt::PoolScope onEveryCore(&pool);
  product(lib, s, a.data(), b.data(), blocks.data(), ws.data(), false);
  return std::memcmp(whole.data(), blocks.data(), whole.size() * sizeof(T)) == 0;
}

bool blockFree(GemmLib lib, rt::ThreadPool& pool) {
  if (lib == GemmLib::Eigen || rt::kSplitWays < 2) return false;
  std::vector<Shape> shapes = {{1024, 1024, 1024}, {300, 700, 200}, {517, 333, 129}, {97, 1000, 611}, {40, 2000, 72}};
  for (int size = 0; size < rt::kGemmSizes; ++size)
    shapes.insert(shapes.end(), kShapes[size].begin(), kShapes[size].end());
  std::mt19937 random(7);
  for (const Shape& base : shapes)
    for (int form = 0; form < rt::kGemmForms; ++form) {
      Shape s = base;
      s.transA = form == 1, s.transB = form == 2;
      if (rt::gemmSplit(s.m, s.k, s.n).chunks < 2) continue;
      if (!sameBitsWhole<float>(lib, pool, s, random) || !sameBitsWhole<double>(lib, pool, s, random)) return false;
    }
  return true;
}

// Each class on each loaded library: the best of seven short interleaved rounds, so that what load
// on a shared machine still does to CPU time (caches, memory bandwidth) hits all alike. The
// products run as gemm() runs them, split into the machine's blocks (gemmSplit), twice: on one
// thread, the blocks one after the other, and on every core, one thread each, at once. A
// library's speed on one thread is not its speed beside itself: BLIS's packing buffers come from
// one pool for the process, so a thread often packs into lines another core wrote last. On a Zen 5
// whose two cores sit on different complexes BLIS ran 1024^3 1.25x faster than Eigen on one core
// and level with it on two, and 64x512x512 on two threads 1.2x slower though level on one. A
// class goes to the library with the smallest sum of its times relative to the fastest, over
// each shape at both thread counts (Eigen on a tie): the choice is the machine's, the same at
// every thread count (so are the bits), and as near the best as one library can be at each.
Choice measure() {
  Choice out;
  bool loaded[kGemmLibs];
  for (int l = 0; l < kGemmLibs; ++l) loaded[l] = rt::gemmLibrary(GemmLib(l)).loaded();
  rt::ThreadPool pool(rt::kSplitWays);
  for (int l = 0; l < kGemmLibs; ++l) out.plan.whole[l] = loaded[l] && blockFree(GemmLib(l), pool);
  const int counts = rt::kSplitWays > 1 ? 2 : 1;  // one thread, then every core
  for (int cls = 0; cls < kGemmClasses; ++cls) {
    std::vector<Shape> shapes = kShapes[cls / rt::kGemmForms];
    for (Shape& s : shapes) s.transA = cls % rt::kGemmForms == 1, s.transB = cls % rt::kGemmForms == 2;
    if (shapes.empty()) {
      out.measured[cls] = "Eigen's GEMV, always; not measured";
      continue;
    }
    // best[count][shape][library]: seconds per call
    std::vector<std::vector<std::vector<double>>> best(
        counts, std::vector<std::vector<double>>(shapes.size(), std::vector<double>(kGemmLibs, 1e30)));
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
      for (size_t j = 0; j < a.size(); ++j) a[j] = float(j % 7) * 0.25f - 0.75f;
      for (size_t j = 0; j < b.size(); ++j) b[j] = float(j % 5) * 0.5f - 1.0f;
      std::vector<char> ws(size_t(rt::gemmWorkspaceBytes<float>(s.m, s.k, s.n)) + 64);
      for (int t = 0; t < counts; ++t) {
        rt::PoolScope scope(t ? &pool : nullptr);
        for (int l = 0; l < kGemmLibs; ++l)  // warm up: first calls load code and touch buffers
          if (loaded[l]) secondsPerCall(GemmLib(l), s, a, b, c, ws, t, !t && out.plan.whole[l]);
        for (int round = 0; round < 7; ++round)
          for (int l = 0; l < kGemmLibs; ++l)
            if (loaded[l]) best[t][i][l] =
                  std::min(best[t][i][l], secondsPerCall(GemmLib(l), s, a, b, c, ws, t, !t && out.plan.whole[l]));
      }
    }
    double score[kGemmLibs] = {}, gflops[2][kGemmLibs] = {};
    for (int t = 0; t < counts; ++t)
      for (size_t i = 0; i < shapes.size(); ++i) {
        const double fastest = *std::min_element(best[t][i].begin(), best[t][i].end());
        const double flops = 2.0 * shapes[i].m * shapes[i].k * shapes[i].n;
        for (int l = 0; l < kGemmLibs; ++l) {
          score[l] += best[t][i][l] / fastest;
          // CPU time: on every core, GFLOP/s per core
          gflops[t][l] += flops / best[t][i][l] / 1e9 / double(shapes.size());
        }
      }
    int pick = 0;
    std::ostringstream m;
    m.precision(3);
    for (int l = 0; l < kGemmLibs; ++l) {
      if (!loaded[l]) continue;
      if (score[l] < score[pick]) pick = l;
      m << (l ? ", " : "") << rt::kGemmLibNames[l] << " " << gflops[0][l];
      if (counts > 1) m << "/" << gflops[1][l];
    }
    out.plan.use[cls] = GemmLib(pick);
    out.measured[cls] = m.str() + (counts > 1 ? " GFLOP/s per core, on one/every core" : " GFLOP/s");
  }
  return out;
}

// "blis openblas", or "none".
std::string wholeText(const rt::GemmPlan& p) {
  std::string t;
  for (int l = 0; l < kGemmLibs; ++l)
    if (p.whole[l]) t += (t.empty() ? "" : " ") + std::string(rt::kGemmLibNames[l]);
  return t.empty() ? "none" : t;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The choice in `path` when it is one for this machine, naming loaded libraries only.
bool readCache(const std::string& path, Choice& out) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line, key;
  bool seen[kGemmClasses] = {}, wholeSeen = false;
  Choice c;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("key ", 0) == 0) {
      key = line.substr(4);
      continue;
    }
    if (line.rfind("whole", 0) == 0) {  // "whole blis ...", or "whole none"
      std::istringstream words(line.substr(5));
      std::vector<std::string> libs;
      for (std::string w; words >> w;) libs.push_back(w);
      if (wholeSeen || libs.empty()) return false;
      wholeSeen = true;
      if (libs.size() == 1 && libs[0] == "none") continue;
      for (const std::string& lib : libs) {
        GemmLib l;
        if (!rt::parseGemmLib(lib.data(), lib.size(), l) || l == GemmLib::Eigen || !rt::gemmLibraryFile(l))
          return false;
        c.plan.whole[int(l)] = true;
      }
      continue;
    }
    const size_t hash = line.find('#');
    std::istringstream words(line.substr(0, hash));
    std::string cls, lib, extra;
    if (!(words >> cls >> lib) || (words >> extra)) return false;
    int ci = 0;
    while (ci < kGemmClasses && cls != rt::kGemmClassNames[ci]) ++ci;
    GemmLib l;
    if (ci == kGemmClasses || seen[ci] || !rt::parseGemmLib(lib.data(), lib.size(), l) ||
        (l != GemmLib::Eigen && !rt::gemmLibraryFile(l)))
      return false;
    seen[ci] = true;
    c.plan.use[ci] = l;
    c.measured[ci] = hash == std::string::npos ? "" : trim(line.substr(hash + 1));
  }
  if (key != machineKey() || !wholeSeen || !std::all_of(seen, seen + kGemmClasses, [](bool b) { return b; }))
    return false;
  out = c;
  return true;
}

std::string cacheText(const Choice& c) {
  std::ostringstream t;
  t << "# The GEMM library Weft runs for each class of shapes on this machine (docs/internals.md).\n"
    << "# Measured once (GFLOP/s: the mean over each class's shapes); delete this file to measure again.\n"
    << "# WEFT_GEMM=eigen|openblas|blis overrides it.\n"
    << "key " << machineKey() << "\n";
  for (int cls = 0; cls < kGemmClasses; ++cls)
    t << rt::kGemmClassNames[cls] << " " << rt::kGemmLibNames[int(c.plan.use[cls])] << "  # " << c.measured[cls] << "\n";
  t << "# The libraries whose bits do not depend on gemm()'s blocks, so that one thread runs a product whole:\n"
    << "whole " << wholeText(c.plan) << "\n";
  return t.str();
}

Choice eigenBecause(const std::string& why) {
  Choice c;
  c.source = "Eigen for every class";
  c.note = why + "; every GEMM runs on Eigen (a choice measured again on each run could differ between runs). "
                 "Set XDG_CACHE_HOME to a writable folder, or WEFT_GEMM=eigen|openblas|blis";
  return c;
}

// Closes a file descriptor (and so releases its lock) on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::string machineKey() {
  std::string key = rt::cpuName() + " | " + rt::gemmLibrary(GemmLib::Eigen).version + " " + Eigen::SimdInstructionSetsInUse();
  // Each library by its file, its size and time (a new version is another file), and BLIS by the
  // kernels it was asked for: known without loading them, which only a product they run does.
  for (int l = 1; l < kGemmLibs; ++l)
    if (const char* file = rt::gemmLibraryFile(GemmLib(l))) {
      struct stat st {};
      key += std::string(" | ") + file;
      if (::stat(file, &st) == 0)
        key += " " + std::to_string(st.st_size) + " bytes, " + std::to_string(st.st_mtim.tv_sec) + "." +
               std::to_string(st.st_mtim.tv_nsec);
      else
        key += " missing";
      if (GemmLib(l) == GemmLib::BLIS) key += std::string(", BLIS_ARCH_TYPE=") + rt::gemm_detail::blisArchGiven();
    }
  for (char& ch : key)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return key;
}

std::string defaultCachePath() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/weft/gemm.txt";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/weft/gemm.txt";
  return "";
}

Choice loadOrMeasure(const std::string& path) {
  bool others = false;
  for (int l = 1; l < kGemmLibs; ++l) others = others || rt::gemmLibraryFile(GemmLib(l));
  if (!others) {
    Choice c;
    c.source = "Eigen, the only GEMM library here";
    return c;
  }
  if (path.empty()) return eigenBecause("no cache folder for the GEMM choice (neither XDG_CACHE_HOME nor HOME is set)");
  Choice c;
  if (readCache(path, c)) {
    c.source = "cached in " + path;
    return c;
  }
  // One process measures while others starting at the same time wait, then read its result.
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  Fd lock{open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)};
  if (lock.fd < 0 || flock(lock.fd, LOCK_EX) != 0)
    return eigenBecause("cannot write the GEMM choice to " + path + ": " + std::strerror(errno));
  c = Choice{};
  if (readCache(path, c)) {
    c.source = "cached in " + path;
    return c;
  }
  c = measure();
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << cacheText(c);
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      return eigenBecause("cannot write the GEMM choice to " + path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return eigenBecause("cannot write the GEMM choice to " + path + ": " + why);
  }
  c.source = "measured now, cached in " + path;
  return c;
}

const Choice& processChoice() {
  static const Choice choice = [] {
    Choice c = loadOrMeasure(defaultCachePath());
    if (!c.note.empty()) std::cerr << "weft: " << c.note << "\n";
    return c;
  }();
  return choice;
}

void installPlanner() {
  rt::gemmPlanner() = [] { return processChoice().plan; };
}

std::string describe() {
  std::ostringstream o;
  o << "CPU: " << rt::cpuName() << "\nGEMM libraries:\n";
  for (int l = 0; l < kGemmLibs; ++l) {
    const rt::GemmLibrary& lib = rt::gemmLibrary(GemmLib(l));
    o << "  " << rt::kGemmLibNames[l] << ": " << (lib.loaded() ? lib.version : "missing: " + std::string(lib.missing))
      << "\n";
  }
  const rt::GemmPlan& plan = rt::gemmPlan();
  const char* forced = std::getenv("WEFT_GEMM");
  GemmLib named;
  const bool byEnv = forced && rt::parseGemmLib(forced, std::strlen(forced), named);
  const Choice* c = byEnv ? nullptr : &processChoice();  // forced: nothing measured
  o << "GEMM choice (" << (byEnv ? "WEFT_GEMM=" + std::string(forced) : c->source) << "):\n";
  for (int cls = 0; cls < kGemmClasses; ++cls) {
    o << "  " << rt::kGemmClassNames[cls] << ": " << rt::kGemmLibNames[int(plan.use[cls])];
    if (c && !c->measured[cls].empty()) o << "  (" << c->measured[cls] << ")";
    o << "\n";
  }
  o << "  whole on one thread: " << wholeText(plan) << "  (libraries whose bits do not depend on the blocks)\n";
  return o.str();
}

}  // namespace weft::gemm
