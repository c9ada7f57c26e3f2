// Errors in ulps, and the whole-range reference values of tests/fixtures/ulp (written by
// tests/fixtures/make_ulp_references.py with mpmath; read here without it).
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace weft::testutil {

// |got - ref| in units of T's spacing at ref (0.5 means correctly rounded; subnormals count in
// the smallest subnormal's spacing). An infinite result counts as 2^(max exponent + 1), as IEEE
// overflow does; a result that should be infinite is exact only if it is. NaN must match NaN,
// and a zero must have the sign of a zero reference.
template <class T>
double ulpError(T got, long double ref) {
  using L = std::numeric_limits<T>;
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (got == 0 && ref == 0) return std::signbit(got) == std::signbit(ref) ? 0 : INFINITY;
  if ((long double)got == ref) return 0;
  if (std::isinf(got) && T(ref) == got) return 0;
  const long double top = ldexpl(1, L::max_exponent);
  const long double g = std::isinf(got) ? copysignl(top, got) : (long double)got;
  const long double r = fabsl(ref) > top ? copysignl(top, ref) : ref;
  long double spacing = L::denorm_min();
  if (fabsl(r) >= L::min()) {
    int e = 0;
    frexpl(fabsl(r), &e);
    spacing = ldexpl(1, e - L::digits);
  }
  return double(fabsl(g - r) / spacing);
}

// One fixture file: the inputs and, per column name, the exact values.
template <class T>
struct UlpFixture {
  std::vector<std::string> names;
  std::vector<T> x;
  std::vector<std::vector<long double>> ref;  // ref[column][point]

  const std::vector<long double>* column(const std::string& name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return &ref[i];
    return nullptr;
  }
};

template <class T>
const UlpFixture<T>& ulpFixture() {
  static const UlpFixture<T> f = [] {
    UlpFixture<T> out;
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/tests/fixtures/ulp/" + (sizeof(T) == 4 ? "f32" : "f64") + ".txt";
    std::ifstream in(path);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::string line, word;
    std::getline(in, line);
    std::istringstream header(line);
    header >> word;  // "x"
    while (header >> word) out.names.push_back(word);
    out.ref.resize(out.names.size());
    while (std::getline(in, line)) {
      std::istringstream row(line);
      row >> word;
      out.x.push_back(T(std::strtold(word.c_str(), nullptr)));  // hex floats are exact
      for (auto& col : out.ref) {
        row >> word;
        col.push_back(std::strtold(word.c_str(), nullptr));
      }
      REQUIRE_MESSAGE(row, "short line in " << path << ": " << line);
    }
    REQUIRE(out.x.size() > 1000);
    return out;
  }();
  return f;
}

}  // namespace weft::testutil
