// The collectives (SPEC §7.1) as primitives: each runs on one device of a mesh, on its local
// block, and meets the other devices of its group along one mesh dimension through the
// context's communicator (stdlib/runtime/comm.h). Attributes: `mesh_dim` (the mesh dimension),
// `group` (the devices along it, so that inference gives local shapes without a mesh), and the
// tensor axis moved: all_gather and reduce_scatter `axis` (concatenated, cut), all_to_all
// `split_axis` (cut and sent) and `concat_axis` (received and joined), local_slice `axis` (the
// device keeps its block: no communication).
#include "../../stdlib/runtime/comm.h"
#include "../values/context.h"
#include "check.h"
#include "impl.h"

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

void divides(OpId op, const Shape& s, int axis, int64_t group) {
  if (s[axis] != rt::kUnknownDim && s[axis] % group != 0)
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

// x with the blocks of `axis` (group of them) as a new leading axis, contiguous:
// [..., group*n, ...] -> [group, ..., n, ...].
Tensor blocksFirst(const Tensor& x, int axis, int64_t group) {
  std::vector<int64_t> split;
  for (int d = 0; d < x.rank(); ++d) {
    if (d == axis) split.push_back(group), split.push_back(x.shape()[d] / group);
    else split.push_back(x.shape()[d]);
  }
  std::vector<int> perm{axis};
  for (int d = 0; d <= x.rank(); ++d)
    if (d != axis) perm.push_back(d);
  return transpose(reshape(x, split), perm);
}

// The inverse: [group, ..., n, ...] -> [..., group*n, ...] (blocks joined along `axis`).
Tensor blocksJoined(const Tensor& b, int axis) {
  std::vector<int> perm;
  for (int d = 1; d <= axis; ++d) perm.push_back(d);
  perm.push_back(0);
  for (int d = axis + 1; d < b.rank(); ++d) perm.push_back(d);
  const Tensor moved = transpose(b, perm);
  std::vector<int64_t> joined;
  for (int d = 0; d < moved.rank(); ++d) {
    if (d == axis + 1) continue;
    joined.push_back(d == axis ? moved.shape()[d] * moved.shape()[d + 1] : moved.shape()[d]);
  }
  return reshape(moved, joined);
}

Shape withLeading(int64_t n, const Shape& s) {
  Shape out{n};
  for (int d = 0; d < s.rank(); ++d) out.push_back(s[d]);
  return out;
}

}  // namespace

TensorType collectiveType(OpId op, const TensorType& x, const Attrs& a) {
  const int64_t group = groupOf(op, a);
  TensorType out = x;
  Shape& s = out.shape;
  auto grow = [&](int axis) {
    if (s[axis] != rt::kUnknownDim) s[axis] = checkedSize(opName(op), rt::sizeMul(s[axis], group), "the gathered size");
  };
  auto shrink = [&](int axis) {
    divides(op, s, axis, group);
    if (s[axis] != rt::kUnknownDim) s[axis] /= group;
  };
  switch (op) {
    case OpId::AllReduce:
      if (x.dtype == DType::Bool) fail("all_reduce is not defined for bool tensors");
      break;
    case OpId::AllGather: grow(axisOf(op, a, "axis", s)); break;
    case OpId::ReduceScatter:
      if (x.dtype == DType::Bool) fail("reduce_scatter is not defined for bool tensors");
      shrink(axisOf(op, a, "axis", s));
      break;
    case OpId::LocalSlice: shrink(axisOf(op, a, "axis", s)); break;
    case OpId::AllToAll: {
      const int split = axisOf(op, a, "split_axis", s), concat = axisOf(op, a, "concat_axis", s);
      shrink(split);
      grow(concat);
      break;
    }
    default: fail(std::string(opName(op)) + " is not a collective");
  }
  return out;
}

namespace {

// The collective's data movement (CommError when the group cannot complete it).
Tensor exchange(OpId op, const Tensor& x, const Attrs& a) {
  const TensorType type = collectiveType(op, typeOf(x), a);
  rt::Comm& comm = commFor(op, a);
  const int k = int(a.i("mesh_dim"));
  const int64_t group = a.i("group");
  switch (op) {
    case OpId::AllReduce: {
      Tensor out = Tensor::empty(x.dtype(), x.shape());
      comm.allReduce(k, x.dtype(), x.raw(), out.raw(), x.numel());
      return out;
    }
    case OpId::AllGather: {
      Tensor gathered = Tensor::empty(x.dtype(), withLeading(group, x.shape()));
      comm.allGather(k, x.raw(), gathered.raw(), x.bytes());
      return blocksJoined(gathered, axisOf(op, a, "axis", x.shape()));
    }
    case OpId::ReduceScatter: {
      const Tensor blocks = blocksFirst(x, axisOf(op, a, "axis", x.shape()), group);
      Tensor out = Tensor::empty(x.dtype(), type.shape);
      comm.reduceScatter(k, x.dtype(), blocks.raw(), out.raw(), out.numel());
      return out;
    }
    case OpId::AllToAll: {
      const Tensor blocks = blocksFirst(x, axisOf(op, a, "split_axis", x.shape()), group);
      Tensor received = Tensor::empty(x.dtype(), blocks.shape());
      comm.allToAll(k, blocks.raw(), received.raw(), blocks.bytes() / group);
      return blocksJoined(received, axisOf(op, a, "concat_axis", x.shape()));
    }
    case OpId::LocalSlice: {
      const int axis = axisOf(op, a, "axis", x.shape());
      const int64_t n = type.shape[axis], at = comm.coordinate(k);
      std::vector<Subscript> subs(size_t(axis) + 1);
      for (Subscript& s : subs) s.kind = Subscript::Range;
      subs.back().start = at * n;
      subs.back().stop = (at + 1) * n;
      return impl::getItem(x, subs);
    }
    default: fail(std::string(opName(op)) + " is not a collective");
  }
}

}  // namespace

Tensor collective(OpId op, const Tensor& x, const Attrs& a) {
  try {
    return exchange(op, x, a);
  } catch (const rt::CommError& e) {
    fail(std::string(opName(op)) + ": " + e.what());
  }
}

}  // namespace weft::ops::impl
