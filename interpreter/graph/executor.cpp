#include "executor.h"

#include <algorithm>
#include <ostream>

#include "../../grammar/diagnostics.h"
#include "../../grammar/shown_text.h"
#include "../../stdlib/runtime/strided.h"
#include "../spmd/blocks.h"
#include "../values/context.h"
#include "../values/format.h"
#include "comm_counts.h"
#include "passes.h"
#include "pipeline.h"
#include "variable_plan.h"

namespace weft::graph {

std::string formatPrint(const std::string& format, std::span<const Tensor> args) {
  std::string s;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      s += c;
      ++i;
    } else if (c == '{' && i + 1 < format.size() && format[i + 1] == '}') {
      if (next < args.size()) s += formatTensor(args[next++]);
      ++i;
    } else if (c == '{' && i + 1 < format.size() && format[i + 1] == ':') {  // an f-string field's spec
      size_t close = format.find('}', i);
      if (next < args.size()) s += formatWithSpec(Value(args[next++]), format.substr(i + 2, close - i - 2));
      i = close;
    } else {
      s += c;
    }
  }
  return s;
}

namespace {
SourceRange checkPlace(const ops::Attrs& attrs) {
  const std::vector<int64_t>& span = attrs.ints("span");
  auto pos = [&](size_t i) { return SourcePos{uint32_t(span[i]), uint32_t(span[i + 1])}; };
  return {keptSource(attrs.s("file")), pos(0), pos(2)};
}
}  // namespace

WeftError checkFailure(const ops::Attrs& attrs) {
  SourceRange at = checkPlace(attrs);
  if (at.file && at.begin.line <= at.file->lineStarts.size()) return WeftError(at, attrs.s("message"));
  return WeftError(attrs.s("message") + " (in the graph, at " + attrs.s("file") + ":" + std::to_string(at.begin.line) +
                   ":" + std::to_string(at.begin.col) + ")");
}

std::string checkFailureLine(const ops::Attrs& attrs) {
  const SourceRange at = checkPlace(attrs);
  return shownText(attrs.s("file")) + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.col) +
         ": error: " + shownText(attrs.s("message"), true);
}

Executor::Executor(const Graph& g, std::vector<std::shared_ptr<VariableObj>> variables, std::ostream& out,
                   std::function<void()> onLoop)
    : g_(g), optimized_(runPipeline(g, Target::Executor)), vars_(std::move(variables)), out_(out),
      onLoop_(std::move(onLoop)), slots_(std::max(g.values.size(), optimized_.values.size())) {
  // The optimized graph's nodes (a recorded call, running the graph's own, reuses no buffer).
  reuse_.assign(slots_.size(), 0);
  auto known = [&](int v) {
    for (int64_t d : optimized_.values[size_t(v)].shape)
      if (d == rt::kUnknownDim) return false;
    return true;
  };
  std::function<void(const Block&)> plan = [&](const Block& b) {
    for (const auto& n : b.nodes) {
      for (const auto& inner : n.blocks) plan(inner);
      const ops::OpDef& def = ops::opDef(n.op);
      if (!def.into || n.outputs.size() != 1) continue;
      if (def.intoChecks) {
        reuse_[size_t(n.outputs[0])] = kByOp;
        continue;
      }
      bool ok = known(n.outputs[0]);
      for (int i : n.inputs) ok = ok && known(i);
      reuse_[size_t(n.outputs[0])] = ok ? kStatic : kRuntimeShape;
    }
  };
  plan(optimized_.body);
  uses_ = useCounts(optimized_);
  std::map<int64_t, std::vector<const Node*>> groups;
  std::function<void(const Block&)> collect = [&](const Block& b) {
    for (const auto& n : b.nodes) {
      for (const auto& inner : n.blocks) collect(inner);
      if (n.attrs.has("fuse")) groups[n.attrs.i("fuse")].push_back(&n);
    }
  };
  collect(optimized_.body);
  for (auto& [id, members] : groups) {
    const Node* last = members.back();
    loops_.emplace(last, FusedLoop(optimized_, std::move(members), uses_));
  }
  std::function<void(const Block&)> findViews = [&](const Block& b) {
    for (const auto& n : b.nodes) {
      for (const auto& inner : n.blocks) findViews(inner);
      if (n.op == ops::OpId::Cond || ops::opDef(n.op).view) views_.insert(views_.end(), n.outputs.begin(), n.outputs.end());
    }
  };
  findViews(optimized_.body);
  inPlace_.assign(slots_.size(), 0);
  spares_.resize(slots_.size());
  prepare(g_.body, false);  // what a recording tape runs: the graph's own nodes
  prepare(optimized_.body, true);
  // The optimizer's new weights and slots are computed into the variables, as generated code
  // does: no second buffer per variable, half the memory traffic of the update.
  const std::map<int, int> into = planVariables(optimized_).computedInto;
  readsOf_.resize(vars_.size());
  for (const Node& n : optimized_.body.nodes)
    if (n.op == ops::OpId::ReadVariable) readsOf_[size_t(n.attrs.i("var"))].push_back(n.outputs[0]);
  for (Step& s : steps_.at(&optimized_.body)) {
    std::vector<const Node*> nodes{s.node};
    if (s.loop) nodes = s.loop->members();
    for (const Node* n : nodes)
      for (int o : n->outputs)
        if (auto it = into.find(o); it != into.end()) s.into.push_back(*it);
  }
}

void Executor::prepare(const Block& b, bool fuse) {
  std::vector<Step>& steps = steps_[&b];
  for (const auto& n : b.nodes) {
    for (const auto& inner : n.blocks) prepare(inner, fuse);
    if (n.op == ops::OpId::While) {
      const Block& body = n.blocks[1];
      std::vector<char>& swap = swaps_[&n];
      for (int r : body.results) {
        bool computed = false;
        for (const auto& m : body.nodes)
          for (int o : m.outputs) computed = computed || o == r;
        swap.push_back(computed && std::count(body.results.begin(), body.results.end(), r) == 1);
      }
    }
    if (!fuse) {
      steps.push_back({&n, nullptr, {}});
      continue;
    }
    if (n.attrs.has("fuse") && !loops_.count(&n)) continue;  // run by its group's loop, at the group's last node
    auto loop = loops_.find(&n);
    steps.push_back({&n, loop == loops_.end() ? nullptr : &loop->second, {}});
  }
}

std::vector<Tensor> Executor::run(std::span<const Tensor> inputs) {
  const auto& params = g_.body.params;
  if (inputs.size() != params.size())
    throw WeftError("graph " + g_.name + " takes " + std::to_string(params.size()) + " inputs, got " +
                    std::to_string(inputs.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorType& t = g_.values[size_t(params[i])];
    if (!accepts(t, inputs[i].dtype(), inputs[i].shape()))
      throw WeftError("graph " + g_.name + " input " + std::to_string(i) + " expects " + typeText(t) + ", got " +
                      typeText({inputs[i].dtype(), inputs[i].shape()}));
    slots_[size_t(params[i])] = inputs[i];
  }
  recorded_ = ops::tapeHook() || variableReadHook();
  const Block& body = recorded_ ? g_.body : optimized_.body;
  runBlock(body);
  std::vector<Tensor> out;
  for (int r : body.results) out.push_back(slots_[size_t(r)]);
  for (int p : params) slots_[size_t(p)] = Tensor();  // the caller's tensors are not kept
  // Views (and the tensors in in_) are second holders of the buffers they share: dropped, so
  // that the next call's kernels find those buffers their slots' own to write into.
  for (int v : views_) slots_[size_t(v)] = Tensor();
  in_.clear();
  return out;
}

void Executor::placeInVariable(int value, int var, bool everyReplica) {
  Tensor& slot = slots_[size_t(value)];
  // Last call's value, which the variable may hold: given back to the slot when this call cannot
  // compute in place, for the kernel's spare (takeSpare) to replace.
  Tensor last = std::exchange(slot, Tensor());
  inPlace_[size_t(value)] = 0;
  const VariableObj& v = *vars_[size_t(var)];
  const TensorType& t = optimized_.values[size_t(value)];
  if (v.placement || context().variableAccess || !v.value.isWhole() || v.value.dtype() != t.dtype ||
      !accepts(t, v.value.dtype(), v.value.shape())) {
    slot = std::move(last);
    return;
  }
  // Besides the variable, only this call's reads of it may hold the storage (their values are no
  // longer wanted when the plan computes into it); any other holder (the caller, a tensor a user
  // kept) must keep the old value.
  long holders = 1 + last.sharesStorage(v.value);
  for (int r : readsOf_[size_t(var)]) holders += slots_[size_t(r)].sharesStorage(v.value);
  const bool replicated = everyReplica && size_t(var) < replicas_.size() && replicas_[size_t(var)];
  if (!replicated && v.value.storageUsers() != holders) {
    slot = std::move(last);
    return;
  }
  slot = v.value;
  inPlace_[size_t(value)] = 1;
}

long Executor::holds(const Tensor& t) const {
  long n = 0;
  for (const Tensor& s : slots_) n += s.isWhole() && s.sharesStorage(t);
  for (const Tensor& s : spares_) n += s.isWhole() && s.sharesStorage(t);
  return n;
}

void Executor::takeSpare(int v) {
  Tensor& slot = slots_[size_t(v)];
  if (inPlace_[size_t(v)] || slot.ownsStorage() || slot.isAbstract()) return;
  Tensor& spare = spares_[size_t(v)];
  if (spare.ownsStorage() && spare.shape() == slot.shape() && spare.dtype() == slot.dtype()) std::swap(slot, spare);
  else spare = slot;
}

void Executor::runSteps(const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    const Node& n = *s.node;
    try {
      for (auto [value, var] : s.into)
        placeInVariable(value, var, !s.loop && ops::opDef(n.op).family == ops::Family::Collective &&
                                        n.attrs.i("group") == replicaDevices_);
      if (s.loop) {
        if (!s.loop->run(slots_, inPlace_))
          for (const Node* m : s.loop->members()) runNode(*m);  // sizes differ: node by node
      } else {
        runNode(n);
      }
    } catch (WeftError& e) {  // reported at the graph function's call: name the line of the op too
      if (!e.at.valid() && n.loc.line > 0 && e.message.find(" (in the graph, at ") == std::string::npos) {
        e.message += " (in the graph, at " + n.loc.file + ":" + std::to_string(n.loc.line) + ")";
      }
      throw;
    }
  }
}

void Executor::runNode(const Node& n) {
  using ops::OpId;
  switch (n.op) {
    case OpId::Constant:  // the graph's own or a folded one; the slot shares the node's tensor
      slots_[size_t(n.outputs[0])] = n.attrs.tensor("value");
      return;
    case OpId::ReadVariable: {
      VariableObj& v = *vars_[size_t(n.attrs.i("var"))];
      Tensor& slot = slots_[size_t(n.outputs[0])];
      slot = v.value;
      if (auto* hook = variableReadHook()) hook->onRead(v, slot);  // a gradient tape's leaf
      return;
    }
    case OpId::AssignVariable:
      writeVariable(*vars_[size_t(n.attrs.i("var"))], slots_[size_t(n.inputs[0])]);
      return;
    case OpId::Print: {
      in_.clear();
      for (int i : n.inputs) in_.push_back(slots_[size_t(i)]);
      out_ << formatPrint(n.attrs.s("format"), in_);
      return;
    }
    case OpId::Check:
      if (slots_[size_t(n.inputs[0])].asDouble() == 0) throw checkFailure(n.attrs);
      return;
    case OpId::Cond: {
      const Block& taken = slots_[size_t(n.inputs[0])].asDouble() != 0 ? n.blocks[0] : n.blocks[1];
      runBlock(taken);
      for (size_t i = 0; i < n.outputs.size(); ++i) slots_[size_t(n.outputs[i])] = slots_[size_t(taken.results[i])];
      return;
    }
    case OpId::While: return runLoop(n);
    WEFT_FOR_EACH_KERNEL_OP(WEFT_OP_CASE)
      break;  // its kernel, below
  }
  const ops::OpDef& def = ops::opDef(n.op);
  if (def.family == ops::Family::Collective)
    if (CommCounts* counts = context().commCounts)
      counts->add(n.loc, n.op, spmd::collectiveBytes(n.op, slots_[size_t(n.inputs[0])].bytes(), n.attrs.i("group")));
  if (recorded_) {  // a gradient tape records each op (a loaded model trained): no buffer is reused
    in_.clear();
    for (int i : n.inputs) in_.push_back(slots_[size_t(i)]);
    std::vector<Tensor> out = ops::apply(n.op, in_, n.attrs);
    for (size_t i = 0; i < n.outputs.size(); ++i) slots_[size_t(n.outputs[i])] = std::move(out[i]);
    return;
  }
  if (char reuse = reuse_[size_t(n.outputs[0])]) {
    Tensor& out = slots_[size_t(n.outputs[0])];
    const Tensor* in[3];
    size_t k = 0;
    for (int i : n.inputs) in[k++] = &slots_[size_t(i)];
    const TensorType& t = optimized_.values[size_t(n.outputs[0])];
    Shape shape = t.shape;
    // An unknown size: the elementwise result's shape from this call's inputs (a mismatch takes
    // the checked path below, which reports it).
    if (reuse == kByOp) {
      // An op that overwrites its first input takes that input's buffer when nothing else holds
      // it and no other node reads it (a loop value filled row by row).
      Tensor& first = slots_[size_t(n.inputs[0])];
      if (def.overwrites && &first != &out && uses_[size_t(n.inputs[0])] == 1 && first.ownsStorage()) {
        out = std::move(first);
        in[0] = &out;
      } else {
        takeSpare(n.outputs[0]);
        // The op writes any whole buffer it is given: not one that another holder still reads.
        if (!out.ownsStorage() && !inPlace_[size_t(n.outputs[0])]) out = Tensor();
      }
      def.into(std::span<const Tensor* const>(in, k), n.attrs, out);
      return;
    }
    bool fits = reuse == kStatic || (k == 1 ? (shape = in[0]->shape(), true)
                                            : rt::broadcastShapes(in[0]->shape(), in[1]->shape(), shape));
    if (fits) {
      takeSpare(n.outputs[0]);
      if (!(out.ownsStorage() || inPlace_[size_t(n.outputs[0])]) || out.shape() != shape) out = Tensor::empty(t.dtype, shape);
      def.into(std::span<const Tensor* const>(in, k), n.attrs, out);
      return;
    }
  }
  if (def.intoAll) {  // each result into its last buffer, or into the variable it is computed into
    std::vector<const Tensor*> in;
    std::vector<TensorType> types;
    for (int i : n.inputs) {
      in.push_back(&slots_[size_t(i)]);
      types.push_back(ops::typeOf(slots_[size_t(i)]));
    }
    const std::vector<TensorType> outTypes = def.infer(types, n.attrs);
    std::vector<Tensor*> out;
    for (size_t j = 0; j < n.outputs.size(); ++j) {
      const int o = n.outputs[j];
      takeSpare(o);
      Tensor& slot = slots_[size_t(o)];
      if (!(slot.ownsStorage() || inPlace_[size_t(o)]) || slot.shape() != outTypes[j].shape || slot.dtype() != outTypes[j].dtype)
        slot = Tensor::empty(outTypes[j].dtype, outTypes[j].shape);
      out.push_back(&slot);
    }
    def.intoAll(in, n.attrs, out);
    return;
  }
  in_.clear();
  for (int i : n.inputs) in_.push_back(slots_[size_t(i)]);
  // The kernel allocates its results: it gets the buffers of its last ones back (StoragePool),
  // or of the spares of results held elsewhere.
  for (int o : n.outputs) {
    takeSpare(o);
    if (!inPlace_[size_t(o)]) pool_.give(slots_[size_t(o)]);
  }
  StoragePool::Use use(pool_);
  std::vector<Tensor> out = def.run(in_, n.attrs);
  for (size_t i = 0; i < n.outputs.size(); ++i) slots_[size_t(n.outputs[i])] = std::move(out[i]);
}

// The loop values live in `loop` and move (never copy) into the blocks' parameters each turn. A
// value the body computes moves out of its result's slot, and the value it replaces moves in, so
// that the body's kernel writes into that buffer next turn: a loop of static shapes allocates
// nothing after its first turns, and touches no reference count.
void Executor::runLoop(const Node& n) {
  const Block &cond = n.blocks[0], &body = n.blocks[1];
  const std::vector<Step>&condSteps = steps_.at(&cond), &bodySteps = steps_.at(&body);
  const std::vector<char>& swap = swaps_.at(&n);
  const size_t count = n.inputs.size();
  // The loop values live in the condition's parameters between turns: each moves into the body's
  // parameter and its next value back, two moves a turn (a Tensor is 112 bytes).
  for (size_t i = 0; i < count; ++i) slots_[size_t(cond.params[i])] = slots_[size_t(n.inputs[i])];
  for (;;) {
    runSteps(condSteps);
    if (slots_[size_t(cond.results[0])].asDouble() == 0) break;
    if (onLoop_) onLoop_();
    for (size_t i = 0; i < count; ++i) slots_[size_t(body.params[i])] = std::move(slots_[size_t(cond.params[i])]);
    runSteps(bodySteps);
    // Values the body passes on (a parameter, a value from outside) are shared, before any
    // parameter moves.
    for (size_t i = 0; i < count; ++i)
      if (!swap[i]) slots_[size_t(cond.params[i])] = slots_[size_t(body.results[i])];
    for (size_t i = 0; i < count; ++i) {
      Tensor& param = slots_[size_t(body.params[i])];
      if (!swap[i]) {
        param = Tensor();
        continue;
      }
      Tensor& next = slots_[size_t(body.results[i])];
      slots_[size_t(cond.params[i])] = std::move(next);
      next = std::move(param);  // its buffer is the body's to write next turn
    }
  }
  for (size_t i = 0; i < count; ++i) slots_[size_t(n.outputs[i])] = std::move(slots_[size_t(cond.params[i])]);
}

}  // namespace weft::graph
