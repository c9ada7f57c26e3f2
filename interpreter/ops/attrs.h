// Attributes of a primitive op: the non-tensor arguments (axes, a dtype, a shape, padding...).
// Each op's schema (op_table.h) names its attributes and their kinds, so that a graph node prints
// and parses them without knowing the op.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "../values/tensor.h"

namespace weft::ops {

enum class AttrKind { Int, Float, Bool, Str, Ints, DType, Tensor };
using AttrValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, DType, Tensor>;

struct Attr {
  std::string key;
  AttrValue value;
};

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<Attr> items) : items_(items) {}
  Attrs& set(std::string key, AttrValue v);
  bool has(const std::string& key) const { return find(key) != nullptr; }
  const AttrValue* find(const std::string& key) const;
  // Typed reads; a missing key or a kind that differs is an internal error.
  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;
  bool b(const std::string& key) const;
  const std::string& s(const std::string& key) const;
  const std::vector<int64_t>& ints(const std::string& key) const;
  DType dtype(const std::string& key) const;
  const Tensor& tensor(const std::string& key) const;
  const std::vector<Attr>& items() const { return items_; }
  bool operator==(const Attrs& o) const;

 private:
  std::vector<Attr> items_;
};

AttrKind kindOf(const AttrValue& v);
const char* attrKindName(AttrKind k);

}  // namespace weft::ops
