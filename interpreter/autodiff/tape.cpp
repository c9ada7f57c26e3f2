// The gradient tape: recording (through the hooks of ops::apply and readVariable) and the
// backward walk over the record.
#include "tape.h"

#include <algorithm>

#include "../../grammar/diagnostics.h"
#include "../graph/tracer.h"
#include "rules.h"

namespace weft::autodiff {

struct Tape::Entry {
  enum Kind { Op, Read, Cond, While, Watch } kind = Op;
  ops::OpId op{};
  std::vector<Tensor> in, out;       // While: the initial loop values, and the final ones;
                                     // Watch: an inner tape's leaf `out` standing for `in`
  ops::Attrs attrs;
  std::shared_ptr<VariableObj> var;  // Read: replayed inside a backward cond or while
  Tensor pred;                       // Cond; While: the condition block's result
  std::shared_ptr<Region> branch[2];  // Cond: then, else; While: the condition, the body
  std::vector<Tensor> results[2];     // Cond: each branch's; While: results[1], the body's
  std::vector<Tensor> params[2];      // While: the condition's and the body's params
};

struct Tape::Region {
  std::vector<Entry> entries;
};

namespace {

using Grads = std::unordered_map<int64_t, Tensor>;
using Remap = std::unordered_map<int64_t, Tensor>;

void accumulate(Grads& grads, int64_t id, Tensor g) {
  if (!id) return;
  auto it = grads.find(id);
  if (it == grads.end()) grads.emplace(id, std::move(g));
  else it->second = ops::binary(ops::BinaryOp::Add, it->second, g);
}

Tensor remapped(const Tensor& t, const Remap& remap) {
  auto it = t.tapeId() ? remap.find(t.tapeId()) : remap.end();
  return it == remap.end() ? t : it->second;
}

std::vector<Tensor> remappedAll(const std::vector<Tensor>& ts, const Remap& remap) {
  std::vector<Tensor> r;
  for (const auto& t : ts) r.push_back(remapped(t, remap));
  return r;
}

graph::Tracer& tracer() {
  graph::Tracer* t = graph::Tracer::active();
  if (!t) throw std::logic_error("a cond on the gradient tape outside a graph trace");
  return *t;
}

}  // namespace

Tape::Tape(std::vector<std::shared_ptr<VariableObj>> vars)
    : vars_(std::move(vars)), read_(vars_.size(), false), root_(std::make_shared<Region>()),
      outerTape_(ops::tapeHook()), outerRead_(variableReadHook()), outer_(context().tape) {
  regions_.push_back(root_);
  ops::setTapeHook(this);
  setVariableReadHook(this);
  context().tape = this;
}

Tape::~Tape() { stop(); }

Tape* Tape::active() { return context().tape; }

void Tape::stop() {
  if (!recording_) return;
  recording_ = false;
  ops::setTapeHook(outerTape_);
  setVariableReadHook(outerRead_);
  context().tape = outer_;
}

int64_t Tape::tag(Tensor& t, bool isLive) {
  int64_t id = ++context().nextTapeId;
  t.setTapeId(id);
  if (isLive) live_.insert(id);
  return id;
}

Tensor Tape::watch(const Tensor& t) {
  if (watchAccessed_) throw std::logic_error("a GradientTape's tape watches variables only");
  Tensor w = t;
  int64_t id = tag(w, rt::isFloat(t.dtype()));
  leafOf_[id] = vars_.size() + watched_.size();
  watched_.push_back(id);
  // An outer tape that sees t sees the leaf as t itself, so that its gradient goes on to t.
  for (Tape* o = outer_; o; o = o->outer_) {
    if (!o->records({&t, 1})) continue;
    if (o->live(t)) o->live_.insert(id);
    Entry e;
    e.kind = Entry::Watch;
    e.in = {t};
    e.out = {w};
    o->push(std::move(e));
  }
  return w;
}

bool Tape::inBranch() const { return regions_.size() > 1; }

bool Tape::anyLive(std::span<const Tensor> in) const {
  for (const auto& t : in)
    if (live(t)) return true;
  return false;
}

bool Tape::records(std::span<const Tensor> in) const { return inBranch() || anyLive(in); }

void Tape::push(Entry e) { regions_.back()->entries.push_back(std::move(e)); }

// Every recording tape that sees the op writes it down, under one tape id per result: an outer
// tape thus also records the inner tapes' backward passes (higher-order gradients).
void Tape::recorded(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs, std::vector<Tensor>& out) {
  bool any = false;
  for (Tape* t = this; t && !any; t = t->outer_) any = t->records(in);
  if (!any) return;
  for (auto& t : out) t.setTapeId(++context().nextTapeId);
  for (Tape* t = this; t; t = t->outer_) {
    if (!t->records(in)) continue;
    const bool flows = t->anyLive(in) && opDef(op).vjp != noGradient;
    for (const auto& y : out)
      if (flows && rt::isFloat(y.dtype())) t->live_.insert(y.tapeId());
    Entry e;
    e.op = op;
    e.in.assign(in.begin(), in.end());
    e.attrs = attrs;
    e.out = out;
    t->push(std::move(e));
  }
}

size_t Tape::indexOf(const VariableObj& v) const {
  size_t i = 0;
  while (i < vars_.size() && vars_[i].get() != &v) ++i;
  return i;
}

bool Tape::watchesOnRead(const VariableObj& v) const {
  return watchAccessed_ && v.trainable && rt::isFloat(v.value.dtype());
}

void Tape::onRead(VariableObj& v, Tensor& value) {
  bool any = false;
  for (Tape* t = this; t && !any; t = t->outer_)
    any = t->inBranch() || t->indexOf(v) < t->vars_.size() || t->watchesOnRead(v);
  if (!any) return;
  const int64_t id = ++context().nextTapeId;
  value.setTapeId(id);
  for (Tape* t = this; t; t = t->outer_) {
    size_t i = t->indexOf(v);
    if (i == t->vars_.size() && t->watchesOnRead(v)) {
      t->vars_.push_back(std::static_pointer_cast<VariableObj>(v.shared_from_this()));
      t->read_.push_back(false);
    }
    if (i < t->vars_.size()) {
      t->read_[i] = true;
      t->leafOf_[id] = i;
      if (rt::isFloat(value.dtype())) t->live_.insert(id);
    }
    if (t->inBranch()) {
      Entry e;
      e.kind = Entry::Read;
      e.var = std::static_pointer_cast<VariableObj>(v.shared_from_this());
      e.out = {value};
      t->push(std::move(e));
    }
  }
}

void Tape::beginRegion() {
  if (outer_)
    throw WeftError("a gradient of a gradient through a tensor if or while loop in a graph function is not "
                    "supported; take it eagerly (--run-functions-eagerly), or keep the control flow out of "
                    "the inner gradient");
  regions_.push_back(std::make_shared<Region>());
}

std::shared_ptr<Tape::Region> Tape::endRegion() {
  auto r = regions_.back();
  regions_.pop_back();
  return r;
}

void Tape::cond(const Tensor& pred, std::shared_ptr<Region> branches[2], const std::vector<Tensor> results[2],
                std::vector<Tensor>& outs) {
  bool anyLive = false;
  Entry e;
  e.kind = Entry::Cond;
  e.pred = pred;
  for (int k = 0; k < 2; ++k) {
    e.branch[k] = branches[k];
    e.results[k] = results[k];
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    bool l = live(results[0][i]) || live(results[1][i]);
    anyLive = anyLive || l;
    tag(outs[i], l);
  }
  if (!anyLive && !inBranch()) return;
  e.out = outs;
  push(std::move(e));
}

void Tape::inlineRegion(Region& r) {
  std::vector<Entry>& to = regions_.back()->entries;
  to.insert(to.end(), std::make_move_iterator(r.entries.begin()), std::make_move_iterator(r.entries.end()));
}

void Tape::loopParams(std::vector<Tensor>& params) {
  for (auto& t : params) tag(t, rt::isFloat(t.dtype()));
}

namespace {

struct Walker {
  const Tape& tape;
  const std::unordered_map<int64_t, size_t>& leafOf;

  bool live(const Tensor& t) const { return tape.live(t); }

  void backward(const std::vector<Tape::Entry>& entries, Grads& grads, const Remap& remap) {
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      const Tape::Entry& e = *it;
      if (e.kind == Tape::Entry::Read) continue;
      if (e.kind == Tape::Entry::Watch) {
        auto g = grads.find(e.out[0].tapeId());
        if (g != grads.end() && live(e.in[0])) accumulate(grads, e.in[0].tapeId(), g->second);
        continue;
      }
      if (e.kind == Tape::Entry::Cond) {
        condBackward(e, grads, remap);
        continue;
      }
      if (e.kind == Tape::Entry::While) {
        whileBackward(e, grads, remap);
        continue;
      }
      std::vector<Tensor> outs = remappedAll(e.out, remap);
      std::vector<Tensor> gouts;
      bool any = false;
      for (const auto& t : e.out) {
        auto g = grads.find(t.tapeId());
        any = any || g != grads.end();
      }
      if (!any) continue;
      const ops::OpDef& d = ops::opDef(e.op);
      if (d.vjp == noGradient) continue;
      for (size_t j = 0; j < e.out.size(); ++j) {
        auto g = grads.find(e.out[j].tapeId());
        gouts.push_back(g != grads.end() ? g->second : zerosLike(outs[j]));
      }
      std::vector<bool> need;
      bool anyNeed = false;
      for (const auto& t : e.in) {
        need.push_back(live(t));
        anyNeed = anyNeed || need.back();
      }
      if (!anyNeed) continue;
      std::vector<Tensor> ins = remappedAll(e.in, remap);
      ops::VjpResult gin = d.vjp({ins, outs, e.attrs, gouts, need});
      for (size_t i = 0; i < e.in.size() && i < gin.size(); ++i)
        if (need[i] && gin[i]) accumulate(grads, e.in[i].tapeId(), *gin[i]);
    }
  }

  // Values a region uses from outside it that carry a gradient, and the leaves it reads.
  void collect(const Tape::Region& r, std::vector<std::pair<int64_t, Tensor>>& used,
               std::unordered_set<int64_t>& defined, std::vector<std::pair<int64_t, Tensor>>& leaves) {
    auto use = [&](const Tensor& t) {
      if (live(t)) used.push_back({t.tapeId(), t});
    };
    for (const auto& e : r.entries) {
      if (e.kind == Tape::Entry::Op || e.kind == Tape::Entry::Watch)
        for (const auto& t : e.in) use(t);
      if (e.kind == Tape::Entry::Cond)
        for (int k = 0; k < 2; ++k) {
          collect(*e.branch[k], used, defined, leaves);
          for (const auto& t : e.results[k]) use(t);
        }
      if (e.kind == Tape::Entry::While) {  // the condition has no gradient
        for (const auto& t : e.in) use(t);
        for (const auto& t : e.params[1]) defined.insert(t.tapeId());
        collect(*e.branch[1], used, defined, leaves);
        for (const auto& t : e.results[1]) use(t);
      }
      if (e.kind == Tape::Entry::Read && leafOf.count(e.out[0].tapeId()) && live(e.out[0]))
        leaves.push_back({e.out[0].tapeId(), e.out[0]});
      for (const auto& t : e.out) defined.insert(t.tapeId());
    }
  }

  void replay(const Tape::Region& r, Remap& local) {
    for (const auto& e : r.entries) {
      std::vector<Tensor> outs;
      if (e.kind == Tape::Entry::Op) {
        outs = ops::apply(e.op, remappedAll(e.in, local), e.attrs);
      } else if (e.kind == Tape::Entry::Read) {
        outs = {readVariable(*e.var)};
      } else if (e.kind == Tape::Entry::Watch) {
        outs = {remapped(e.in[0], local)};
      } else if (e.kind == Tape::Entry::While) {
        outs = replayWhile(e, local);
      } else {
        std::vector<graph::Block> blocks;
        std::vector<graph::TensorType> types;
        for (const auto& t : e.out) types.push_back(graph::typeOf(t));
        for (int k = 0; k < 2; ++k) {
          tracer().beginBlock({});
          Remap inner = local;
          replay(*e.branch[k], inner);
          blocks.push_back(tracer().endBlock(remappedAll(e.results[k], inner)));
        }
        outs = tracer().emit(ops::OpId::Cond, {tracer().valueOf(remapped(e.pred, local))}, {}, types, std::move(blocks));
      }
      for (size_t j = 0; j < e.out.size() && j < outs.size(); ++j)
        if (e.out[j].tapeId()) local[e.out[j].tapeId()] = outs[j];
    }
  }

  std::vector<Tensor> replayWhile(const Tape::Entry& e, const Remap& local) {
    std::vector<graph::TensorType> types;
    for (const auto& t : e.params[1]) types.push_back(graph::typeOf(t));
    std::vector<graph::Block> blocks;
    for (int k = 0; k < 2; ++k) {
      std::vector<Tensor> params = tracer().beginBlock(types);
      Remap inner = local;
      for (size_t i = 0; i < params.size(); ++i) inner[e.params[k][i].tapeId()] = params[i];
      replay(*e.branch[k], inner);
      blocks.push_back(tracer().endBlock(k == 0 ? std::vector<Tensor>{remapped(e.pred, inner)}
                                                : remappedAll(e.results[1], inner)));
    }
    std::vector<int> inputs;
    for (const auto& t : remappedAll(e.in, local)) inputs.push_back(tracer().valueOf(t));
    return tracer().emit(ops::OpId::While, inputs, {}, types, std::move(blocks));
  }

  // The values outside a region (or a loop body, with its params) that its gradient goes to:
  // those used in it that carry a gradient, as values of the current block, and the leaves
  // read inside it.
  std::vector<std::pair<int64_t, Tensor>> targetsOf(const std::vector<const Tape::Region*>& regions,
                                                    const std::vector<const std::vector<Tensor>*>& results,
                                                    std::unordered_set<int64_t>& defined, const Remap& remap) {
    std::vector<std::pair<int64_t, Tensor>> used, leaves, targets;
    std::unordered_set<int64_t> seen;
    for (const auto* r : regions) collect(*r, used, defined, leaves);
    for (const auto* rs : results)
      for (const auto& t : *rs)
        if (live(t)) used.push_back({t.tapeId(), t});
    for (const auto& [id, t] : used)
      if (!defined.count(id) && seen.insert(id).second) targets.push_back({id, remapped(t, remap)});
    for (const auto& [id, t] : leaves)
      if (seen.insert(id).second) targets.push_back({id, t});
    return targets;
  }

  std::vector<std::pair<int64_t, Tensor>> loopTargets(const Tape::Entry& e, std::unordered_set<int64_t>& defined,
                                                      const Remap& remap) {
    for (const auto& t : e.params[1]) defined.insert(t.tapeId());
    return targetsOf({e.branch[1].get()}, {&e.results[1]}, defined, remap);
  }

  // Zeros for the gradient of a target (a leaf read inside has a known shape, but is no value of
  // the current block).
  static Tensor zerosFor(int64_t id, const Tensor& t, const std::unordered_set<int64_t>& defined) {
    return defined.count(id) ? ops::full(t.shape(), 0.0, t.dtype()) : zerosLike(t);
  }

  // The gradient of a while loop that ran n times (its last loop value counts them): a fill loop
  // runs the body n times again from the initial values and keeps the loop values before each
  // iteration, row i of one stack per value (fill); then a backward loop over k = n-1, ..., 0,
  // carrying the gradients of the float loop values and of the targets, reads row k, replays
  // the body on it and runs its backward pass. 3n body runs and O(n) memory (TensorFlow's and
  // JAX's stacks); the stacks are written in place, a row per iteration.
  void whileBackward(const Tape::Entry& e, Grads& grads, const Remap& remap) {
    std::vector<size_t> carried;  // the loop values with a gradient
    bool any = false;
    for (size_t i = 0; i < e.out.size(); ++i)
      if (live(e.out[i])) {
        carried.push_back(i);
        any = any || grads.count(e.out[i].tapeId());
      }
    if (!any) return;
    std::unordered_set<int64_t> defined;
    std::vector<std::pair<int64_t, Tensor>> targets = loopTargets(e, defined, remap);
    bool initLive = false;
    for (size_t i : carried) initLive = initLive || live(e.in[i]);
    if (targets.empty() && !initLive) return;
    Tensor count = remapped(e.out.back(), remap);
    const std::vector<Tensor> stacks = fill(e, remappedAll(e.in, remap), count, remap);
    Tensor one = ops::cast(Tensor::scalar<int32_t>(1), count.dtype());
    std::vector<graph::TensorType> types{graph::typeOf(count)};
    std::vector<Tensor> start{ops::binary(ops::BinaryOp::Sub, count, one)};
    for (size_t i : carried) {
      types.push_back(graph::typeOf(e.params[1][i]));
      auto g = grads.find(e.out[i].tapeId());
      start.push_back(g != grads.end() ? g->second : zerosLike(remapped(e.out[i], remap)));
    }
    for (const auto& [id, t] : targets) {
      types.push_back(graph::typeOf(t));
      start.push_back(zerosFor(id, t, defined));
    }
    std::vector<graph::Block> blocks;
    std::vector<Tensor> p = tracer().beginBlock(types);
    blocks.push_back(tracer().endBlock({ops::binary(ops::BinaryOp::Ge, p[0], ops::cast(Tensor::scalar<int32_t>(0), count.dtype()))}));
    p = tracer().beginBlock(types);
    std::vector<Tensor> state;
    for (const Tensor& s : stacks) state.push_back(ops::take(s, p[0], 0));
    state.push_back(p[0]);  // the counter before iteration k is k
    Remap local = remap;
    for (size_t i = 0; i < state.size(); ++i) local[e.params[1][i].tapeId()] = state[i];
    replay(*e.branch[1], local);
    Grads lg;
    for (size_t j = 0; j < carried.size(); ++j)
      if (live(e.results[1][carried[j]])) accumulate(lg, e.results[1][carried[j]].tapeId(), p[1 + j]);
    backward(e.branch[1]->entries, lg, local);
    std::vector<Tensor> next{ops::binary(ops::BinaryOp::Sub, p[0], one)};
    for (size_t i : carried) {
      auto g = lg.find(e.params[1][i].tapeId());
      next.push_back(g != lg.end() ? g->second : zerosLike(state[i]));
    }
    for (size_t j = 0; j < targets.size(); ++j) {
      const Tensor& acc = p[1 + carried.size() + j];
      auto g = lg.find(targets[j].first);
      next.push_back(g != lg.end() ? ops::binary(ops::BinaryOp::Add, acc, g->second) : acc);
    }
    blocks.push_back(tracer().endBlock(next));
    std::vector<int> inputs;
    for (const auto& t : start) inputs.push_back(tracer().valueOf(t));
    std::vector<Tensor> outs = tracer().emit(ops::OpId::While, inputs, {}, types, std::move(blocks));
    for (size_t j = 0; j < carried.size(); ++j) accumulate(grads, e.in[carried[j]].tapeId(), outs[1 + j]);
    for (size_t j = 0; j < targets.size(); ++j) accumulate(grads, targets[j].first, outs[1 + carried.size() + j]);
  }

  // The loop values before each of the `count` iterations, as stacks of `count` rows (the body
  // run again from `init`; the counter, last, is not kept: before iteration i it is i). Every
  // loop value is kept, integer ones too, since the body's replay needs them all.
  std::vector<Tensor> fill(const Tape::Entry& e, const std::vector<Tensor>& init, const Tensor& count,
                           const Remap& remap) {
    const size_t m = init.size() - 1;
    std::vector<graph::TensorType> types;
    for (const auto& t : e.params[1]) types.push_back(graph::typeOf(t));
    std::vector<Tensor> start = init;
    for (size_t i = 0; i < m; ++i) {
      start.push_back(ops::broadcastRows(init[i], count));
      types.push_back(graph::typeOf(start.back()));
    }
    std::vector<graph::Block> blocks;
    std::vector<Tensor> p = tracer().beginBlock(types);
    blocks.push_back(tracer().endBlock({ops::binary(ops::BinaryOp::Lt, p[m], count)}));
    p = tracer().beginBlock(types);
    Remap inner = remap;
    for (size_t i = 0; i <= m; ++i) inner[e.params[1][i].tapeId()] = p[i];
    replay(*e.branch[1], inner);
    std::vector<Tensor> next = remappedAll(e.results[1], inner);
    for (size_t i = 0; i < m; ++i) next.push_back(ops::updateRow(p[m + 1 + i], p[i], p[m]));
    blocks.push_back(tracer().endBlock(next));
    std::vector<int> inputs;
    for (const auto& t : start) inputs.push_back(tracer().valueOf(t));
    std::vector<Tensor> outs = tracer().emit(ops::OpId::While, inputs, {}, types, std::move(blocks));
    return std::vector<Tensor>(outs.begin() + long(m + 1), outs.end());
  }

  // The gradient of a cond is a cond of the branches' gradients; each branch is replayed inside
  // its backward block, since a block cannot see the values of another.
  void condBackward(const Tape::Entry& e, Grads& grads, const Remap& remap) {
    std::vector<std::optional<Tensor>> gouts;
    bool any = false;
    for (const auto& t : e.out) {
      auto g = grads.find(t.tapeId());
      gouts.push_back(g != grads.end() ? std::optional(g->second) : std::nullopt);
      any = any || g != grads.end();
    }
    if (!any) return;
    std::unordered_set<int64_t> defined;
    std::vector<std::pair<int64_t, Tensor>> targets =
        targetsOf({e.branch[0].get(), e.branch[1].get()}, {&e.results[0], &e.results[1]}, defined, remap);
    if (targets.empty()) return;
    std::vector<graph::TensorType> types;
    for (const auto& [id, t] : targets) types.push_back(graph::typeOf(t));
    std::vector<graph::Block> blocks;
    for (int k = 0; k < 2; ++k) {
      tracer().beginBlock({});
      Remap local = remap;
      replay(*e.branch[k], local);
      Grads lg;
      for (size_t i = 0; i < e.out.size(); ++i)
        if (gouts[i] && live(e.results[k][i])) accumulate(lg, e.results[k][i].tapeId(), *gouts[i]);
      backward(e.branch[k]->entries, lg, local);
      std::vector<Tensor> yields;
      for (const auto& [id, t] : targets) {
        auto g = lg.find(id);
        yields.push_back(g != lg.end() ? g->second : zerosFor(id, t, defined));
      }
      blocks.push_back(tracer().endBlock(yields));
    }
    std::vector<Tensor> outs =
        tracer().emit(ops::OpId::Cond, {tracer().valueOf(remapped(e.pred, remap))}, {}, types, std::move(blocks));
    for (size_t j = 0; j < targets.size(); ++j) accumulate(grads, targets[j].first, outs[j]);
  }
};

}  // namespace

void Tape::whileLoop(const std::vector<Tensor>& init, std::shared_ptr<Region> regions[2],
                     const std::vector<Tensor> params[2], const Tensor& pred, const std::vector<Tensor>& next,
                     std::vector<Tensor>& outs) {
  Entry e;
  e.kind = Entry::While;
  e.in = init;
  e.pred = pred;
  for (int k = 0; k < 2; ++k) {
    e.branch[k] = regions[k];
    e.params[k] = params[k];
  }
  e.results[1] = next;
  // The loop carries a gradient if a loop value starts with one or the body uses a value (or
  // reads a leaf) that has one.
  bool anyLive = false;
  for (const auto& t : init) anyLive = anyLive || live(t);
  std::unordered_set<int64_t> defined;
  anyLive = anyLive || !Walker{*this, leafOf_}.loopTargets(e, defined, {}).empty();
  for (auto& t : outs) tag(t, anyLive && rt::isFloat(t.dtype()));
  if (!anyLive && !inBranch()) return;
  e.out = outs;
  push(std::move(e));
}

std::vector<std::optional<Tensor>> Tape::gradients(const Tensor& value) {
  stop();
  std::vector<std::optional<Tensor>> result(vars_.size() + watched_.size());
  if (!live(value)) return result;
  Grads grads;
  grads.emplace(value.tapeId(), ops::full(value.shape(), 1.0, value.dtype()));
  Walker{*this, leafOf_}.backward(root_->entries, grads, {});
  for (const auto& [id, g] : grads) {
    auto leaf = leafOf_.find(id);
    if (leaf == leafOf_.end()) continue;
    auto& r = result[leaf->second];
    r = r ? ops::binary(ops::BinaryOp::Add, *r, g) : g;
  }
  return result;
}

}  // namespace weft::autodiff
