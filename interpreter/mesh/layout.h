// Layouts (SPEC §7): for each tensor dimension, the mesh dimension that splits it, or unsharded.
#pragma once
#include "mesh.h"

namespace weft::mesh {

// DTensor's spelling of an unsharded dimension (`UNSHARDED` in Weft, `_` in a layout_map block).
inline const char* kUnsharded = "unsharded";

struct LayoutObj : OpaqueObj {
  std::vector<std::optional<std::string>> dims;  // nullopt: unsharded
  std::shared_ptr<MeshObj> mesh;

  int rank() const { return int(dims.size()); }
  bool replicated() const;
  std::string dimsText() const;  // [_, 'model']
  // Why this layout cannot hold a tensor of `shape` (rank, divisibility), or nullopt.
  std::optional<std::string> misfit(const Shape& shape) const;
  Shape shardShape(const Shape& shape) const;  // for a shape that fits
  // The index of device i's block along each tensor dimension (0 where unsharded).
  std::vector<int64_t> blockOf(int64_t device) const;
  // How many distinct blocks the layout cuts a tensor into (replicas share one).
  int64_t numBlocks() const;
  // The number of device i's block among numBlocks(), row-major over the split dimensions.
  int64_t blockIndex(int64_t device) const;

  std::string typeName() const override { return "Layout"; }
  std::string repr() const override;  // Layout([_, 'model'], grid)
  std::optional<Value> getAttr(Interpreter&, Symbol name) override;
  bool equals(const OpaqueObj& o) const override;
};

// Validates: each named dimension belongs to the mesh and appears once. `at[i]` locates dim i.
std::shared_ptr<LayoutObj> makeLayout(std::vector<std::optional<std::string>> dims, std::shared_ptr<MeshObj> mesh,
                                      const std::vector<SourceRange>& at = {});

// The Layout builtin: Layout(dims, mesh), Layout.replicated(mesh, rank), Layout.batch_sharded(...).
Value layoutBuiltin();

}  // namespace weft::mesh
