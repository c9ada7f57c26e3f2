// The layout attributes of a Variable: `v.layout` and `v.shard(i)`.
#pragma once
#include "scope.h"

namespace weft::mesh {

Value variableAttr(Interpreter& in, const Value& self, VariableObj& var, const std::string& name);

}  // namespace weft::mesh
