// loadedModule(): a SavedModel as live objects. Modules and variables are rebuilt as they were
// saved; each saved function becomes a builtin that checks its arguments against the saved
// signature and runs the graph on the graph executor, its variable slots bound to the loaded
// variables, so that assignments persist from call to call.
#include "../../grammar/diagnostics.h"
#include "../graph/executor.h"
#include "../mesh/layout.h"
#include "../mesh/shards.h"
#include "../values/format.h"
#include "snapshot.h"

namespace weft::saved {
namespace {

struct LoadedFunction {
  FunctionEntry entry;
  graph::Graph graph;
  std::vector<std::shared_ptr<VariableObj>> variables;
  std::unique_ptr<graph::Executor> executor;  // made on the first call
};

Value rebuild(const ReturnShape& r, const std::vector<Tensor>& outs) {
  std::vector<Value> items;
  for (const ReturnShape& item : r.items) items.push_back(rebuild(item, outs));
  switch (r.kind) {
    case ReturnShape::Kind::Output: return Value(outs[size_t(r.output)]);
    case ReturnShape::Kind::None: return Value();
    case ReturnShape::Kind::List: return makeList(std::move(items));
    case ReturnShape::Kind::Tuple: return makeTuple(std::move(items));
    case ReturnShape::Kind::Dict: {
      auto d = std::make_shared<DictObj>();
      for (size_t i = 0; i < items.size(); ++i) d->set(makeStr(r.keys[i]), std::move(items[i]));
      return Value(std::move(d));
    }
  }
  return Value();
}

Value callLoaded(Interpreter& in, LoadedFunction& f, Args& a) {
  const auto& inputs = f.entry.inputs;
  const std::string& name = f.entry.name;
  std::vector<std::optional<Value>> bound(inputs.size());
  if (a.pos.size() > inputs.size())
    throw WeftError(a.site, name + "() takes " + std::to_string(inputs.size()) + " argument" +
                                (inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(a.pos.size()));
  for (size_t i = 0; i < a.pos.size(); ++i) bound[i] = a.pos[i];
  for (const auto& [k, v] : a.kw) {
    size_t i = 0;
    while (i < inputs.size() && inputs[i].name != symbolName(k)) ++i;
    if (i == inputs.size()) throw WeftError(a.site, name + "() has no parameter '" + symbolName(k) + "'");
    if (bound[i]) throw WeftError(a.site, name + "() got argument '" + symbolName(k) + "' twice");
    bound[i] = v;
  }
  std::vector<Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!bound[i]) throw WeftError(a.site, name + "() missing argument '" + inputs[i].name + "'");
    Value v = *bound[i];
    if (v.is(Kind::Variable)) v = Value(readVariable(*v.as<VariableObj>()));
    if (!v.isTensor() || !graph::accepts(inputs[i].type, v.tensor().dtype(), v.tensor().shape()))
      throw WeftError(a.site, name + "() argument '" + inputs[i].name + "' expects " + graph::typeText(inputs[i].type) +
                                  ", got " + typeNameOf(v));
    if (v.tensor().isAbstract())
      throw WeftError(a.site, name + "() is a loaded graph and runs on data: it cannot run on shapes alone");
    args.push_back(v.tensor());
  }
  if (!f.executor)
    f.executor = std::make_unique<graph::Executor>(f.graph, f.variables, in.out(),
                                                   [&in, site = a.site] { in.checkInterrupt(site); });
  std::vector<Tensor> outs = f.executor->run(args);
  return rebuild(f.entry.returns, outs);
}

}  // namespace

Value loadedModule(Interpreter& in, SavedModel model) {
  const Manifest& m = model.manifest;
  std::vector<std::shared_ptr<ModuleObj>> mods;
  for (const ModuleEntry& e : m.modules) {
    auto mod = std::make_shared<ModuleObj>();
    mod->typeName = e.type;
    mod->name = e.name;
    mod->trainable = e.trainable;
    mod->built = true;
    if (e.outputShape) {  // summary() shows it: an open batch as None, a fixed one as its size
      mod->outputShape = *e.outputShape;
      mod->batchFixed = e.outputShape->rank() > 0 && (*e.outputShape)[0] != rt::kUnknownDim;
      if (!mod->batchFixed && e.outputShape->rank() > 0) (*mod->outputShape)[0] = 1;
    }
    mod->attrs = std::make_shared<Env>();
    in.trackEnv(mod->attrs);
    if (e.parent >= 0) {
      mod->parent = mods[size_t(e.parent)];
      mod->keyInParent = e.key;
    }
    mods.push_back(std::move(mod));
  }
  std::vector<std::shared_ptr<mesh::MeshObj>> meshes;
  for (const MeshEntry& e : m.meshes) {
    std::vector<Value> sizes;
    for (int64_t s : e.dimSizes) sizes.push_back(makeInt(s));
    meshes.push_back(mesh::makeMesh(e.name, e.dimNames, sizes));
  }
  std::vector<std::shared_ptr<VariableObj>> vars;
  for (size_t i = 0; i < m.variables.size(); ++i) {
    const VariableEntry& e = m.variables[i];
    auto v = std::make_shared<VariableObj>();
    v->value = model.variables[i];
    v->name = e.name;
    v->named = true;
    v->trainable = e.trainable;
    v->ownTrainable = e.ownTrainable;
    if (e.owner >= 0) {
      v->owner = mods[size_t(e.owner)];
      v->keyInOwner = e.key;
    }
    if (e.layout) {
      auto layout = mesh::makeLayout(e.layout->dims, meshes[size_t(e.layout->mesh)]);
      if (auto why = layout->misfit(v->value.shape()))
        throw WeftError("cannot load variable '" + e.path + "' (" + e.file + "): its layout does not fit: " + *why);
      v->placement = std::make_shared<mesh::Placement>();
      v->placement->resolved = true;
      v->placement->path = e.path;
      mesh::place(*v, layout);
    }
    vars.push_back(std::move(v));
  }
  std::function<Value(const AttrRef&)> valueOf = [&](const AttrRef& r) -> Value {
    switch (r.kind) {
      case AttrRef::Kind::Variable: return Value(vars[size_t(r.index)]);
      case AttrRef::Kind::Module: return Value(mods[size_t(r.index)]);
      case AttrRef::Kind::List: break;
    }
    std::vector<Value> items;
    for (const AttrRef& item : r.items) items.push_back(valueOf(item));
    return makeList(std::move(items));
  };
  for (size_t i = 0; i < m.modules.size(); ++i)
    for (const auto& [name, ref] : m.modules[i].attributes) mods[i]->attrs->set(intern(name), valueOf(ref));

  std::vector<Value> functions;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    auto f = std::make_shared<LoadedFunction>();
    f->entry = m.functions[i];
    f->graph = std::move(model.graphs[i]);
    for (int v : f->entry.variables) f->variables.push_back(vars[size_t(v)]);
    functions.push_back(makeBuiltin(f->entry.name, [f](Interpreter& in, Args& a) { return callLoaded(in, *f, a); }));
    if (!f->entry.method.empty()) mods[0]->attrs->set(intern(f->entry.method), functions.back());
  }
  auto sigs = std::make_shared<DictObj>();
  for (const auto& [name, fn] : m.signatures) sigs->set(makeStr(name), functions[size_t(fn)]);
  mods[0]->attrs->set(intern("signatures"), Value(std::move(sigs)));
  return Value(mods[0]);
}

}  // namespace weft::saved
