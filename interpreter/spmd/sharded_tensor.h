// Tensors stored as their devices' blocks (SPEC §7.1), as DTensor's are: a mesh, one placement
// per mesh dimension (never a partial sum: that is internal to a computation) and each device's
// local tensor. Devices that hold the same block (replicated mesh dimensions) share one tensor.
// Nothing puts the global value together until something reads the tensor's data.
#pragma once
#include <memory>
#include <mutex>

#include "../values/objects.h"
#include "placement.h"

namespace weft::spmd {

struct ShardedTensor final : Shards {
  MeshAxes mesh;
  Placements placements;
  // One per device, row-major over the mesh; across MPI ranks (ranks.h), the devices of other
  // ranks' are empty.
  std::vector<Tensor> locals;
  // The user's Mesh object the tensor lies on (interpreter/mesh), for `x.layout`; may be null.
  std::shared_ptr<OpaqueObj> meshObject;

  const Tensor& global() const override;

 private:
  mutable std::once_flag assembled_;
  mutable Tensor global_;
};

// The blocks of `t`, or null when it is stored whole.
const ShardedTensor* shardsOf(const Tensor& t);
// A tensor of global dtype and shape `like` stored as `locals`; abstract when they are (a plan
// runs on shapes alone: the tensor keeps its layout, and its blocks their shapes).
Tensor makeSharded(const MeshAxes& mesh, Placements ps, std::vector<Tensor> locals,
                   std::shared_ptr<OpaqueObj> meshObject, DType dtype, const Shape& shape);
// A tensor stored as `locals` (not abstract), its global shape worked out from theirs.
Tensor fromLocals(const MeshAxes& mesh, Placements ps, std::vector<Tensor> locals,
                  std::shared_ptr<OpaqueObj> meshObject = nullptr);
// `global` cut into its devices' blocks under `ps` (which fit its shape); replicas share a block.
Tensor distribute(const Tensor& global, const MeshAxes& mesh, const Placements& ps,
                  std::shared_ptr<OpaqueObj> meshObject);
// Whether `t` is stored as blocks on `mesh` under `ps` (so that its locals can be used as they are).
bool shardedAs(const Tensor& t, const MeshAxes& mesh, const Placements& ps);
// `t` itself when it is whole; a sharded tensor's global value when every device holds all of it
// (the first device's copy), else `t`.
Tensor wholeIfReplicated(const Tensor& t);
// `t` named as lying on the user's Mesh `meshObject` when it is sharded without one.
Tensor withMeshObject(const Tensor& t, const std::shared_ptr<OpaqueObj>& meshObject);
// Device `device`'s local tensor of `t` under `ps`: its own block when stored so, else cut.
// Across MPI ranks, a device of this rank's.
Tensor localOf(const Tensor& t, const MeshAxes& mesh, const Placements& ps, int64_t device);
// Any device's block, for the program to read (`x.shard(i)`): across MPI ranks it is cut from the
// global value, which every rank puts together at this point, whichever rank holds the device.
Tensor blockOf(const ShardedTensor& s, int64_t device);

}  // namespace weft::spmd
