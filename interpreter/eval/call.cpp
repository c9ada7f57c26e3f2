// Calling functions, builtins and modules: argument binding and annotation checks.
#include <optional>

#include "args.h"
#include "../graph/tracer.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "interpreter.h"
#include "suggest.h"
#include "../values/literal.h"
#include "types.h"

namespace weft {

Value Interpreter::makeFunction(const std::string& name, const std::vector<ast::Param>& params,
                                const ast::Block* body, const ast::Expr* lambdaBody, const ast::TypeExpr* ret,
                                bool graph, SourceRange range, const std::shared_ptr<Env>& env) {
  auto fn = std::make_shared<FunctionObj>();
  fn->name = name;
  fn->params = &params;
  for (const auto& p : params) {
    fn->hasDefault.push_back(p.defaultValue != nullptr);
    fn->defaults.push_back(p.defaultValue ? eval(*p.defaultValue, env) : Value());
  }
  fn->body = body;
  fn->lambdaBody = lambdaBody;
  fn->returnType = ret;
  fn->closure = env;
  fn->graph = graph;
  fn->range = range;
  trackEnv(env);
  return Value(std::move(fn));
}

std::shared_ptr<Env> Interpreter::bindParams(const std::string& fnName, const std::vector<ast::Param>& params,
                                             const std::vector<Value>& defaults,
                                             const std::vector<bool>& hasDefault, Args& args,
                                             std::shared_ptr<Env> parent) {
  size_t n = params.size();
  if (args.pos.size() > n)
    throw WeftError(args.site, fnName + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                                   " but " + std::to_string(args.pos.size()) + " were given");
  std::vector<Value> bound(n);
  std::vector<bool> have(n, false);
  for (size_t i = 0; i < args.pos.size(); ++i) bound[i] = std::move(args.pos[i]), have[i] = true;
  for (auto& [k, v] : args.kw) {
    size_t i = 0;
    while (i < n && params[i].name != k) ++i;
    if (i == n) {
      std::vector<std::string> names;
      for (const auto& p : params) names.push_back(symbolName(p.name));
      throw WeftError(args.site, unexpectedKeywordMessage(fnName, symbolName(k), names));
    }
    if (have[i]) throw WeftError(args.site, fnName + "() got multiple values for argument '" + symbolName(k) + "'");
    bound[i] = std::move(v);
    have[i] = true;
  }
  auto local = std::make_shared<Env>(std::move(parent));
  for (size_t i = 0; i < n; ++i) {
    const ast::Param& p = params[i];
    if (!have[i]) {
      if (!hasDefault[i])
        throw WeftError(args.site, fnName + "() missing argument '" + symbolName(p.name) + "'");
      bound[i] = defaults[i];
    }
    if (p.type)
      if (auto actual = typeMismatch(*p.type, bound[i]))
        throw WeftError(args.site, fnName + "() argument '" + symbolName(p.name) + "' expects " +
                                       typeText(*p.type) + ", got " + *actual + conversionHint(*p.type, bound[i]));
    local->set(p.name, std::move(bound[i]));
  }
  return local;
}

Value Interpreter::call(const Value& callee, Args& args) {
  if (callee.is(Kind::Function)) return callFunction(*callee.as<FunctionObj>(), args);  // counts its depth
  // Builtins that call back (a Sequential holding itself) and module constructors (a module
  // that makes one of its own type) recurse too, with no Weft function call between.
  if (callDepth_ >= limits_.maxCallDepth || stackNearlyFull()) {
    std::string name = callee.is(Kind::Builtin)      ? callee.as<BuiltinObj>()->name
                       : callee.is(Kind::ModuleType) ? callee.as<ModuleTypeObj>()->name
                                                     : typeNameOf(callee);
    recursionTooDeep(args.site, name);
  }
  struct Depth {
    int& d;
    ~Depth() { --d; }
  } depth{++callDepth_};
  switch (callee.kind()) {
    case Kind::Builtin: {
      auto* b = callee.as<BuiltinObj>();
      if (!b->self.isNone()) args.self = b->self;
      return b->fn(*this, args);
    }
    case Kind::ModuleType: return constructModule(*callee.as<ModuleTypeObj>(), args);
    case Kind::Module: return callModule(*callee.as<ModuleObj>(), args);
    case Kind::DType: {  // `f32(x)` casts
      ArgReader r(args, rt::dtypeName(callee.dtypeValue()), {"x"});
      if (r.get(0).is(Kind::Str))  // int("42"), as Python reads a number from text
        return Value(Literal::parse(r.str(0), callee.dtypeValue(), r.name() + "()").as(callee.dtypeValue()));
      return Value(tensorFromValue(r.get(0), callee.dtypeValue(), r.name() + "()"));
    }
    default: throw WeftError(args.site, aTypeName(callee) + " is not callable");
  }
}

Value Interpreter::callFunction(FunctionObj& fn, Args& args) {
  checkInterrupt(args.site);
  if (callDepth_ >= limits_.maxCallDepth || stackNearlyFull()) recursionTooDeep(args.site, fn.name);
  std::shared_ptr<Env> local = bindParams(fn.name, *fn.params, fn.defaults, fn.hasDefault, args, fn.closure);
  struct Depth {
    int& d;
    ~Depth() { --d; }
  } depth{++callDepth_};
  std::optional<ScopeGuard> scope = methodScope(fn);
  // While tracing, the caller's statement goes on after the call: the nodes it makes next are at
  // its line, not at the callee's last statement.
  struct RestoreLoc {
    graph::Tracer* tracer = graph::Tracer::active();
    graph::Loc at = tracer ? tracer->loc : graph::Loc{};
    ~RestoreLoc() {
      if (tracer && graph::Tracer::active() == tracer) tracer->loc = at;
    }
  } restoreLoc;
  try {
    Value result;
    if (fn.graph && !functionsEagerly_ && !ops::shapesOnly()) {
      result = callGraphFunction(fn, local, args.site);
    } else if (fn.lambdaBody) {
      result = eval(*fn.lambdaBody, local);
    } else {
      if (fn.graph && !functionsEagerly_) planGraphCall(fn, local, args.site);  // a plan runs bodies on shapes
      Frame frame;
      frame.function = &fn.name;
      execBlock(*fn.body, local, frame);
      result = std::move(frame.returnValue);
    }
    if (fn.returnType)
      if (auto actual = typeMismatch(*fn.returnType, result))
        throw WeftError(fn.range, fn.name + "() returned " + *actual + ", but its declared return type is " +
                                      typeText(*fn.returnType) + conversionHint(*fn.returnType, result));
    return result;
  } catch (WeftError& e) {
    e.traceback.push_back({fn.name, e.unwindAt.valid() ? e.unwindAt : e.at});
    e.unwindAt = args.site;
    throw;
  }
}

}  // namespace weft
