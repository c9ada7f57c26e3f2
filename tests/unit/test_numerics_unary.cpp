// The accuracy sweeps (docs/numerics.md): every unary primitive in f32 and f64 against a long
// double reference, over ranges that reach the vectorised paths and the tails, and against
// mpmath's values over the whole float range (tests/fixtures/ulp: subnormals, the overflow
// edges, infinities, NaN), with a bound in ulps per op. And the property that makes eager, graph and compiled code agree: one value's
// result never depends on the tensor's length, its position or its neighbours.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "stdlib/runtime/unary.h"
#include "test_ops_util.h"
#include "ulp_fixture.h"

using namespace weft;
using namespace weft::testutil;
using ops::UnaryOp;

namespace {

struct Sweep {
  const char* name;
  UnaryOp op;
  std::function<long double(long double)> ref;
  double lo, hi;  // f32's range; f64 uses lo64/hi64 when they are set
  bool logSpaced;
  double ulps32, ulps64;  // the documented bounds
  double lo64 = 0, hi64 = 0;
};

long double sigmoidRef(long double x) { return 1.0L / (1.0L + expl(-x)); }

const std::vector<Sweep>& sweeps() {
  static const std::vector<Sweep> all = {
      {"exp", UnaryOp::Exp, [](long double x) { return expl(x); }, -103, 88, false, 4.5, 2, -744, 709},
      {"log", UnaryOp::Log, [](long double x) { return logl(x); }, 1e-37, 1e38, true, 1, 1, 1e-307, 1e308},
      {"sqrt", UnaryOp::Sqrt, [](long double x) { return sqrtl(x); }, 1e-37, 1e38, true, 0.5, 0.5, 1e-307, 1e308},
      {"rsqrt", UnaryOp::Rsqrt, [](long double x) { return 1.0L / sqrtl(x); }, 1e-37, 1e37, true, 1.5, 1.5, 1e-307, 1e307},
      {"tanh", UnaryOp::Tanh, [](long double x) { return tanhl(x); }, -12, 12, false, 4.5, 2, -20, 20},
      {"sigmoid", UnaryOp::Sigmoid, sigmoidRef, -103, 20, false, 5.5, 2.5, -744, 40},
      {"erf", UnaryOp::Erf, [](long double x) { return erfl(x); }, -5, 5, false, 5.6, 1},
      {"sin", UnaryOp::Sin, [](long double x) { return sinl(x); }, -100, 100, false, 1.5, 1},
      {"cos", UnaryOp::Cos, [](long double x) { return cosl(x); }, -100, 100, false, 1.5, 1},
      {"floor", UnaryOp::Floor, [](long double x) { return floorl(x); }, -1e6, 1e6, false, 0, 0},
      {"ceil", UnaryOp::Ceil, [](long double x) { return ceill(x); }, -1e6, 1e6, false, 0, 0},
      {"round", UnaryOp::Round, [](long double x) { return nearbyintl(x); }, -1e6, 1e6, false, 0, 0},
      {"log1p", UnaryOp::Log1p, [](long double x) { return log1pl(x); }, -0.999, 1e30, false, 2, 1},
      {"expm1", UnaryOp::Expm1, [](long double x) { return expm1l(x); }, -20, 88, false, 4.5, 1, -40, 709},
      {"neg", UnaryOp::Neg, [](long double x) { return -x; }, -1e30, 1e30, false, 0, 0},
      {"abs", UnaryOp::Abs, [](long double x) { return fabsl(x); }, -1e30, 1e30, false, 0, 0},
      {"square", UnaryOp::Square, [](long double x) { return x * x; }, -1e18, 1e18, false, 0.5, 0.5},
      {"relu", UnaryOp::Relu, [](long double x) { return x < 0 ? 0 : x; }, -1e30, 1e30, false, 0, 0},
      {"sign", UnaryOp::Sign, [](long double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }, -10, 10, false, 0, 0},
  };
  return all;
}

// n points over [lo, hi] (geometric when logSpaced), rounded to T, plus their negatives' tails.
template <class T>
Tensor points(double lo, double hi, bool logSpaced, int64_t n) {
  Tensor t = Tensor::empty(rt::DTypeOf<T>::value, {n});
  for (int64_t i = 0; i < n; ++i) {
    double f = double(i) / double(n - 1);
    t.data<T>()[i] = T(logSpaced ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f);
  }
  return t;
}

template <class T>
double worstUlps(const Sweep& s, double* worstAt = nullptr) {
  bool is64 = sizeof(T) == 8 && s.hi64 != 0;
  Tensor x = points<T>(is64 ? s.lo64 : s.lo, is64 ? s.hi64 : s.hi, s.logSpaced, 100003);
  Tensor y = ops::unary(s.op, x);
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    double e = ulpError<T>(y.data<T>()[i], s.ref((long double)x.data<T>()[i]));
    if (e > worst) {
      worst = e;
      if (worstAt) *worstAt = double(x.data<T>()[i]);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("every unary primitive is within its documented ulp bound in f32 and f64") {
  for (const Sweep& s : sweeps()) {
    CAPTURE(s.name);
    double at32 = 0, at64 = 0;
    double e32 = worstUlps<float>(s, &at32), e64 = worstUlps<double>(s, &at64);
    // WEFT_PRINT_ULPS=1 prints the measured table of docs/numerics.md.
    if (std::getenv("WEFT_PRINT_ULPS"))
      std::printf("| `%s` | %.2f (x = %.9g) | %.2f (x = %.17g) |\n", s.name, e32, at32, e64, at64);
    CHECK(e32 <= s.ulps32);
    CHECK(e64 <= s.ulps64);
  }
}

// The whole range: the fixture's points, against mpmath's values, within the same bounds.
template <class T>
double worstUlpsOverRange(const Sweep& s, double* worstAt) {
  const UlpFixture<T>& f = ulpFixture<T>();
  const std::vector<long double>* ref = f.column(s.name);
  if (!ref) return -1;
  Tensor y = ops::unary(s.op, make<T>({int64_t(f.x.size())}, f.x));
  double worst = 0;
  for (size_t i = 0; i < f.x.size(); ++i) {
    double e = ulpError<T>(y.data<T>()[i], (*ref)[i]);
    if (e > worst) {
      worst = e;
      *worstAt = double(f.x[i]);
    }
  }
  return worst;
}

TEST_CASE("every transcendental primitive is within its ulp bound over the whole float range") {
  int columns = 0;
  for (const Sweep& s : sweeps()) {
    CAPTURE(s.name);
    double at32 = 0, at64 = 0;
    double e32 = worstUlpsOverRange<float>(s, &at32), e64 = worstUlpsOverRange<double>(s, &at64);
    if (e32 < 0) continue;  // exact ops: the sweep above covers them
    ++columns;
    if (std::getenv("WEFT_PRINT_ULPS"))
      std::printf("whole range | `%s` | %.2f (x = %.9g) | %.2f (x = %.17g) |\n", s.name, e32, at32, e64, at64);
    CHECK(e32 <= s.ulps32);
    CHECK(e64 <= s.ulps64);
  }
  CHECK(columns == 11);
}

// The edges that were wrong, one by one (each value is also in the fixture).
TEST_CASE("exp, expm1, log and erf at the edges of the float range") {
  auto one = [](UnaryOp op, auto x) { return ops::unary(op, make<decltype(x)>({}, {x})).template data<decltype(x)>()[0]; };
  // f32 exp overflows at 88.7228 (not before): exp(88.5) is 2.72e38, exp(88.72) 3.39e38.
  CHECK(one(UnaryOp::Exp, 88.5f) == doctest::Approx(2.7230878e38).epsilon(1e-6));
  CHECK(one(UnaryOp::Expm1, 88.72f) == doctest::Approx(3.3931805e38).epsilon(1e-6));
  CHECK(std::isinf(one(UnaryOp::Exp, 88.7229f)));
  CHECK(one(UnaryOp::Exp, 709.78) == doctest::Approx(1.7928227943945155e308).epsilon(1e-14));
  // log of subnormals: log(1e-45) is -103.28 (was log of the smallest normal, -87.34).
  CHECK(one(UnaryOp::Log, std::numeric_limits<float>::denorm_min()) == doctest::Approx(-103.27893).epsilon(1e-7));
  CHECK(one(UnaryOp::Log, 1e-40f) == doctest::Approx(-92.103404).epsilon(1e-7));
  CHECK(one(UnaryOp::Log, 5e-324) == doctest::Approx(-744.44007192138126).epsilon(1e-15));
  CHECK(one(UnaryOp::Log, 0.0f) == -INFINITY);
  CHECK(std::isnan(one(UnaryOp::Log, -1e-45f)));
  // f32 erf near the smallest normal: 2/sqrt(pi) x.
  for (float x : {1.1754944e-38f, -3e-39f, 1e-30f, 1e-6f})
    CHECK(ulpError<float>(one(UnaryOp::Erf, x), 1.1283791670955125739L * x) <= 0.55);
  CHECK(std::signbit(one(UnaryOp::Erf, -0.0f)));
}

TEST_CASE("sigmoid's f32 tail is accurate") {
  Tensor x = points<float>(-20, -5, false, 1001);
  Tensor y = ops::unary(UnaryOp::Sigmoid, x);
  for (int64_t i = 0; i < x.numel(); ++i) {
    long double ref = sigmoidRef(x.data<float>()[i]);
    CHECK(double(fabsl((y.data<float>()[i] - ref) / ref)) < 1e-6);
  }
}

// Eigen alone computes an unaligned head and a short tail with scalar code; here every length
// 1..67, at every alignment, must give each value the result it gets on its own.
template <class T>
void checkLengthIndependence(const Sweep& s) {
  Tensor x = points<T>(s.lo, s.hi, s.logSpaced, 67 + 8);
  const T* px = x.data<T>();
  std::vector<T> alone(size_t(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) alone[size_t(i)] = ops::unary(s.op, make<T>({}, {px[i]})).template data<T>()[0];
  std::vector<T> out(size_t(x.numel()));
  for (int64_t offset = 0; offset < 8; ++offset)
    for (int64_t n = 1; n <= 67; ++n) {
      std::fill(out.begin(), out.end(), T(0));
      Tensor y = ops::unary(s.op, make<T>({n}, std::vector<T>(px + offset, px + offset + n)));
      for (int64_t i = 0; i < n; ++i) {
        CAPTURE(n);
        CAPTURE(offset);
        T a = y.template data<T>()[i], b = alone[size_t(offset + i)];
        CHECK(std::memcmp(&a, &b, sizeof(T)) == 0);
      }
    }
}

TEST_CASE("a unary op's result does not depend on the tensor's length or the value's position") {
  for (const Sweep& s : sweeps()) {
    CAPTURE(s.name);
    checkLengthIndependence<float>(s);
    checkLengthIndependence<double>(s);
  }
}

TEST_CASE("the runtime unary kernel gives the same bits at any alignment") {
  std::vector<float> x(80), a(80), b(80);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.37f * float(i) + 0.01f;
  for (int off = 1; off < 8; ++off) {
    rt::unaryKernel<rt::Sqrt>(x.data(), a.data(), 67);
    rt::unaryKernel<rt::Sqrt>(x.data() + off, b.data() + off, 67 - off);
    for (int i = off; i < 67; ++i) CHECK(a[size_t(i)] == b[size_t(i)]);
  }
}

// Every functor that repairs its tails from the arguments, written over its own arguments (a
// memory plan lets a unary result take its dying input's buffer; attention's softmax exponentiates
// its rows in place): the same bits as into a buffer of its own, tails included.
namespace {

template <class F, class T>
void checkInPlace(const char* name, std::vector<T> x) {
  CAPTURE(name);
  x.resize(256, x.back());
  struct alignas(64) Row { T v[256]; } in, out;
  std::copy(x.begin(), x.end(), in.v);
  rt::unaryKernel<F>(in.v, out.v, 256);
  rt::unaryKernel<F>(in.v, in.v, 256);
  for (size_t i = 0; i < 256; ++i) CHECK(std::memcmp(&in.v[i], &out.v[i], sizeof(T)) == 0);
}

}  // namespace

TEST_CASE("a unary kernel written in place gives the bits it gives into another buffer") {
  checkInPlace<rt::Erf, float>("erf", {1e-6f, -3e-7f, 1e-40f, 0.5f, -2.0f});
  checkInPlace<rt::Log, float>("log", {1e-40f, 1e-45f, 0.5f, 3.0f});
  checkInPlace<rt::Exp, float>("exp", {-90.0f, -100.0f, 88.5f, 0.5f});
  checkInPlace<rt::Expm1, float>("expm1", {88.5f, 0.5f, -1.0f});
  checkInPlace<rt::Sigmoid, float>("sigmoid", {-90.0f, -100.0f, 0.5f});
  checkInPlace<rt::Log, double>("log f64", {1e-310, 0.5});
  checkInPlace<rt::Exp, double>("exp f64", {-710.0, 709.5, 0.5});
}
