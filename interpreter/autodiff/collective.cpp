// The collectives' VJPs. A gradient is held as its value is held by the SPMD program: the
// gradient of a replicated value or of a partial sum is whole on every device (the loss a
// program differentiates is replicated, and d(Σ x_i)/dx_i = 1), that of a sharded value is
// sharded alike. So all_reduce (partial -> replicated) passes its gradient through, all_gather
// (sharded -> replicated) keeps each device's block of it, and reduce_scatter (partial ->
// sharded) and local_slice (replicated -> sharded) gather the blocks back; all_to_all sends them
// back the way they came. tests/unit/test_collectives.cpp checks each against the gradient of
// the unsharded value.
#include "rules.h"

namespace weft::autodiff {
namespace {

using ops::Attrs;
using ops::OpId;

Tensor along(OpId op, const Tensor& g, const Attrs& from) {
  Attrs a{{"mesh_dim", from.i("mesh_dim")}, {"group", from.i("group")}, {"axis", from.i("axis")}};
  return ops::apply1(op, {&g, 1}, a);
}

ops::VjpResult allReduceVjp(const ops::VjpArgs& a) { return {a.gout[0]}; }
ops::VjpResult allGatherVjp(const ops::VjpArgs& a) { return {along(OpId::LocalSlice, a.gout[0], a.attrs)}; }
ops::VjpResult reduceScatterVjp(const ops::VjpArgs& a) { return {along(OpId::AllGather, a.gout[0], a.attrs)}; }
ops::VjpResult localSliceVjp(const ops::VjpArgs& a) { return {along(OpId::AllGather, a.gout[0], a.attrs)}; }
// A re-layout moves a value and changes none of it: its gradient is the incoming one, wherever
// that lies.
ops::VjpResult relayoutVjp(const ops::VjpArgs& a) { return {a.gout[0]}; }
ops::VjpResult allToAllVjp(const ops::VjpArgs& a) {
  const Attrs back{{"mesh_dim", a.attrs.i("mesh_dim")},
                   {"group", a.attrs.i("group")},
                   {"split_axis", a.attrs.i("concat_axis")},
                   {"concat_axis", a.attrs.i("split_axis")}};
  return {ops::apply1(OpId::AllToAll, {&a.gout[0], 1}, back)};
}

}  // namespace

void registerCollectiveVjps() {
  ops::setVjp({OpId::AllReduce}, allReduceVjp);
  ops::setVjp({OpId::AllGather}, allGatherVjp);
  ops::setVjp({OpId::ReduceScatter}, reduceScatterVjp);
  ops::setVjp({OpId::AllToAll}, allToAllVjp);
  ops::setVjp({OpId::LocalSlice}, localSliceVjp);
  ops::setVjp({OpId::Relayout}, relayoutVjp);
}

}  // namespace weft::autodiff
