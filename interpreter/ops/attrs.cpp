#include "attrs.h"

#include <stdexcept>

namespace weft::ops {
namespace {

template <class T>
const T& get(const Attrs& a, const std::string& key) {
  const AttrValue* v = a.find(key);
  if (!v) throw std::logic_error("op attribute '" + key + "' is missing");
  if (!std::holds_alternative<T>(*v)) throw std::logic_error("op attribute '" + key + "' has another kind");
  return std::get<T>(*v);
}

bool sameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.isAbstract() || b.isAbstract()) return a.isAbstract() && b.isAbstract();
  return std::memcmp(a.raw(), b.raw(), size_t(a.bytes())) == 0;
}

}  // namespace

Attrs& Attrs::set(std::string key, AttrValue v) {
  for (auto& a : items_)
    if (a.key == key) {
      a.value = std::move(v);
      return *this;
    }
  items_.push_back({std::move(key), std::move(v)});
  return *this;
}

const AttrValue* Attrs::find(const std::string& key) const {
  for (const auto& a : items_)
    if (a.key == key) return &a.value;
  return nullptr;
}

int64_t Attrs::i(const std::string& key) const { return get<int64_t>(*this, key); }
double Attrs::f(const std::string& key) const { return get<double>(*this, key); }
bool Attrs::b(const std::string& key) const { return get<bool>(*this, key); }
const std::string& Attrs::s(const std::string& key) const { return get<std::string>(*this, key); }
const std::vector<int64_t>& Attrs::ints(const std::string& key) const { return get<std::vector<int64_t>>(*this, key); }
DType Attrs::dtype(const std::string& key) const { return get<DType>(*this, key); }
const Tensor& Attrs::tensor(const std::string& key) const { return get<Tensor>(*this, key); }

bool Attrs::operator==(const Attrs& o) const {
  if (items_.size() != o.items_.size()) return false;
  for (size_t k = 0; k < items_.size(); ++k) {
    const Attr &a = items_[k], &b = o.items_[k];
    if (a.key != b.key || a.value.index() != b.value.index()) return false;
    bool equal = std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Tensor>) return sameTensor(x, std::get<Tensor>(b.value));
          else return x == std::get<T>(b.value);
        },
        a.value);
    if (!equal) return false;
  }
  return true;
}

AttrKind kindOf(const AttrValue& v) { return AttrKind(v.index()); }

const char* attrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::Str: return "str";
    case AttrKind::Ints: return "ints";
    case AttrKind::DType: return "dtype";
    case AttrKind::Tensor: return "tensor";
  }
  return "?";
}

}  // namespace weft::ops
