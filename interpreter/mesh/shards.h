// Sharded storage (SPEC §7): a variable with a layout holds a sharded tensor
// (spmd/sharded_tensor.h), one local tensor per device of its mesh, and nothing else. Devices
// whose blocks coincide (replicated mesh dimensions) share one immutable tensor. Eager ops on it
// run SPMD on the devices' blocks (graph/spmd_eager.h), graph functions take the blocks as they
// lie, and only reading its data (print, ==, .value, save) puts the global value together.
#pragma once
#include "../spmd/placement.h"
#include "layout_map.h"

namespace weft::mesh {

struct Scope;

struct Placement {
  std::shared_ptr<Scope> createdIn;  // the innermost active scope when it was created (or null)
  bool resolved = false;
  // Set when resolved with a layout:
  std::shared_ptr<Scope> scope;  // the scope whose map gave the layout
  std::string path;              // the path the map was searched with
  int key = -1;                  // the matching entry of scope's map; -1: none, so replicated
  std::shared_ptr<LayoutObj> layout;
};

// Gives `var` its layout (one that fits) and cuts its value into blocks.
void place(VariableObj& var, std::shared_ptr<LayoutObj> layout);
// Writes a new value (assign, assign_add): kept as it is when it is sharded as the layout says,
// else cut into the devices' blocks.
void store(VariableObj& var, Tensor value);
// Device i's local tensor. The variable must be placed.
Tensor shard(VariableObj& var, int64_t device);
// The layout a variable has (null when it was never in a layout_map_scope).
const LayoutObj* layoutOf(const VariableObj& var);
// Gives `var` the layout `like` has, if any (an optimizer's slot takes its variable's, as DTensor's
// do, so that the update runs where the variable's blocks are).
void placeLike(VariableObj& var, const VariableObj& like);
// A tensor's layout on its mesh: null when it is whole, or when a tensor dimension is split along
// two mesh dimensions (which a Layout cannot say; `why` says so).
std::shared_ptr<LayoutObj> tensorLayout(const Tensor& t, std::string* why = nullptr);
// Bytes device 0 holds for it: a shard when placed, else the whole value.
int64_t bytesPerDevice(const VariableObj& var);
// Makes writeVariable (interpreter/values/objects.h) and a variable's repr see placements.
void installPlacementHook();

}  // namespace weft::mesh
