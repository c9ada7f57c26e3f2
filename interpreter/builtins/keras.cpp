#include "keras.h"

#include <map>
#include <set>

#include "../eval/operators.h"
#include "../graph/tracer.h"
#include "../mesh/scope.h"
#include "../values/format.h"
#include "../eval/args.h"
#include "../eval/name_scope.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

std::shared_ptr<ModuleObj> newModule(Interpreter& in, const std::string& typeName, const std::string& name) {
  auto m = std::make_shared<ModuleObj>();
  m->typeName = typeName;
  m->name = name;
  m->attrs = std::make_shared<Env>();
  in.trackEnv(m->attrs);
  mesh::moduleCreated(in, *m);  // remembers an active layout_map_scope
  return m;
}

void method(Interpreter& in, const std::shared_ptr<ModuleObj>& m, const char* name, NativeFn fn) {
  m->attrs->set(intern(name), makeBuiltin(name, std::move(fn), Value(m)));
  (void)in;
}

SymbolicTensor* symbolic(const Value& v) { return dynamic_cast<SymbolicTensor*>(v.object()); }

// A model's list attribute (`layers`, `inputs`, `outputs`), which its methods read through `self`:
// a native closure's capture is a reference the cycle collector cannot see, and would keep the
// layers alive after the model. The program may have replaced it.
ListObj& listAttr(const ModuleObj& m, const char* name, const SourceRange& site) {
  Value* v = m.attrs->findLocal(intern(name));
  if (!v || !v->is(Kind::List))
    throw WeftError(site, "model '" + m.name + "': its '" + name + "' attribute is no longer a list");
  return *v->as<ListObj>();
}

// `model(x, training=true)`, as Keras: the learning phase while the model's layers run (Dropout,
// BatchNormalization read it when their own training= is not given). Other keywords are errors.
struct TrainingKeyword {
  Interpreter& in;
  bool saved;
  TrainingKeyword(Interpreter& in, Args& a, const std::string& model) : in(in), saved(in.learningPhase()) {
    for (const auto& [k, v] : a.kw) {
      if (symbolName(k) != "training")
        throw WeftError(a.site, "model '" + model + "' got an unexpected keyword argument '" + symbolName(k) +
                                    "' (a model takes its inputs and training=)");
      if (!v.isNone()) in.learningPhase() = truthy(v);
    }
    a.kw.clear();
  }
  ~TrainingKeyword() { in.learningPhase() = saved; }
};

std::vector<Value> listOrOne(const Value& v) {
  if (v.is(Kind::List)) return v.as<ListObj>()->items;
  if (v.is(Kind::Tuple)) return v.as<TupleObj>()->items;
  return {v};
}

// Layers of one model must have distinct names (SPEC §5); their variables' paths use the names.
void addLayer(Interpreter& in, ModuleObj& model, ListObj& layers, const Value& layer, const SourceRange& site) {
  if (!layer.is(Kind::Module)) throw WeftError(site, "a model's layers must be modules, not " + typeNameOf(layer));
  auto* l = layer.as<ModuleObj>();
  for (const Value& other : layers.items)
    if (other.as<ModuleObj>()->name == l->name && !other.sameObject(layer))
      throw WeftError(site, "model '" + model.name + "' has two layers named '" + l->name +
                                "'; layer names must be unique within a model");
  layers.items.push_back(layer);
  in.adopt(&model, l->name, layer);
}

Value makeInput(Interpreter& in, const Shape& shape, std::optional<int64_t> batch, DType dtype, std::string name) {
  static int counter = 0;
  if (name.empty()) name = "input_" + std::to_string(++counter);
  auto layer = newModule(in, "InputLayer", name);
  layer->built = true;
  Shape full;
  full.push_back(batch.value_or(1));
  for (int64_t d : shape) full.push_back(d);
  layer->outputShape = full;
  layer->batchFixed = batch.has_value();
  auto sym = std::make_shared<SymbolicTensor>();
  sym->spec = Tensor::abstract(dtype, full);
  sym->batchIsNone = !batch;
  sym->layer = Value(layer);
  layer->attrs->set(intern("output"), Value(sym));
  return Value(sym);
}

Value input(Interpreter& in, Args& a) {
  ArgReader r(a, "Input", {"shape", "batch_size?", "dtype?", "name?"});
  Shape shape = r.shape(0);
  if (shape.rank() + 1 > rt::kMaxRank) r.fail(0, "has too many dimensions");
  std::optional<int64_t> batch;
  if (r.has(1)) {
    batch = r.integer(1);
    if (*batch <= 0) r.fail(1, "must be positive");
  }
  return makeInput(in, shape, batch, r.dtype(2, DType::F32), r.has(3) ? r.str(3) : "");
}

// Runs the recorded graph of symbolic tensor `t` on values bound to its inputs.
Value replay(Interpreter& in, const Value& t, std::map<const Object*, Value>& memo, const SourceRange& site) {
  if (auto it = memo.find(t.object()); it != memo.end()) return it->second;
  auto* sym = symbolic(t);
  if (!sym) return t;
  if (sym->inputs.empty())
    throw WeftError(site, "the model's outputs depend on input '" + sym->layer.as<ModuleObj>()->name +
                              "', which is not among its inputs");
  Args args;
  args.site = site;
  args.kw = sym->kwargs;
  for (const Value& i : sym->inputs)
    args.pos.push_back(mapSymbolic(i, [&](const Value& t) { return replay(in, t, memo, site); }));
  Value out = in.call(sym->layer, args);
  memo[t.object()] = out;
  return out;
}

// Depth-first from the outputs: every layer once, in an order where inputs come first.
void collectLayers(const Value& t, std::set<const Object*>& seen, std::vector<Value>& layers) {
  auto* sym = symbolic(t);
  if (!sym || !seen.insert(t.object()).second) return;
  for (const Value& i : sym->inputs)
    mapSymbolic(i, [&](const Value& x) { collectLayers(x, seen, layers); return x; });
  for (const Value& l : layers)
    if (l.sameObject(sym->layer)) return;
  if (!sym->inputs.empty()) layers.push_back(sym->layer);
}

Value model(Interpreter& in, Args& a) {
  ArgReader r(a, "Model", {"inputs", "outputs", "name?"});
  std::vector<Value> inputs = listOrOne(r.get(0)), outputs = listOrOne(r.get(1));
  for (const Value& v : inputs)
    if (!symbolic(v) || !symbolic(v)->inputs.empty())
      r.fail(0, "must be tensors made by Input(...), not " + typeNameOf(v));
  for (const Value& v : outputs)
    if (!symbolic(v)) r.fail(1, "must be tensors computed from the inputs by layers, not " + typeNameOf(v));
  auto m = newModule(in, "Functional", r.has(2) ? r.str(2) : in.uniqueModuleName("Model"));
  auto layers = std::make_shared<ListObj>();
  for (const Value& i : inputs) addLayer(in, *m, *layers, symbolic(i)->layer, a.site);
  std::set<const Object*> seen;
  std::vector<Value> ordered;
  for (const Value& o : outputs) collectLayers(o, seen, ordered);
  for (const Value& l : ordered) addLayer(in, *m, *layers, l, a.site);
  // Every output must be computed from the given inputs alone.
  std::map<const Object*, Value> probe;
  for (const Value& i : inputs) probe[i.object()] = i;
  std::function<void(const Value&)> check = [&](const Value& t) {
    auto* sym = symbolic(t);
    if (!sym || probe.count(t.object())) return;
    if (sym->inputs.empty())
      throw WeftError(a.site, "the model's outputs depend on input '" + sym->layer.as<ModuleObj>()->name +
                                  "', which is not among its inputs");
    probe[t.object()] = t;
    for (const Value& i : sym->inputs) mapSymbolic(i, [&](const Value& x) { check(x); return x; });
  };
  for (const Value& o : outputs) check(o);
  m->attrs->set(intern("layers"), Value(layers));
  m->attrs->set(intern("inputs"), makeList(inputs));
  m->attrs->set(intern("outputs"), makeList(outputs));
  m->built = true;
  addTrainingMethods(m);
  bool single = !r.get(1).is(Kind::List) && !r.get(1).is(Kind::Tuple);
  method(in, m, "call", [single](Interpreter& in, Args& a) {
    auto* self = a.self.as<ModuleObj>();
    const std::vector<Value> inputs = listAttr(*self, "inputs", a.site).items;
    const std::vector<Value> outputs = listAttr(*self, "outputs", a.site).items;
    TrainingKeyword phase(in, a, self->name);
    std::vector<Value> given = a.pos.size() == 1 && inputs.size() > 1 ? listOrOne(a.pos[0]) : a.pos;
    if (a.pos.size() == 1 && a.pos[0].is(Kind::Dict)) {  // Keras' {input name: tensor}
      auto* byName = a.pos[0].as<DictObj>();
      given.clear();
      for (const Value& i : inputs) {
        const std::string& name = symbolic(i)->layer.as<ModuleObj>()->name;
        Value* v = byName->find(makeStr(name));
        if (!v) throw WeftError(a.site, "model '" + self->name + "': the dict of inputs has no entry for input '" + name + "'");
        given.push_back(*v);
      }
      if (byName->entries.size() != inputs.size())
        throw WeftError(a.site, "model '" + self->name + "': the dict of inputs has entries that are not its inputs' names");
    }
    if (given.size() != inputs.size())
      throw WeftError(a.site, "model '" + self->name + "' takes " + std::to_string(inputs.size()) + " input" +
                                  (inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(given.size()));
    std::map<const Object*, Value> memo;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto* spec = symbolic(inputs[i]);
      if (!symbolic(given[i])) {
        const Tensor& t = tensorOf(given[i], "model input");
        bool ok = t.dtype() == spec->spec.dtype() && t.rank() == spec->spec.rank();
        for (int d = 0; ok && d < t.rank(); ++d)
          ok = (d == 0 && spec->batchIsNone) || t.shape()[d] == spec->spec.shape()[d];
        if (!ok)
          throw WeftError(a.site, "model '" + self->name + "': input '" + spec->layer.as<ModuleObj>()->name +
                                      "' expects " + spec->shapeText() + " " + rt::dtypeName(spec->spec.dtype()) +
                                      ", got " + typeNameOf(Value(t)));
      }
      memo[inputs[i].object()] = given[i];
    }
    std::vector<Value> results;
    for (const Value& o : outputs) results.push_back(replay(in, o, memo, a.site));
    return single ? results[0] : makeList(std::move(results));
  });
  return Value(m);
}

Value sequential(Interpreter& in, Args& a) {
  ArgReader r(a, "Sequential", {"layers?", "name?"});
  auto m = newModule(in, "Sequential", r.has(1) ? r.str(1) : in.uniqueModuleName("Sequential"));
  auto layers = std::make_shared<ListObj>();
  m->attrs->set(intern("layers"), Value(layers));
  method(in, m, "call", [](Interpreter& in, Args& a) {
    auto* self = a.self.as<ModuleObj>();
    TrainingKeyword phase(in, a, self->name);
    if (a.pos.size() != 1) throw WeftError(a.site, "Sequential model '" + self->name + "' takes one input");
    Value x = a.pos[0];
    // Copy: a layer's call may not change the list, but nothing here relies on that.
    std::vector<Value> ls = listAttr(*self, "layers", a.site).items;
    for (const Value& l : ls) {
      Args la;
      la.site = a.site;
      la.pos.push_back(x);
      x = in.call(l, la);
    }
    return x;
  });
  addTrainingMethods(m);
  method(in, m, "add", [](Interpreter& in, Args& a) {
    ArgReader r(a, "add", {"layer", "rebuild?"});
    auto* self = a.self.as<ModuleObj>();
    ListObj* layers = &listAttr(*self, "layers", a.site);
    Value layer = r.get(0);
    // `Sequential([Input(shape=[10]), ...])` declares the input the way input_shape= does.
    if (auto* sym = symbolic(layer); sym && sym->inputs.empty()) {
      if (!layers->items.empty()) r.fail(0, "an Input must come first");
      self->inputShape = layer;
      return Value();
    }
    addLayer(in, *self, *layers, layer, a.site);
    if (layers->items.size() == 1 && self->inputShape.isNone()) self->inputShape = layer.as<ModuleObj>()->inputShape;
    // With a known input (a first layer's input_shape=, or an Input), the model is built at
    // once, as in Keras: run it on shapes alone so that every layer builds and knows its output.
    if (r.flag(1, true) && !self->inputShape.isNone()) {
      const Value& shape = self->inputShape;
      Args ca;
      ca.site = a.site;
      // Keras 2 names the implicit input after the first layer: "dense_input".
      std::string inputName = layers->items[0].as<ModuleObj>()->name + "_input";
      ca.pos.push_back(symbolic(shape) ? shape
                                       : makeInput(in, shapeFromValue(shape, "input_shape"), std::nullopt, DType::F32,
                                                   inputName));
      in.call(a.self, ca);
      self->built = true;
      // The layers ran on shape-only tensors: an Input's batch_size is theirs too, as in Keras.
      bool fixed = symbolic(shape) && !symbolic(shape)->batchIsNone;
      for (const Value& l : layers->items) l.as<ModuleObj>()->batchFixed = fixed;
    }
    return Value();
  });
  Value self(m);
  if (r.has(0)) {
    Value add = *m->attrs->findLocal(intern("add"));
    std::vector<Value> items = r.items(0);
    for (size_t i = 0; i < items.size(); ++i) {
      Args la;
      la.site = a.site;
      la.pos.push_back(items[i]);
      la.kw.emplace_back(intern("rebuild"), Value(Tensor::scalar<bool>(i + 1 == items.size())));  // build once
      in.call(add, la);
    }
  }
  return self;
}

}  // namespace

void registerKeras(Env& env) {
  // tf.Module itself: a bare module that attributes (variables, submodules, functions) are added
  // to after construction (SPEC §5).
  def(env, "Module", [](Interpreter& in, Args& a) {
    ArgReader r(a, "Module", {"name?"});
    return Value(newModule(in, "Module", r.has(0) ? r.str(0) : in.uniqueModuleName("Module")));
  });
  // tf.keras.layers.Layer, made bare the same way (a Layer is a Module: builtins/classes.cpp).
  def(env, "Layer", [](Interpreter& in, Args& a) {
    ArgReader r(a, "Layer", {"name?"});
    return Value(newModule(in, "Layer", r.has(0) ? r.str(0) : in.uniqueModuleName("Layer")));
  });
  // tf.name_scope: `with name_scope("block") { ... }` (eval/name_scope.h).
  def(env, "name_scope", [](Interpreter&, Args& a) {
    ArgReader r(a, "name_scope", {"name"});
    std::string name = r.str(0);
    if (name.empty()) r.fail(0, "must not be empty");
    for (char c : name)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) r.fail(0, "must not hold control characters");
    return Value(std::make_shared<NameScopeObj>(Interpreter::NameScope{name, nullptr, true}));
  });
  def(env, "Input", input);
  def(env, "Model", model);
  def(env, "Sequential", sequential);
  registerTerminal(env);
  registerCallbackHelpers(env);
  registerKerasSaving(env);
  def(env, "error", [](Interpreter&, Args& a) -> Value {
    ArgReader r(a, "error", {"message"});
    std::string message = toStr(r.get(0));
    // In a branch or loop body on graph values: a check that fails when the graph runs that block.
    if (auto* tracer = graph::Tracer::active(); tracer && tracer->depth() > 1) {
      tracer->fail(message, a.site);
      return Value();
    }
    throw WeftError(message);
  });
  def(env, "learning_phase", [](Interpreter& in, Args& a) {
    ArgReader r(a, "learning_phase", {});
    return Value(Tensor::scalar<bool>(in.learningPhase()));
  });
  def(env, "set_learning_phase", [](Interpreter& in, Args& a) {
    ArgReader r(a, "set_learning_phase", {"training"});
    in.learningPhase() = r.flag(0);
    return Value();
  });
}

}  // namespace weft
