// Placements (SPEC §7.1): how a value lies along one mesh dimension — whole on every device
// (replicated), split along one of its tensor dimensions into equal contiguous blocks (sharded),
// or as a partial sum (the devices' values add up to it). A value on an N-D mesh has one
// placement per mesh dimension, looked up independently (PyTorch DTensor's placements, XLA's
// tiled and partial shardings). Plain data below the mesh layer: the graph passes read it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../ops/attrs.h"
#include "../values/tensor.h"

namespace weft::spmd {

struct Placement {
  enum Kind : uint8_t { Replicate, Shard, Partial };
  Kind kind = Replicate;
  int dim = 0;  // Shard: the tensor dimension split

  static Placement r() { return {}; }
  static Placement s(int dim) { return {Shard, dim}; }
  static Placement p() { return {Partial, 0}; }
  bool replicated() const { return kind == Replicate; }
  bool sharded() const { return kind == Shard; }
  bool partial() const { return kind == Partial; }
  bool operator==(const Placement& o) const { return kind == o.kind && (kind != Shard || dim == o.dim); }
  bool operator!=(const Placement& o) const { return !(*this == o); }
  std::string str() const;  // R, S0, P
};

// "R", "S<d>" or "P", or nullopt.
std::optional<Placement> parsePlacement(std::string_view text);

// A value's placements, one per mesh dimension (in the mesh's order).
using Placements = std::vector<Placement>;

// The most devices a mesh may have (mesh::kMaxDevices; a graph read from text is held to it too).
constexpr int64_t kMaxMeshDevices = int64_t(1) << 16;

// The mesh a sharded program's values lie on, as graphs need it: its dimensions' names and
// sizes, in order (mesh/ keeps the user-facing Mesh object).
struct MeshAxes {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  bool empty() const { return names.empty(); }
  int rank() const { return int(names.size()); }
  bool operator==(const MeshAxes&) const = default;
};

// Why placements `ps` on `mesh` cannot hold a value of `shape`, naming the mesh dimension, or
// nullopt. Each mesh dimension cuts the blocks the ones before it left, so a tensor dimension
// split on two of them must divide by both sizes' product.
std::optional<std::string> misfit(const Shape& shape, const Placements& ps, const MeshAxes& mesh);

// "{batch: S0, model: R}"; "batch=2, model=4" for the mesh itself.
std::string placementsText(const MeshAxes& mesh, const Placements& ps);
std::string meshText(const MeshAxes& mesh);

// The relayout op's attributes (ops/op_table.cpp): `mesh`, the mesh's text ("batch=2, model=4"),
// and `to`, per mesh dimension the tensor dimension it splits or -1 for replicated; and back.
ops::Attrs relayoutAttrs(const MeshAxes& mesh, const Placements& ps);
MeshAxes relayoutMesh(const ops::Attrs& attrs);  // a WeftError when malformed
// The placements, checked against the graph's mesh (a WeftError).
Placements relayoutTarget(const ops::Attrs& attrs, const MeshAxes& mesh);

// The local shape of a value of global `shape` with placement `p` on a mesh dimension of `parts`
// devices; the caller has checked that a sharded dimension divides.
Shape localShape(const Shape& shape, const Placement& p, int64_t parts);
// Why `p` cannot hold a value of `shape` on `parts` devices (a dimension out of range, or one
// that does not divide), or nullopt.
std::optional<std::string> misfit(const Shape& shape, const Placement& p, int64_t parts);

}  // namespace weft::spmd
