// The exact value of a literal, or of arithmetic on literals alone (JAX's weak types). It is kept
// as an int64 or a double until the literal adopts a dtype, so that `f64_tensor + 0.1` sees 0.1
// as the double nearest 0.1 (not f32's), `i32_tensor + 2**31` is a range error rather than a
// wrapped value, and `2**31` is the i64 2147483648 that the literal `2147483648` is. Adoption is
// one function (`as`), so a tracer records the adopted constant exactly as eager code computes it.
#pragma once
#include <cstdint>
#include <string>

#include "tensor.h"

namespace weft {

struct Literal {
  bool isFloat = false;
  int64_t i = 0;  // when !isFloat
  double f = 0;   // when isFloat

  static Literal integer(int64_t v) { return Literal{false, v, 0}; }
  static Literal real(double v) { return Literal{true, 0, v}; }

  double toDouble() const { return isFloat ? f : double(i); }
  // Its own dtype, as the literal alone would have: f32; i32, or i64 outside i32's range.
  DType naturalDType() const;
  // Whether an integer literal is inside an integer dtype's range (floats and other dtypes: true).
  bool fits(DType to) const;
  // The literal as a scalar of dtype `to`. A float rounds once from the double (NumPy's
  // np.float32(0.1)); a float into an integer dtype truncates and saturates (a cast); an integer
  // outside an integer dtype's range is an error, as in NumPy 2 and JAX.
  Tensor as(DType to) const;
  std::string str() const;  // as written in an error message

  // A number written as text, as Python's int("42") and float("2.5") read it (`i32("42")`,
  // `int(args[0])`): surrounding spaces allowed; into an integer dtype only an integer;
  // "inf" and "nan" into a float dtype. Errors name `what` ("i32()") and the text.
  static Literal parse(const std::string& text, DType to, const std::string& what);
};

}  // namespace weft
