// `if`, `while` and `for ... in range(n)` on graph values while a graph function is traced: each
// becomes one cond or while node whose blocks are traced once, so one graph serves every input.
// The names a branch or loop body assigns are the node's outputs (SPEC §4).
#include <algorithm>

#include "../autodiff/tape.h"
#include "../graph/tracer.h"
#include "../values/format.h"
#include "interpreter.h"
#include "operators.h"

namespace weft {
namespace {

void addName(Symbol s, std::vector<Symbol>& names) {
  if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
}

void targetNames(const ast::Expr& t, std::vector<Symbol>& names) {
  if (t.kind == ast::ExprKind::Name) addName(static_cast<const ast::Name&>(t).name, names);
  if (t.kind == ast::ExprKind::Tuple)
    for (const auto& x : static_cast<const ast::TupleExpr&>(t).items) targetNames(*x, names);
  if (t.kind == ast::ExprKind::List)
    for (const auto& x : static_cast<const ast::ListExpr&>(t).items) targetNames(*x, names);
}

// A scalar condition as a bool graph value (Python truthiness: non-zero is true).
Tensor conditionOf(const Tensor& c, const SourceRange& at) {
  if (c.rank() != 0)
    throw WeftError(at, "a condition on graph values must be a scalar, got a tensor of shape " + c.shape().str() +
                            "; use any() or all()");
  if (c.dtype() == DType::Bool) return c;
  return ops::binary(ops::BinaryOp::Ne, c, ops::cast(Tensor::scalar<int32_t>(0), c.dtype()));
}

std::string nameText(Symbol s) { return "'" + symbolName(s) + "'"; }

// Two values a name may hold after a branch: the same object, or tensors of one type.
bool sameValue(const Value& a, const Value& b) {
  if (a.isTensor() && b.isTensor()) {
    const Tensor &x = a.tensor(), &y = b.tensor();
    if (x.isSymbolic() || y.isSymbolic()) return x.symbol() == y.symbol();
    return x.sharesStorage(y) && x.shape() == y.shape() && x.dtype() == y.dtype();
  }
  if (a.kind() != b.kind()) return false;
  return a.isNone() || a.sameObject(b) || (a.is(Kind::Str) && valuesEqual(a, b));
}

graph::TensorType joinTypes(const std::string& what, Value& a, Value& b, const SourceRange& at) {
  if (!isTensorLike(a) || !isTensorLike(b))
    throw WeftError(at, what + " is " + typeNameOf(a) + " on one path and " + typeNameOf(b) +
                            " on the other: a graph's branches and loops may change only tensors");
  a = Value(tensorOf(a, "value"), a.weak());
  b = Value(tensorOf(b, "value"), b.weak());
  if (a.tensor().dtype() != b.tensor().dtype()) unifyDTypes(a, b, "if");
  if (a.tensor().shape() != b.tensor().shape())
    throw WeftError(at, what + " is " + typeNameOf(a) + " on one path and " + typeNameOf(b) +
                            " on the other: a graph value has one shape (use None dimensions in annotations)");
  return graph::typeOf(a.tensor());
}

}  // namespace

void assignedNames(const ast::Block& block, std::vector<Symbol>& names) {
  for (const auto& s : block) {
    switch (s->kind) {
      case ast::StmtKind::Assign:
        for (const auto& t : static_cast<const ast::Assign&>(*s).targets) targetNames(*t, names);
        break;
      case ast::StmtKind::AugAssign: targetNames(*static_cast<const ast::AugAssign&>(*s).target, names); break;
      case ast::StmtKind::If: {
        auto& i = static_cast<const ast::If&>(*s);
        for (const auto& br : i.branches) assignedNames(br.body, names);
        assignedNames(i.elseBody, names);
        break;
      }
      case ast::StmtKind::For: {
        auto& f = static_cast<const ast::For&>(*s);
        targetNames(*f.target, names);
        assignedNames(f.body, names);
        break;
      }
      case ast::StmtKind::While: assignedNames(static_cast<const ast::While&>(*s).body, names); break;
      case ast::StmtKind::With: assignedNames(static_cast<const ast::With&>(*s).body, names); break;
      default: break;
    }
  }
}

Interpreter::Flow Interpreter::traceCond(const ast::Node& at, const Tensor& condIn, const std::function<Flow()>& thenPart,
                                         const std::function<Flow()>& elsePart, const std::vector<Symbol>& names,
                                         const std::shared_ptr<Env>& env, Frame& frame) {
  graph::Tracer& tracer = *graph::Tracer::active();
  Tensor cond = conditionOf(condIn, at.range);
  std::vector<std::optional<Value>> before;
  for (Symbol s : names) {
    Value* v = env->findLocal(s);
    before.push_back(v ? std::optional(*v) : std::nullopt);
  }
  auto restore = [&] {
    for (size_t i = 0; i < names.size(); ++i) {
      if (before[i]) env->set(names[i], *before[i]);
      else env->erase(names[i]);
    }
  };
  // A gradient tape records each branch, to replay it in the gradient's cond.
  autodiff::Tape* tape = autodiff::Tape::active();
  struct Path {
    std::shared_ptr<autodiff::Tape::Region> region;
    graph::Block block;
    std::vector<std::optional<Value>> after;
    Flow flow;
    Value returned;
    bool fails = false;  // error() at its top level: the call fails whenever it is taken
  };
  auto trace = [&](const std::function<Flow()>& part) {
    Path p;
    tracer.beginBlock({});
    frame.returnValue = Value();
    if (tape) tape->beginRegion();
    p.flow = part();
    if (tape) p.region = tape->endRegion();
    p.returned = frame.returnValue;
    for (Symbol s : names) {
      Value* v = env->findLocal(s);
      p.after.push_back(v ? std::optional(*v) : std::nullopt);
    }
    p.fails = tracer.failing();
    p.block = tracer.endBlock({});
    restore();
    if (p.flow == Flow::Break || p.flow == Flow::Continue)
      throw WeftError(at.range, "'break' and 'continue' inside an if on graph values are not supported in a graph "
                                "function; use a while loop whose condition says when to stop");
    return p;
  };
  const graph::Loc loc = tracer.loc;  // the if statement's: its branches' statements move it
  Path a = trace(thenPart), b = trace(elsePart);
  tracer.loc = loc;
  if (a.fails || b.fails) {
    // A branch that calls error() never falls through (as eagerly): the cond runs it, and fails,
    // when it is taken, and the other branch's nodes follow the cond in this block, so that what
    // that branch binds or returns is bound after the if.
    std::vector<graph::Block> blocks(2);
    if (a.fails) blocks[0] = std::move(a.block);
    if (b.fails) blocks[1] = std::move(b.block);
    tracer.emit(ops::OpId::Cond, {tracer.valueOf(cond)}, {}, {}, std::move(blocks));
    if (a.fails && b.fails) {
      tracer.markFailing();
      return Flow::Normal;
    }
    Path& taken = a.fails ? b : a;
    tracer.inlineBlock(std::move(taken.block));
    if (tape) tape->inlineRegion(*taken.region);
    for (size_t i = 0; i < names.size(); ++i) {
      if (taken.after[i]) env->set(names[i], *taken.after[i]);
      else env->erase(names[i]);
    }
    frame.returnValue = taken.returned;
    return taken.flow;
  }
  if ((a.flow == Flow::Return) != (b.flow == Flow::Return))
    throw WeftError(at.range, "only one branch of this if on graph values returns: in a graph function, both "
                              "branches return, or neither does");
  std::vector<graph::TensorType> types;
  std::vector<Symbol> outNames;  // the names bound to outputs; the return value last
  std::vector<Value> aOut, bOut;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!a.after[i] || !b.after[i]) {
      if (a.after[i] || b.after[i]) env->erase(names[i]);  // defined on one path only: not after the if
      continue;
    }
    Value x = *a.after[i], y = *b.after[i];
    if (sameValue(x, y)) {
      env->set(names[i], x);
      continue;
    }
    types.push_back(joinTypes(nameText(names[i]), x, y, at.range));
    outNames.push_back(names[i]);
    aOut.push_back(x);
    bOut.push_back(y);
  }
  bool returns = a.flow == Flow::Return;
  if (returns) {
    Value x = a.returned, y = b.returned;
    types.push_back(joinTypes("the returned value", x, y, at.range));
    aOut.push_back(x);
    bOut.push_back(y);
  }
  for (const auto& v : aOut) a.block.results.push_back(tracer.valueOf(v.tensor()));
  for (const auto& v : bOut) b.block.results.push_back(tracer.valueOf(v.tensor()));
  std::vector<graph::Block> blocks;
  blocks.push_back(std::move(a.block));
  blocks.push_back(std::move(b.block));
  std::vector<Tensor> outs = tracer.emit(ops::OpId::Cond, {tracer.valueOf(cond)}, {}, types, std::move(blocks));
  if (tape) {
    std::shared_ptr<autodiff::Tape::Region> regions[2] = {a.region, b.region};
    std::vector<Tensor> results[2];
    for (const auto& v : aOut) results[0].push_back(v.tensor());
    for (const auto& v : bOut) results[1].push_back(v.tensor());
    tape->cond(cond, regions, results, outs);
  }
  for (size_t i = 0; i < outNames.size(); ++i) env->set(outNames[i], Value(outs[i]));
  if (returns) {
    frame.returnValue = Value(outs.back());
    return Flow::Return;
  }
  return Flow::Normal;
}

// As TensorFlow's autograph makes them: the right side is evaluated whatever the left one holds
// (no short circuit), and the result is a bool graph value, not one of the operands.
Tensor Interpreter::traceLogical(const ast::Logical& l, const Tensor& x, const Value& y) {
  const char* op = l.isAnd ? "and" : "or";
  if (!isTensorLike(y))
    throw WeftError(l.rhs->range, std::string("'") + op + "' on a graph value takes a tensor or a number on its right, got " +
                                      typeNameOf(y));
  Tensor a = conditionOf(x, l.lhs->range), b = conditionOf(tensorOf(y, "operand"), l.rhs->range);
  return ops::binary(l.isAnd ? ops::BinaryOp::And : ops::BinaryOp::Or, a, b);
}

void Interpreter::traceCheck(const ast::Node& at, const Tensor& cond, const std::string& message) {
  graph::Tracer::active()->check(conditionOf(cond, at.range), message, at.range);
}

namespace {

// The loop values of a while node: the names the body assigns that hold tensors before it.
struct LoopState {
  std::vector<Symbol> names;
  std::vector<Value> init;
  std::vector<graph::TensorType> types;
};

LoopState loopState(const std::vector<Symbol>& assigned, const std::shared_ptr<Env>& env) {
  LoopState st;
  for (Symbol s : assigned) {
    Value* v = env->findLocal(s);
    if (!v || !isTensorLike(*v)) continue;
    Tensor t = tensorOf(*v, "loop value");
    st.names.push_back(s);
    st.init.push_back(Value(t, v->weak()));
    st.types.push_back(graph::typeOf(t));
  }
  return st;
}

// A gradient tape records a while node's condition and body as regions, and the node gets one
// more loop value, last, counting its iterations (autodiff/tape.h).
struct TapedLoop {
  autodiff::Tape* tape = autodiff::Tape::active();
  std::vector<graph::TensorType> types;  // the node's loop values
  std::shared_ptr<autodiff::Tape::Region> regions[2];
  std::vector<Tensor> params[2];
  Tensor pred;
  explicit TapedLoop(std::vector<graph::TensorType> loop) : types(std::move(loop)) {
    if (tape) types.push_back({DType::I64, {}});
  }
  // Block k's params (the condition's, then the body's), as the tape sees them.
  std::vector<Tensor> begin(int k, std::vector<Tensor> p) {
    if (!tape) return p;
    tape->loopParams(p);
    params[k] = p;
    tape->beginRegion();
    return p;
  }
  // Block k's results: the body's gain the count's next value.
  void end(int k, std::vector<Tensor>& results) {
    if (!tape) return;
    if (k == 0) pred = results[0];
    else results.push_back(ops::binary(ops::BinaryOp::Add, params[1].back(), Tensor::scalar<int64_t>(1)));
    regions[k] = tape->endRegion();
  }
  // The while node on `init`, recorded with its body's results `next`.
  std::vector<Tensor> emit(graph::Tracer& tracer, std::vector<Tensor> init, std::vector<graph::Block> blocks,
                           const std::vector<Tensor>& next) {
    if (tape) init.push_back(Tensor::scalar<int64_t>(0));
    std::vector<int> inputs;
    for (const auto& t : init) inputs.push_back(tracer.valueOf(t));
    std::vector<Tensor> outs = tracer.emit(ops::OpId::While, inputs, {}, types, std::move(blocks));
    if (tape) tape->whileLoop(init, regions, params, pred, next, outs);
    return outs;
  }
};

// The loop values the traced body leaves, each of its loop variable's type; the names the body
// bound first are unbound, as they do not live past the loop.
std::vector<Tensor> nextValues(const LoopState& st, const std::vector<Symbol>& assigned,
                               const std::shared_ptr<Env>& env, const SourceRange& at, const char* loop) {
  std::vector<Tensor> next;
  for (size_t i = 0; i < st.names.size(); ++i) {
    Value v = *env->findLocal(st.names[i]);
    Value init = st.init[i];
    if (!isTensorLike(v))
      throw WeftError(at, "loop variable " + nameText(st.names[i]) + " becomes " + aTypeName(v) +
                              " in the loop body: a graph " + loop + " loop carries tensors");
    v = Value(tensorOf(v, "loop value"), v.weak());
    if (v.tensor().dtype() != st.types[i].dtype && v.weak()) unifyDTypes(v, init, loop);
    if (graph::typeOf(v.tensor()) != st.types[i])
      throw WeftError(at, "loop variable " + nameText(st.names[i]) + " changes from " + graph::typeText(st.types[i]) +
                              " to " + graph::typeText(graph::typeOf(v.tensor())) + " in the loop body: a graph " +
                              loop + " loop keeps the type and shape of its loop variables");
    next.push_back(v.tensor());
  }
  for (Symbol s : assigned)
    if (std::find(st.names.begin(), st.names.end(), s) == st.names.end() && env->findLocal(s)) env->erase(s);
  return next;
}

}  // namespace

Interpreter::Flow Interpreter::traceWhile(const ast::While& w, const std::shared_ptr<Env>& env, const Frame& frame) {
  graph::Tracer& tracer = *graph::Tracer::active();
  const graph::Loc at = tracer.loc;  // the while statement's: its body's statements move it
  std::vector<Symbol> assigned;
  assignedNames(w.body, assigned);
  LoopState st = loopState(assigned, env);
  TapedLoop taped(st.types);
  std::vector<graph::Block> blocks;
  // The condition block, on the loop values.
  std::vector<Tensor> params = taped.begin(0, tracer.beginBlock(taped.types));
  for (size_t i = 0; i < st.names.size(); ++i) env->set(st.names[i], Value(params[i], st.init[i].weak()));
  Value c = eval(*w.condition, env);
  if (!isTensorLike(c)) throw WeftError(w.condition->range, "a while condition on graph values must be a tensor");
  std::vector<Tensor> pred{conditionOf(tensorOf(c, "condition"), w.condition->range)};
  taped.end(0, pred);
  blocks.push_back(tracer.endBlock(pred));
  // The body block.
  params = taped.begin(1, tracer.beginBlock(taped.types));
  for (size_t i = 0; i < st.names.size(); ++i) env->set(st.names[i], Value(params[i], st.init[i].weak()));
  Frame inner;  // its body's return is refused: only the function's name carries over
  inner.function = frame.function;
  Flow f = execBlock(w.body, env, inner);
  if (f != Flow::Normal)
    throw WeftError(w.range, std::string("'") + (f == Flow::Return ? "return" : f == Flow::Break ? "break" : "continue") +
                                 "' inside a while loop on graph values is not supported in a graph function; "
                                 "put the stopping test in the loop condition");
  std::vector<Tensor> next = nextValues(st, assigned, env, w.range, "while");
  taped.end(1, next);
  blocks.push_back(tracer.endBlock(next));
  std::vector<Tensor> init;
  for (const auto& v : st.init) init.push_back(v.tensor());
  tracer.loc = at;
  std::vector<Tensor> outs = taped.emit(tracer, init, std::move(blocks), next);
  for (size_t i = 0; i < st.names.size(); ++i) env->set(st.names[i], Value(outs[i], st.init[i].weak()));
  return Flow::Normal;
}

Interpreter::Flow Interpreter::traceForRange(const ast::For& f, const RangeObj& range, const std::shared_ptr<Env>& env,
                                             const Frame& frame) {
  graph::Tracer& tracer = *graph::Tracer::active();
  if (range.size() == 0) return Flow::Normal;
  const graph::Loc at = tracer.loc;  // the for statement's: its body's statements move it
  Symbol target = static_cast<const ast::Name&>(*f.target).name;
  std::vector<Symbol> assigned;
  assignedNames(f.body, assigned);
  assigned.erase(std::remove(assigned.begin(), assigned.end(), target), assigned.end());
  LoopState st = loopState(assigned, env);
  bool wide = std::max(std::abs(range.start), std::abs(range.stop)) > INT32_MAX / 2;
  DType it = wide ? DType::I64 : DType::I32;
  auto scalar = [&](int64_t v) { return wide ? Tensor::scalar<int64_t>(v) : Tensor::scalar<int32_t>(int32_t(v)); };
  std::vector<graph::TensorType> types = st.types;
  types.insert(types.begin(), graph::TensorType{it, {}});
  TapedLoop taped(types);
  std::vector<graph::Block> blocks;
  std::vector<Tensor> params = taped.begin(0, tracer.beginBlock(taped.types));
  std::vector<Tensor> more{
      ops::binary(range.step > 0 ? ops::BinaryOp::Lt : ops::BinaryOp::Gt, params[0], scalar(range.stop))};
  taped.end(0, more);
  blocks.push_back(tracer.endBlock(more));
  params = taped.begin(1, tracer.beginBlock(taped.types));
  env->set(target, Value(params[0], true));
  for (size_t i = 0; i < st.names.size(); ++i) env->set(st.names[i], Value(params[i + 1], st.init[i].weak()));
  Frame inner;  // its body's return is refused: only the function's name carries over
  inner.function = frame.function;
  Flow flow = execBlock(f.body, env, inner);
  if (flow != Flow::Normal)
    throw WeftError(f.range, "'break', 'continue' and 'return' inside a for loop over range() are not supported "
                             "in a graph function (the loop is one graph node); use a while loop");
  std::vector<Tensor> next{ops::binary(ops::BinaryOp::Add, params[0], scalar(range.step))};
  for (const Tensor& t : nextValues(st, assigned, env, f.range, "for")) next.push_back(t);
  taped.end(1, next);
  blocks.push_back(tracer.endBlock(next));
  std::vector<Tensor> init{scalar(range.start)};
  for (const auto& v : st.init) init.push_back(v.tensor());
  tracer.loc = at;
  std::vector<Tensor> outs = taped.emit(tracer, init, std::move(blocks), next);
  // After the loop its target holds the last value, as in Python.
  env->set(target, Value(ops::binary(ops::BinaryOp::Sub, outs[0], scalar(range.step)), true));
  for (size_t i = 0; i < st.names.size(); ++i) env->set(st.names[i], Value(outs[i + 1], st.init[i].weak()));
  return Flow::Normal;
}

}  // namespace weft
