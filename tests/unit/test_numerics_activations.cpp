// The activations (the gelu op in both forms, the prelude's silu) against mpmath over the whole float range
// (tests/fixtures/ulp), eagerly and in a graph function, which must agree bit for bit. The
// bounds are docs/numerics.md's: in ulps where the result keeps its relative accuracy, and as
// an absolute error in units of eps * |x| below, where gelu's erf form cancels (1 + erf(x / sqrt 2)
// for x < -1, as in PyTorch's and TensorFlow's) and any form's rounded intermediates are
// amplified (d log(gelu) / d log(x) grows as x^2).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "interpreter/eval/interpreter.h"
#include "test_ops_util.h"
#include "ulp_fixture.h"

using namespace weft;
using namespace weft::testutil;

namespace {

struct Activation {
  const char* name;  // the fixture's column
  const char* call;  // Weft code of x
  double ulps32, ulps64;  // bound on [relativeFrom, inf)
  double eps32, eps64;    // bound below, in eps * |x|
  double rel32;           // bound on the f32 relative error over 1e-6 <= |x| <= 3, the usual measure
};

// Where each bound applies: at and above -1 the results keep their relative accuracy.
constexpr double kRelativeFrom = -1;

const Activation kActivations[] = {
    {"gelu", "gelu(x)", 5.5, 2, 1.5, 1, 6e-5},
    {"gelu_tanh", "gelu(x, approximate=true)", 2.5, 2.5, 0.5, 1, 5e-7},
    {"silu", "silu(x)", 2.5, 2, 0.6, 1, 3e-7},
};

// y = call(x) run by the interpreter, eagerly (graph false) or as a graph function.
template <class T>
Tensor runActivation(const Activation& a, const std::vector<T>& x, bool graph) {
  std::ostringstream out, err;
  Interpreter in(out, err);
  in.globals()->set(intern("x"), Value(make<T>({int64_t(x.size())}, x)));
  std::string src = graph ? std::string("@function\nfn f(x) { return ") + a.call + " }\ny = f(x)\n"
                          : std::string("y = ") + a.call + "\n";
  REQUIRE_MESSAGE(in.runSource(std::make_shared<SourceFile>("activation.model", src)) == 0, err.str());
  Value* y = in.globals()->findLocal(intern("y"));
  REQUIRE(y);
  return y->tensor();
}

struct Measured {
  double ulps = 0, ulpsAt = 0, eps = 0, epsAt = 0, rel3 = 0, rel3At = 0;
};

template <class T>
Measured measure(const Activation& a) {
  const UlpFixture<T>& f = ulpFixture<T>();
  const std::vector<long double>* ref = f.column(a.name);
  REQUIRE(ref);
  Tensor eager = runActivation<T>(a, f.x, false), graph = runActivation<T>(a, f.x, true);
  REQUIRE(eager.numel() == int64_t(f.x.size()));
  REQUIRE(graph.numel() == eager.numel());
  CHECK(std::memcmp(eager.data<T>(), graph.data<T>(), f.x.size() * sizeof(T)) == 0);
  Measured m;
  const long double eps = ldexpl(1, -std::numeric_limits<T>::digits);
  for (size_t i = 0; i < f.x.size(); ++i) {
    const T x = f.x[i], y = eager.data<T>()[i];
    const long double r = (*ref)[i];
    if (x >= -3 && x <= 3 && std::fabs(x) >= 1e-6) {  // (subnormal results keep no relative accuracy)
      double e = double(fabsl(((long double)y - r) / r));
      if (e > m.rel3) m.rel3 = e, m.rel3At = double(x);
    }
    if (std::isnan(x) || std::isinf(x) || x >= kRelativeFrom) {
      double e = ulpError<T>(y, r);
      if (e > m.ulps) m.ulps = e, m.ulpsAt = double(x);
    } else {
      double e = std::isnan(y) ? INFINITY : double(fabsl((long double)y - r) / (eps * fabsl(x)));
      if (e > m.eps) m.eps = e, m.epsAt = double(x);
    }
  }
  return m;
}

}  // namespace

TEST_CASE("gelu and silu are within their documented bounds over the whole float range, eager and graph alike") {
  for (const Activation& a : kActivations) {
    CAPTURE(a.name);
    Measured m32 = measure<float>(a), m64 = measure<double>(a);
    if (std::getenv("WEFT_PRINT_ULPS"))
      std::printf("| `%s` | %.2f (x = %.9g) | %.2f (x = %.9g) | %.2g (x = %.9g) | %.2f (x = %.17g) | %.2f (x = %.17g) |\n",
                  a.call, m32.ulps, m32.ulpsAt, m32.eps, m32.epsAt, m32.rel3, m32.rel3At, m64.ulps, m64.ulpsAt, m64.eps,
                  m64.epsAt);
    CHECK(m32.ulps <= a.ulps32);
    CHECK(m32.eps <= a.eps32);
    CHECK(m64.ulps <= a.ulps64);
    CHECK(m64.eps <= a.eps64);
    CHECK(m32.rel3 <= a.rel32);
  }
}

namespace {

// gelu's primitive as the composite of primitives it replaced (docs/numerics.md), in Weft.
const char* kComposite =
    "fn composite(x, approximate) {\n"
    "  x = maximum(x, -1000.0)\n"
    "  if approximate { return x * sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x)) }\n"
    "  return 0.5 * x * (1.0 + erf(x * 0.7071067811865476))\n"
    "}\n";

// Eagerly; alone in a graph function; and as a step of a fused loop there (after an exact x * 1.0).
template <class T>
void sameBits(const char* composite, std::initializer_list<const char*> calls) {
  const std::vector<T>& x = ulpFixture<T>().x;
  const std::string src = std::string(kComposite) + "y = " + composite + "\n";
  std::ostringstream out, err;
  Interpreter in(out, err);
  in.globals()->set(intern("x"), Value(make<T>({int64_t(x.size())}, x)));
  REQUIRE_MESSAGE(in.runSource(std::make_shared<SourceFile>("composite.model", src)) == 0, err.str());
  const Tensor want = in.globals()->findLocal(intern("y"))->tensor();
  for (const char* call : calls)
    for (bool graph : {false, true}) {
      CAPTURE(call);
      CAPTURE(graph);
      const Tensor got = runActivation<T>(Activation{"", call, 0, 0, 0, 0, 0}, x, graph);
      REQUIRE(got.numel() == want.numel());
      CHECK(std::memcmp(got.data<T>(), want.data<T>(), x.size() * sizeof(T)) == 0);
    }
}

}  // namespace

TEST_CASE("the gelu op gives the bits of the composite it replaced, eagerly, in a graph and in a fused loop") {
  sameBits<float>("composite(x, false)", {"gelu(x)", "gelu(x * 1.0)"});
  sameBits<double>("composite(x, false)", {"gelu(x)", "gelu(x * 1.0)"});
  sameBits<float>("composite(x, true)", {"gelu(x, approximate=true)", "gelu(x * 1.0, approximate=true)"});
  sameBits<double>("composite(x, true)", {"gelu(x, approximate=true)", "gelu(x * 1.0, approximate=true)"});
}

TEST_CASE("gelu at the edges: -inf and below -1000 give -0.0, inf gives inf, nan stays nan") {
  for (const char* call : {"gelu(x)", "gelu(x, approximate=true)"}) {
    CAPTURE(call);
    const Activation a{"", call, 0, 0, 0, 0, 0};
    const std::vector<double> x{-INFINITY, -1e300, -2000.0, -1000.0, INFINITY, NAN, 0.0, -0.0};
    for (bool graph : {false, true}) {
      const Tensor y64 = runActivation<double>(a, x, graph);
      const Tensor y32 = runActivation<float>(a, std::vector<float>(x.begin(), x.end()), graph);
      for (size_t i = 0; i < 4; ++i) {
        CHECK((y64.data<double>()[i] == 0.0 && std::signbit(y64.data<double>()[i])));
        CHECK((y32.data<float>()[i] == 0.0f && std::signbit(y32.data<float>()[i])));
      }
      CHECK(y64.data<double>()[4] == INFINITY);
      CHECK(y32.data<float>()[4] == INFINITY);
      CHECK(std::isnan(y64.data<double>()[5]));
      CHECK(std::isnan(y32.data<float>()[5]));
      CHECK((y64.data<double>()[6] == 0.0 && !std::signbit(y64.data<double>()[6])));
      CHECK(y32.data<float>()[7] == 0.0f);
    }
  }
}
