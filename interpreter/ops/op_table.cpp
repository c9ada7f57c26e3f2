// The op table: its rows, which the families' files define (row.h), the columns the layers above
// register, and ops::apply, the one funnel every op runs through.
#include "op_table.h"

#include <stdexcept>

#include "../../grammar/diagnostics.h"
#include "row.h"

namespace weft::ops {
namespace {

using In = std::span<const Tensor>;

// The rows, in OpId order, each with its name and arity; its family's file fills the rest.
std::vector<OpDef>& allRows() {
  static std::vector<OpDef> r = [] {
    std::vector<OpDef> all;
    for (int i = 0; i < kOpCount; ++i) all.push_back(OpDef{OpId(i), opName(OpId(i)), opArity(OpId(i))});
    return all;
  }();
  return r;
}
std::vector<bool>& defined() {
  static std::vector<bool> d(size_t(kOpCount), false);
  return d;
}

// Every family's rows (row.h); an op without a row, or with two, stops the program here.
void defineRows() {
  defineElementwiseRows();
  defineGeluRows();
  defineReduceRows();
  defineMatMulRows();
  defineShapeRows();
  defineJoinRows();
  defineSelectRows();
  defineIndexingRows();
  defineCreateRows();
  defineRandomRows();
  defineConvRows();
  defineAttentionRows();
  defineLayerNormRows();
  defineAdamRows();
  defineCollectiveRows();
  defineGraphOnlyRows();
  for (const OpDef& d : allRows())
    if (!defined()[size_t(d.id)]) throw std::logic_error(std::string("op ") + d.name + " has no row");
}

std::vector<OpDef>& table() {
  static const bool built = (defineRows(), true);
  (void)built;
  return allRows();
}

bool anySymbolic(In in) {
  for (const auto& t : in)
    if (t.isSymbolic()) return true;
  return false;
}

bool anyAbstract(In in) {
  for (const auto& t : in)
    if (t.isAbstract()) return true;
  return false;
}

bool anySharded(In in) {
  for (const auto& t : in)
    if (t.shards()) return true;
  return false;
}

ShardedApply shardedApply = nullptr;

}  // namespace

const OpDef& opDef(OpId op) { return table()[size_t(op)]; }

OpDef& defineRow(OpId id, Family family) {
  if (defined()[size_t(id)]) throw std::logic_error(std::string("op ") + opName(id) + " has two rows");
  defined()[size_t(id)] = true;
  OpDef& d = allRows()[size_t(id)];
  d.family = family;
  return d;
}

void setVjp(std::initializer_list<OpId> ops, VjpFn rule) {
  for (OpId op : ops) table()[size_t(op)].vjp = rule;
}

void setEmit(std::initializer_list<OpId> ops, const EmitRule* rule) {
  for (OpId op : ops) table()[size_t(op)].emit = rule;
}

void setShard(std::initializer_list<OpId> ops, const ShardRule* rule) {
  for (OpId op : ops) table()[size_t(op)].shard = rule;
}

bool findOp(const std::string& name, OpId& out) {
  for (const auto& d : table())
    if (name == d.name) {
      out = d.id;
      return true;
    }
  return false;
}

void setShardedApply(ShardedApply run) { shardedApply = run; }

TraceHook* traceHook() { return context().traceHook; }
void setTraceHook(TraceHook* hook) { context().traceHook = hook; }
TapeHook* tapeHook() { return context().tapeHook; }
void setTapeHook(TapeHook* hook) { context().tapeHook = hook; }
bool hooked() { return context().traceHook || context().tapeHook; }

std::vector<Tensor> apply(OpId op, In in, const Attrs& attrs) {
  const OpDef& d = opDef(op);
  if (!d.run) throw std::logic_error(std::string("op ") + d.name + " runs only inside a graph");
  const ExecutionContext& c = context();
  TraceHook* const trace = c.traceHook;
  TapeHook* const tape = c.tapeHook;
  const bool symbolic = anySymbolic(in);
  if (symbolic && !trace)  // a trace paused, or a value leaked from a finished one
    for (const auto& t : in) requireLiveTrace(t);
  const bool traced = trace && (d.effect || symbolic);
  if (!traced && shardedApply && anySharded(in)) {  // SPMD on the operands' mesh, also on shapes alone
    std::vector<Tensor> out = shardedApply(op, in, attrs);
    if (tape) tape->recorded(op, in, attrs, out);
    return out;
  }
  // Inference alone while tracing, on abstract inputs, and for the creation and random ops on
  // shapes alone (so that recording a random op does not advance the stream).
  if (traced || anyAbstract(in) || (in.empty() && c.shapesOnly)) {
    std::vector<TensorType> types;
    types.reserve(in.size());
    for (const auto& t : in) types.push_back(typeOf(t));
    std::vector<Tensor> out;
    for (const TensorType& t : d.infer(types, attrs)) out.push_back(Tensor::abstract(t.dtype, t.shape));
    if (traced) out = trace->record(op, in, attrs, std::move(out));
    if (tape) tape->recorded(op, in, attrs, out);
    return out;
  }
  std::vector<Tensor> out = d.run(in, attrs);
  if (tape) tape->recorded(op, in, attrs, out);
  return out;
}

Tensor apply1(OpId op, In in, const Attrs& attrs) {
  std::vector<Tensor> r = apply(op, in, attrs);
  return std::move(r.at(0));
}

// Per subscript: its kind, then for an index the index, for a range a mask of the parts given
// (1 start, 2 stop, 4 step) and the three values.
std::vector<int64_t> encodeSubscripts(const std::vector<Subscript>& subs) {
  std::vector<int64_t> code;
  for (const auto& s : subs) {
    code.push_back(int64_t(s.kind));
    if (s.kind == Subscript::Index) code.push_back(s.index);
    if (s.kind == Subscript::Range) {
      code.push_back((s.start ? 1 : 0) | (s.stop ? 2 : 0) | (s.step ? 4 : 0));
      code.push_back(s.start.value_or(0));
      code.push_back(s.stop.value_or(0));
      code.push_back(s.step.value_or(0));
    }
  }
  return code;
}

std::vector<Subscript> decodeSubscripts(const std::vector<int64_t>& code) {
  std::vector<Subscript> subs;
  size_t i = 0;
  auto next = [&]() {
    if (i >= code.size()) throw WeftError("getitem: malformed subscripts attribute");
    return code[i++];
  };
  while (i < code.size()) {
    Subscript s;
    int64_t kind = next();
    if (kind < 0 || kind > Subscript::Ellipsis) throw WeftError("getitem: malformed subscripts attribute");
    s.kind = Subscript::Kind(kind);
    if (s.kind == Subscript::Index) s.index = next();
    if (s.kind == Subscript::Range) {
      int64_t mask = next(), a = next(), b = next(), c = next();
      if (mask & 1) s.start = a;
      if (mask & 2) s.stop = b;
      if (mask & 4) s.step = c;
    }
    subs.push_back(s);
  }
  return subs;
}

}  // namespace weft::ops
