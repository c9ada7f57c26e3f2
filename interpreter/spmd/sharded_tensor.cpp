#include "sharded_tensor.h"

#include <map>

#include "blocks.h"
#include "ranks.h"

namespace weft::spmd {

const Tensor& ShardedTensor::global() const {
  std::call_once(assembled_, [this] {
    bool replicated = true;
    for (const Placement& p : placements) replicated = replicated && p.replicated();
    if (replicated) {  // every device holds all of it, this rank's too
      global_ = locals[size_t(firstOwnedDevice(mesh))];
      return;
    }
    std::vector<Tensor> all = locals;
    gatherRankBlocks(mesh, all);  // across ranks, the blocks the others hold
    global_ = assemble(mesh, placements, all);
  });
  return global_;
}

const ShardedTensor* shardsOf(const Tensor& t) { return static_cast<const ShardedTensor*>(t.shards()); }

Tensor makeSharded(const MeshAxes& mesh, Placements ps, std::vector<Tensor> locals,
                   std::shared_ptr<OpaqueObj> meshObject, DType dtype, const Shape& shape) {
  auto s = std::make_shared<ShardedTensor>();
  for (size_t d = 0; d < locals.size(); ++d)
    s->abstract = s->abstract || (ownsDevice(mesh, int64_t(d)) && locals[d].isAbstract());
  s->mesh = mesh;
  s->placements = std::move(ps);
  s->locals = std::move(locals);
  s->meshObject = std::move(meshObject);
  return Tensor::sharded(dtype, shape, std::move(s));
}

Tensor fromLocals(const MeshAxes& mesh, Placements ps, std::vector<Tensor> locals,
                  std::shared_ptr<OpaqueObj> meshObject) {
  const Tensor& first = locals.at(size_t(firstOwnedDevice(mesh)));
  Shape shape = first.shape();
  for (size_t k = 0; k < ps.size(); ++k)
    if (ps[k].sharded()) shape[ps[k].dim] *= mesh.sizes[k];
  return makeSharded(mesh, std::move(ps), std::move(locals), std::move(meshObject), first.dtype(), shape);
}

Tensor wholeIfReplicated(const Tensor& t) {
  const ShardedTensor* s = shardsOf(t);
  if (!s) return t;
  for (const Placement& p : s->placements)
    if (!p.replicated()) return t;
  return s->locals[size_t(firstOwnedDevice(s->mesh))];
}

Tensor withMeshObject(const Tensor& t, const std::shared_ptr<OpaqueObj>& meshObject) {
  const ShardedTensor* s = shardsOf(t);
  if (!s || s->meshObject || !meshObject) return t;
  return makeSharded(s->mesh, s->placements, s->locals, meshObject, t.dtype(), t.shape());
}

Tensor distribute(const Tensor& global, const MeshAxes& mesh, const Placements& ps,
                  std::shared_ptr<OpaqueObj> meshObject) {
  const Tensor whole = shardsOf(global) ? shardsOf(global)->global() : global;
  std::map<std::vector<int64_t>, Tensor> blocks;  // by the coordinates on the splitting dimensions
  std::vector<Tensor> locals;
  for (int64_t d = 0, n = deviceCount(mesh); d < n; ++d) {
    if (!ownsDevice(mesh, d)) {  // another rank's
      locals.emplace_back();
      continue;
    }
    std::vector<int64_t> at = coordinates(mesh, d);
    for (size_t k = 0; k < ps.size(); ++k)
      if (!ps[k].sharded()) at[k] = -1;
    auto [it, fresh] = blocks.try_emplace(at);
    if (fresh) it->second = localBlock(whole, mesh, ps, d);
    locals.push_back(it->second);
  }
  return makeSharded(mesh, ps, std::move(locals), std::move(meshObject), whole.dtype(), whole.shape());
}

bool shardedAs(const Tensor& t, const MeshAxes& mesh, const Placements& ps) {
  const ShardedTensor* s = shardsOf(t);
  if (!s || !(s->mesh == mesh)) return false;
  return s->placements == (ps.empty() ? Placements(size_t(mesh.rank())) : ps);
}

Tensor localOf(const Tensor& t, const MeshAxes& mesh, const Placements& ps, int64_t device) {
  if (shardedAs(t, mesh, ps)) return shardsOf(t)->locals[size_t(device)];
  const ShardedTensor* s = shardsOf(t);
  return localBlock(s ? s->global() : t, mesh, ps, device);
}

Tensor blockOf(const ShardedTensor& s, int64_t device) {
  if (!acrossRanks()) return s.locals[size_t(device)];
  return localBlock(s.global(), s.mesh, s.placements, device);
}

}  // namespace weft::spmd
