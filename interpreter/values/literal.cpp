#include "literal.h"

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

std::string Literal::str() const { return isFloat ? formatFloat(f, DType::F64) : std::to_string(i); }

}  // namespace weft
