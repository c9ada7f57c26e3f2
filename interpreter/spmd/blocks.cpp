#include "blocks.h"

#include "../../stdlib/runtime/shards.h"
#include "../ops/ops.h"

namespace weft::spmd {

int64_t deviceCount(const MeshAxes& mesh) {
  int64_t n = 1;
  for (int64_t s : mesh.sizes) n *= s;
  return n;
}

std::vector<int64_t> coordinates(const MeshAxes& mesh, int64_t device) {
  std::vector<int64_t> c(mesh.sizes.size());
  const rt::MeshPlace m{mesh.sizes.data(), mesh.rank(), nullptr};
  for (int k = 0; k < mesh.rank(); ++k) c[size_t(k)] = rt::meshCoordinate(m, device, k);
  return c;
}

namespace {

// Placements as the runtime's block rule takes them (stdlib/runtime/shards.h holds that rule once,
// for the interpreter and for generated code).
struct RuntimePlace {
  std::vector<int> codes;
  rt::MeshPlace place;
  RuntimePlace(const MeshAxes& mesh, const Placements& ps) {
    for (const Placement& p : ps) codes.push_back(p.sharded() ? p.dim : p.partial() ? rt::kPartial : rt::kReplicated);
    place = {mesh.sizes.data(), int(codes.size()), codes.data()};
  }
  RuntimePlace(const RuntimePlace&) = delete;
};

bool splits(const Placements& ps) {
  for (const Placement& p : ps)
    if (!p.replicated()) return true;
  return false;
}

}  // namespace

Tensor localBlock(const Tensor& global, const MeshAxes& mesh, const Placements& ps, int64_t device) {
  if (!splits(ps)) return global;
  const RuntimePlace r(mesh, ps);
  rt::Shape size, start;
  rt::blockOf(r.place, global.shape(), device, size, start);
  if (global.isAbstract()) return Tensor::abstract(global.dtype(), size);
  Tensor local = Tensor::empty(global.dtype(), size);
  rt::cutBlock(r.place, global.raw(), global.shape(), rt::dtypeSize(global.dtype()), device, local.raw());
  return local;
}

Tensor assemble(const MeshAxes& mesh, const Placements& ps, const std::vector<Tensor>& locals) {
  if (!splits(ps)) return locals[0];
  const RuntimePlace r(mesh, ps);
  const Shape shape = rt::globalOf(r.place, locals[0].shape());
  const DType dtype = locals[0].dtype();
  for (const Tensor& t : locals)
    if (t.isAbstract()) return Tensor::abstract(dtype, shape);
  Tensor global = rt::isPartial(r.place) ? Tensor::zeros(dtype, shape) : Tensor::empty(dtype, shape);
  for (size_t d = 0; d < locals.size(); ++d) rt::placeBlock(r.place, global.raw(), shape, dtype, int64_t(d), locals[d].raw());
  return global;
}

int64_t collectiveBytes(ops::OpId op, int64_t blockBytes, int64_t group) {
  if (op == ops::OpId::AllReduce) return 2 * (group - 1) * blockBytes / group;
  if (op == ops::OpId::ReduceScatter || op == ops::OpId::AllToAll) return (group - 1) * blockBytes / group;
  if (op == ops::OpId::AllGather) return (group - 1) * blockBytes;
  return 0;  // a local slice
}

}  // namespace weft::spmd
