// Calling a graph function: the signature of its arguments picks (or traces) a graph, which the
// executor runs. Tracing runs the body with the tensor arguments replaced by graph inputs.
#include "graph_call.h"

#include <algorithm>
#include <ostream>

#include "../../grammar/shown_text.h"
#include "../autodiff/tape.h"
#include "../graph/passes.h"
#include "../graph/spmd_executor.h"
#include "../graph/tracer.h"
#include "../graph/verify.h"
#include "../spmd/sharded_tensor.h"
#include "../values/format.h"
#include "interpreter.h"
#include "operators.h"
#include "args.h"
#include "exports.h"
#include "hooks.h"
#include "types.h"

namespace weft {
namespace {

constexpr int kRetraceWarning = 6;  // TensorFlow warns after five traces

// The parameter's declared type, when it gives a shape: `f32[None, 784]`.
std::optional<graph::TensorType> annotatedType(const ast::Param& p, DType dtype) {
  if (!p.type || !p.type->hasDims) return std::nullopt;
  graph::TensorType t{dtype, {}};
  for (const auto& d : p.type->dims) t.shape.push_back(d ? *d : rt::kUnknownDim);
  return t;
}

}  // namespace

std::optional<graph::TensorType> annotatedSignature(const ast::TypeExpr& t) {
  std::optional<DType> dtype = dtypeFromString(t.base);
  // `int` and `float` arguments are traced by their values; `f32` alone has no rank.
  if (!dtype || !t.hasDims) return std::nullopt;
  graph::TensorType type{*dtype, {}};
  for (const auto& d : t.dims) type.shape.push_back(d ? *d : rt::kUnknownDim);
  return type;
}

bool fullyAnnotated(const FunctionObj& fn) {
  if (!fn.graph || !fn.body) return false;
  for (const auto& p : *fn.params)
    if (!p.type || !annotatedSignature(*p.type)) return false;
  return true;
}

void Interpreter::applyInputSignature(FunctionObj& fn, const ast::Call& decorator, const std::shared_ptr<Env>& env) {
  const ast::Expr* sigExpr = nullptr;
  for (const auto& a : decorator.args) {
    if (!a.keyword || symbolName(*a.keyword) != "input_signature")
      throw WeftError(a.range, "@function takes input_signature=[TensorSpec(...), ...] only");
    sigExpr = a.value.get();
  }
  if (!sigExpr) throw WeftError(decorator.range, "@function() needs input_signature=[TensorSpec(...), ...]");
  Value sig = eval(*sigExpr, env);
  const std::vector<Value>* specs = sig.is(Kind::List)    ? &sig.as<ListObj>()->items
                                    : sig.is(Kind::Tuple) ? &sig.as<TupleObj>()->items
                                                          : nullptr;
  if (!specs) throw WeftError(sigExpr->range, "input_signature must be a list of TensorSpecs, got " + typeNameOf(sig));
  const auto& params = *fn.params;
  if (specs->size() != params.size())
    throw WeftError(sigExpr->range, "input_signature gives " + std::to_string(specs->size()) + " TensorSpec" +
                                        (specs->size() == 1 ? "" : "s") + " for the " + std::to_string(params.size()) +
                                        " parameter" + (params.size() == 1 ? "" : "s") + " of " + fn.name + "()");
  auto own = std::make_shared<std::vector<ast::Param>>();
  for (size_t i = 0; i < params.size(); ++i) {
    const Value& item = (*specs)[i];
    auto* spec = item.is(Kind::Opaque) ? dynamic_cast<const TensorSpecObj*>(item.as<OpaqueObj>()) : nullptr;
    if (!spec)
      throw WeftError(sigExpr->range, "input_signature[" + std::to_string(i) + "] must be a TensorSpec, got " +
                                          typeNameOf((*specs)[i]));
    auto type = std::make_unique<ast::TypeExpr>();
    type->range = params[i].range;
    type->base = rt::dtypeName(spec->type.dtype);
    type->hasDims = true;
    for (int64_t d : spec->type.shape) type->dims.push_back(d == rt::kUnknownDim ? std::nullopt : std::optional(d));
    if (params[i].type && annotatedSignature(*params[i].type) != std::optional(spec->type))
      throw WeftError(params[i].type->range, "parameter '" + symbolName(params[i].name) + "' is annotated " +
                                                 typeText(*params[i].type) + " but input_signature gives it " +
                                                 typeText(*type));
    ast::Param p;
    p.name = params[i].name;
    p.range = params[i].range;
    p.type = std::move(type);
    own->push_back(std::move(p));
  }
  fn.signedParams = own;
  fn.params = own.get();
  fn.inputSpecs = *specs;
}

namespace {

// How one argument enters the signature: as graph inputs of some types, or by its value.
struct ArgSignature {
  std::string key;
  ParamInputs inputs;
};

// A list or tuple of tensors (none of them a literal) enters as one input per item.
bool tensorSequence(const Value& v) {
  if (!v.is(Kind::List) && !v.is(Kind::Tuple)) return false;
  const auto& items = v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items;
  for (const Value& x : items)
    if (!x.isTensor() || x.weak()) return false;
  return !items.empty();
}

// A tensor is a graph input; so is a literal for a parameter annotated with a tensor type
// (`n: i32[]`). A literal for an unannotated or `int`/`float` parameter is traced by value, as
// TensorFlow treats Python numbers, so that `range(n)` knows n.
ArgSignature signatureOf(const ast::Param& p, const Value& v) {
  if (v.isTensor() && (!v.weak() || (p.type && p.type->hasDims))) {
    const Tensor& t = v.tensor();
    graph::TensorType type = annotatedType(p, t.dtype()).value_or(graph::typeOf(t));
    // A sharded argument is traced with its layout: another layout is another graph.
    const spmd::ShardedTensor* s = spmd::shardsOf(t);
    const std::string layout = s ? " " + spmd::placementsText(s->mesh, s->placements) : "";
    return {graph::typeText(type) + layout, {{type}, Kind::None}};
  }
  if (tensorSequence(v)) {
    ArgSignature s{typeNameOf(v) + "[", {{}, v.kind()}};
    for (const Value& x : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items) {
      s.inputs.types.push_back(graph::typeOf(x.tensor()));
      s.key += (s.inputs.types.size() > 1 ? ", " : "") + graph::typeText(s.inputs.types.back());
    }
    s.key += "]";
    return s;
  }
  // Literals, strings and none are traced as constants; objects (modules, variables, functions)
  // by identity: their variables are read by the graph when it runs.
  if (v.isTensor() || v.isNone() || v.is(Kind::Str) || v.is(Kind::DType)) return {toRepr(v), {}};
  if (v.is(Kind::List) || v.is(Kind::Tuple)) return {typeNameOf(v) + ":" + toRepr(v), {}};
  return {"object@" + std::to_string(reinterpret_cast<uintptr_t>(v.object())), {}};
}

// A returned Variable gives its value, as tf.function returns a tensor for `return self.x`.
Value readVariables(const Value& v) {
  if (v.is(Kind::Variable)) return Value(readVariable(*v.as<VariableObj>()));
  auto items = [&](const std::vector<Value>& xs) {
    std::vector<Value> r;
    for (const auto& x : xs) r.push_back(readVariables(x));
    return r;
  };
  if (v.is(Kind::List)) return makeList(items(v.as<ListObj>()->items));
  if (v.is(Kind::Tuple)) return makeTuple(items(v.as<TupleObj>()->items));
  return v;
}

void flatten(const Value& v, std::vector<Tensor>& out) {
  if (v.isTensor()) return out.push_back(v.tensor());
  if (v.is(Kind::List))
    for (const auto& x : v.as<ListObj>()->items) flatten(x, out);
  if (v.is(Kind::Tuple))
    for (const auto& x : v.as<TupleObj>()->items) flatten(x, out);
  if (v.is(Kind::Dict))
    for (const auto& [k, x] : v.as<DictObj>()->entries) flatten(x, out);
}

Value rebuild(const Value& v, const std::vector<Tensor>& outs, size_t& next) {
  if (v.isTensor()) return Value(outs[next++]);
  auto items = [&](const std::vector<Value>& xs) {
    std::vector<Value> r;
    for (const auto& x : xs) r.push_back(rebuild(x, outs, next));
    return r;
  };
  if (v.is(Kind::List)) return makeList(items(v.as<ListObj>()->items));
  if (v.is(Kind::Tuple)) return makeTuple(items(v.as<TupleObj>()->items));
  if (v.is(Kind::Dict)) {
    auto d = std::make_shared<DictObj>();
    for (const auto& [k, x] : v.as<DictObj>()->entries) d->set(k, rebuild(x, outs, next));
    return Value(std::move(d));
  }
  return v;
}

}  // namespace

bool Interpreter::insideGraphFunction() { return graph::Tracer::active() != nullptr; }

Value Interpreter::traceInto(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site) {
  for (const FunctionObj* f : tracing_)
    if (f == &fn)
      throw WeftError(site, "graph function " + fn.name +
                                    "() calls itself: a graph cannot recurse; use a while loop, or drop @function");
  tracing_.push_back(&fn);
  struct Pop {
    std::vector<const FunctionObj*>& s;
    ~Pop() { s.pop_back(); }
  } pop{tracing_};
  if (fn.lambdaBody) return eval(*fn.lambdaBody, local);
  Frame frame;
  frame.function = &fn.name;
  execBlock(*fn.body, local, frame);
  return std::move(frame.returnValue);
}

std::unique_ptr<GraphTraces::Entry> Interpreter::traceGraph(FunctionObj& fn, const std::shared_ptr<Env>& local,
                                                            const std::vector<ParamInputs>& inputs,
                                                            const SourceRange& site) {
  auto e = std::make_unique<GraphTraces::Entry>();
  std::optional<ScopeGuard> scope = methodScope(fn);  // also when traced alone (weft graph, save)
  graph::Tracer tracer(fn.name);
  tracer.loc = {fn.range.valid() ? fn.range.file->path : "", int(fn.range.begin.line)};
  tracer.scope = graphScope();
  const auto& params = *fn.params;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInputs& in = inputs[i];
    if (in.types.empty()) continue;
    if (in.sequence == Kind::None) {
      e->inputSlots.emplace_back(i, -1);
      local->set(params[i].name, Value(tracer.addInput(in.types[0])));
      continue;
    }
    std::vector<Value> items;
    for (size_t k = 0; k < in.types.size(); ++k) {
      e->inputSlots.emplace_back(i, int(k));
      items.push_back(Value(tracer.addInput(in.types[k])));
    }
    local->set(params[i].name, in.sequence == Kind::List ? makeList(std::move(items)) : makeTuple(std::move(items)));
  }
  for (auto [param, item] : e->inputSlots) {
    const auto* spec = param < fn.inputSpecs.size() && item < 0 && fn.inputSpecs[param].is(Kind::Opaque)
                           ? dynamic_cast<const TensorSpecObj*>(fn.inputSpecs[param].as<OpaqueObj>())
                           : nullptr;
    e->inputLayouts.emplace_back(spec ? spec->mesh : spmd::MeshAxes{}, spec ? spec->placements : spmd::Placements{});
  }
  Value result = readVariables(traceInto(fn, local, site));
  std::vector<Tensor> outs;
  flatten(result, outs);
  // What tracing evaluated and left unused (a loop's condition probed before the loop, a variable
  // read whose value nothing takes) is not part of the function.
  e->graph = graph::renumberValues(graph::removeDeadCode(tracer.finish(outs)));
  // The tracer's own invariants (an error here is a bug in Weft); a shape-only trace (weft
  // check) has constants without data, which only a graph that runs needs.
  if (!ops::shapesOnly()) graph::verify(e->graph);
  e->variables = tracer.variables();
  e->structure = std::move(result);
  return e;
}

std::unique_ptr<GraphTraces::Entry> Interpreter::traceAnnotated(FunctionObj& fn) {
  std::vector<graph::TensorType> types;
  for (const auto& p : *fn.params) {
    std::optional<graph::TensorType> t = p.type ? annotatedSignature(*p.type) : std::nullopt;
    if (!t)
      throw WeftError(fn.range, fn.name + "() cannot be traced without its arguments: parameter '" +
                                    symbolName(p.name) + "' has no tensor annotation (such as f32[None, 784])");
    types.push_back(*t);
  }
  return traceSignature(fn, types, fn.range);
}

namespace {

// XLA's automatic cross-replica sharding of the weight update (ZeRO's first stage): an optimizer's
// slot without a layout of its own is stored split over each data-parallel mesh dimension — one
// that splits an input or a non-trainable variable (the batch) but no trainable variable — along
// its first tensor dimension that the dimension's size divides. Each device then keeps and
// updates its part of the slots and of the weight: the weight gradient's all-reduce becomes its
// two halves, a reduce-scatter before the update and an all-gather of the updated weight (the
// same bytes), and the update's work and the slots' memory are divided among the devices.
void splitOptimizerSlots(graph::Graph& g, const GraphTraces::Entry& e) {
  const int rank = g.mesh.rank();
  std::vector<bool> splitsData(size_t(rank), false), splitsWeights(size_t(rank), false);
  auto note = [&](const spmd::Placements& ps, std::vector<bool>& dims) {
    for (size_t k = 0; k < ps.size() && k < dims.size(); ++k)
      if (!ps[k].replicated()) dims[k] = true;
  };
  for (int param : g.body.params) note(g.placementsOf(param), splitsData);
  for (size_t k = 0; k < e.variables.size(); ++k)
    if (!e.variables[k]->optimizerSlot)
      note(g.variables[k].placements, e.variables[k]->trainable ? splitsWeights : splitsData);
  for (size_t k = 0; k < e.variables.size(); ++k) {
    graph::VariableSlot& v = g.variables[k];
    if (!e.variables[k]->optimizerSlot || !v.placements.empty()) continue;
    spmd::Placements ps(static_cast<size_t>(rank));
    const rt::Shape& shape = v.type.shape;
    std::vector<int64_t> parts(size_t(shape.size()), 1);  // the blocks each tensor dimension is cut into
    for (int m = 0; m < rank; ++m) {
      if (!splitsData[size_t(m)] || splitsWeights[size_t(m)]) continue;
      const int64_t size = g.mesh.sizes[size_t(m)];
      for (int d = 0; d < int(shape.size()); ++d)
        if (int64_t& cut = parts[size_t(d)]; shape[d] >= size * cut && shape[d] % (size * cut) == 0) {
          ps[size_t(m)] = spmd::Placement::s(d);
          cut *= size;
          break;
        }
    }
    if (std::any_of(ps.begin(), ps.end(), [](const spmd::Placement& p) { return !p.replicated(); }))
      v.placements = std::move(ps);
  }
}

}  // namespace

std::string placeOnMesh(graph::Graph& g, const GraphTraces::Entry& e, const std::string& name, const SourceRange& at) {
  std::string first;  // what put the graph on its mesh
  auto onMesh = [&](const spmd::MeshAxes& axes, const std::string& what) {
    if (!g.mesh.empty() && !(axes == g.mesh))
      throw WeftError(at, name + ": layouts on two meshes meet in one graph: " + first + " on mesh(" +
                              spmd::meshText(g.mesh) + ") and " + what + " on mesh(" + spmd::meshText(axes) + ")");
    if (g.mesh.empty()) first = what;
    g.mesh = axes;
  };
  for (size_t k = 0; k < e.variables.size(); ++k) {
    spmd::MeshAxes axes;
    spmd::Placements placements;
    if (!evalHooks().variablePlacements(*e.variables[k], axes, placements)) continue;
    onMesh(axes, "variable '" + shownText(g.variables[k].name) + "'");
    g.variables[k].placements = placements;
  }
  // distribute() and relayout() in the function: the relayout op names its mesh.
  std::function<void(const graph::Block&)> relayouts = [&](const graph::Block& b) {
    for (const graph::Node& n : b.nodes) {
      for (const graph::Block& inner : n.blocks) relayouts(inner);
      if (n.op == ops::OpId::Relayout)
        onMesh(spmd::relayoutMesh(n.attrs), "the relayout at line " + std::to_string(n.loc.line));
    }
  };
  relayouts(g.body);
  for (size_t j = 0; j < e.inputLayouts.size(); ++j) {
    const auto& [axes, placements] = e.inputLayouts[j];
    if (axes.empty()) continue;
    onMesh(axes, "input " + std::to_string(j));
    if (g.placements.size() < g.values.size()) g.placements.resize(g.values.size());
    g.placements[size_t(g.body.params[j])] = placements;
  }
  if (!g.mesh.empty()) splitOptimizerSlots(g, e);
  return g.mesh.empty() ? "" : "mesh(" + spmd::meshText(g.mesh) + ")";
}

namespace {

// Why weft compile cannot return what an export's trace returned, or "": a C++ signature holds
// tensors, one output each, from a tensor or tuples, lists and dicts of them (in order).
std::string exportResultProblem(const Value& result) {
  std::vector<const Value*> todo{&result};
  size_t tensors = 0;
  while (!todo.empty()) {
    const Value* v = todo.back();
    todo.pop_back();
    if (v->isTensor()) {
      ++tensors;
    } else if (v->is(Kind::Tuple) || v->is(Kind::List)) {
      const auto& items = v->is(Kind::Tuple) ? v->as<TupleObj>()->items : v->as<ListObj>()->items;
      for (const Value& item : items) todo.push_back(&item);
    } else if (v->is(Kind::Dict)) {
      for (const auto& kv : v->as<DictObj>()->entries) todo.push_back(&kv.second);
    } else {
      return "returns " + typeNameOf(*v) + (v == &result ? "" : " among its results");
    }
  }
  return tensors ? "" : "returns no tensor";
}

}  // namespace

std::unique_ptr<GraphTraces::Entry> Interpreter::traceExport(const Export& e) {
  std::unique_ptr<GraphTraces::Entry> entry = traceSignature(*e.fn.as<FunctionObj>(), e.signature, e.site);
  // The export's TensorSpec layouts, else the function's input_signature's (placeOnMesh reads them).
  for (size_t j = 0; j < e.inputLayouts.size() && j < entry->inputLayouts.size(); ++j)
    if (!e.inputLayouts[j].first.empty()) entry->inputLayouts[j] = e.inputLayouts[j];
  if (std::string why = exportResultProblem(entry->structure); !why.empty())
    throw WeftError(e.site, "export '" + e.name + "' " + why +
                                ": compiled code returns tensors (a tensor, or a tuple, list or dict of them)");
  return entry;
}

std::unique_ptr<GraphTraces::Entry> Interpreter::traceSignature(FunctionObj& fn,
                                                                const std::vector<graph::TensorType>& types,
                                                                const SourceRange& site) {
  auto local = std::make_shared<Env>(fn.closure);
  std::vector<ParamInputs> inputs;
  for (const graph::TensorType& t : types) inputs.push_back({{t}, Kind::None});
  for (const auto& p : *fn.params) local->set(p.name, Value());
  return traceGraph(fn, local, inputs, site);
}

namespace {

// A sharded argument, where no TensorSpec gave a layout, arrives with its own.
void takeArgumentLayouts(GraphTraces::Entry& e, const std::vector<Value>& args) {
  for (size_t j = 0; j < e.inputSlots.size(); ++j) {
    const auto [param, item] = e.inputSlots[j];
    const spmd::ShardedTensor* s = item < 0 && args[param].isTensor() ? spmd::shardsOf(args[param].tensor()) : nullptr;
    if (s && e.inputLayouts[j].first.empty()) e.inputLayouts[j] = {s->mesh, s->placements};
  }
}

}  // namespace

void Interpreter::planGraphCall(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site) {
  if (graph::Tracer::active() || autodiff::Tape::active() || fullyAnnotated(fn)) return;
  std::string key;
  std::vector<ParamInputs> inputs;
  std::vector<Value> args;
  auto bound = std::make_shared<Env>(fn.closure);  // tracing rebinds the tensor arguments: not the caller's
  for (const auto& p : *fn.params) {
    args.push_back(*local->findLocal(p.name));
    ArgSignature sig = signatureOf(p, args.back());
    key += sig.key + ";";
    inputs.push_back(sig.inputs);
    bound->set(p.name, args.back());
  }
  if (!plannedSignatures_.insert({&fn, key}).second) return;
  std::unique_ptr<GraphTraces::Entry> e = traceGraph(fn, bound, inputs, site);
  takeArgumentLayouts(*e, args);
  graph::Graph placed = e->graph;
  if (!placeOnMesh(placed, *e, fn.name, site).empty()) plannedCalls_.push_back({fn.name, site, std::move(placed)});
}

Value Interpreter::callGraphFunction(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site) {
  if (graph::Tracer::active()) return traceInto(fn, local, site);  // a graph function called by one: inlined
  // Under a gradient tape outside a trace, the body runs eagerly so that the tape sees its ops.
  if (autodiff::Tape::active()) return traceInto(fn, local, site);
  if (!fn.traces) fn.traces = std::make_shared<GraphTraces>();
  GraphTraces& traces = *fn.traces;
  const auto& params = *fn.params;
  std::vector<ArgSignature> sig;
  std::string key;
  for (const auto& p : params) {
    sig.push_back(signatureOf(p, *local->findLocal(p.name)));
    key += sig.back().key + ";";
  }
  std::vector<Value> args;  // the bound arguments; tracing rebinds the tensor ones
  for (const auto& p : params) args.push_back(*local->findLocal(p.name));
  GraphTraces::Entry* entry = nullptr;
  for (auto& e : traces.entries)
    if (e->key == key) entry = e.get();
  if (!entry) {
    std::vector<ParamInputs> inputs;
    for (const auto& s : sig) inputs.push_back(s.inputs);
    std::unique_ptr<GraphTraces::Entry> e = traceGraph(fn, local, inputs, site);
    e->key = key;
    takeArgumentLayouts(*e, args);
    // On a mesh, the runner partitions a copy placed by the variables' layouts; the entry keeps the
    // graph as traced (weft graph, saved models, weft compile).
    graph::Graph placed = e->graph;
    placeOnMesh(placed, *e, fn.name, site);
    try {
      e->executor = graph::makeRunner(placed.mesh.empty() ? e->graph : placed, e->variables, out_,
                                      [this, site] { checkInterrupt(site); });
    } catch (const std::logic_error& bug) {  // a pass broke the graph: said at the call, not a crash
      throw WeftError(site, "internal error preparing " + fn.name + "() to run: " + bug.what());
    }
    traces.signaturesSeen.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) traces.signaturesSeen[i].insert(sig[i].key);
    if (++traces.traceCount >= kRetraceWarning && !traces.warned) {
      traces.warned = true;
      size_t worst = 0;
      for (size_t i = 1; i < params.size(); ++i)
        if (traces.signaturesSeen[i].size() > traces.signaturesSeen[worst].size()) worst = i;
      std::string arg = params.empty() ? "" : symbolName(params[worst].name);
      out_.flush();
      err_ << formatDiagnostic({Severity::Warning, site,
                                fn.name + "() has been traced " + std::to_string(traces.traceCount) +
                                    " times: its argument '" + arg + "' changes signature (" + sig[worst].key +
                                    " now); annotate it with None dimensions (e.g. " + arg +
                                    ": f32[None]) so that one graph serves every size"});
      err_.flush();
    }
    traces.entries.push_back(std::move(e));
    entry = traces.entries.back().get();
  }
  std::vector<Tensor> inputs;
  for (auto [param, item] : entry->inputSlots) {
    const Value& a = args[param];
    if (item < 0) inputs.push_back(a.tensor());
    else inputs.push_back((a.is(Kind::List) ? a.as<ListObj>()->items : a.as<TupleObj>()->items)[size_t(item)].tensor());
    // A size the signature left open must still divide by the mesh dimensions that split it.
    const auto& [axes, placements] = entry->inputLayouts[inputs.size() - 1];
    if (std::optional<std::string> why = axes.empty() ? std::nullopt : spmd::misfit(inputs.back().shape(), placements, axes))
      throw WeftError(site, fn.name + "(): argument '" + symbolName(params[param].name) + "' of shape " +
                                inputs.back().shape().str() + " does not fit its TensorSpec's layout: " + *why);
  }
  std::vector<Tensor> before;
  if (recorder_)
    for (const auto& v : entry->variables) before.push_back(readVariable(*v));
  std::vector<Tensor> outs = entry->executor->run(inputs);
  if (recorder_) recorder_(fn, *entry, inputs, before, outs);
  // Results leave with the layout their computation gave them; one every device holds whole is
  // an ordinary tensor.
  std::shared_ptr<OpaqueObj> mesh;  // the user's Mesh a sharded argument lies on, for x.layout
  for (const Tensor& t : inputs)
    if (const spmd::ShardedTensor* s = spmd::shardsOf(t); s && !mesh) mesh = s->meshObject;
  for (Tensor& t : outs) t = spmd::withMeshObject(spmd::wholeIfReplicated(t), mesh);
  size_t next = 0;
  return rebuild(entry->structure, outs, next);
}

}  // namespace weft
