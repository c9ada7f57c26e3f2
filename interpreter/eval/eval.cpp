// Expression evaluation.
#include "../ops/ops.h"
#include "../values/format.h"
#include "interpreter.h"
#include "operators.h"
#include "suggest.h"

namespace weft {

namespace {

// Errors raised below an expression without a location get the expression's.
template <class F>
Value located(const ast::Expr& e, F&& f) {
  try {
    return f();
  } catch (WeftError& err) {
    if (!err.at.valid()) err.at = e.range;
    throw;
  }
}

}  // namespace

Value Interpreter::evalName(const ast::Name& n, const std::shared_ptr<Env>& env) {
  if (Value* v = env->find(n.name)) return *v;
  if (!preludeLoaded_) {
    loadPrelude(n.range);
    if (Value* v = env->find(n.name)) return *v;
  }
  std::vector<std::string> names;
  for (Env* e = env.get(); e; e = e->parent().get())
    for (const auto& [k, v] : e->entries()) names.push_back(symbolName(k));
  throw WeftError(n.range, undefinedNameMessage(symbolName(n.name), names));
}

Value Interpreter::eval(const ast::Expr& e, const std::shared_ptr<Env>& env) {
  using K = ast::ExprKind;
  // One bound for all nesting (chains of calls and indexes hold no brackets open, and calls made
  // inside them add their own frames): the stack that is left, as calls are bounded.
  if (stackNearlyFull(size_t(256) << 10)) throw WeftError(e.range, kExpressionTooDeep);
  switch (e.kind) {
    case K::Int: return Value(Literal::integer(static_cast<const ast::IntLit&>(e).value));
    case K::Float: return Value(Literal::real(static_cast<const ast::FloatLit&>(e).value));
    case K::Bool: return Value(Tensor::scalar<bool>(static_cast<const ast::BoolLit&>(e).value));
    case K::String: return makeStr(static_cast<const ast::StringLit&>(e).value);
    case K::None: return Value();
    case K::Name: return evalName(static_cast<const ast::Name&>(e), env);
    case K::Attribute: {
      auto& a = static_cast<const ast::Attribute&>(e);
      Value obj = eval(*a.object, env);
      try {
        return getAttr(obj, a.name);
      } catch (WeftError& err) {
        if (!err.at.valid()) err.at = a.nameRange;
        throw;
      }
    }
    case K::Index: return evalIndex(static_cast<const ast::Index&>(e), env);
    case K::Call: return evalCall(static_cast<const ast::Call&>(e), env);
    case K::Unary: {
      auto& u = static_cast<const ast::Unary&>(e);
      Value x = eval(*u.operand, env);
      if (u.op == ast::UnaryOp::Neg)
        if (std::optional<Value> node = symbolicOperator("neg", x, Value(), e.range)) return *node;
      return located(e, [&] { return unaryOp(u.op, x); });
    }
    case K::Binary: {
      auto& b = static_cast<const ast::Binary&>(e);
      Value x = eval(*b.lhs, env);
      Value y = eval(*b.rhs, env);
      if (std::optional<Value> node = symbolicOperator(ast::binaryOpText(b.op), x, y, e.range)) return *node;
      return located(e, [&] { return binaryOp(b.op, x, y); });
    }
    case K::Compare: return evalCompare(static_cast<const ast::Compare&>(e), env);
    case K::Logical: {
      auto& l = static_cast<const ast::Logical&>(e);
      Value x = eval(*l.lhs, env);
      // A graph value's truth is known only when the graph runs: both sides are evaluated.
      if (x.isTensor() && x.tensor().isSymbolic()) return Value(traceLogical(l, x.tensor(), eval(*l.rhs, env)));
      // A plan (shapes alone): an unknown truth value gives an unknown bool, which `assert` skips.
      if (x.isTensor() && x.tensor().isAbstract() && x.tensor().numel() == 1) {
        eval(*l.rhs, env);
        return Value(Tensor::abstract(DType::Bool, Shape{}));
      }
      bool t = located(*l.lhs, [&] { return Value(Tensor::scalar<bool>(truthy(x))); }).tensor().asInt() != 0;
      if (l.isAnd ? !t : t) return x;
      return eval(*l.rhs, env);
    }
    case K::Conditional: {
      auto& c = static_cast<const ast::Conditional&>(e);
      Value cond = eval(*c.condition, env);
      bool t = located(*c.condition, [&] { return Value(Tensor::scalar<bool>(truthy(cond))); }).tensor().asInt();
      return eval(t ? *c.thenValue : *c.elseValue, env);
    }
    case K::Lambda: {
      auto& l = static_cast<const ast::Lambda&>(e);
      return makeFunction("<lambda>", l.params, nullptr, l.body.get(), nullptr, false, e.range, env);
    }
    case K::List:
    case K::Tuple: {
      const auto& items = e.kind == K::List ? static_cast<const ast::ListExpr&>(e).items
                                            : static_cast<const ast::TupleExpr&>(e).items;
      std::vector<Value> vals;
      vals.reserve(items.size());
      for (const auto& it : items) vals.push_back(eval(*it, env));
      if (e.kind == K::List && static_cast<const ast::ListExpr&>(e).isSet) {
        auto set = std::make_shared<SetObj>();
        for (size_t i = 0; i < items.size(); ++i) located(*items[i], [&] { set->add(vals[i]); return Value(); });
        return Value(std::move(set));
      }
      return e.kind == K::List ? makeList(std::move(vals)) : makeTuple(std::move(vals));
    }
    case K::Dict: {
      auto dict = std::make_shared<DictObj>();
      for (const auto& [k, v] : static_cast<const ast::DictExpr&>(e).entries) {
        Value key = eval(*k, env);
        Value val = eval(*v, env);
        located(*k, [&] { dict->set(key, std::move(val)); return Value(); });
      }
      return Value(std::move(dict));
    }
    case K::ListComp: return evalListComp(static_cast<const ast::ListComp&>(e), env);
    case K::FString: return evalFString(static_cast<const ast::FString&>(e), env);
    case K::Slice:
    case K::Ellipsis: throw WeftError(e.range, "a slice is only allowed inside [ ]");
  }
  throw WeftError(e.range, "unknown expression");
}

Value Interpreter::evalCompare(const ast::Compare& c, const std::shared_ptr<Env>& env) {
  // `a < b < c` is `a < b and b < c` with b evaluated once, as in Python.
  Value left = eval(*c.operands[0], env);
  Value result;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    Value right = eval(*c.operands[i + 1], env);
    result = located(c, [&] { return compareOp(c.ops[i], left, right); });
    if (i + 1 < c.ops.size()) {
      if (!located(c, [&] { return Value(Tensor::scalar<bool>(truthy(result))); }).tensor().asInt()) return result;
      left = std::move(right);
    }
  }
  return result;
}

// The loop variables live in a scope of their own (Python 3's rule), so they do not leak. A dict
// comprehension evaluates each key, then its value, as Python does; a set's are the keys of one.
Value Interpreter::evalListComp(const ast::ListComp& c, const std::shared_ptr<Env>& env) {
  auto local = std::make_shared<Env>(env);
  trackEnv(local);  // a lambda in the element may capture it
  std::vector<Value> out;
  std::shared_ptr<DictObj> dict = c.isSet ? std::make_shared<SetObj>() : c.key ? std::make_shared<DictObj>() : nullptr;
  std::function<void(size_t)> clause = [&](size_t i) {
    if (i == c.clauses.size()) {
      size_t n = dict ? dict->entries.size() : out.size();
      if (n % 4096 == 0)
        checkValueBytes(int64_t((n + 4096) * (dict ? 2 : 1) * sizeof(Value)), c.isSet ? "a set" : dict ? "a dict" : "a list");
      if (!dict) {
        out.push_back(eval(*c.element, local));
        return;
      }
      const ast::Expr& keyExpr = c.isSet ? *c.element : *c.key;
      Value key = eval(keyExpr, local);
      Value value = c.isSet ? Value() : eval(*c.element, local);
      located(keyExpr, [&] { dict->set(key, std::move(value)); return Value(); });
      return;
    }
    const auto& cl = c.clauses[i];
    Value items = eval(*cl.iterable, i == 0 ? env : local);
    located(*cl.iterable, [&] {
      forEach(items, [&](Value v) {
        assignTo(*cl.target, std::move(v), local);
        for (const auto& cond : cl.conditions) {
          Value t = eval(*cond, local);
          if (!located(*cond, [&] { return Value(Tensor::scalar<bool>(truthy(t))); }).tensor().asInt()) return false;
        }
        clause(i + 1);
        return false;
      });
      return Value();
    });
  };
  clause(0);
  return dict ? Value(std::move(dict)) : makeList(std::move(out));
}

// Inside a traced @function, a field holding a traced tensor has no value yet: the f-string
// becomes a TracedText, which print() turns into a print node formatted on every call.
Value Interpreter::evalFString(const ast::FString& f, const std::shared_ptr<Env>& env) {
  std::string out, format;
  auto traced = std::make_shared<TracedText>();
  for (const auto& p : f.parts) {
    if (!p.value) {
      out += p.text;
      format += escapeBraces(p.text);
      continue;
    }
    Value v = eval(*p.value, env);
    if (isTensorLike(v) && tensorOf(v, "value").isSymbolic()) {
      const Tensor& t = tensorOf(v, "value");
      Value stand(Tensor::zeros(t.dtype(), t.rank() == 0 ? Shape{} : Shape{1}));  // checks the spec now
      located(*p.value, [&] { return makeStr(formatWithSpec(stand, p.spec)); });
      format += p.spec.empty() ? "{}" : "{:" + p.spec + "}";
      traced->tensors.push_back(tensorOf(v, "value"));
      continue;
    }
    if (p.conversion) v = makeStr(p.conversion == 'r' ? toRepr(v) : toStr(v));  // a tensor's repr is its str
    std::string text = located(*p.value, [&] { return makeStr(formatWithSpec(v, p.spec)); }).as<StrObj>()->text;
    out += text;
    format += escapeBraces(text);
    checkValueBytes(int64_t(out.size()), "a string");
  }
  if (traced->tensors.empty()) return makeStr(std::move(out));
  traced->format = std::move(format);
  return Value(std::move(traced));
}

Value Interpreter::evalCall(const ast::Call& c, const std::shared_ptr<Env>& env) {
  Value callee = eval(*c.callee, env);
  Args args;
  args.site = c.range;
  args.pos.reserve(c.args.size());
  for (const auto& a : c.args) {
    if (a.keyword)
      args.kw.emplace_back(*a.keyword, eval(*a.value, env));
    else
      args.pos.push_back(eval(*a.value, env));
  }
  try {
    return call(callee, args);
  } catch (WeftError& err) {
    if (!err.at.valid()) err.at = c.range;
    throw;
  }
}

}  // namespace weft
