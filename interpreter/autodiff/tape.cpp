// The gradient tape: recording (through the hooks of ops::apply and readVariable) and the
// backward walk over the record.
#include "tape.h"

#include <algorithm>

#include "../../grammar/diagnostics.h"
#include "../graph/tracer.h"
#include "rules.h"

namespace weft::autodiff {

struct Tape::Entry {
  enum Kind { Op, Read, Cond } kind = Op;
  ops::OpId op{};
  std::vector<Tensor> in, out;
  ops::Attrs attrs;
  std::shared_ptr<VariableObj> var;  // Read: replayed inside a backward cond
  Tensor pred;                       // Cond
  std::shared_ptr<Region> branch[2];
  std::vector<Tensor> results[2];
};

struct Tape::Region {
  std::vector<Entry> entries;
};

namespace {

Tape* gActive = nullptr;
int64_t gNextId = 0;

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
      outerTape_(ops::tapeHook()), outerRead_(variableReadHook()), outer_(gActive) {
  regions_.push_back(root_);
  ops::setTapeHook(this);
  setVariableReadHook(this);
  gActive = this;
}

Tape::~Tape() { stop(); }

Tape* Tape::active() { return gActive; }

void Tape::stop() {
  if (!recording_) return;
  recording_ = false;
  ops::setTapeHook(outerTape_);
  setVariableReadHook(outerRead_);
  gActive = outer_;
}

int64_t Tape::tag(Tensor& t, bool isLive) {
  int64_t id = ++gNextId;
  t.setTapeId(id);
  if (isLive) live_.insert(id);
  return id;
}

Tensor Tape::watch(const Tensor& t) {
  Tensor w = t;
  int64_t id = tag(w, rt::isFloat(t.dtype()));
  leafOf_[id] = vars_.size() + watched_.size();
  watched_.push_back(id);
  return w;
}

void Tape::recorded(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs, std::vector<Tensor>& out) {
  bool anyLive = false;
  for (const auto& t : in) anyLive = anyLive || live(t);
  bool inBranch = regions_.size() > 1;
  if (!anyLive && !inBranch) return;
  if (anyLive && !opaque_.empty())
    throw WeftError(opaque_.back(), std::string("value_and_grad: this while loop on graph values computes '") +
                                        ops::opName(op) +
                                        "' from a value the gradient depends on; gradients through a graph "
                                        "while loop are not supported yet (compute the loss outside the loop, or "
                                        "run the function eagerly)");
  bool flows = anyLive && opDef(op).vjp != noGradient;
  Entry e;
  e.op = op;
  e.in.assign(in.begin(), in.end());
  e.attrs = attrs;
  for (auto& t : out) tag(t, flows && rt::isFloat(t.dtype()));
  e.out = out;
  regions_.back()->entries.push_back(std::move(e));
}

void Tape::onRead(VariableObj& v, Tensor& value) {
  bool inBranch = regions_.size() > 1;
  size_t i = 0;
  while (i < vars_.size() && vars_[i].get() != &v) ++i;
  if (i < vars_.size()) {
    read_[i] = true;
    leafOf_[tag(value, rt::isFloat(value.dtype()))] = i;
  } else if (inBranch) {
    tag(value, false);
  }
  if (inBranch) {
    Entry e;
    e.kind = Entry::Read;
    e.var = std::static_pointer_cast<VariableObj>(v.shared_from_this());
    e.out = {value};
    regions_.back()->entries.push_back(std::move(e));
  }
}

void Tape::beginRegion() { regions_.push_back(std::make_shared<Region>()); }

std::shared_ptr<Tape::Region> Tape::endRegion() {
  auto r = regions_.back();
  regions_.pop_back();
  return r;
}

void Tape::cond(const Tensor& pred, std::shared_ptr<Region> branches[2], const std::vector<Tensor> results[2],
                std::vector<Tensor>& outs) {
  bool inBranch = regions_.size() > 1, anyLive = false;
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
  if (!anyLive && !inBranch) return;
  e.out = outs;
  regions_.back()->entries.push_back(std::move(e));
}

void Tape::beginOpaque(const SourceRange& at) { opaque_.push_back(at); }
void Tape::endOpaque() { opaque_.pop_back(); }

namespace {

struct Walker {
  const Tape& tape;
  const std::unordered_map<int64_t, size_t>& leafOf;

  bool live(const Tensor& t) const { return tape.live(t); }

  void backward(const std::vector<Tape::Entry>& entries, Grads& grads, const Remap& remap) {
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      const Tape::Entry& e = *it;
      if (e.kind == Tape::Entry::Read) continue;
      if (e.kind == Tape::Entry::Cond) {
        condBackward(e, grads, remap);
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
      if (!d.vjp || d.vjp == noRuleYet)
        throw WeftError(std::string("value_and_grad: the gradient of '") + d.name +
                        "' is not implemented yet; the value depends on it");
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
      if (e.kind == Tape::Entry::Op)
        for (const auto& t : e.in) use(t);
      if (e.kind == Tape::Entry::Cond)
        for (int k = 0; k < 2; ++k) {
          collect(*e.branch[k], used, defined, leaves);
          for (const auto& t : e.results[k]) use(t);
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
    std::vector<std::pair<int64_t, Tensor>> used, leaves, targets;
    std::unordered_set<int64_t> defined, seen;
    for (int k = 0; k < 2; ++k) {
      collect(*e.branch[k], used, defined, leaves);
      for (const auto& t : e.results[k])
        if (live(t)) used.push_back({t.tapeId(), t});
    }
    for (const auto& [id, t] : used)
      if (!defined.count(id) && seen.insert(id).second) targets.push_back({id, remapped(t, remap)});
    for (const auto& [id, t] : leaves)
      if (seen.insert(id).second) targets.push_back({id, t});
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
        if (g != lg.end()) yields.push_back(g->second);
        else if (defined.count(id)) yields.push_back(ops::full(t.shape(), 0.0, t.dtype()));  // a leaf read inside
        else yields.push_back(zerosLike(t));
      }
      blocks.push_back(tracer().endBlock(yields));
    }
    std::vector<Tensor> outs =
        tracer().emit(ops::OpId::Cond, {tracer().valueOf(remapped(e.pred, remap))}, {}, types, std::move(blocks));
    for (size_t j = 0; j < targets.size(); ++j) accumulate(grads, targets[j].first, outs[j]);
  }
};

}  // namespace

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
