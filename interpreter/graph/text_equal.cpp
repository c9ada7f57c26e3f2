// Structural equality of graphs, exact as the text form is (text.h).
#include <cstring>

#include "text.h"

namespace weft::graph {
namespace {

bool sameAttrs(const ops::Attrs& a, const ops::Attrs& b) {
  if (a.items().size() != b.items().size()) return false;
  for (size_t i = 0; i < a.items().size(); ++i) {
    const auto &x = a.items()[i], &y = b.items()[i];
    // Doubles by their bits; Attrs' own == already compares tensors by their bytes.
    if (std::holds_alternative<double>(x.value) && std::holds_alternative<double>(y.value)) {
      double u = std::get<double>(x.value), v = std::get<double>(y.value);
      if (x.key != y.key || std::memcmp(&u, &v, sizeof u) != 0) return false;
    } else if (!(ops::Attrs{x} == ops::Attrs{y})) {
      return false;
    }
  }
  return true;
}

bool sameBlock(const Block& a, const Block& b);

bool sameNode(const Node& a, const Node& b) {
  if (a.op != b.op || a.inputs != b.inputs || a.outputs != b.outputs || !(a.loc == b.loc) ||
      !sameAttrs(a.attrs, b.attrs) || a.blocks.size() != b.blocks.size())
    return false;
  for (size_t i = 0; i < a.blocks.size(); ++i)
    if (!sameBlock(a.blocks[i], b.blocks[i])) return false;
  return true;
}

bool sameBlock(const Block& a, const Block& b) {
  if (a.params != b.params || a.results != b.results || a.nodes.size() != b.nodes.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i)
    if (!sameNode(a.nodes[i], b.nodes[i])) return false;
  return true;
}

}  // namespace

bool identical(const Graph& a, const Graph& b) {
  if (a.name != b.name || a.values != b.values || a.variables.size() != b.variables.size() || !(a.mesh == b.mesh))
    return false;
  for (size_t id = 0; !a.mesh.empty() && id < a.values.size(); ++id)
    if (a.placementsOf(int(id)) != b.placementsOf(int(id))) return false;
  for (size_t i = 0; i < a.variables.size(); ++i)
    if (a.variables[i].name != b.variables[i].name || a.variables[i].type != b.variables[i].type ||
        a.variables[i].placements != b.variables[i].placements)
      return false;
  return sameBlock(a.body, b.body);
}

}  // namespace weft::graph
