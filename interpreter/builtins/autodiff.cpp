// Training builtins (SPEC §6): value_and_grad, TensorFlow's GradientTape, grad (JAX's), and
// the helpers stdlib/losses.model and stdlib/optimizers.model build on: optimizer slots held in
// Variables, and the label check of the sparse cross-entropy.
#include <algorithm>
#include <unordered_map>

#include "../autodiff/tape.h"
#include "../eval/interpreter.h"
#include "../eval/operators.h"
#include "../graph/tracer.h"
#include "../mesh/shards.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

void warn(Interpreter& in, const SourceRange& site, const std::string& message) {
  in.out().flush();
  in.err() << formatDiagnostic({Severity::Warning, site, message});
  in.err().flush();
}

bool callable(const Value& v) {
  return v.is(Kind::Function) || v.is(Kind::Builtin) || v.is(Kind::Module);
}

// The value f returned, as the scalar float a gradient is taken of.
Tensor lossOf(const Value& v, const char* what, const SourceRange& site) {
  if (!isTensorLike(v))
    throw WeftError(site, std::string(what) + ": the function must return a scalar tensor (the loss), got " +
                              typeNameOf(v));
  Tensor t = tensorOf(v, "loss");
  if (t.rank() != 0)
    throw WeftError(site, std::string(what) + ": the function must return a scalar (the loss), got a tensor of shape " +
                              t.shape().str() + "; reduce it with mean() or sum()");
  if (!rt::isFloat(t.dtype()))
    throw WeftError(site, std::string(what) + ": the function returned a scalar of dtype " +
                              std::string(rt::dtypeName(t.dtype())) + "; a gradient needs a float (f32 or f64) value");
  return t;
}

Tensor zerosOf(const Tensor& like) { return ops::full(like.shape(), 0.0, like.dtype()); }

Value valueAndGrad(Interpreter& in, Args& a) {
  ArgReader r(a, "value_and_grad", {"f", "vars"});
  if (!callable(r.get(0))) r.fail(0, "a function of no arguments");
  if (!r.get(1).is(Kind::List) && !r.get(1).is(Kind::Tuple)) r.fail(1, "a list of Variables");
  std::vector<std::shared_ptr<VariableObj>> vars;
  std::vector<Value> items = r.items(1);
  if (items.empty())
    throw WeftError(a.site, "value_and_grad: vars is empty; a model that is not built yet has no variables "
                            "(call it once first, or give its first layer input_shape=[...])");
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is(Kind::Variable))
      throw WeftError(a.site, "value_and_grad: vars[" + std::to_string(i) + "] is " + typeNameOf(items[i]) +
                                  ", not a Variable (gradients are taken for variables; use grad(f) for arguments)");
    auto v = std::static_pointer_cast<VariableObj>(items[i].as<VariableObj>()->shared_from_this());
    if (!rt::isFloat(v->value.dtype()))
      throw WeftError(a.site, "value_and_grad: variable '" + v->name + "' (vars[" + std::to_string(i) + "]) is " +
                                  rt::dtypeName(v->value.dtype()) + ": gradients exist only for f32 and f64 variables");
    vars.push_back(std::move(v));
  }
  // A variable listed twice gets its gradient twice, as in TensorFlow: the tape watches each once.
  std::vector<std::shared_ptr<VariableObj>> watched;
  std::vector<size_t> slot;  // vars[i] is watched[slot[i]]
  for (const auto& v : vars) {
    size_t j = 0;
    while (j < watched.size() && watched[j] != v) ++j;
    if (j == watched.size()) watched.push_back(v);
    slot.push_back(j);
  }
  autodiff::Tape tape(watched);
  Args call;
  call.site = a.site;
  Tensor loss = lossOf(in.call(r.get(0), call), "value_and_grad", a.site);
  std::vector<std::optional<Tensor>> grads = tape.gradients(loss);
  std::vector<Value> out;
  for (size_t i = 0; i < vars.size(); ++i) {
    const std::optional<Tensor>& g = grads[slot[i]];
    const bool first = std::find(slot.begin(), slot.begin() + long(i), slot[i]) == slot.begin() + long(i);
    if (!g && !tape.wasRead(slot[i]) && first)  // warned once per variable
      warn(in, a.site, "value_and_grad: the function does not use variable '" + vars[i]->name +
                           "' (vars[" + std::to_string(i) + "]); its gradient is zeros");
    out.push_back(Value(g ? *g : zerosOf(vars[i]->value)));
  }
  return makeTuple({Value(loss), makeList(std::move(out))});
}

// `with GradientTape() as tape { loss = ... }; grads = tape.gradient(loss, vars)`: TensorFlow's
// tape, on the same tape value_and_grad uses. It records from the `with` to its end, every
// trainable float variable read meanwhile a leaf (as watch_accessed_variables=True); gradient()
// then gives value_and_grad's numbers (zeros, and a warning, for a variable the loss does not use).
struct GradientTapeObj : OpaqueObj {
  explicit GradientTapeObj(bool persistent) : persistent(persistent) {}
  bool persistent;
  bool used = false;
  std::unique_ptr<autodiff::Tape> tape;
  std::string typeName() const override { return "GradientTape"; }
  std::string repr() const override { return "<GradientTape>"; }
  bool isContext() const override { return true; }
  void enter(Interpreter&) override {
    if (tape) throw WeftError("a GradientTape records once: make a new GradientTape() for each `with`");
    tape = std::make_unique<autodiff::Tape>(std::vector<std::shared_ptr<VariableObj>>{});
    tape->watchAccessedVariables();
  }
  void exit(Interpreter&) override { tape->stopRecording(); }
  std::optional<Value> getAttr(Interpreter&, Symbol name) override;
};

Value tapeGradient(Interpreter& in, Args& a) {
  ArgReader r(a, "gradient", {"target", "sources"});
  auto* self = static_cast<GradientTapeObj*>(a.self.as<OpaqueObj>());
  if (!self->tape)
    throw WeftError(a.site, "tape.gradient: the tape has recorded nothing; compute the loss inside `with GradientTape() as tape { ... }`");
  if (self->used && !self->persistent)
    throw WeftError(a.site, "tape.gradient: a GradientTape gives gradients once; use GradientTape(persistent=true) to ask again");
  Tensor loss = lossOf(r.get(0), "tape.gradient", a.site);
  bool one = r.get(1).is(Kind::Variable);
  std::vector<Value> sources = one ? std::vector<Value>{r.get(1)} : r.items(1);
  for (size_t i = 0; i < sources.size(); ++i)
    if (!sources[i].is(Kind::Variable))
      throw WeftError(a.site, "tape.gradient: sources[" + std::to_string(i) + "] is " + typeNameOf(sources[i]) +
                                  ", not a Variable (a tape takes gradients for the variables it saw read)");
  self->used = true;
  std::vector<std::optional<Tensor>> grads = self->tape->gradients(loss);
  std::vector<Value> out;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto& var = *sources[i].as<VariableObj>();
    size_t k = self->tape->variableIndex(var);
    bool found = k < self->tape->variableCount() && grads[k];
    if (!found && !var.trainable)
      warn(in, a.site, "tape.gradient: variable '" + var.name + "' (sources[" + std::to_string(i) +
                           "]) is not trainable, so the tape did not watch it; its gradient is zeros");
    else if (!found && (k == self->tape->variableCount() || !self->tape->wasRead(k)))
      warn(in, a.site, "tape.gradient: the loss does not use variable '" + var.name + "' (sources[" +
                           std::to_string(i) + "]) while the tape recorded; its gradient is zeros");
    out.push_back(Value(found ? *grads[k] : zerosOf(var.value)));
  }
  return one ? out[0] : makeList(std::move(out));
}

std::optional<Value> GradientTapeObj::getAttr(Interpreter&, Symbol name) {
  if (symbolName(name) == "gradient")
    return makeBuiltin("gradient", tapeGradient, Value(std::static_pointer_cast<Object>(shared_from_this())));
  if (symbolName(name) == "watch")  // TensorFlow's way to differentiate by a tensor
    throw WeftError("tape.watch: a GradientTape watches only the trainable Variables read while it records; "
                    "hold the tensor in a Variable (x = Variable(x)), or differentiate a function of it with grad(f)");
  return std::nullopt;
}

Value grad(Interpreter&, Args& a) {
  ArgReader r(a, "grad", {"f"});
  if (!callable(r.get(0))) r.fail(0, "a function");
  Value f = r.get(0);
  return makeBuiltin("grad", [f](Interpreter& in, Args& args) -> Value {
    if (args.pos.empty() || (!isTensorLike(args.pos[0]) && !args.pos[0].is(Kind::List) && !args.pos[0].is(Kind::Tuple)))
      throw WeftError(args.site, "grad(f): the gradient is taken with respect to the first positional argument, "
                                 "which must be a float tensor");
    Tensor x = isTensorLike(args.pos[0]) ? tensorOf(args.pos[0], "argument")
                                         : tensorFromValue(args.pos[0], std::nullopt, "grad(f) argument");
    if (!rt::isFloat(x.dtype()))
      throw WeftError(args.site, std::string("grad(f): the first argument is ") + rt::dtypeName(x.dtype()) +
                                     ": gradients exist only for f32 and f64 values");
    autodiff::Tape tape({});
    args.pos[0] = Value(tape.watch(x), args.pos[0].weak());
    Tensor loss = lossOf(in.call(f, args), "grad", args.site);
    std::optional<Tensor> g = tape.gradients(loss)[0];
    return Value(g ? *g : zerosOf(x));
  });
}

// _optimizer_slot(optimizer, var, kind): the optimizer's `kind` slot for var (momentum, Adam's m and
// v), a non-trainable Variable of var's type starting at zeros, created on first use — also
// while a train step is traced, as Keras creates slots in tf.function's first trace — and kept in
// the optimizer's `slots` list, so that it is saved and compiled like any state. It takes var's
// layout.
Value optimizerSlot(Interpreter& in, Args& a) {
  ArgReader r(a, "_optimizer_slot", {"optimizer", "var", "kind"});
  if (!r.get(0).is(Kind::Module)) r.fail(0, "an optimizer module");
  if (!r.get(1).is(Kind::Variable)) r.fail(1, "a Variable");
  auto* opt = r.get(0).as<ModuleObj>();
  Value* list = opt->attrs->findLocal(intern("slots"));
  if (!list || !list->is(Kind::List)) r.fail(0, "an optimizer with a 'slots' list");
  auto* slots = list->as<ListObj>();
  auto* var = r.get(1).as<VariableObj>();
  std::string kind = r.str(2);
  struct Owner {
    std::weak_ptr<Object> var;
    std::string kind;
  };
  static std::unordered_map<const Object*, Owner> owners;
  for (const auto& item : slots->items) {
    auto it = owners.find(item.object());
    if (it != owners.end() && it->second.var.lock().get() == var && it->second.kind == kind) return item;
  }
  auto s = std::make_shared<VariableObj>();
  {
    graph::Tracer::Pause pause;  // the slot's initial value is data, not a graph value
    s->value = ops::full(var->value.shape(), 0.0, var->value.dtype());
    mesh::placeLike(*s, *var);  // split as its variable is (SPEC §7.1)
  }
  s->trainable = s->ownTrainable = false;
  s->optimizerSlot = true;
  // Keras' slot names: "adam/m/dense/kernel"; the path is the optimizer's: "slots.0".
  s->name = opt->name + "/" + kind + "/" + var->name;
  s->named = true;
  s->owner = std::static_pointer_cast<ModuleObj>(opt->shared_from_this());
  s->keyInOwner = "slots." + std::to_string(slots->items.size());
  (void)in;
  slots->items.push_back(Value(s));
  owners[s.get()] = {var->shared_from_this(), kind};
  return Value(std::move(s));
}

// _check_labels(labels, classes, fn): a concrete label outside [0, classes) is an error naming fn;
// graph values are not checked (docs/training.md).
Value checkLabels(Interpreter&, Args& a) {
  ArgReader r(a, "_check_labels", {"labels", "classes", "fn"});
  Tensor y = r.tensor(0);
  int64_t n = r.integer(1);
  if (y.isAbstract()) return Value();
  if (!rt::isInt(y.dtype()))
    throw WeftError(a.site, r.str(2) + ": labels (y_true) must be integers (class indices), got " +
                                rt::dtypeName(y.dtype()));
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t v = y.asInt(i);
    if (v < 0 || v >= n)
      throw WeftError(a.site, r.str(2) + ": label " + std::to_string(v) + " (y_true element " + std::to_string(i) +
                                  ") is outside the class range [0, " + std::to_string(n) + ") of y_pred's " +
                                  std::to_string(n) + " classes");
  }
  return Value();
}

}  // namespace

void registerAutodiff(Env& env) {
  def(env, "value_and_grad", valueAndGrad);
  def(env, "grad", grad);
  def(env, "GradientTape", [](Interpreter&, Args& a) {
    ArgReader r(a, "GradientTape", {"persistent?", "watch_accessed_variables?"});
    if (r.has(1) && !r.flag(1, true))
      r.fail(1, "must be true: a tape watches the trainable variables read while it records");
    return Value(std::make_shared<GradientTapeObj>(r.flag(0)));
  });
  def(env, "_optimizer_slot", optimizerSlot);
  def(env, "_check_labels", checkLabels);
}

}  // namespace weft
