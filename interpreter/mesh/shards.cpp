#include "shards.h"

#include "../spmd/sharded_tensor.h"
#include "builtins.h"
#include "layout.h"

namespace weft::mesh {

void place(VariableObj& var, std::shared_ptr<LayoutObj> layout) {
  Placement& p = *var.placement;
  p.layout = std::move(layout);
  store(var, var.value);
}

void store(VariableObj& var, Tensor value) {
  if (VariableAccess* a = variableAccess()) return a->write(var, value);  // a graph being traced
  const LayoutObj* l = layoutOf(var);
  spmd::MeshAxes axes;
  spmd::Placements ps;
  if (!l || l->replicated() || !layoutPlacements(*l, axes, ps)) {
    const spmd::ShardedTensor* s = spmd::shardsOf(value);
    var.value = s ? s->global() : std::move(value);
    return;
  }
  var.value = spmd::shardedAs(value, axes, ps) ? std::move(value) : spmd::distribute(value, axes, ps, l->mesh);
}

Tensor shard(VariableObj& var, int64_t device) {
  const LayoutObj& l = *var.placement->layout;
  // A value replaced without store() (by code that writes var.value directly): cut it again.
  if (!l.replicated() && !var.value.isAbstract() && !spmd::shardsOf(var.value)) store(var, var.value);
  if (var.value.isAbstract()) return Tensor::abstract(var.value.dtype(), l.shardShape(var.value.shape()));
  const spmd::ShardedTensor* s = spmd::shardsOf(var.value);
  return s ? spmd::blockOf(*s, device) : var.value;
}

std::shared_ptr<LayoutObj> tensorLayout(const Tensor& t, std::string* why) {
  const spmd::ShardedTensor* s = spmd::shardsOf(t);
  if (!s) return nullptr;
  std::shared_ptr<MeshObj> mesh = std::dynamic_pointer_cast<MeshObj>(s->meshObject);
  if (!mesh) {  // made by a graph whose mesh only its axes name
    mesh = std::make_shared<MeshObj>();
    mesh->dimNames = s->mesh.names;
    mesh->dimSizes = s->mesh.sizes;
  }
  std::vector<std::optional<std::string>> dims(size_t(t.rank()));
  for (size_t k = 0; k < s->placements.size(); ++k) {
    if (!s->placements[k].sharded()) continue;
    auto& d = dims[size_t(s->placements[k].dim)];
    if (d) {
      if (why) *why = "its dimension " + std::to_string(s->placements[k].dim) + " is split along two mesh dimensions, '" +
                      *d + "' and '" + s->mesh.names[k] + "', which a Layout cannot say";
      return nullptr;
    }
    d = s->mesh.names[k];
  }
  return makeLayout(std::move(dims), mesh);
}

const LayoutObj* layoutOf(const VariableObj& var) {
  return var.placement && var.placement->layout ? var.placement->layout.get() : nullptr;
}

void placeLike(VariableObj& var, const VariableObj& like) {
  if (!layoutOf(like)) return;
  var.placement = std::make_shared<Placement>();
  var.placement->resolved = true;
  place(var, like.placement->layout);
}

int64_t bytesPerDevice(const VariableObj& var) {
  const LayoutObj* l = layoutOf(var);
  int64_t esize = int64_t(rt::dtypeSize(var.value.dtype()));
  if (!l) return var.value.numel() * esize;
  return l->shardShape(var.value.shape()).numel() * esize;
}

void installPlacementHook() {
  struct Hook : PlacementHook {
    void write(VariableObj& v, Tensor value) override { store(v, std::move(value)); }
    std::string layoutRepr(const VariableObj& v) override {
      return v.placement->key >= 0 ? " layout=" + v.placement->layout->repr() : "";
    }
  };
  static Hook hook;
  setPlacementHook(&hook);
}

}  // namespace weft::mesh
