// The collectives (SPEC §7.1) as primitives: each runs on one device of a mesh, on its local
// block, and meets the other devices of its group along one mesh dimension through the
// context's communicator (stdlib/runtime/comm.h). Attributes: `mesh_dim` (the mesh dimension),
// `group` (the devices along it, so that inference gives local shapes without a mesh), and the
// tensor axis moved: all_gather and reduce_scatter `axis` (concatenated, cut), all_to_all
// `split_axis` (cut and sent) and `concat_axis` (received and joined), local_slice `axis` (the
// device keeps its block: no communication).
#include <vector>

#include "../../stdlib/runtime/collectives.h"
#include "../values/context.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {

namespace {

int axisOf(OpId op, const Attrs& a, const char* key, const Shape& s) {
  return normalizeAxis(opName(op), int(a.i(key)), s);
}

int64_t groupOf(OpId op, const Attrs& a) {
  const int64_t group = a.i("group");
  if (group < 1 || a.i("mesh_dim") < 0)
    fail(std::string(opName(op)) + ": mesh_dim " + std::to_string(a.i("mesh_dim")) + " and group " +
         std::to_string(group) + " do not name devices of a mesh");
  return group;
}

// A symbolic size (generated code's) divides when the code runs: sizes::same records the check.
void divides(OpId op, const Shape& s, int axis, int64_t group) {
  const bool ok = s[axis] == rt::kUnknownDim ||
                  (sizes::symbolic(s[axis]) ? sizes::same(sizes::times(group, sizes::floorDiv(s[axis], group)), s[axis])
                                            : s[axis] % group == 0);
  if (!ok)
    fail(std::string(opName(op)) + ": axis " + std::to_string(axis) + " of shape " + s.str() + " does not split into " +
         std::to_string(group) + " equal blocks");
}

// The communicator of the device running this, checked against the op's mesh dimension.
rt::Comm& commFor(OpId op, const Attrs& a) {
  rt::Comm* comm = context().comm;
  if (!comm) fail(std::string(opName(op)) + " runs only on the devices of a mesh, in a sharded program");
  const int64_t k = a.i("mesh_dim");
  if (k >= comm->meshRank() || comm->groupSize(int(k)) != a.i("group"))
    fail(std::string(opName(op)) + ": mesh dimension " + std::to_string(k) + " of " + std::to_string(a.i("group")) +
         " devices is not one of this mesh's");
  return *comm;
}

// The elements of `s` before `axis` and after it: the [outer, axis, inner] view the runtime's
// collectives take.
int64_t outerOf(const Shape& s, int axis) {
  int64_t n = 1;
  for (int d = 0; d < axis; ++d) n *= s[d];
  return n;
}
int64_t innerOf(const Shape& s, int axis) {
  int64_t n = 1;
  for (int d = axis + 1; d < s.rank(); ++d) n *= s[d];
  return n;
}

// Each collective's local result type, and its kernel: one device's local result, through the
// context's communicator; into `reuse`'s buffer when it is given, of the result's type (a graph
// executor's slot, call after call, or the variable the result is computed into).
template <OpId op>
TensorType collectiveType(const TensorType& x, const Attrs& a) {
  const int64_t group = groupOf(op, a);
  TensorType out = x;
  Shape& s = out.shape;
  auto grow = [&](int axis) {
    if (s[axis] != rt::kUnknownDim) s[axis] = checkedSize(opName(op), sizes::mul(s[axis], group), "the gathered size");
  };
  auto shrink = [&](int axis) {
    divides(op, s, axis, group);
    if (s[axis] != rt::kUnknownDim) s[axis] = sizes::floorDiv(s[axis], group);
  };
  if constexpr (op == OpId::AllReduce) {
    if (x.dtype == DType::Bool) fail("all_reduce is not defined for bool tensors");
  } else if constexpr (op == OpId::AllGather) {
    grow(axisOf(op, a, "axis", s));
  } else if constexpr (op == OpId::ReduceScatter) {
    if (x.dtype == DType::Bool) fail("reduce_scatter is not defined for bool tensors");
    shrink(axisOf(op, a, "axis", s));
  } else if constexpr (op == OpId::LocalSlice) {
    shrink(axisOf(op, a, "axis", s));
  } else {
    static_assert(op == OpId::AllToAll, "not a collective");
    const int split = axisOf(op, a, "split_axis", s), concat = axisOf(op, a, "concat_axis", s);
    shrink(split);
    grow(concat);
  }
  return out;
}

// The collective's data movement (CommError when the group cannot complete it), by the runtime's
// functions that generated code calls too (stdlib/runtime/collectives.h).
template <OpId op>
Tensor exchange(const Tensor& x, const Attrs& a, Tensor* reuse) {
  const TensorType type = collectiveType<op>(typeOf(x), a);
  rt::Comm& comm = commFor(op, a);
  const int k = int(a.i("mesh_dim"));
  const int64_t size = int64_t(rt::dtypeSize(x.dtype()));
  // `reuse` is a buffer the graph executor may write: its last result, or the variable the result
  // is computed into (whose replicas may share it: the runtime's collectives write it once).
  const bool fits = reuse && reuse->isWhole() && reuse->dtype() == x.dtype() && reuse->shape() == type.shape;
  Tensor out = fits ? std::move(*reuse) : Tensor::empty(x.dtype(), type.shape);
  // The device thread's workspace, kept from call to call: no allocation, zeroing or page
  // faults per collective.
  static thread_local std::vector<char> ws;
  auto workspace = [&](int64_t bytes) {
    if (ws.size() < size_t(bytes)) ws.resize(size_t(bytes));
    return ws.data();
  };
  if constexpr (op == OpId::AllReduce) {
    rt::allReduceBlocks(comm, k, x.dtype(), x.raw(), out.raw(), x.numel());
  } else if constexpr (op == OpId::AllGather) {
    const int axis = axisOf(op, a, "axis", x.shape());
    const int64_t outer = outerOf(x.shape(), axis);
    rt::allGatherAxis(comm, k, x.raw(), outer, x.shape()[axis] * innerOf(x.shape(), axis) * size, out.raw(),
                      workspace(rt::allGatherWorkspace(outer, x.bytes(), a.i("group"))));
  } else if constexpr (op == OpId::ReduceScatter) {
    const int axis = axisOf(op, a, "axis", x.shape());
    const int64_t outer = outerOf(x.shape(), axis);
    rt::reduceScatterAxis(comm, k, x.dtype(), x.raw(), outer, type.shape[axis] * innerOf(x.shape(), axis), out.raw(),
                          workspace(rt::reduceScatterWorkspace(outer, x.bytes())));
  } else if constexpr (op == OpId::AllToAll) {
    const int split = axisOf(op, a, "split_axis", x.shape()), concat = axisOf(op, a, "concat_axis", x.shape());
    Shape block = x.shape();
    block[split] /= a.i("group");
    rt::allToAllAxes(comm, k, x.raw(), outerOf(x.shape(), split), block[split] * innerOf(x.shape(), split) * size,
                     outerOf(block, concat), block[concat] * innerOf(block, concat) * size, out.raw(),
                     workspace(rt::allToAllWorkspace(x.bytes())));
  } else {
    static_assert(op == OpId::LocalSlice, "not a collective");
    const int axis = axisOf(op, a, "axis", x.shape());
    rt::localSliceAxis(comm, k, x.raw(), outerOf(x.shape(), axis), type.shape[axis] * innerOf(x.shape(), axis) * size,
                       out.raw());
  }
  return out;
}

template <OpId op>
Tensor collective(const Tensor& x, const Attrs& a, Tensor* reuse = nullptr) {
  try {
    return exchange<op>(x, a, reuse);
  } catch (const rt::CommError& e) {
    fail(std::string(opName(op)) + ": " + e.what());
  }
}

}  // namespace
}  // namespace weft::ops::impl

namespace weft::ops {
namespace {

using namespace rows;

// A collective's row: the mesh dimension and group, then its own attributes. Collectives meet
// the other devices of their group: an effect, so that every device runs them in program order
// and none is merged or removed on one device alone.
template <OpId Op>
void collectiveRow(std::vector<AttrSpec> own) {
  OpDef& d = defineRow(Op, Family::Collective);
  d.attrs = {{"mesh_dim", K::Int}, {"group", K::Int}};
  d.attrs.insert(d.attrs.end(), own.begin(), own.end());
  d.effect = true;
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::collectiveType<Op>(in[0], a)}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::collective<Op>(in[0], a)}; };
  // A graph's collective writes into its last call's result (its pages touched once, not every call).
  d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
    out = impl::collective<Op>(*in[0], a, &out);
  };
  d.intoChecks = true;
}

}  // namespace

// The collectives of sharded programs (SPEC §7.1), which run on one device of a mesh.
void defineCollectiveRows() {
  collectiveRow<OpId::AllReduce>({});
  collectiveRow<OpId::AllGather>({{"axis", K::Int}});
  collectiveRow<OpId::ReduceScatter>({{"axis", K::Int}});
  collectiveRow<OpId::AllToAll>({{"split_axis", K::Int}, {"concat_axis", K::Int}});
  collectiveRow<OpId::LocalSlice>({{"axis", K::Int}});
}

}  // namespace weft::ops
