// Sharded tensors as programs make them (SPEC §7.1, DTensor's distribute_tensor and
// redistribute): distribute(x, layout) cuts a whole tensor into its devices' blocks, relayout(x,
// layout) moves a sharded one to another layout of its mesh with the collectives that takes (an
// op, so that they are counted and planned like any other; inside a graph function both are that
// op, and put the graph on the layout's mesh), and `x.layout`, `x.shard(i)` say how a tensor
// lies.
#include "../eval/args.h"
#include "../ops/op_table.h"
#include "../values/format.h"
#include "../spmd/sharded_tensor.h"
#include "builtins.h"
#include "layout.h"
#include "shards.h"

namespace weft::mesh {
namespace {

struct Target {
  std::shared_ptr<LayoutObj> layout;
  spmd::MeshAxes axes;
  spmd::Placements placements;
};

// The tensor and the layout of distribute(x, layout) / relayout(x, layout), checked.
Target targetOf(ArgReader& r, const char* fn, const Tensor& x, const SourceRange& site) {
  const Value& l = r.get(1);
  auto* layout = l.is(Kind::Opaque) ? dynamic_cast<LayoutObj*>(l.as<OpaqueObj>()) : nullptr;
  if (!layout) r.fail(1, "must be a Layout, not " + aTypeName(l));
  if (std::optional<std::string> why = layout->misfit(x.shape()))
    throw WeftError(site, std::string(fn) + ": " + layout->repr() + " cannot hold a tensor of shape " + x.shape().str() +
                              ": " + *why);
  Target t{std::static_pointer_cast<LayoutObj>(l.objectPtr()), {}, {}};
  layoutPlacements(*layout, t.axes, t.placements);
  return t;
}

// Inside a graph function: the relayout op, which puts the graph on the layout's mesh.
Value traced(const Tensor& x, const Target& t) {
  const Tensor in[] = {x};
  return Value(ops::apply1(ops::OpId::Relayout, in, spmd::relayoutAttrs(t.axes, t.placements)));
}

Value distributeBuiltin(Interpreter&, Args& a) {
  ArgReader r(a, "distribute", {"x", "layout"});
  const Tensor x = r.tensor(0);
  const Target t = targetOf(r, "distribute", x, a.site);
  if (x.isSymbolic()) return traced(x, t);
  if (spmd::shardsOf(x))
    throw WeftError(a.site, "distribute: the tensor is sharded already (" + tensorLayout(x)->repr() +
                                "); relayout(x, layout) moves it to another layout");
  return Value(spmd::distribute(x, t.axes, t.placements, t.layout->mesh));
}

Value relayoutBuiltin(Interpreter&, Args& a) {
  ArgReader r(a, "relayout", {"x", "layout"});
  const Tensor x = r.tensor(0);
  const Target t = targetOf(r, "relayout", x, a.site);
  if (x.isSymbolic()) return traced(x, t);  // its mesh is checked as the graph is placed
  const spmd::ShardedTensor* s = spmd::shardsOf(x);
  if (!s) r.fail(0, "is not a sharded tensor; distribute(x, layout) makes one from a whole tensor");
  if (!(s->mesh == t.axes))
    throw WeftError(a.site, "relayout: the tensor lies on mesh(" + spmd::meshText(s->mesh) + ") and " +
                                t.layout->repr() + " on mesh(" + spmd::meshText(t.axes) +
                                "): a relayout stays on its mesh (distribute the value on the other one)");
  const Tensor in[] = {x};
  return Value(ops::apply1(ops::OpId::Relayout, in, spmd::relayoutAttrs(t.axes, t.placements)));
}

}  // namespace

void registerDistribute(Env& env) {
  env.set(intern("distribute"), makeBuiltin("distribute", distributeBuiltin));
  env.set(intern("relayout"), makeBuiltin("relayout", relayoutBuiltin));
}

Value tensorAttr(Interpreter&, const Value& self, const std::string& name) {
  if (name == "layout") {
    std::string why;
    std::shared_ptr<LayoutObj> l = tensorLayout(self.tensor(), &why);
    if (!l && !why.empty()) throw WeftError("x.layout: " + why);
    return l ? Value(l) : Value();
  }
  return makeBuiltin("shard", [](Interpreter&, Args& a) {
    ArgReader r(a, "shard", {"device"});
    const spmd::ShardedTensor* s = spmd::shardsOf(a.self.tensor());
    if (!s) throw WeftError(a.site, "this tensor is whole, so it has no shards: distribute(x, layout) shards one");
    const int64_t i = r.integer(0), n = int64_t(s->locals.size());
    if (i < 0 || i >= n)
      r.fail(0, "must be a device of mesh(" + spmd::meshText(s->mesh) + "), from 0 to " + std::to_string(n - 1) +
                    ", not " + std::to_string(i));
    return Value(spmd::blockOf(*s, i));
  }, self);
}

}  // namespace weft::mesh
