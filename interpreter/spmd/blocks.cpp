#include "blocks.h"

#include "../ops/ops.h"

namespace weft::spmd {

int64_t deviceCount(const MeshAxes& mesh) {
  int64_t n = 1;
  for (int64_t s : mesh.sizes) n *= s;
  return n;
}

std::vector<int64_t> coordinates(const MeshAxes& mesh, int64_t device) {
  std::vector<int64_t> c(mesh.sizes.size());
  for (size_t k = mesh.sizes.size(); k-- > 0;) {
    c[k] = device % mesh.sizes[k];
    device /= mesh.sizes[k];
  }
  return c;
}

Tensor localBlock(const Tensor& global, const MeshAxes& mesh, const Placements& ps, int64_t device) {
  const std::vector<int64_t> at = coordinates(mesh, device);
  Tensor x = global;
  for (size_t k = 0; k < ps.size(); ++k) {
    if (!ps[k].sharded()) continue;
    const int d = ps[k].dim;
    const int64_t len = x.shape()[d] / mesh.sizes[k];
    std::vector<ops::Subscript> subs(size_t(d) + 1);
    for (auto& s : subs) s.kind = ops::Subscript::Range;
    subs.back().start = at[k] * len;
    subs.back().stop = (at[k] + 1) * len;
    x = ops::getItem(x, subs);
  }
  return x;
}

namespace {

// The value of the devices whose first `k` coordinates are fixed (`base` is the first such
// device's number, `stride` the distance between consecutive coordinates along dimension k).
Tensor join(const MeshAxes& mesh, const Placements& ps, const std::vector<Tensor>& locals, size_t k, int64_t base) {
  if (k == ps.size()) return locals[size_t(base)];
  int64_t stride = 1;
  for (size_t j = k + 1; j < mesh.sizes.size(); ++j) stride *= mesh.sizes[j];
  const int64_t n = mesh.sizes[k];
  if (ps[k].replicated()) return join(mesh, ps, locals, k + 1, base);
  std::vector<Tensor> parts;
  for (int64_t j = 0; j < n; ++j) parts.push_back(join(mesh, ps, locals, k + 1, base + j * stride));
  if (ps[k].sharded()) return ops::concat(parts, ps[k].dim);
  Tensor sum = parts[0];
  for (size_t j = 1; j < parts.size(); ++j) sum = ops::binary(ops::BinaryOp::Add, sum, parts[j]);
  return sum;
}

}  // namespace

Tensor assemble(const MeshAxes& mesh, const Placements& ps, const std::vector<Tensor>& locals) {
  return join(mesh, ps, locals, 0, 0);
}

int64_t collectiveBytes(ops::OpId op, int64_t blockBytes, int64_t group) {
  if (op == ops::OpId::AllReduce) return 2 * (group - 1) * blockBytes / group;
  if (op == ops::OpId::ReduceScatter || op == ops::OpId::AllToAll) return (group - 1) * blockBytes / group;
  if (op == ops::OpId::AllGather) return (group - 1) * blockBytes;
  return 0;  // a local slice
}

}  // namespace weft::spmd
