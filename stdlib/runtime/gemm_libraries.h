// The GEMM libraries beside Eigen (OpenBLAS, BLIS) and the plan that says which one runs each
// class of shapes. Each library is loaded (dlopen) at the first product the plan gives it, so a
// program whose products all run on Eigen loads none, and a program built where one was found
// still runs, on Eigen, where it is missing; each runs
// single-threaded. Which library a class uses is measured once per machine by the interpreter
// (stdlib/gemm_choice.cpp, cached in a file); generated code carries the choice `weft
// compile` found (WEFT_GEMM_PLAN); WEFT_GEMM=eigen|openblas|blis forces one for every class.
// WEFT_OPENBLAS_FILE / WEFT_BLIS_FILE name the files the build found (find_gemm_libraries.cmake);
// only those are tried.
#ifndef WEFT_RT_GEMM_LIBRARIES_H
#define WEFT_RT_GEMM_LIBRARIES_H
#include <dlfcn.h>

#include <Eigen/Core>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace weft::rt {

enum class GemmLib : uint8_t { Eigen, OpenBLAS, BLIS };
inline constexpr int kGemmLibs = 3;
inline constexpr const char* kGemmLibNames[kGemmLibs] = {"eigen", "openblas", "blis"};

// Classes of shapes whose best library may differ: by size — a vector on either side (GEMV), a
// thin result (m or n of at most 16), a shallow sum (k of at most 16), a small product (m*n*k
// under 2M), a short sum (k of at most 128: a weight's gradient over a batch, a narrow model's
// layers; each element of c gets few terms, so how a library writes c weighs), then by m*n*k — and
// by form, the operand read transposed: none, a (a gradient's x^T @ g; both count as a), or b
// alone (g @ w^T). Libraries pack a transposed operand at different costs: on one Zen 5, BLIS ran
// 784x64x512 with a transposed 1.27x Eigen's speed and 32x784x512 plain 0.97x.
enum GemmSize : uint8_t { kGemmVector, kGemmThin, kGemmShallow, kGemmSmall, kGemmShort, kGemmMedium, kGemmLarge };
inline constexpr int kGemmSizes = 7, kGemmForms = 3, kGemmClasses = kGemmSizes * kGemmForms;
inline constexpr const char* kGemmClassNames[kGemmClasses] = {
    "vector", "vector.tA", "vector.tB", "thin",   "thin.tA",   "thin.tB",   "shallow", "shallow.tA", "shallow.tB",
    "small",  "small.tA",  "small.tB",  "short",  "short.tA",  "short.tB",  "medium",  "medium.tA",  "medium.tB",
    "large",  "large.tA",  "large.tB"};

inline int gemmSize(int64_t m, int64_t k, int64_t n) {
  if (m == 1 || n == 1) return kGemmVector;
  if (m <= 16 || n <= 16) return kGemmThin;
  if (k <= 16) return kGemmShallow;
  const double work = double(m) * double(n) * double(k);
  if (work < double(1 << 21)) return kGemmSmall;
  if (k <= 128) return kGemmShort;
  return work < double(1 << 25) ? kGemmMedium : kGemmLarge;
}
inline int gemmForm(bool transA, bool transB) { return transA ? 1 : transB ? 2 : 0; }
inline int gemmClass(int64_t m, int64_t k, int64_t n, bool transA, bool transB) {
  return gemmSize(m, k, n) * kGemmForms + gemmForm(transA, transB);
}

// The library each class runs on, and the libraries that run a product whole on one thread: those
// whose result for an element does not depend on the block of rows or columns computing it
// (checked when the plan is measured, stdlib/gemm_choice.cpp). The others run the machine's blocks
// (gemmSplit) one after the other on one thread, to give the bits they give on every core.
struct GemmPlan {
  GemmLib use[kGemmClasses] = {};
  bool whole[kGemmLibs] = {};
};

// A library's entry points, or why it is not there.
struct GemmLibrary {
  void* sgemm = nullptr;  // cblas_sgemm (OpenBLAS) or bli_sgemm (BLIS)
  void* dgemm = nullptr;
  char version[320] = "";  // its version and file
  char missing[200] = "";  // empty when loaded
  bool loaded() const { return sgemm && dgemm; }
};

namespace gemm_detail {

inline void say(const char* text) { std::fprintf(stderr, "weft: %s\n", text); }

inline void copyText(char* to, size_t size, const char* text) { std::snprintf(to, size, "%s", text ? text : ""); }

// BLIS_ARCH_TYPE as the environment gave it, before askBlisForWidestKernels may set it: with the
// CPU and BLIS's file it fixes the kernels BLIS runs, known without loading BLIS.
inline const char* blisArchGiven() {
  static const char* given = std::getenv("BLIS_ARCH_TYPE");
  return given ? given : "";
}

// BLIS picks its kernels by the CPU when first called; on AMD it goes by family, and on a family
// newer than it knows (Zen 5 for BLIS 0.9) it runs its reference kernels, a fifth of the speed.
// So, unless BLIS_ARCH_TYPE is set already, BLIS is asked for its AVX-512 kernels (`skx`) on a
// CPU that has the instruction sets they use, before its first call. Whether BLIS then runs any
// product is measured, as for every library (stdlib/gemm_choice.cpp). BLIS_ARCH_TYPE takes the
// configuration's index, found here by name: the names end with "generic".
inline void askBlisForWidestKernels(void* blis) {
  if (*blisArchGiven() || !__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl"))
    return;
  auto name = reinterpret_cast<const char* (*)(int)>(dlsym(blis, "bli_arch_string"));
  if (!name) return;
  for (int id = 0; id < 64; ++id) {
    const char* n = name(id);
    if (!n || std::strcmp(n, "generic") == 0) return;
    if (std::strcmp(n, "skx") == 0) {
      char text[16];
      std::snprintf(text, sizeof text, "%d", id);
      setenv("BLIS_ARCH_TYPE", text, 0);
      return;
    }
  }
}

// Loads `file` as library `lib`. Both set their threads to 1 (intra-op threading is Weft's own).
inline GemmLibrary loadGemmLibrary(GemmLib lib, const char* file) {
  GemmLibrary l;
  void* h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    copyText(l.missing, sizeof l.missing, dlerror());
    return l;
  }
  const bool openblas = lib == GemmLib::OpenBLAS;
  l.sgemm = dlsym(h, openblas ? "cblas_sgemm" : "bli_sgemm");
  l.dgemm = dlsym(h, openblas ? "cblas_dgemm" : "bli_dgemm");
  void* threads = dlsym(h, openblas ? "openblas_set_num_threads" : "bli_thread_set_num_threads");
  void* version = dlsym(h, openblas ? "openblas_get_config" : "bli_info_get_version_str");
  // BLIS's threaded builds allocate on every call, which generated code promises not to do.
  void* threaded = openblas ? nullptr : dlsym(h, "bli_info_get_enable_threading");
  if (!l.loaded() || !threads || !version || (!openblas && !threaded)) {
    std::snprintf(l.missing, sizeof l.missing, "%s lacks the expected functions", file);
  } else if (threaded && reinterpret_cast<int64_t (*)()>(threaded)()) {
    std::snprintf(l.missing, sizeof l.missing,
                  "%s is a threaded build of BLIS, which allocates on every call (Debian: install libblis4-serial)",
                  file);
  } else {
    if (!openblas) askBlisForWidestKernels(h);
    if (openblas) {
      reinterpret_cast<void (*)(int)>(threads)(1);
      // Its pthread build made a server thread per core when loaded, which spins on sched_yield
      // between calls and takes a core from Weft's own threads: ended (it is made again only if
      // something asks OpenBLAS for threads).
      if (void* shutdown = dlsym(h, "blas_thread_shutdown_")) reinterpret_cast<int (*)()>(shutdown)();
    } else {
      reinterpret_cast<void (*)(int64_t)>(threads)(1);
    }
    char kernels[64] = "";
    if (!openblas)
      if (void* query = dlsym(h, "bli_arch_query_id"))
        if (void* name = dlsym(h, "bli_arch_string"))
          std::snprintf(kernels, sizeof kernels, ", %s kernels",
                        reinterpret_cast<const char* (*)(int)>(name)(reinterpret_cast<int (*)()>(query)()));
    std::snprintf(l.version, sizeof l.version, "%s%s%s (%s)", openblas ? "" : "BLIS ",
                  reinterpret_cast<char* (*)()>(version)(), kernels, file);
    return l;
  }
  l.sgemm = l.dgemm = nullptr;
  dlclose(h);
  return l;
}

inline GemmLibrary eigenLibrary() {
  GemmLibrary l;
  l.sgemm = l.dgemm = reinterpret_cast<void*>(1);  // Eigen is compiled in
  std::snprintf(l.version, sizeof l.version, "Eigen %d.%d.%d", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                EIGEN_MINOR_VERSION);
  return l;
}

}  // namespace gemm_detail

// The file the build found for `lib` (WEFT_*_FILE), or null: Eigen's, and a library not found.
inline const char* gemmLibraryFile(GemmLib lib) {
  static constexpr const char* kFiles[kGemmLibs] = {
      nullptr,
#ifdef WEFT_OPENBLAS_FILE
      WEFT_OPENBLAS_FILE,
#else
      nullptr,
#endif
#ifdef WEFT_BLIS_FILE
      WEFT_BLIS_FILE,
#else
      nullptr,
#endif
  };
  return kFiles[int(lib)];
}

namespace gemm_detail {
// `lib` from the file the build found, or why there is none.
inline GemmLibrary loadBuilt(GemmLib lib) {
  if (const char* file = gemmLibraryFile(lib)) return loadGemmLibrary(lib, file);
  GemmLibrary l;
  copyText(l.missing, sizeof l.missing, "not found when this program was built");
  return l;
}
}  // namespace gemm_detail

// The library named by the `len` characters at `s` ("eigen", "openblas", "blis").
inline bool parseGemmLib(const char* s, size_t len, GemmLib& out) {
  for (int i = 0; i < kGemmLibs; ++i)
    if (std::strlen(kGemmLibNames[i]) == len && std::strncmp(s, kGemmLibNames[i], len) == 0) {
      out = GemmLib(i);
      return true;
    }
  return false;
}

// A library, loaded at its first use (each apart: using one loads no other).
inline const GemmLibrary& gemmLibrary(GemmLib lib) {
  static const GemmLibrary eigen = gemm_detail::eigenLibrary();
  if (lib == GemmLib::Eigen) return eigen;
  if (lib == GemmLib::OpenBLAS) {
    static const GemmLibrary openblas = gemm_detail::loadBuilt(GemmLib::OpenBLAS);
    return openblas;
  }
  static const GemmLibrary blis = gemm_detail::loadBuilt(GemmLib::BLIS);
  return blis;
}

// "eigen,blis,eigen,openblas,...": the library of each class, in class order (kGemmClassNames),
// then "/whole=blis" for each library that runs a product whole on one thread. (No ';': the text
// is a definition in a generated CMakeLists.txt, where ';' separates a list.)
inline bool parseGemmPlan(const char* text, GemmPlan& out) {
  GemmPlan p;
  const char* classesEnd = std::strchr(text, '/');
  if (!classesEnd) classesEnd = text + std::strlen(text);
  for (int c = 0; c < kGemmClasses; ++c) {
    const char* comma = static_cast<const char*>(std::memchr(text, ',', size_t(classesEnd - text)));
    const char* end = comma ? comma : classesEnd;
    if (!parseGemmLib(text, size_t(end - text), p.use[c]) || (c + 1 < kGemmClasses) != (comma != nullptr)) return false;
    text = end + (comma ? 1 : 0);
  }
  static constexpr char kWhole[] = "/whole=";
  while (*text) {
    if (std::strncmp(text, kWhole, sizeof kWhole - 1) != 0) return false;
    text += sizeof kWhole - 1;
    const char* next = std::strchr(text, '/');
    const size_t len = next ? size_t(next - text) : std::strlen(text);
    GemmLib lib;
    if (!parseGemmLib(text, len, lib) || lib == GemmLib::Eigen) return false;
    p.whole[int(lib)] = true;
    text += len;
  }
  out = p;
  return true;
}

// A plan's text fits in kGemmPlanTextSize characters ("openblas," at most for each class, then
// "/whole=openblas" at most for each library).
inline constexpr size_t kGemmPlanTextSize = kGemmClasses * 10 + kGemmLibs * 16;
inline void gemmPlanText(const GemmPlan& p, char* out, size_t size) {
  size_t at = 0;
  for (int c = 0; c < kGemmClasses && at < size; ++c)
    at += size_t(std::snprintf(out + at, size - at, "%s%s", c ? "," : "", kGemmLibNames[int(p.use[c])]));
  for (int l = 0; l < kGemmLibs && at < size; ++l)
    if (p.whole[l]) at += size_t(std::snprintf(out + at, size - at, "/whole=%s", kGemmLibNames[l]));
}

// Where the plan comes from in a program that measures it (the interpreter sets this at start).
using GemmPlanner = GemmPlan (*)();
inline std::atomic<GemmPlanner>& gemmPlanner() {
  static std::atomic<GemmPlanner> planner{nullptr};
  return planner;
}

namespace gemm_detail {

// WEFT_GEMM first, then the planner, then the plan generated code was compiled with, else Eigen.
// A library the build did not find falls back to Eigen, said once (but not for generated code:
// that build is Eigen's by design); one that fails to load, at its first product (usable()).
inline GemmPlan resolvePlan() {
  GemmPlan p;
  const char* forced = std::getenv("WEFT_GEMM");
  GemmLib lib;
  bool compiledIn = false;
  if (forced && *forced && parseGemmLib(forced, std::strlen(forced), lib)) {
    for (GemmLib& u : p.use) u = lib;
  } else {
    if (forced && *forced) say("WEFT_GEMM must be eigen, openblas or blis; it is ignored");
    if (GemmPlanner planner = gemmPlanner().load()) {
      p = planner();
    } else {
#ifdef WEFT_GEMM_PLAN
      if (!parseGemmPlan(WEFT_GEMM_PLAN, p)) say("WEFT_GEMM_PLAN is not a GEMM plan; using Eigen");
      compiledIn = true;
#endif
    }
  }
  bool said[kGemmLibs] = {};
  for (GemmLib& u : p.use) {
    if (u == GemmLib::Eigen || gemmLibraryFile(u)) continue;
    if (!said[int(u)] && !compiledIn) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "the GEMM library %s is not available (not found when this program was built); using Eigen",
                    kGemmLibNames[int(u)]);
      say(text);
      said[int(u)] = true;
    }
    u = GemmLib::Eigen;
  }
  return p;
}

// Whether `lib` is loaded (loading it at the first call); when it cannot be, that is said once
// and the product runs on Eigen.
inline bool usable(GemmLib lib) {
  const GemmLibrary& l = gemmLibrary(lib);
  if (l.loaded()) return true;
  static std::atomic<bool> said[kGemmLibs] = {};
  if (!said[int(lib)].exchange(true)) {
    char text[320];
    std::snprintf(text, sizeof text, "the GEMM library %s is not available (%s); using Eigen", kGemmLibNames[int(lib)],
                  l.missing);
    say(text);
  }
  return false;
}

}  // namespace gemm_detail

// The plan this process runs, fixed on first use.
inline const GemmPlan& gemmPlan() {
  static const GemmPlan plan = gemm_detail::resolvePlan();
  return plan;
}

// c = a @ b (+ c when accumulate) on `lib`, row-major with leading dimensions lda, ldb, ldc (as
// stored: a transposed operand's is its stored rows' length), as gemm() in matmul.h describes;
// false when the library cannot take these sizes (past INT_MAX for OpenBLAS's int arguments).
template <class T>
bool libraryGemm(GemmLib lib, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t m,
                 int64_t k, int64_t n, bool accumulate, bool transA, bool transB) {
  const GemmLibrary& l = gemmLibrary(lib);
  void* fn = std::is_same_v<T, float> ? l.sgemm : l.dgemm;
  const T one = 1, beta = accumulate ? 1 : 0;
  if (lib == GemmLib::OpenBLAS) {
    for (int64_t v : {m, n, k, lda, ldb, ldc})
      if (v > INT_MAX) return false;
    using Cblas = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*, int);
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    reinterpret_cast<Cblas>(fn)(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans, int(m), int(n),
                                int(k), one, a, int(lda), b, int(ldb), beta, c, int(ldc));
    return true;
  }
  // BLIS's typed API takes a row and a column stride per operand: a transposed operand is the
  // same buffer with its strides swapped (trans_t 0: no transpose).
  using Bli = void (*)(int, int, int64_t, int64_t, int64_t, const T*, const T*, int64_t, int64_t, const T*, int64_t,
                       int64_t, const T*, T*, int64_t, int64_t);
  reinterpret_cast<Bli>(fn)(0, 0, m, n, k, &one, a, transA ? 1 : lda, transA ? lda : 1, b, transB ? 1 : ldb,
                            transB ? ldb : 1, &beta, c, ldc, 1);
  return true;
}

}  // namespace weft::rt

#endif  // WEFT_RT_GEMM_LIBRARIES_H
