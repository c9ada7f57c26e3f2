// TensorSpec's methods live beside its declaration, in eval: the evaluator casts to it (an
// export's input_signature), so its type information must be linked with eval.
#include "exports.h"

#include "../values/format.h"

namespace weft {

std::string TensorSpecObj::repr() const {
  std::string s = "TensorSpec(shape=" + type.shape.str() + ", dtype=" + rt::dtypeName(type.dtype);
  if (!name.empty()) s += ", name='" + name + "'";
  if (!layout.isNone()) s += ", layout=" + toRepr(layout);
  return s + ")";
}

std::optional<Value> TensorSpecObj::getAttr(Interpreter&, Symbol attr) {
  const std::string& a = symbolName(attr);
  if (a == "dtype") return Value::dtype(type.dtype);
  if (a == "name") return name.empty() ? Value() : makeStr(name);
  if (a == "layout") return layout;
  if (a == "shape") {
    std::vector<Value> dims;
    for (int64_t d : type.shape) dims.push_back(d == rt::kUnknownDim ? Value() : makeInt(d));
    return makeList(std::move(dims));
  }
  return std::nullopt;
}

bool TensorSpecObj::equals(const OpaqueObj& o) const {
  auto* s = dynamic_cast<const TensorSpecObj*>(&o);
  return s && s->type == type && s->name == name && s->mesh == mesh && s->placements == placements;
}

}  // namespace weft
