#include "literal.h"

#include <cerrno>
#include <cctype>
#include <cmath>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "../../stdlib/runtime/scalar_math.h"
#include "../../grammar/diagnostics.h"
#include "format.h"

namespace weft {

DType Literal::naturalDType() const {
  if (isFloat) return DType::F32;
  return i >= INT32_MIN && i <= INT32_MAX ? DType::I32 : DType::I64;
}

bool Literal::fits(DType to) const { return isFloat || to != DType::I32 || (i >= INT32_MIN && i <= INT32_MAX); }

Tensor Literal::as(DType to) const {
  switch (to) {
    case DType::F32:  // an int64 goes through long double (exact), so it rounds once
      return Tensor::scalar<float>(isFloat ? float(f) : float((long double)i));
    case DType::F64: return Tensor::scalar<double>(isFloat ? f : double((long double)i));
    case DType::Bool: return Tensor::scalar<bool>(isFloat ? f != 0 : i != 0);
    case DType::I32:
      if (isFloat) return Tensor::scalar<int32_t>(rt::saturateCast<int32_t>(f));
      if (!fits(to))
        throw WeftError("the integer literal " + str() + " is out of range for i32");
      return Tensor::scalar<int32_t>(int32_t(i));
    case DType::I64: return Tensor::scalar<int64_t>(isFloat ? rt::saturateCast<int64_t>(f) : i);
  }
  return Tensor::scalar<float>(0);
}

Literal Literal::parse(const std::string& text, DType to, const std::string& what) {
  size_t b = text.find_first_not_of(" \t\n\r"), e = text.find_last_not_of(" \t\n\r");
  const std::string t = b == std::string::npos ? "" : text.substr(b, e - b + 1);
  auto bad = [&](const std::string& why) { return WeftError(what + ": '" + text + "' " + why); };
  if (to == DType::Bool) throw bad("is text; a bool is made from a number or a comparison");
  int64_t i = 0;
  const char* first = t.data() + (t.size() > 1 && t[0] == '+');
  auto [end, ec] = std::from_chars(first, t.data() + t.size(), i);
  if (!t.empty() && end == t.data() + t.size()) {
    if (ec == std::errc::result_out_of_range) throw bad("is out of range for i64");
    Literal l = integer(i);
    if (!l.fits(to)) throw bad(std::string("is out of range for ") + rt::dtypeName(to));
    return l;
  }
  if (rt::isInt(to)) throw bad(std::string("is not an integer, which ") + rt::dtypeName(to) + " needs");
  char* stop = nullptr;
  errno = 0;
  double d = t.empty() ? 0 : std::strtod(t.c_str(), &stop);
  if (t.empty() || stop != t.c_str() + t.size())
    throw bad("is not a number");
  if (errno == ERANGE && std::isinf(d)) throw bad("is out of range for f64");
  return real(d);
}

std::string Literal::str() const { return isFloat ? formatFloat(f, DType::F64) : std::to_string(i); }

}  // namespace weft
