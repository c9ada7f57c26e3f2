// Device meshes (SPEC §7): ordered, named dimensions over virtual CPU devices of this process.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../spmd/placement.h"
#include "../values/objects.h"

namespace weft::mesh {

// At most this many devices: each variable keeps one shard per distinct block, and a plan of a
// huge mesh must stay small.
constexpr int64_t kMaxDevices = spmd::kMaxMeshDevices;
// At most this many dimensions (a layout names at most one per tensor dimension).
constexpr size_t kMaxMeshDims = 16;

struct MeshObj : OpaqueObj {
  std::string name;  // "grid" for `mesh grid(...)`; empty for Mesh(...)
  std::vector<std::string> dimNames;
  std::vector<int64_t> dimSizes;

  int64_t numDevices() const;
  int dimIndex(const std::string& dim) const;  // -1 when absent
  // Device i's coordinate along mesh dimension k (devices are numbered row-major, as DTensor).
  int64_t coordinate(int64_t device, int k) const;
  std::string typeName() const override { return "Mesh"; }
  std::string repr() const override;  // Mesh(batch=2, model=4)
  // How messages and layouts name it: "grid" when declared with a name, else its repr.
  std::string label() const { return name.empty() ? repr() : name; }
  // For messages: "mesh grid(batch=2, model=4)" or "mesh Mesh(batch=2, model=4)".
  std::string describe() const;
  std::optional<Value> getAttr(Interpreter&, Symbol name) override;
  // Meshes are values: equal dimensions are the same devices (names of declarations aside).
  bool equals(const OpaqueObj& o) const override;
};

// Validates and builds a mesh; errors throw WeftError without a location (the caller's).
// `sizes[i]` must be a positive integer scalar; a dimension name appears once.
std::shared_ptr<MeshObj> makeMesh(std::string name, const std::vector<std::string>& dims,
                                  const std::vector<Value>& sizes, const std::vector<SourceRange>& at = {});

}  // namespace weft::mesh
