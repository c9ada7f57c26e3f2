// `obj.name` and `obj.name = v` for every kind of value.
#include <algorithm>

#include "graph_call.h"
#include "args.h"
#include "../graph/tracer.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "hooks.h"
#include "interpreter.h"
#include "name_scope.h"
#include "operators.h"
#include "strings.h"
#include "suggest.h"

namespace weft {
namespace {

Value shapeList(const Shape& s) {
  std::vector<Value> dims;
  for (int64_t d : s)  // a graph value's unknown dimension is None, as in TensorFlow
    dims.push_back(d == rt::kUnknownDim ? Value() : makeInt(d));
  return makeList(std::move(dims));
}

[[noreturn]] void noAttribute(const Value& obj, Symbol name, const std::vector<std::string>& known) {
  std::string msg = aTypeName(obj) + " has no attribute '" + symbolName(name) + "'";
  if (auto s = closestName(symbolName(name), known)) msg += "; did you mean '" + *s + "'?";
  throw WeftError(msg);
}

Value& only(Args& a, const char* fn) {
  if (a.pos.size() != 1 || !a.kw.empty()) throw WeftError(a.site, std::string(fn) + "() takes one argument");
  return a.pos[0];
}

// NumPy's tensor methods, as the functions of the same name with the tensor first:
// `x.sum(1)` is `sum(x, 1)`, `x.astype(f64)` is `cast(x, f64)`, `x.reshape(2, 3)` is
// `reshape(x, [2, 3])`, `x.flatten()` is `reshape(x, [-1])`.
constexpr std::pair<const char*, const char*> kTensorMethods[] = {
    {"reshape", "reshape"}, {"transpose", "transpose"}, {"sum", "sum"},       {"mean", "mean"},
    {"max", "max"},         {"min", "min"},             {"argmax", "argmax"}, {"argmin", "argmin"},
    {"prod", "prod"},       {"astype", "cast"},         {"std", "std"},       {"var", "var"},
    {"round", "round"},     {"flatten", "reshape"},
};

// Element i of t as a scalar of its dtype, weak as a Python number is: `x.item() * y` takes y's dtype.
Value elementNumber(const Tensor& t, int64_t i) {
  Tensor s = Tensor::empty(t.dtype(), Shape{});
  size_t size = rt::dtypeSize(t.dtype());
  std::memcpy(s.raw(), static_cast<const char*>(t.raw()) + i * int64_t(size), size);
  return Value(std::move(s), true);
}

Value nestedList(const Tensor& t, int axis, int64_t& next) {
  if (axis == t.rank()) return elementNumber(t, next++);
  std::vector<Value> items;
  for (int64_t k = 0; k < t.shape()[axis]; ++k) items.push_back(nestedList(t, axis + 1, next));
  return makeList(std::move(items));
}

const Tensor& concrete(const Value& self, const std::string& method) {
  const Tensor& t = self.tensor();
  if (t.isAbstract() && graph::Tracer::active())
    throw WeftError("." + method + "() needs a tensor's values, and a graph function's tensors have none while it is traced; return the tensor and call ." + method + "() outside");
  if (t.isAbstract())
    throw WeftError("." + method + "() needs a tensor's values, and a run on shapes alone (weft check, plan()) has none");
  return t;
}

// NumPy's conversions: a tensor is its own array, so .numpy() returns it; .item() the one element
// of a size-1 tensor as a number; .tolist() nested lists of numbers.
std::optional<Value> conversionMethod(const Value& self, const std::string& n) {
  if (n == "numpy")
    return makeBuiltin(n, [](Interpreter&, Args& a) {
      if (!a.pos.empty() || !a.kw.empty()) throw WeftError(a.site, "numpy() takes no arguments");
      return a.self;
    }, self);
  if (n == "item")
    return makeBuiltin(n, [](Interpreter&, Args& a) {
      if (!a.pos.empty() || !a.kw.empty()) throw WeftError(a.site, "item() takes no arguments");
      if (a.self.tensor().numel() != 1)
        throw WeftError(a.site, "item() needs a tensor of one element, got " + typeNameOf(a.self));
      // On shapes alone (weft check) outside a trace, the number is one of unknown value.
      if (a.self.tensor().isAbstract() && !graph::Tracer::active())
        return Value(Tensor::abstract(a.self.tensor().dtype(), Shape{}), true);
      return elementNumber(concrete(a.self, "item"), 0);
    }, self);
  if (n == "tolist")
    return makeBuiltin(n, [](Interpreter&, Args& a) {
      if (!a.pos.empty() || !a.kw.empty()) throw WeftError(a.site, "tolist() takes no arguments");
      const Tensor& t = concrete(a.self, "tolist");
      checkValueBytes(t.numel() * int64_t(sizeof(Value)), "a list");
      int64_t next = 0;
      return nestedList(t, 0, next);
    }, self);
  return std::nullopt;
}

std::optional<Value> tensorMethod(Interpreter& in, const Value& self, const std::string& n) {
  if (auto c = conversionMethod(self, n)) return c;
  for (auto [method, function] : kTensorMethods) {
    if (n != method) continue;
    Value fn = in.native(function);
    bool reshape = n == "reshape", flatten = n == "flatten";
    return makeBuiltin(n, [fn, reshape, flatten](Interpreter& in, Args& a) {
      if (reshape && a.pos.size() > 1) a.pos = {makeList(std::move(a.pos))};
      if (flatten) {
        if (!a.pos.empty() || !a.kw.empty()) throw WeftError(a.site, "flatten() takes no arguments");
        a.pos = {makeList({makeInt(-1)})};
      }
      a.pos.insert(a.pos.begin(), a.self);
      a.self = Value();
      return in.call(fn, a);
    }, self);
  }
  return std::nullopt;
}

// The new value of a variable: same shape and dtype; a literal adopts the variable's dtype.
Tensor checkedUpdate(VariableObj& var, const Value& v, const char* what) {
  Value x = v.is(Kind::Variable) ? Value(readVariable(*v.as<VariableObj>())) : v;
  if (!x.isTensor()) throw WeftError(std::string(what) + "() needs a tensor, not " + typeNameOf(x));
  if (x.weak() && x.tensor().dtype() != var.value.dtype()) {
    Value target(var.value);
    unifyDTypes(x, target, what);
  }
  const Tensor& t = x.tensor();
  if (t.dtype() != var.value.dtype() || t.shape() != var.value.shape())
    throw WeftError(std::string(what) + "(): cannot assign " + typeNameOf(x) + " to Variable '" + var.name +
                    "' of " + typeNameOf(Value(var.value)));
  return t;
}

Value variableAttr(Interpreter& in, const Value& self, VariableObj& var, const std::string& n) {
  if (n == "name") return makeStr(var.name);
  if (n == "path") return makeStr(var.path());
  if (n == "shape") return shapeList(var.value.shape());
  if (n == "dtype") return Value::dtype(var.value.dtype());
  if (n == "trainable") return Value(Tensor::scalar<bool>(var.trainable));
  if (n == "value" || n == "read_value") return Value(readVariable(var));
  if (n == "layout" || n == "shard") return evalHooks().variableLayoutAttr(in, self, var, n);
  if (n == "assign")
    return makeBuiltin("assign", [](Interpreter&, Args& a) {
      auto* v = a.self.as<VariableObj>();
      writeVariable(*v, checkedUpdate(*v, only(a, "assign"), "assign"));  // every device's shard
      return a.self;
    }, self);
  if (n == "assign_add" || n == "assign_sub") {
    bool add = n == "assign_add";
    return makeBuiltin(n, [add](Interpreter&, Args& a) {
      auto* v = a.self.as<VariableObj>();
      const char* what = add ? "assign_add" : "assign_sub";
      Tensor delta = checkedUpdate(*v, only(a, what), what);
      writeVariable(*v, ops::binary(add ? ops::BinaryOp::Add : ops::BinaryOp::Sub, readVariable(*v), delta));
      return a.self;
    }, self);
  }
  if (n == "T" || n == "ndim" || n == "size") return in.getAttr(Value(var.value), intern(n));
  if (auto m = tensorMethod(in, Value(var.value), n)) return *m;  // on the current value
  std::vector<std::string> known = {"name", "path", "shape", "dtype", "trainable", "value", "layout", "shard",
                                    "assign", "assign_add", "assign_sub"};
  for (const std::string& t : tensorAttributeNames())
    if (std::find(known.begin(), known.end(), t) == known.end()) known.push_back(t);
  noAttribute(self, intern(n), known);
}

Value moduleAttr(Interpreter& in, const Value& self, ModuleObj& m, Symbol name) {
  static const Symbol build = intern("build");
  if (name == build && m.attrs->findLocal(build))
    // As Keras 3 wraps build: the layer is built after it, so that its first call does not build
    // it again over weights the program may have set since.
    return makeBuiltin("build", [](Interpreter& in, Args& a) {
      ArgReader r(a, "build", {"input_shape"});
      auto* mod = a.self.as<ModuleObj>();
      if (mod->built)
        throw WeftError(a.site, "layer '" + mod->name + "' (" + mod->typeName +
                                    ") is built already; building it again would make new weights");
      in.buildModule(*mod, r.get(0), a.site);
      return Value();
    }, self);
  if (Value* v = m.attrs->findLocal(name)) return *v;
  const std::string& n = symbolName(name);
  if (n == "name") return makeStr(m.name);
  if (n == "variables") return makeList(in.collectVariables(&m));
  if (n == "trainable_variables" || n == "non_trainable_variables") {
    bool want = n == "trainable_variables";
    std::vector<Value> out;
    for (Value& v : in.collectVariables(&m))
      if (v.as<VariableObj>()->trainable == want) out.push_back(std::move(v));
    return makeList(std::move(out));
  }
  if (n == "submodules") return makeList(in.collectSubmodules(&m));
  if (n == "trainable") return Value(Tensor::scalar<bool>(m.trainable));
  if (n == "built") return Value(Tensor::scalar<bool>(m.built));
  if (n == "layers") return makeList(in.childModules(&m));
  if (n == "input_shape") return m.inputShape;
  if (n == "name_scope") return Value(std::make_shared<NameScopeObj>(Interpreter::NameScope{m.name, &m, true}));
  if (n == "summary")
    return makeBuiltin("summary", [](Interpreter& in, Args& a) {
      if (!a.pos.empty() || !a.kw.empty()) throw WeftError(a.site, "summary() takes no arguments");
      in.out() << evalHooks().summaryTable(in, *a.self.as<ModuleObj>());
      return Value();
    }, self);
  if (auto v = evalHooks().layerAttr(in, self, m, n)) return *v;
  std::vector<std::string> known = {"name", "variables", "trainable_variables", "non_trainable_variables",
                                    "submodules", "trainable", "layers", "summary", "input_shape", "name_scope",
                                    "weights", "get_weights", "set_weights", "count_params", "output_shape"};
  for (const auto& [k, v] : m.attrs->entries()) known.push_back(symbolName(k));
  std::string msg = "module '" + m.name + "' (" + m.typeName + ") has no attribute '" + n + "'";
  if (!m.built && m.attrs->findLocal(intern("build")))  // its weights come with its first call
    msg += "; it is not built yet: call it on an input first, or give input_shape= when creating it";
  else if (auto s = closestName(n, known))
    msg += "; did you mean '" + *s + "'?";
  throw WeftError(msg);
}

Value listAttr(const Value& self, const std::string& n) {
  if (n == "append" || n == "extend" || n == "pop" || n == "insert" || n == "sort") checkMutable(self);
  if (n == "append")
    return makeBuiltin("append", [](Interpreter& in, Args& a) {
      in.trackContainer(a.self);
      a.self.as<ListObj>()->items.push_back(only(a, "append"));
      return Value();
    }, self);
  if (n == "extend")
    return makeBuiltin("extend", [](Interpreter& in, Args& a) {
      std::vector<Value> more;
      in.forEach(only(a, "extend"), [&](Value v) { more.push_back(std::move(v)); return false; });
      in.trackContainer(a.self);
      auto& items = a.self.as<ListObj>()->items;
      checkValueBytes(int64_t((items.size() + more.size()) * sizeof(Value)), "a list");
      items.insert(items.end(), more.begin(), more.end());
      return Value();
    }, self);
  if (n == "pop")
    return makeBuiltin("pop", [](Interpreter&, Args& a) {
      ArgReader r(a, "pop", {"index?"});
      auto& items = a.self.as<ListObj>()->items;
      if (items.empty()) throw WeftError(a.site, "pop from an empty list");
      auto at = items.begin() + normalizeIndex(r.integer(0, -1), int64_t(items.size()), "pop");
      Value v = std::move(*at);
      items.erase(at);
      return v;
    }, self);
  if (n == "insert")  // Python's: an index past either end inserts at that end
    return makeBuiltin("insert", [](Interpreter& in, Args& a) {
      ArgReader r(a, "insert", {"index", "item"});
      auto& items = a.self.as<ListObj>()->items;
      int64_t size = int64_t(items.size()), i = r.integer(0);
      i = i < 0 ? std::max<int64_t>(0, i + size) : std::min(i, size);
      in.trackContainer(a.self);
      items.insert(items.begin() + i, r.get(1));
      return Value();
    }, self);
  if (n == "index")
    return makeBuiltin("index", [](Interpreter&, Args& a) {
      const Value& item = only(a, "index");
      const auto& items = a.self.as<ListObj>()->items;
      for (size_t i = 0; i < items.size(); ++i)
        if (valuesEqual(items[i], item)) return makeInt(int64_t(i));
      throw WeftError(a.site, toRepr(item) + " is not in the list");
    }, self);
  if (n == "sort")  // in place, as sorted() orders
    return makeBuiltin("sort", [](Interpreter& in, Args& a) {
      if (!a.pos.empty()) throw WeftError(a.site, "sort() takes only key= and reverse=");
      a.pos.push_back(a.self);
      Value self = a.self;
      a.self = Value();
      Value ordered = in.call(in.native("sorted"), a);
      in.trackContainer(self);
      self.as<ListObj>()->items = std::move(ordered.as<ListObj>()->items);
      return Value();
    }, self);
  noAttribute(self, intern(n), {"append", "extend", "pop", "insert", "index", "sort"});
}

Value dictAttr(const Value& self, const std::string& n) {
  if (n == "keys" || n == "values" || n == "items") {
    int which = n == "keys" ? 0 : n == "values" ? 1 : 2;
    return makeBuiltin(n, [which](Interpreter&, Args& a) {
      std::vector<Value> out;
      for (const auto& [k, v] : a.self.as<DictObj>()->entries)
        out.push_back(which == 0 ? k : which == 1 ? v : makeTuple({k, v}));
      return makeList(std::move(out));
    }, self);
  }
  if (n == "get")
    return makeBuiltin("get", [](Interpreter&, Args& a) {
      if (a.pos.empty() || a.pos.size() > 2) throw WeftError(a.site, "get() takes a key and an optional default");
      Value* v = a.self.as<DictObj>()->find(a.pos[0]);
      return v ? *v : (a.pos.size() == 2 ? a.pos[1] : Value());
    }, self);
  noAttribute(self, intern(n), {"keys", "values", "items", "get"});
}

// Python's set methods; the operators `|`, `&` and `-` are operators.cpp's.
Value setObjAttr(const Value& self, const std::string& n) {
  if (n == "add" || n == "remove" || n == "discard" || n == "update" || n == "clear") checkMutable(self);
  if (n == "add")
    return makeBuiltin("add", [](Interpreter&, Args& a) {
      a.self.as<SetObj>()->add(only(a, "add"));
      return Value();
    }, self);
  if (n == "remove" || n == "discard")  // remove() of a missing element is an error, discard()'s not
    return makeBuiltin(n, [strict = n == "remove"](Interpreter&, Args& a) {
      const Value& item = only(a, strict ? "remove" : "discard");
      checkHashable(item, Kind::Set);
      if (!a.self.as<SetObj>()->erase(item) && strict) throw WeftError(a.site, toRepr(item) + " is not in the set");
      return Value();
    }, self);
  if (n == "update")
    return makeBuiltin("update", [](Interpreter& in, Args& a) {
      in.forEach(only(a, "update"), [&](Value v) { a.self.as<SetObj>()->add(v); return false; });
      return Value();
    }, self);
  if (n == "clear")
    return makeBuiltin("clear", [](Interpreter&, Args& a) {
      ArgReader r(a, "clear", {});
      a.self.as<SetObj>()->clear();
      return Value();
    }, self);
  if (n == "copy")
    return makeBuiltin("copy", [](Interpreter&, Args& a) {
      ArgReader r(a, "copy", {});
      auto out = std::make_shared<SetObj>();
      for (const auto& [x, none] : a.self.as<SetObj>()->entries) out->add(x);
      return Value(std::move(out));
    }, self);
  if (n == "union" || n == "intersection" || n == "difference" || n == "issubset") {
    // Any iterable, as Python's methods take (the operators take sets only).
    return makeBuiltin(n, [n](Interpreter& in, Args& a) {
      std::vector<Value> items;
      in.forEach(only(a, n.c_str()), [&](Value v) { items.push_back(std::move(v)); return false; });
      Value other = makeSet(items);
      if (n == "issubset") {
        for (const auto& [x, none] : a.self.as<SetObj>()->entries)
          if (!other.as<SetObj>()->has(x)) return Value(Tensor::scalar<bool>(false));
        return Value(Tensor::scalar<bool>(true));
      }
      auto op = n == "union" ? ast::BinaryOp::BitOr : n == "intersection" ? ast::BinaryOp::BitAnd : ast::BinaryOp::Sub;
      return binaryOp(op, a.self, other);
    }, self);
  }
  noAttribute(self, intern(n), setMethodNames());
}

}  // namespace

std::vector<std::string> setMethodNames() {
  return {"add", "remove", "discard", "update", "clear", "copy", "union", "intersection", "difference", "issubset"};
}

std::vector<std::string> tensorAttributeNames() {
  std::vector<std::string> names = {"shape", "dtype", "ndim", "size", "T", "layout", "shard"};
  for (auto [method, function] : kTensorMethods) names.push_back(method);
  for (const char* m : {"numpy", "item", "tolist"}) names.push_back(m);
  return names;
}

Value Interpreter::getAttr(const Value& obj, Symbol name) {
  switch (obj.kind()) {
    case Kind::Tensor: {
      const std::string& n = symbolName(name);
      const Tensor& t = obj.tensor();
      if (n == "shape") return shapeList(t.shape());
      if (n == "dtype") return Value::dtype(t.dtype());
      if (n == "ndim") return Value(Tensor::scalar<int32_t>(t.rank()));
      if (n == "size") return makeInt(t.numel());
      if (n == "T") return Value(ops::transpose(t, {}));
      if (n == "layout" || n == "shard") return evalHooks().tensorLayoutAttr(*this, obj, n);
      if (auto m = tensorMethod(*this, obj, n)) return *m;
      noAttribute(obj, name, tensorAttributeNames());
    }
    case Kind::Variable: return variableAttr(*this, obj, *obj.as<VariableObj>(), symbolName(name));
    case Kind::Module: return moduleAttr(*this, obj, *obj.as<ModuleObj>(), name);
    case Kind::List: return listAttr(obj, symbolName(name));
    case Kind::Dict: return dictAttr(obj, symbolName(name));
    case Kind::Set: return setObjAttr(obj, symbolName(name));
    case Kind::Str:
      if (auto m = stringMethod(*this, obj, symbolName(name))) return *m;
      noAttribute(obj, name, stringMethodNames());
    case Kind::Namespace: {
      auto* ns = obj.as<NamespaceObj>();
      if (Value* v = ns->env->findLocal(name)) return *v;
      throw WeftError(noMemberMessage(ns->name, symbolName(name), ns->memberNames()));
    }
    case Kind::Builtin:  // a builtin with members, as a class with static methods (Layout.replicated)
      if (auto& members = obj.as<BuiltinObj>()->members) {
        if (Value* v = members->findLocal(name)) return *v;
        std::vector<std::string> known;
        for (const auto& [k, v] : members->entries()) known.push_back(symbolName(k));
        noAttribute(obj, name, known);
      }
      noAttribute(obj, name, {});
    case Kind::Opaque:
      if (auto* sym = dynamic_cast<SymbolicTensor*>(obj.object())) {
        const std::string& n = symbolName(name);
        if (n == "shape") {
          Value dims = shapeList(sym->spec.shape());
          if (sym->batchIsNone) dims.as<ListObj>()->items[0] = Value();
          return dims;
        }
        if (n == "dtype") return Value::dtype(sym->spec.dtype());
        if (n == "name") return makeStr(sym->layer.as<ModuleObj>()->name);  // an Input's is its own name
      }
      if (auto v = obj.as<OpaqueObj>()->getAttr(*this, name)) return *v;
      noAttribute(obj, name, {});
    case Kind::ModuleType:  // Keras' class method: Dense.from_config(layer.get_config())
      if (symbolName(name) != "from_config") noAttribute(obj, name, {"from_config"});
      return makeBuiltin("from_config", [](Interpreter& in, Args& a) {
        ArgReader r(a, "from_config", {"config"});
        Args construct;
        construct.site = a.site;
        construct.kw = r.keywords(0);
        return in.call(a.self, construct);
      }, obj);
    case Kind::Function: {
      auto* fn = obj.as<FunctionObj>();
      if (symbolName(name) == "trace_count" && fn->graph)
        return Value(Tensor::scalar<int32_t>(fn->traces ? fn->traces->traceCount : 0));
      if (symbolName(name) == "name") return makeStr(fn->name);
      noAttribute(obj, name, fn->graph ? std::vector<std::string>{"name", "trace_count"} : std::vector<std::string>{"name"});
    }
    default: noAttribute(obj, name, {});
  }
}

void Interpreter::setAttr(const Value& obj, Symbol name, Value v) {
  const std::string& n = symbolName(name);
  if (obj.is(Kind::Module)) {
    auto* m = obj.as<ModuleObj>();
    if (insideGraphFunction())
      throw WeftError("a graph function cannot set attribute '" + n + "' of module '" + m->name +
                      "': it would be set once, while tracing; keep state in Variables (assign) instead");
    if (n == "trainable" && !m->attrs->findLocal(name)) {
      setTrainable(m, truthy(v));
      return;
    }
    adopt(m, n, v);
    m->attrs->set(name, std::move(v));
    return;
  }
  if (obj.is(Kind::Variable) && n == "trainable") {
    auto* var = obj.as<VariableObj>();
    var->trainable = var->ownTrainable = truthy(v);
    return;
  }
  throw WeftError("cannot set attribute '" + n + "' on " + aTypeName(obj));
}

}  // namespace weft
