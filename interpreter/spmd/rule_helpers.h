// Building blocks of the sharding rules (rules_*.cpp): rows that keep a dimension split through
// an op that maps input dimensions to result dimensions one to one.
#pragma once
#include "shard_rule.h"

namespace weft::spmd::rules {

using ops::Attrs;
using ops::TensorType;
using Types = std::span<const TensorType>;

// Elementwise over broadcast inputs: each result dimension split, with every input that has it
// at full size split alike and the others (broadcast along it) replicated.
Rows broadcastRows(Types in, const Shape& out);
// The same row with every input and result a partial sum (a linear op of all its inputs).
ShardRow allPartial(size_t inputs, size_t outputs);
// One result from one input whose dimension `from[o]` (or -1: none) becomes result dimension o.
Rows mappedRows(const std::vector<int>& from, size_t inputs = 1, size_t outputs = 1);
// The dimensions of `x` an op with these axes keeps, in order (axes already normalized).
std::vector<int> keptDims(int rank, const std::vector<int>& axes);
// Axes normalized to [0, rank) (negative ones count from the end).
std::vector<int> normalized(const std::vector<int64_t>& axes, int rank);

// Each family's file registers its ops' rules (ops::setShard).
void registerElementwiseShardRules();  // rules_elementwise.cpp: unary, binary, ternary, cast, relayout, adam_update
void registerReduceShardRules();       // rules_reduce.cpp: the reductions, argmax, argmin, kth_largest
void registerMatMulShardRules();       // rules_matmul.cpp
void registerShapeShardRules();        // rules_shape.cpp: the layout ops, shape
void registerIndexingShardRules();     // rules_indexing.cpp: indexing, take, one_hot, the rows
void registerConvShardRules();         // rules_conv.cpp: conv2d, the pools and their gradients
void registerAttentionShardRules();    // rules_attention.cpp
void registerLayerNormShardRules();    // rules_layer_norm.cpp
void registerReplicatedShardRules();   // rules_replicated.cpp: creation, random, the collectives
// No row but the all-replicated one: the results are computed whole on every device (a sharded
// consumer takes its block locally).
const ShardRule* replicatedOnlyRule();

}  // namespace weft::spmd::rules
