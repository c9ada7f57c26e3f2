// Statement execution.
#include "../graph/tracer.h"
#include "../values/format.h"
#include "checker.h"
#include "hooks.h"
#include "interpreter.h"
#include "operators.h"

namespace weft {
namespace {

bool located(const ast::Node& n, const Value& v) {
  try {
    return truthy(v);
  } catch (WeftError& err) {
    if (!err.at.valid()) err.at = n.range;
    throw;
  }
}

std::vector<Value> unpackable(const Value& v, size_t want) {
  const std::vector<Value>* items = nullptr;
  if (v.is(Kind::Tuple)) items = &v.as<TupleObj>()->items;
  else if (v.is(Kind::List)) items = &v.as<ListObj>()->items;
  else throw WeftError("cannot unpack " + aTypeName(v) + " into " + std::to_string(want) + " names");
  if (items->size() != want)
    throw WeftError("cannot unpack " + std::to_string(items->size()) + " values into " + std::to_string(want) +
                    " names");
  return *items;
}

}  // namespace

Interpreter::Flow Interpreter::execIf(const ast::If& s, size_t branch, const std::shared_ptr<Env>& env,
                                       Frame& frame) {
  if (branch == s.branches.size()) return s.hasElse ? execBlock(s.elseBody, env, frame) : Flow::Normal;
  const ast::IfBranch& br = s.branches[branch];
  Value c = eval(*br.condition, env);
  if (isTensorLike(c) && tensorOf(c, "condition").isSymbolic()) {  // a condition on graph values
    std::vector<Symbol> names;
    for (size_t k = branch; k < s.branches.size(); ++k) assignedNames(s.branches[k].body, names);
    assignedNames(s.elseBody, names);
    return traceCond(
        *br.condition, tensorOf(c, "condition"), [&] { return execBlock(br.body, env, frame); },
        [&] { return execIf(s, branch + 1, env, frame); }, names, env, frame);
  }
  if (located(*br.condition, c)) return execBlock(br.body, env, frame);
  return execIf(s, branch + 1, env, frame);
}

Interpreter::Flow Interpreter::execBlock(const ast::Block& block, const std::shared_ptr<Env>& env, Frame& frame) {
  for (const auto& s : block) {
    maybeCollectCycles();
    Flow f = exec(*s, env, frame);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

void Interpreter::assignTo(const ast::Expr& target, Value v, const std::shared_ptr<Env>& env) {
  switch (target.kind) {
    case ast::ExprKind::Name: env->set(static_cast<const ast::Name&>(target).name, std::move(v)); return;
    case ast::ExprKind::Attribute: {
      auto& a = static_cast<const ast::Attribute&>(target);
      Value obj = eval(*a.object, env);
      try {
        setAttr(obj, a.name, std::move(v));
      } catch (WeftError& err) {
        if (!err.at.valid()) err.at = a.nameRange;
        throw;
      }
      return;
    }
    case ast::ExprKind::Index: {
      auto& ix = static_cast<const ast::Index&>(target);
      Value obj = eval(*ix.object, env);
      if (ix.items.size() != 1 || ix.items[0]->kind == ast::ExprKind::Slice ||
          ix.items[0]->kind == ast::ExprKind::Ellipsis)
        throw WeftError(ix.range, "item assignment takes a single index or key");
      Value key = eval(*ix.items[0], env);
      try {
        trackContainer(obj);
        setItem(obj, key, std::move(v), ix.items[0]->range);
      } catch (WeftError& err) {
        if (!err.at.valid()) err.at = ix.range;
        throw;
      }
      return;
    }
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      const auto& targets = target.kind == ast::ExprKind::Tuple ? static_cast<const ast::TupleExpr&>(target).items
                                                                  : static_cast<const ast::ListExpr&>(target).items;
      std::vector<Value> items;
      try {
        items = unpackable(v, targets.size());
      } catch (WeftError& err) {
        if (!err.at.valid()) err.at = target.range;
        throw;
      }
      for (size_t i = 0; i < targets.size(); ++i) assignTo(*targets[i], std::move(items[i]), env);
      return;
    }
    default: throw WeftError(target.range, "cannot assign to this expression");
  }
}

void Interpreter::execAugAssign(const ast::AugAssign& s, const std::shared_ptr<Env>& env, const Frame& frame) {
  Value current = eval(*s.target, env);
  Value rhs = eval(*s.value, env);
  // `v += x` on a Variable mutates it in place (assign_add), whatever name or attribute holds it.
  if (current.is(Kind::Variable) && (s.op == ast::BinaryOp::Add || s.op == ast::BinaryOp::Sub)) {
    try {
      Args args;
      args.pos.push_back(rhs);
      args.site = s.range;
      call(getAttr(current, intern(s.op == ast::BinaryOp::Add ? "assign_add" : "assign_sub")), args);
    } catch (WeftError& err) {
      if (!err.at.valid()) err.at = s.range;
      throw;
    }
    return;
  }
  // Anything else a function has not bound itself would become a new local, the outer value
  // unchanged: Python's UnboundLocalError (checker.h finds it before running where it can).
  if (frame.function && s.target->kind == ast::ExprKind::Name) {
    Symbol name = static_cast<const ast::Name&>(*s.target).name;
    if (!env->findLocal(name))
      throw WeftError(s.target->range, augmentedOuterMessage(*frame.function, symbolName(name),
                                                              ast::binaryOpText(s.op), "outer"));
  }
  Value result;
  try {
    result = binaryOp(s.op, current, rhs);
  } catch (WeftError& err) {
    if (!err.at.valid()) err.at = s.range;
    throw;
  }
  assignTo(*s.target, std::move(result), env);
}

Interpreter::Flow Interpreter::exec(const ast::Stmt& s, const std::shared_ptr<Env>& env, Frame& frame) {
  using K = ast::StmtKind;
  if (auto* tracer = graph::Tracer::active()) tracer->loc = {s.range.file->path, int(s.range.begin.line)};
  struct Statement {  // the innermost statement until this one ends
    const SourceRange*& at;
    const SourceRange* outer = at;
    ~Statement() { at = outer; }
  } statement{context().statement};
  statement.at = &s.range;
  switch (s.kind) {
    case K::Expr: eval(*static_cast<const ast::ExprStmt&>(s).expr, env); return Flow::Normal;
    case K::Assign: {
      auto& a = static_cast<const ast::Assign&>(s);
      Value v = eval(*a.value, env);
      for (const auto& t : a.targets) assignTo(*t, v, env);
      return Flow::Normal;
    }
    case K::AugAssign: execAugAssign(static_cast<const ast::AugAssign&>(s), env, frame); return Flow::Normal;
    case K::If: return execIf(static_cast<const ast::If&>(s), 0, env, frame);
    case K::While: {
      auto& w = static_cast<const ast::While&>(s);
      for (;;) {
        Value c = eval(*w.condition, env);
        // A condition on graph values: the rest of the loop becomes a while node.
        if (isTensorLike(c) && tensorOf(c, "condition").isSymbolic()) return traceWhile(w, env, frame);
        if (!located(*w.condition, c)) break;
        checkInterrupt(s.range);
        Flow f = execBlock(w.body, env, frame);
        if (f == Flow::Break) break;
        if (f == Flow::Return) return f;
      }
      return Flow::Normal;
    }
    case K::For: {
      auto& f = static_cast<const ast::For&>(s);
      Value iterable = eval(*f.iterable, env);
      if (graph::Tracer::active() && f.target->kind == ast::ExprKind::Name)
        if (auto* r = dynamic_cast<const RangeObj*>(iterable.object())) return traceForRange(f, *r, env, frame);
      Flow result = Flow::Normal;
      auto body = [&](Value item) {  // forEach counts the step
        assignTo(*f.target, std::move(item), env);
        Flow fl = execBlock(f.body, env, frame);
        if (fl == Flow::Return) result = Flow::Return;
        return fl == Flow::Break || fl == Flow::Return;
      };
      try {
        forEach(iterable, body);
      } catch (WeftError& err) {
        if (!err.at.valid()) err.at = f.iterable->range;
        throw;
      }
      return result;
    }
    case K::Break: return Flow::Break;
    case K::Continue: return Flow::Continue;
    case K::Pass: return Flow::Normal;
    case K::Return: {
      auto& r = static_cast<const ast::Return&>(s);
      frame.returnValue = r.value ? eval(*r.value, env) : Value();
      return Flow::Return;
    }
    case K::Assert: {
      auto& a = static_cast<const ast::Assert&>(s);
      Value cond = eval(*a.condition, env);
      auto message = [&] { return "assertion failed" + (a.message ? ": " + toStr(eval(*a.message, env)) : ""); };
      // On a graph value: a check node, run with the graph (its message is made while tracing).
      if (isTensorLike(cond) && tensorOf(cond, "condition").isSymbolic() && graph::Tracer::active()) {
        traceCheck(*a.condition, tensorOf(cond, "condition"), message());
        return Flow::Normal;
      }
      // A plan checks shapes, not values: a condition known only with data is not checked.
      if (cond.isTensor() && cond.tensor().isAbstract() && cond.tensor().numel() == 1) return Flow::Normal;
      if (!located(*a.condition, cond)) throw WeftError(a.condition->range, message());
      return Flow::Normal;
    }
    case K::With: return execWith(static_cast<const ast::With&>(s), env, frame);
    case K::Import:
    case K::FromImport: execImport(s, env); return Flow::Normal;
    case K::Fn: {
      auto& f = static_cast<const ast::FnDecl&>(s);
      bool graph = false;
      const ast::Call* withArgs = nullptr;  // @function(input_signature=[...])
      for (const auto& d : f.decorators) {
        if (!ast::isGraphFunction(d)) throw WeftError(d.range, "unknown decorator; Weft has @function");
        graph = true;
        if (d.expr->kind == ast::ExprKind::Call) withArgs = static_cast<const ast::Call*>(d.expr.get());
      }
      Value fn = makeFunction(symbolName(f.name), f.params, &f.body, nullptr, f.returnType.get(), graph,
                              f.nameRange, env);
      if (withArgs) applyInputSignature(*fn.as<FunctionObj>(), *withArgs, env);
      env->set(f.name, std::move(fn));
      return Flow::Normal;
    }
    case K::Module: {
      auto& m = static_cast<const ast::ModuleDecl&>(s);
      auto type = std::make_shared<ModuleTypeObj>();
      type->name = symbolName(m.name);
      type->decl = &m;
      type->closure = env;
      trackEnv(env);  // env holds the type, the type its closure: a cycle to break at exit
      for (const auto& p : m.params) {
        type->hasDefault.push_back(p.defaultValue != nullptr);
        type->defaults.push_back(p.defaultValue ? eval(*p.defaultValue, env) : Value());
      }
      env->set(m.name, Value(std::move(type)));
      return Flow::Normal;
    }
    case K::Mesh: {  // interpreter/mesh/builtins.cpp, through hooks.h
      auto& m = static_cast<const ast::MeshDecl&>(s);
      std::vector<Value> sizes;
      for (const auto& d : m.dims) sizes.push_back(eval(*d.size, env));
      env->set(m.name, evalHooks().declareMesh(m, sizes));
      return Flow::Normal;
    }
    case K::LayoutMap: {
      auto& lm = static_cast<const ast::LayoutMapDecl&>(s);
      env->set(lm.name, evalHooks().declareLayoutMap(lm, env->find(lm.mesh)));
      return Flow::Normal;
    }
  }
  return Flow::Normal;
}

}  // namespace weft
