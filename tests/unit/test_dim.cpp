// ops::Dim, the symbolic size: its normal form, on which two sizes are the same exactly when
// their texts are.
#include <doctest/doctest.h>

#include "interpreter/ops/dim.h"

namespace weft {
namespace {

using ops::Dim;

const Dim b = Dim::symbol("b"), c = Dim::symbol("c");

TEST_CASE("Dim: equal expressions print the same text") {
  CHECK((b + b).str() == "(2 * b)");
  CHECK((b - b).isConstant());
  CHECK((b - b).constant() == 0);
  CHECK(b + c == c + b);
  CHECK(b * c == c * b);
  CHECK((b + 1) * 2 == b * 2 + 2);
  CHECK(((b + 1) * 2).str() == "(2 + 2 * b)");
  CHECK((Dim(3) * 4 - 2).constant() == 10);
  CHECK((b - c * 3).str() == "(b - 3 * c)");
}

TEST_CASE("Dim: divisions and maxima simplify where they are exact") {
  CHECK(floorDiv(b * 4, 2) == b * 2);
  CHECK(floorDiv(Dim(7), 2).constant() == 3);
  CHECK(floorDiv(b + 1, 2).str() == "((1 + b) / 2)");
  CHECK(max(b, b) == b);
  CHECK(max(b, c) == max(c, b));
  CHECK(max(b, c).str() == "std::max<int64_t>(b, c)");
  // Broadcasting a size again with one of its operands leaves it as it is.
  CHECK(max(max(b, c), b) == max(b, c));
  CHECK(max(max(b, c), max(c, b * 2)).str() == "std::max<int64_t>({(2 * b), b, c})");
  CHECK(max(Dim(2), Dim(5)).constant() == 5);
}

}  // namespace
}  // namespace weft
