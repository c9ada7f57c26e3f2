#include "tracer.h"

#include "../../grammar/diagnostics.h"

namespace weft::graph {
TensorType typeOf(const Tensor& t) { return {t.dtype(), t.shape()}; }

Tracer::Tracer(std::string name)
    : outer_(context().tracer),
      epoch_(++context().traces),
      outerEpoch_(currentTraceEpoch()),
      outerHook_(ops::traceHook()),
      outerAccess_(variableAccess()) {
  setCurrentTraceEpoch(epoch_);
  context().liveTraces.push_back(epoch_);
  context().traceNames.push_back(name);
  graph_.name = std::move(name);
  blocks_.push_back(&graph_.body);
  context().tracer = this;
  ops::setTraceHook(this);
  setVariableAccess(this);
}

Tracer::~Tracer() {
  context().liveTraces.pop_back();
  context().tracer = outer_;
  setCurrentTraceEpoch(outerEpoch_);
  ops::setTraceHook(outerHook_);
  setVariableAccess(outerAccess_);
}

Tracer* Tracer::active() { return context().tracer; }

Tracer::Pause::Pause()
    : tracer_(context().tracer), hook_(ops::traceHook()), access_(variableAccess()), epoch_(currentTraceEpoch()) {
  context().tracer = nullptr;
  setCurrentTraceEpoch(0);
  ops::setTraceHook(nullptr);
  setVariableAccess(nullptr);
}

Tracer::Pause::~Pause() {
  context().tracer = tracer_;
  setCurrentTraceEpoch(epoch_);
  ops::setTraceHook(hook_);
  setVariableAccess(access_);
}

Tensor Tracer::addInput(const TensorType& t) {
  int id = graph_.addValue(t);
  graph_.body.params.push_back(id);
  return Tensor::symbolic(t.dtype, t.shape, id, epoch_);
}

Tensor Tracer::symbolicOf(int id) const {
  const TensorType& t = graph_.values.at(size_t(id));
  return Tensor::symbolic(t.dtype, t.shape, id, epoch_);
}

int Tracer::valueOf(const Tensor& t) {
  if (t.isSymbolic()) {
    if (t.trace() == epoch_) return t.symbol();
    requireLiveTrace(t);  // a leaked value of a finished trace: the error names its function
    throw WeftError("a value of the graph traced for " + context().traceNames[t.trace() - 1] +
                    "() cannot enter the graph of " + graph_.name + "(): pass it as an argument");
  }
  // A shape-only tensor (a plan, weft check) enters as a constant without data: such a graph is
  // checked, never run.
  if (t.isAbstract() && !ops::shapesOnly()) throw WeftError("a shape-only tensor cannot enter a graph");
  if (!t.isAbstract()) {
    auto it = constants_.find(t.raw());
    if (it != constants_.end() && graph_.values[size_t(it->second)] == typeOf(t)) return it->second;
  }
  // Constants go to the top block, before the node being built: every nested block sees them.
  int id = graph_.addValue(typeOf(t));
  Node n;
  n.op = ops::OpId::Constant;
  n.attrs.set("value", t);
  n.outputs = {id};
  n.loc = loc;
  n.scope = scope;
  graph_.body.nodes.push_back(std::move(n));
  if (t.isAbstract()) return id;
  constants_[t.raw()] = id;
  keep_.push_back(t);
  return id;
}

std::vector<Tensor> Tracer::emit(ops::OpId op, std::vector<int> inputs, ops::Attrs attrs,
                                 const std::vector<TensorType>& outputs, std::vector<Block> blocks) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.blocks = std::move(blocks);
  n.loc = loc;
  n.scope = scope;
  std::vector<Tensor> out;
  for (const auto& t : outputs) {
    int id = graph_.addValue(t);
    n.outputs.push_back(id);
    out.push_back(Tensor::symbolic(t.dtype, t.shape, id, epoch_));
  }
  blocks_.back()->nodes.push_back(std::move(n));
  return out;
}

std::vector<Tensor> Tracer::record(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs,
                                   std::vector<Tensor> inferred) {
  std::vector<int> ids;
  for (const auto& t : in) ids.push_back(valueOf(t));
  std::vector<TensorType> types;
  for (const auto& t : inferred) {
    TensorType type = typeOf(t);
    // Size arithmetic on unknown dimensions (concat of two) stays unknown.
    for (int i = 0; i < type.shape.rank(); ++i)
      if (type.shape[i] < 0) type.shape[i] = rt::kUnknownDim;
    types.push_back(type);
  }
  return emit(op, std::move(ids), attrs, types);
}

int Tracer::slotOf(VariableObj& v) {
  for (size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].get() == &v) return int(i);
  vars_.push_back(std::static_pointer_cast<VariableObj>(v.shared_from_this()));
  graph_.variables.push_back({v.path().empty() ? v.name : v.path(), typeOf(v.value), scope});
  return int(vars_.size()) - 1;
}

Tensor Tracer::read(VariableObj& v) {
  int slot = slotOf(v);
  return emit(ops::OpId::ReadVariable, {}, {{"var", int64_t(slot)}}, {typeOf(v.value)})[0];
}

void Tracer::write(VariableObj& v, const Tensor& value) {
  int slot = slotOf(v);
  emit(ops::OpId::AssignVariable, {valueOf(value)}, {{"var", int64_t(slot)}}, {});
}

void Tracer::print(const std::string& format, const std::vector<Tensor>& args) {
  std::vector<int> ids;
  for (const auto& t : args) ids.push_back(valueOf(t));
  emit(ops::OpId::Print, std::move(ids), {{"format", format}}, {});
}

void Tracer::check(const Tensor& cond, const std::string& message, const SourceRange& at) {
  // Every REPL input is named "<repl>": kept by that name, a later input would lend its lines to
  // this one's error, which names its place without the line instead.
  if (at.valid() && at.file->path != "<repl>") keepSource(at.file);
  const std::string file = at.valid() ? at.file->path : std::string();
  std::vector<int64_t> span = {at.begin.line, at.begin.col, at.end.line, at.end.col};
  emit(ops::OpId::Check, {valueOf(cond)}, {{"message", message}, {"file", file}, {"span", std::move(span)}}, {});
}

void Tracer::fail(const std::string& message, const SourceRange& at) {
  check(Tensor::scalar<bool>(false), message, at);
  markFailing();
}

std::vector<Tensor> Tracer::beginBlock(const std::vector<TensorType>& params) {
  open_.push_back(std::make_unique<Block>());
  Block* b = open_.back().get();
  std::vector<Tensor> out;
  for (const auto& t : params) {
    int id = graph_.addValue(t);
    b->params.push_back(id);
    out.push_back(Tensor::symbolic(t.dtype, t.shape, id, epoch_));
  }
  blocks_.push_back(b);
  failing_.push_back(0);
  return out;
}

Block Tracer::endBlock(const std::vector<Tensor>& results) {
  for (const auto& t : results) blocks_.back()->results.push_back(valueOf(t));
  Block b = std::move(*open_.back());
  open_.pop_back();
  blocks_.pop_back();
  failing_.pop_back();
  return b;
}

void Tracer::inlineBlock(Block&& b) {
  std::vector<Node>& to = blocks_.back()->nodes;
  to.insert(to.end(), std::make_move_iterator(b.nodes.begin()), std::make_move_iterator(b.nodes.end()));
}

Graph Tracer::finish(const std::vector<Tensor>& results) {
  for (const auto& t : results) graph_.body.results.push_back(valueOf(t));
  return std::move(graph_);
}

}  // namespace weft::graph
