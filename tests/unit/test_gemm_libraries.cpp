// The GEMM libraries beside Eigen (stdlib/runtime/gemm_libraries.h) and the cached choice among
// them (stdlib/gemm_choice.h): every library found computes Eigen's products on awkward shapes,
// a cached choice is read back as written, and a garbage or unwritable cache is handled.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"
#include "stdlib/gemm_choice.h"
#include "stdlib/runtime/matmul.h"

using namespace weft;
using rt::GemmLib;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

struct Case {
  int64_t m, k, n;
};

// Sizes of 0 and 1, vectors, and sizes that are not multiples of any library's blocking.
const Case kCases[] = {{1, 1, 1},   {0, 3, 4},   {3, 0, 4},  {3, 4, 0},   {1, 17, 9},   {9, 17, 1},
                       {2, 3, 15},  {17, 33, 65}, {3, 1000, 5}, {129, 257, 63}, {64, 10, 512}, {31, 1, 29}};

template <class T>
void checkAgainstEigen(GemmLib lib) {
  for (const Case& c : kCases)
    for (int form = 0; form < 8; ++form) {
      const bool transA = form & 1, transB = form & 2, accumulate = form & 4;
      CAPTURE(c.m);
      CAPTURE(c.k);
      CAPTURE(c.n);
      CAPTURE(form);
      std::vector<T> a(size_t(c.m * c.k)), b(size_t(c.k * c.n)), init(size_t(c.m * c.n));
      for (size_t i = 0; i < a.size(); ++i) a[i] = T(std::sin(0.7 * double(i) + 0.3));
      for (size_t i = 0; i < b.size(); ++i) b[i] = T(std::cos(1.3 * double(i)));
      for (size_t i = 0; i < init.size(); ++i) init[i] = T(0.5) - T(i % 3);
      std::vector<T> want = init, got = init;
      std::vector<char> ws(size_t(rt::gemmWorkspaceBytes<T>(c.m, c.k, c.n)) + 64);
      rt::gemmOn(GemmLib::Eigen, a.data(), b.data(), want.data(), c.m, c.k, c.n, ws.data(), accumulate, transA, transB);
      rt::gemmOn(lib, a.data(), b.data(), got.data(), c.m, c.k, c.n, nullptr, accumulate, transA, transB);
      const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
      for (size_t i = 0; i < got.size(); ++i)
        CHECK(double(got[i]) == doctest::Approx(double(want[i])).epsilon(tol).scale(std::sqrt(double(c.k)) + 1));
    }
}

bool same(const rt::GemmPlan& x, const rt::GemmPlan& y) {
  for (int c = 0; c < rt::kGemmClasses; ++c)
    if (x.use[c] != y.use[c]) return false;
  for (int l = 0; l < rt::kGemmLibs; ++l)
    if (x.whole[l] != y.whole[l]) return false;
  return true;
}

// A library other than Eigen that loaded here, if any.
bool otherLibrary(GemmLib& out) {
  for (int l = 1; l < rt::kGemmLibs; ++l)
    if (rt::gemmLibrary(GemmLib(l)).loaded()) {
      out = GemmLib(l);
      return true;
    }
  return false;
}

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST_CASE("every GEMM library found computes Eigen's products, transposed, accumulated and empty") {
  for (int l = 1; l < rt::kGemmLibs; ++l) {
    const rt::GemmLibrary& lib = rt::gemmLibrary(GemmLib(l));
    CAPTURE(rt::kGemmLibNames[l]);
    if (!lib.loaded()) {
      CHECK(std::string(lib.missing) != "");
      continue;
    }
    CHECK(std::string(lib.version) != "");
    // BLIS names the kernels it runs; on a CPU with AVX-512 they are its AVX-512 ones, never the
    // reference kernels it picks by itself on an AMD CPU newer than it knows (Zen 5 for BLIS 0.9).
    if (GemmLib(l) == GemmLib::BLIS) {
      CHECK(std::string(lib.version).find(" kernels (") != std::string::npos);
      if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        CHECK(std::string(lib.version).find(", generic kernels (") == std::string::npos);
    }
    checkAgainstEigen<float>(GemmLib(l));
    checkAgainstEigen<double>(GemmLib(l));
  }
}

TEST_CASE("a GEMM library missing at run time, or BLIS's threaded build, is reported, not loaded") {
  const rt::GemmLibrary l = rt::gemm_detail::loadGemmLibrary(GemmLib::OpenBLAS, "libweft-no-such-blas.so.0");
  CHECK_FALSE(l.loaded());
  CHECK(std::string(l.missing).find("libweft-no-such-blas.so.0") != std::string::npos);
  // Debian's OpenMP build of BLIS allocates on every call: refused, with what to install instead.
  // Not under AddressSanitizer: its OpenMP runtime allocates as it loads and is unloaded with it
  // when refused, which LeakSanitizer reports as a leak of this program's.
  const char* openmp = "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4";
  if (!kAddressSanitizer && std::filesystem::exists(openmp)) {
    const rt::GemmLibrary b = rt::gemm_detail::loadGemmLibrary(GemmLib::BLIS, openmp);
    CHECK_FALSE(b.loaded());
    CHECK(std::string(b.missing).find("threaded build of BLIS") != std::string::npos);
  }
}

TEST_CASE("GEMM plans are written and read in class order; anything else is refused") {
  // One library per class, in kGemmClassNames' order: here the thin ones on BLIS, the short sums
  // with a transposed on OpenBLAS, the rest on Eigen.
  std::string text;
  for (int c = 0; c < rt::kGemmClasses; ++c) {
    const std::string name = rt::kGemmClassNames[c];
    text += std::string(c ? "," : "") +
            (name.rfind("thin", 0) == 0 ? "blis" : name == "short.tA" ? "openblas" : "eigen");
  }
  rt::GemmPlan p;
  REQUIRE(rt::parseGemmPlan(text.c_str(), p));
  CHECK(p.use[rt::gemmClass(32, 512, 10, false, true)] == GemmLib::BLIS);
  CHECK(p.use[rt::gemmClass(784, 64, 512, true, false)] == GemmLib::OpenBLAS);
  CHECK(p.use[rt::gemmClass(784, 64, 512, true, true)] == GemmLib::OpenBLAS);
  CHECK(p.use[rt::gemmClass(784, 64, 512, false, true)] == GemmLib::Eigen);
  CHECK(p.use[rt::gemmClass(256, 784, 512, false, false)] == GemmLib::Eigen);
  char written[rt::kGemmPlanTextSize];
  rt::gemmPlanText(p, written, sizeof written);
  CHECK(std::string(written) == text);
  // The libraries that run a product whole on one thread follow the classes, after '/'.
  REQUIRE(rt::parseGemmPlan((text + "/whole=blis").c_str(), p));
  CHECK(p.whole[int(GemmLib::BLIS)]);
  CHECK_FALSE(p.whole[int(GemmLib::OpenBLAS)]);
  rt::gemmPlanText(p, written, sizeof written);
  CHECK(std::string(written) == text + "/whole=blis");
  for (GemmLib& u : p.use) u = GemmLib::OpenBLAS;  // the longest plan fits
  p.whole[int(GemmLib::OpenBLAS)] = p.whole[int(GemmLib::BLIS)] = true;
  rt::gemmPlanText(p, written, sizeof written);
  rt::GemmPlan back;
  CHECK(rt::parseGemmPlan(written, back));
  CHECK(same(back, p));
  CHECK(std::string(written).find(';') == std::string::npos);  // a CMake list separator
  for (const char* badWhole : {"/whole=eigen", "/whole=mkl", "/whole=", "/blis", "/whole=blis,", "/"})
    CHECK_FALSE(rt::parseGemmPlan((text + badWhole).c_str(), p));
  const std::string firstSix = "eigen,blis,eigen,openblas,openblas,eigen";  // a plan of six classes, as once written
  for (const std::string& bad : {std::string(), std::string("eigen"), firstSix, text + ",eigen",
                                text.substr(0, text.rfind(',')), "eigen,mkl" + text.substr(text.find(',', 6)),
                                "eigen," + text.substr(text.find(',', 6))})
    CHECK_FALSE(rt::parseGemmPlan(bad.c_str(), p));
  CHECK(rt::gemmSize(1, 784, 512) == rt::kGemmVector);
  CHECK(rt::gemmSize(512, 512, 1) == rt::kGemmVector);
  CHECK(rt::gemmSize(32, 512, 10) == rt::kGemmThin);
  CHECK(rt::gemmSize(64, 10, 512) == rt::kGemmShallow);
  CHECK(rt::gemmSize(64, 64, 64) == rt::kGemmSmall);
  CHECK(rt::gemmSize(784, 64, 512) == rt::kGemmShort);  // a weight's gradient over a batch of 64
  CHECK(rt::gemmSize(2048, 128, 384) == rt::kGemmShort);
  CHECK(rt::gemmSize(32, 784, 512) == rt::kGemmMedium);
  CHECK(rt::gemmSize(64, 512, 784) == rt::kGemmMedium);
  CHECK(rt::gemmSize(256, 784, 512) == rt::kGemmLarge);
  CHECK(std::string(rt::kGemmClassNames[rt::gemmClass(64, 512, 512, false, true)]) == "medium.tB");
}

TEST_CASE("the GEMM choice is read back from its cache as written, for this machine only") {
  GemmLib other;
  const auto path = testutil::scratchPath("gemm_cached.txt").string();
  if (!otherLibrary(other)) {  // Eigen alone: nothing to measure, nothing cached
    const gemm::Choice c = gemm::loadOrMeasure(path);
    CHECK(same(c.plan, rt::GemmPlan{}));
    CHECK(c.note.empty());
    CHECK_FALSE(std::filesystem::exists(path));
    return;
  }
  const std::string name = rt::kGemmLibNames[int(other)];
  // The thin classes and the large one with a transposed on `other`, the rest on Eigen.
  auto libFor = [&](const std::string& cls) {
    return cls.rfind("thin", 0) == 0 || cls == "large.tA" ? name : std::string("eigen");
  };
  std::string text = "# a comment\nkey " + gemm::machineKey() + "\n";
  for (const char* cls : rt::kGemmClassNames)
    text += std::string(cls) + " " + libFor(cls) + (std::string(cls) == "thin" ? "  # 1 GFLOP/s" : "") + "\n";
  // Without the line of libraries that run a product whole (as Weft once wrote it): measured again.
  write(path, text);
  CHECK(gemm::loadOrMeasure(path).source == "measured now, cached in " + path);
  write(path, text + "whole " + name + "\n");
  for (int run = 0; run < 2; ++run) {
    const gemm::Choice c = gemm::loadOrMeasure(path);
    CHECK(c.source == "cached in " + path);
    CHECK(c.note.empty());
    for (int cls = 0; cls < rt::kGemmClasses; ++cls)
      CHECK(c.plan.use[cls] == (libFor(rt::kGemmClassNames[cls]) == name ? other : GemmLib::Eigen));
    CHECK(c.plan.use[rt::gemmClass(784, 256, 512, true, false)] == other);
    CHECK(c.plan.use[rt::gemmClass(784, 256, 512, false, false)] == GemmLib::Eigen);
    CHECK(c.measured[rt::gemmClass(32, 512, 10, false, false)] == "1 GFLOP/s");
    CHECK(c.plan.whole[int(other)]);
    CHECK_FALSE(c.plan.whole[int(GemmLib::Eigen)]);
  }
  for (const char* bad : {"whole eigen\n", "whole none\nwhole none\n"}) {
    write(path, text + bad);
    CHECK(gemm::loadOrMeasure(path).source == "measured now, cached in " + path);
  }
}

TEST_CASE("a GEMM choice is keyed by the CPU's family, model and stepping, not by its name alone") {
  // Virtual machines name Zen 3, 4 and 5 alike ("AMD EPYC"); their best libraries differ.
  std::ifstream info("/proc/cpuinfo");
  bool hasFamily = false;
  for (std::string line; std::getline(info, line) && !line.empty();) hasFamily |= line.rfind("cpu family", 0) == 0;
  const std::string key = gemm::machineKey();
  CHECK(key.find('\n') == std::string::npos);
  if (hasFamily) {
    CHECK(key.find("(family ") != std::string::npos);
    CHECK(key.find(", stepping ") != std::string::npos);
  }
}

TEST_CASE("a garbage or foreign GEMM cache is measured again and replaced; an unwritable one leaves Eigen") {
  GemmLib other;
  if (!otherLibrary(other)) return;
  const auto path = testutil::scratchPath("gemm_garbage.txt");
  // Garbage, a truncated file, another machine's key: each is measured again (once, then cached).
  write(path, "\x01\x02 not a choice\nvector\n");
  const gemm::Choice measured = gemm::loadOrMeasure(path.string());
  CHECK(measured.source == "measured now, cached in " + path.string());
  CHECK(measured.note.empty());
  for (int form = 0; form < rt::kGemmForms; ++form)  // products with a vector are Eigen's GEMV: not measured
    CHECK(measured.plan.use[rt::kGemmVector * rt::kGemmForms + form] == GemmLib::Eigen);
  const gemm::Choice again = gemm::loadOrMeasure(path.string());
  CHECK(again.source == "cached in " + path.string());
  CHECK(same(again.plan, measured.plan));
  std::string text;
  {
    std::ifstream f(path);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  const size_t key = text.find("key ");
  REQUIRE(key != std::string::npos);
  write(path, text.substr(0, key) + "key another CPU" + text.substr(text.find('\n', key)));
  CHECK(gemm::loadOrMeasure(path.string()).source == "measured now, cached in " + path.string());
  // A plan of the six classes by size alone, as Weft once wrote it, is measured again too.
  write(path, "key " + gemm::machineKey() + "\nvector eigen\nthin eigen\nshallow eigen\nsmall eigen\nmedium eigen\n" +
                  "large eigen\n");
  CHECK(gemm::loadOrMeasure(path.string()).source == "measured now, cached in " + path.string());

  // A cache path under a regular file cannot be written: Eigen for every class, and why.
  const auto file = testutil::scratchPath("not_a_folder");
  write(file, "x");
  const gemm::Choice eigen = gemm::loadOrMeasure((file / "gemm.txt").string());
  CHECK(same(eigen.plan, rt::GemmPlan{}));
  CHECK(eigen.note.find("cannot write the GEMM choice to " + (file / "gemm.txt").string()) != std::string::npos);
  CHECK(gemm::loadOrMeasure("").note.find("neither XDG_CACHE_HOME nor HOME") != std::string::npos);
}

TEST_CASE("a product's first panel written from zero or a bias row gives the bits of a product accumulated onto them") {
  // gemm writes c's first kc panel through a mapper whose loads return the start (matmul.h's
  // StartMapper), where it once cleared c or copied the bias in first: the same bits. k = 1000
  // spans several kc panels, so the panels after the first accumulate as before.
  const Case cases[] = {{129, 257, 63}, {17, 33, 65}, {300, 1000, 40}, {40, 1000, 300}, {4096, 128, 128}, {5, 7, 3}};
  for (const Case& c : cases)
    for (int t = 0; t < 4; ++t) {
      const bool transA = t & 1, transB = t & 2;
      std::vector<float> a(size_t(c.m * c.k)), b(size_t(c.k * c.n)), bias(size_t(c.n));
      for (size_t i = 0; i < a.size(); ++i) a[i] = float(std::sin(double(i) * 0.37));
      for (size_t i = 0; i < b.size(); ++i) b[i] = float(std::cos(double(i) * 0.11));
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(i % 7) - 3.25f;
      std::vector<float> zeros(size_t(c.m * c.n), 0.f), rows(size_t(c.m * c.n)), plain(size_t(c.m * c.n), 9.f),
          fused(size_t(c.m * c.n), 9.f);
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) rows[size_t(i * c.n + j)] = bias[size_t(j)];
      rt::gemm(a.data(), b.data(), zeros.data(), c.m, c.k, c.n, nullptr, true, transA, transB);
      rt::gemm(a.data(), b.data(), rows.data(), c.m, c.k, c.n, nullptr, true, transA, transB);
      rt::gemm(a.data(), b.data(), plain.data(), c.m, c.k, c.n, nullptr, false, transA, transB);
      rt::gemm(a.data(), b.data(), fused.data(), c.m, c.k, c.n, nullptr, false, transA, transB, bias.data());
      CHECK(std::memcmp(zeros.data(), plain.data(), zeros.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(rows.data(), fused.data(), rows.size() * sizeof(float)) == 0);
    }
}
