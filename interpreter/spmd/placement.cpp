#include "placement.h"

#include <charconv>

#include "../../grammar/diagnostics.h"

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

namespace weft::spmd {

ops::Attrs relayoutAttrs(const MeshAxes& mesh, const Placements& ps) {
  std::vector<int64_t> to;
  for (const Placement& p : ps) to.push_back(p.sharded() ? p.dim : -1);
  return {{"mesh", meshText(mesh)}, {"to", to}};
}

MeshAxes relayoutMesh(const ops::Attrs& attrs) {
  const std::string& text = attrs.s("mesh");
  MeshAxes mesh;
  size_t at = 0;
  int64_t devices = 1;
  while (at < text.size()) {
    const size_t end = std::min(text.find(", ", at), text.size());
    const std::string dim = text.substr(at, end - at);
    const size_t eq = dim.find('=');
    int64_t size = 0;
    const char* last = dim.data() + dim.size();
    if (eq == std::string::npos || eq == 0 || std::from_chars(dim.data() + eq + 1, last, size).ptr != last || size < 1)
      throw WeftError("relayout: malformed mesh attribute \"" + text + "\" (expected \"batch=2, model=4\")");
    mesh.names.push_back(dim.substr(0, eq));
    mesh.sizes.push_back(size);
    devices *= size;
    if (devices > kMaxMeshDevices || mesh.names.size() > 16)  // as a Mesh may have (mesh/mesh.h)
      throw WeftError("relayout: mesh attribute \"" + text + "\" names more devices than a mesh may have");
    at = end + 2;
  }
  return mesh;
}

Placements relayoutTarget(const ops::Attrs& attrs, const MeshAxes& mesh) {
  if (!(relayoutMesh(attrs) == mesh))
    throw WeftError("relayout to mesh(" + attrs.s("mesh") + ") in a graph on mesh(" + meshText(mesh) +
                    "): a relayout stays on its mesh");
  const std::vector<int64_t>& to = attrs.ints("to");
  if (int(to.size()) != mesh.rank())
    throw WeftError("relayout: " + std::to_string(to.size()) + " placements for mesh(" + meshText(mesh) + ") of " +
                    std::to_string(mesh.rank()) + " dimensions");
  Placements ps;
  for (int64_t d : to) {
    if (d < -1 || d >= rt::kMaxRank) throw WeftError("relayout: no tensor dimension " + std::to_string(d));
    ps.push_back(d < 0 ? Placement::r() : Placement::s(int(d)));
  }
  return ps;
}

}  // namespace weft::spmd
