// Checking values against annotations such as `f32[None, 784]`, `int` or `str`.
#pragma once
#include <optional>
#include <string>

#include "../../grammar/ast/type.h"
#include "../values/value.h"

namespace weft {

std::string typeText(const ast::TypeExpr& t);  // as written: "f32[None, 784]"
// The mismatch, or nullopt when v fits t. Unknown type names (user modules) are checked by name.
std::optional<std::string> typeMismatch(const ast::TypeExpr& t, const Value& v);
// When v misses a numeric t by its dtype alone, how to convert it ("; convert with cast(x, f32)"):
// an annotation never converts (SPEC §4, `int` is i32[] whatever integer v is); else "".
std::string conversionHint(const ast::TypeExpr& t, const Value& v);

}  // namespace weft
