#include "types.h"

#include "../values/format.h"
#include "../values/objects.h"
#include "args.h"
#include "operators.h"

namespace weft {

std::string typeText(const ast::TypeExpr& t) {
  std::string s = t.base;
  if (!t.hasDims) return s;
  s += '[';
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += ", ";
    s += t.dims[i] ? std::to_string(*t.dims[i]) : "None";
  }
  return s + ']';
}

namespace {

// The dtype a tensor annotation names, and whether it is a scalar alias (`int` is i32[]).
std::optional<DType> annotatedDType(const ast::TypeExpr& t, bool& scalarAlias) {
  scalarAlias = t.base == "int" || t.base == "float" || (t.base == "bool" && !t.hasDims);
  if (t.base == "int") return DType::I32;
  if (t.base == "float") return DType::F32;
  return dtypeFromString(t.base);
}

}  // namespace

std::optional<std::string> typeMismatch(const ast::TypeExpr& t, const Value& v) {
  bool scalarAlias;
  std::optional<DType> dtype = annotatedDType(t, scalarAlias);
  if (t.base == "str") {
    if (v.is(Kind::Str)) return std::nullopt;
    return typeNameOf(v);
  }
  if (!dtype) {
    // A module type name, or a kind such as `list`.
    if (v.is(Kind::Module) && v.as<ModuleObj>()->typeName == t.base) return std::nullopt;
    if (t.base == kindName(v.kind())) return std::nullopt;
    if (t.base == "any") return std::nullopt;
    return typeNameOf(v);
  }
  if (!isTensorLike(v)) return typeNameOf(v);
  const Tensor& x = tensorOf(v, "argument");
  std::string actual = typeNameOf(Value(x));
  if (x.dtype() != *dtype) return actual;
  if (scalarAlias) return x.rank() == 0 ? std::nullopt : std::optional(actual);
  if (!t.hasDims) return std::nullopt;  // `f32` alone: any shape
  if (x.rank() != int(t.dims.size())) return actual;
  for (int i = 0; i < x.rank(); ++i)
    if (t.dims[size_t(i)] && *t.dims[size_t(i)] != x.shape()[i]) return actual;
  return std::nullopt;
}

std::string conversionHint(const ast::TypeExpr& t, const Value& v) {
  bool scalarAlias;
  std::optional<DType> dtype = annotatedDType(t, scalarAlias);
  // A flag takes true or false, not a cast; a literal is better written at the dtype (3.0).
  if (!dtype || *dtype == DType::Bool || !isTensorLike(v) || v.literal()) return "";
  const Tensor& x = tensorOf(v, "argument");
  if (x.dtype() == *dtype || typeMismatch(t, Value(Tensor::abstract(*dtype, x.shape())))) return "";
  const std::string name = rt::dtypeName(*dtype);
  if (scalarAlias) return "; " + t.base + " means " + name + "[]: convert with " + t.base + "(x)";
  return "; convert with cast(x, " + name + ")";
}

}  // namespace weft
