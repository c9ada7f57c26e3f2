// The op table's sharding column (SPEC §7.1): for each primitive, the placements of its inputs
// on which every device can compute its part locally, and the placements of the results that
// gives. A rule is written for one mesh dimension, as rows `outputs | inputs`; a value on an N-D
// mesh looks each mesh dimension up independently (PyTorch DTensor's single-dim strategies), so
// rules never enumerate mesh shapes. The all-replicated row holds for every op and is implied.
// The validator (tests/unit/test_shard_rules.cpp) runs every row of every op on the op table's
// test cases against the unsharded kernel.
#pragma once
#include <span>

#include "../ops/op_table.h"
#include "placement.h"

namespace weft::spmd {

struct ShardRow {
  Placements out;  // one per result
  Placements in;   // one per input
};
using Rows = std::vector<ShardRow>;

}  // namespace weft::spmd

namespace weft::ops {

struct ShardRule {
  using Rows = spmd::Rows;
  using ShardRow = spmd::ShardRow;
  // The rows beyond the replicated one for inputs of types `in` (results `out`, as inferred).
  Rows (*rows)(std::span<const ops::TensorType> in, std::span<const ops::TensorType> out, const ops::Attrs& attrs);
  // The attributes each device runs the kernel with under `row` on a mesh dimension of `parts`
  // devices, for ops whose attributes name global sizes (reshape's shape). Null: the same.
  ops::Attrs (*local)(const ops::Attrs& attrs, const ShardRow& row, int64_t parts) = nullptr;
};

}  // namespace weft::ops

namespace weft::spmd {

using ops::ShardRule;

// Fills the op table's shard column (once; every caller that needs it calls it).
void registerShardRules();

// Every row of `op` for inputs of these types, the replicated one first, without rows that
// would put a partial sum in a bool or an integer of a non-linear op. The op's inference must
// accept the inputs.
Rows shardRows(ops::OpId op, std::span<const ops::TensorType> in, const ops::Attrs& attrs);

// The attributes for one device under `row` on a mesh dimension of `parts` devices.
ops::Attrs localAttrs(ops::OpId op, const ops::Attrs& attrs, const ShardRow& row, int64_t parts);

}  // namespace weft::spmd
