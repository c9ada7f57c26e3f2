// A device's block of a global value, and a global value put back together from every device's
// block (SPEC §7.1), by the rule generated code uses too (stdlib/runtime/shards.h). Devices are
// numbered row-major over the mesh, as the communicators number them (comm_threads.h); each mesh
// dimension cuts the block the ones before it left, so a tensor dimension split on two mesh
// dimensions is cut by the first, then the second.
#pragma once
#include "../ops/op_list.h"
#include "placement.h"

namespace weft::spmd {

// The number of devices of a mesh, and one device's coordinates on it.
int64_t deviceCount(const MeshAxes& mesh);
std::vector<int64_t> coordinates(const MeshAxes& mesh, int64_t device);

// Device `device`'s block of `global` under placements `ps` (no partial sums: a global value
// has none): `global` itself when nothing splits it, else a copy.
Tensor localBlock(const Tensor& global, const MeshAxes& mesh, const Placements& ps, int64_t device);
// The global value from every device's block (locals[device]): split dimensions are joined in
// coordinate order, partial sums added in device order, replicas taken from the first.
Tensor assemble(const MeshAxes& mesh, const Placements& ps, const std::vector<Tensor>& locals);

// The bytes one device sends for collective `op` over a group of `group` devices, given the
// bytes of its block before the collective (the textbook ring volumes: an all-reduce sends
// 2(n-1)/n of the block, a reduce-scatter and an all-to-all (n-1)/n, an all-gather n-1 blocks;
// a local slice sends nothing).
int64_t collectiveBytes(ops::OpId op, int64_t blockBytes, int64_t group);

}  // namespace weft::spmd
