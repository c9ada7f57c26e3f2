// Type annotations: `f32[None, 784]`, `int`, `str`, or a name the checker does not know yet.
#pragma once
#include <optional>

#include "node.h"

namespace weft::ast {

struct TypeExpr : Node {
  std::string base;  // "f32" "f64" "i32" "i64" "bool" "int" "float" "str", or any other name
  bool hasDims = false;  // `f32[...]` as opposed to a bare `f32`
  // One entry per dimension; nullopt is `None` (any size).
  std::vector<std::optional<int64_t>> dims;
};

}  // namespace weft::ast
