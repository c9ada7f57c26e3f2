#include "placement.h"

#include <charconv>

namespace weft::spmd {

std::string Placement::str() const {
  switch (kind) {
    case Replicate: return "R";
    case Shard: return "S" + std::to_string(dim);
    case Partial: return "P";
  }
  return "?";
}

std::optional<Placement> parsePlacement(std::string_view text) {
  if (text == "R") return Placement::r();
  if (text == "P") return Placement::p();
  if (text.size() < 2 || text.size() > 3 || text[0] != 'S') return std::nullopt;
  int dim = 0;
  const auto [end, err] = std::from_chars(text.data() + 1, text.data() + text.size(), dim);
  if (err != std::errc() || end != text.data() + text.size() || dim < 0) return std::nullopt;
  return Placement::s(dim);
}

std::string placementsText(const MeshAxes& mesh, const Placements& ps) {
  std::string s = "{";
  for (size_t k = 0; k < ps.size() && k < mesh.names.size(); ++k) s += (k ? ", " : "") + mesh.names[k] + ": " + ps[k].str();
  return s + "}";
}

std::string meshText(const MeshAxes& mesh) {
  std::string s;
  for (size_t k = 0; k < mesh.names.size(); ++k)
    s += (k ? ", " : "") + mesh.names[k] + "=" + std::to_string(mesh.sizes[k]);
  return s;
}

Shape localShape(const Shape& shape, const Placement& p, int64_t parts) {
  Shape local = shape;
  if (p.sharded() && local[p.dim] != rt::kUnknownDim) local[p.dim] /= parts;
  return local;
}

std::optional<std::string> misfit(const Shape& shape, const Placement& p, int64_t parts) {
  if (!p.sharded()) return std::nullopt;
  if (p.dim >= int(shape.rank()))
    return p.str() + " splits dimension " + std::to_string(p.dim) + " of a rank-" + std::to_string(shape.rank()) +
           " value";
  const int64_t n = shape[p.dim];
  if (n != rt::kUnknownDim && n % parts != 0)
    return p.str() + " splits a dimension of " + std::to_string(n) + " into " + std::to_string(parts) +
           " parts, which does not divide";
  return std::nullopt;
}

}  // namespace weft::spmd

namespace weft::spmd {

std::optional<std::string> misfit(const Shape& shape, const Placements& ps, const MeshAxes& mesh) {
  if (ps.size() != size_t(mesh.rank()))
    return std::to_string(ps.size()) + " placements on a mesh of " + std::to_string(mesh.rank()) + " dimensions";
  Shape local = shape;
  for (size_t k = 0; k < ps.size(); ++k) {
    if (auto why = misfit(local, ps[k], mesh.sizes[k])) return mesh.names[k] + ": " + *why;
    local = localShape(local, ps[k], mesh.sizes[k]);
  }
  return std::nullopt;
}

}  // namespace weft::spmd
