// Sharded storage (SPEC §7): a variable with a layout keeps one local tensor per device of its
// mesh. Devices whose blocks coincide (replicated mesh dimensions) hold copies of one immutable
// tensor, which on this single CPU share one buffer. The interpreter computes on the variable's
// global value, which is reassembled from the blocks on every write, so a program computes the
// same numbers whatever the layouts — and a wrong split or reassembly would show in them.
#pragma once
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
  std::vector<Tensor> blocks;  // one per distinct block (LayoutObj::blockIndex)
  Tensor source;               // the value the blocks were cut from
};

// Gives `var` its layout (one that fits) and cuts its value into blocks.
void place(VariableObj& var, std::shared_ptr<LayoutObj> layout);
// Writes a new value (assign, assign_add): every device's block, then the global value.
void store(VariableObj& var, Tensor value);
// Device i's local tensor. The variable must be placed.
Tensor shard(VariableObj& var, int64_t device);
// The layout a variable has (null when it was never in a layout_map_scope).
const LayoutObj* layoutOf(const VariableObj& var);
// Gives `var` the layout `like` has, if any (an optimizer's slot takes its variable's, as DTensor's
// do, so that the update runs where the variable's blocks are).
void placeLike(VariableObj& var, const VariableObj& like);
// Bytes device 0 holds for it: a shard when placed, else the whole value.
int64_t bytesPerDevice(const VariableObj& var);
// Makes writeVariable (interpreter/values/objects.h) and a variable's repr see placements.
void installPlacementHook();

}  // namespace weft::mesh
