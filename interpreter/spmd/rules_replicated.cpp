// The families whose ops run whole on every device: creation and random ops (a sharded consumer
// takes its block locally), and the collectives, which are what partitioning writes (they run
// on local blocks already).
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

void registerReplicatedShardRules() {
  ops::setShard({OpId::Full, OpId::Eye, OpId::Arange, OpId::Linspace}, replicatedOnlyRule());
  ops::setShard({OpId::RandomNormal, OpId::RandomUniform, OpId::RandomTruncatedNormal}, replicatedOnlyRule());
  ops::setShard({OpId::AllReduce, OpId::AllGather, OpId::ReduceScatter, OpId::AllToAll, OpId::LocalSlice},
                replicatedOnlyRule());
}

}  // namespace weft::spmd::rules
