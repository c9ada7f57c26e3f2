// Emit rules of the collectives (SPEC §7.1): all_reduce, all_gather, reduce_scatter, all_to_all
// and local_slice, calls of stdlib/runtime's collectives.h, the functions the interpreter's
// kernels call, through `comm`, the communicator of the device a sharded export's code runs on
// (docs/compiled_code.md).
#include "emit_rule.h"
#include "emitter.h"
#include "op_emit.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// The [outer, axis, inner] view of value v around `axis`: the elements before it, and the bytes
// from it on (one block of the axis when `blocks` cuts it).
std::string outerOf(Emitter& e, int v, size_t axis) { return product(slice(e.dims(v), 0, axis)); }
std::string chunkOf(Emitter& e, int v, size_t axis) {
  return "(" + product(slice(e.dims(v), axis, e.dims(v).size())) + " * " + std::to_string(rt::dtypeSize(e.type(v).dtype)) +
         ")";
}

size_t axisOf(const Node& n, const char* key, Emitter& e) { return size_t(axisAttr(n, key, int(e.dims(n.inputs[0]).size()))); }

std::string meshDim(const Node& n) { return std::to_string(n.attrs.i("mesh_dim")); }

// The scratch each needs, by the runtime's formula.
template <OpId Op>
void collectiveMemory(Emitter& e, const Node& n) {
  e.ownResults(n);
  const int x = n.inputs[0];
  const std::string bytes = "int64_t(" + e.bytes(x) + ")";
  if constexpr (Op == OpId::AllGather) {
    e.workspace("size_t(weft::rt::allGatherWorkspace(" + outerOf(e, x, axisOf(n, "axis", e)) + ", " + bytes + ", " +
                std::to_string(n.attrs.i("group")) + "))");
  } else if constexpr (Op == OpId::ReduceScatter) {
    e.workspace("size_t(weft::rt::reduceScatterWorkspace(" + outerOf(e, x, axisOf(n, "axis", e)) + ", " + bytes + "))");
  } else if constexpr (Op == OpId::AllToAll) {
    e.workspace("size_t(weft::rt::allToAllWorkspace(" + bytes + "))");
  } else {
    static_assert(Op == OpId::AllReduce || Op == OpId::LocalSlice, "not a collective");  // no scratch
  }
}

template <OpId Op>
void collectiveCode(Emitter& e, const Node& n, const std::string& p) {
  const int x = n.inputs[0], out = n.outputs[0];
  const std::string in = e.ptr(x), to = e.ptr(out), k = meshDim(n);
  const std::string dtype = std::string("weft::rt::DType::") + dtypeEnumName(e.type(x).dtype);
  std::ostream& c = e.code();
  if constexpr (Op == OpId::AllReduce) {
    c << p << "weft::rt::allReduceBlocks(comm, " << k << ", " << dtype << ", " << in << ", " << to << ", " << e.numel(x)
      << ");\n";
  } else if constexpr (Op == OpId::AllGather) {
    const size_t axis = axisOf(n, "axis", e);
    c << p << "weft::rt::allGatherAxis(comm, " << k << ", " << in << ", " << outerOf(e, x, axis) << ", "
      << chunkOf(e, x, axis) << ", " << to << ", ws);\n";
  } else if constexpr (Op == OpId::ReduceScatter) {
    const size_t axis = axisOf(n, "axis", e);
    c << p << "weft::rt::reduceScatterAxis(comm, " << k << ", " << dtype << ", " << in << ", " << outerOf(e, x, axis)
      << ", " << product(slice(e.dims(out), axis, e.dims(out).size())) << ", " << to << ", ws);\n";
  } else if constexpr (Op == OpId::AllToAll) {
    // The block sent is the input's cut along split_axis: the output's sizes there.
    const size_t split = axisOf(n, "split_axis", e), concat = axisOf(n, "concat_axis", e);
    Dims block = e.dims(x);
    block[split] = e.dims(out)[split];
    const std::string size = std::to_string(rt::dtypeSize(e.type(x).dtype));
    c << p << "weft::rt::allToAllAxes(comm, " << k << ", " << in << ", " << outerOf(e, x, split) << ", "
      << product(slice(block, split, block.size())) << " * " << size << ", " << product(slice(block, 0, concat)) << ", "
      << product(slice(block, concat, block.size())) << " * " << size << ", " << to << ", ws);\n";
  } else {
    static_assert(Op == OpId::LocalSlice, "not a collective");
    const size_t axis = axisOf(n, "axis", e);
    c << p << "weft::rt::localSliceAxis(comm, " << k << ", " << in << ", " << outerOf(e, x, axis) << ", "
      << chunkOf(e, out, axis) << ", " << to << ");\n";
  }
}

template <OpId Op>
const ops::EmitRule kCollectiveRule{"collectives.h", nullptr, collectiveMemory<Op>, collectiveCode<Op>};

}  // namespace

void registerCollectiveEmitRules() {
  ops::setEmit({OpId::AllReduce}, &kCollectiveRule<OpId::AllReduce>);
  ops::setEmit({OpId::AllGather}, &kCollectiveRule<OpId::AllGather>);
  ops::setEmit({OpId::ReduceScatter}, &kCollectiveRule<OpId::ReduceScatter>);
  ops::setEmit({OpId::AllToAll}, &kCollectiveRule<OpId::AllToAll>);
  ops::setEmit({OpId::LocalSlice}, &kCollectiveRule<OpId::LocalSlice>);
}

}  // namespace weft::codegen
