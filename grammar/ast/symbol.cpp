#include "symbol.h"

#include <deque>
#include <unordered_map>

namespace weft {
namespace {

struct Table {
  std::deque<std::string> names;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, Symbol> ids;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

Symbol intern(std::string_view name) {
  Table& t = table();
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  t.names.emplace_back(name);
  Symbol s = static_cast<Symbol>(t.names.size() - 1);
  t.ids.emplace(t.names.back(), s);
  return s;
}

const std::string& symbolName(Symbol s) { return table().names.at(s); }

}  // namespace weft
