#include "types.h"

#include "../values/format.h"
#include "../values/objects.h"
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

std::optional<std::string> typeMismatch(const ast::TypeExpr& t, const Value& v) {
  std::optional<DType> dtype = rt::dtypeFromName(t.base);
  bool scalarAlias = false;
  if (t.base == "int") dtype = DType::I32, scalarAlias = true;
  if (t.base == "float") dtype = DType::F32, scalarAlias = true;
  if (t.base == "bool" && !t.hasDims) scalarAlias = true;
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

}  // namespace weft
