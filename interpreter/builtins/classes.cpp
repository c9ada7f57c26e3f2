// Keras' class tests, for programs written from TensorFlow: isinstance(x, C), issubclass(A, B),
// hasattr and getattr, the class `Layer`, and clear_session(). Weft has no classes: a "class" is one of the values
// that make things — the builtins Module, Layer, Model, Sequential, Variable, str, list, tuple,
// dict, a dtype (int, float, f64, ...) or a module type. Every module is a Layer and a Module
// (tf.keras.layers.Layer derives from tf.Module); a Model is what compile/fit (Sequential, a
// functional Model, a loaded Keras model), as Model derives from Layer.
#include "../eval/args.h"
#include "../values/format.h"
#include "keras.h"

namespace weft {
namespace {

// A class's place in Keras' hierarchy, from the most to the least general.
enum class Class { Module, Layer, Model, Sequential, Other };

Class builtinClass(const std::string& name) {
  if (name == "Module") return Class::Module;
  if (name == "Layer") return Class::Layer;
  if (name == "Model") return Class::Model;
  if (name == "Sequential") return Class::Sequential;
  return Class::Other;
}

bool isClass(const Value& c) {
  if (c.is(Kind::ModuleType) || c.is(Kind::DType)) return true;
  if (!c.is(Kind::Builtin)) return false;
  const std::string& n = c.as<BuiltinObj>()->name;
  return builtinClass(n) != Class::Other || n == "Variable" || n == "str" || n == "list" || n == "tuple" ||
         n == "dict" || n == "set";
}

void checkClass(ArgReader& r, int i, const Value& c) {
  if (!isClass(c))
    r.fail(i, "must be a class (Module, Layer, Model, Sequential, Variable, str, list, tuple, dict, set, a dtype or a module type), or a tuple of them; got " +
                  typeNameOf(c));
}

// The classes to test against: one, or a tuple of them as in Python.
std::vector<Value> classesOf(ArgReader& r, int i) {
  const Value& c = r.get(i);
  std::vector<Value> out = c.is(Kind::Tuple) ? c.as<TupleObj>()->items : std::vector<Value>{c};
  for (const Value& x : out) checkClass(r, i, x);
  return out;
}

bool isModel(const ModuleObj& m) { return m.attrs->findLocal(intern("fit")) != nullptr; }

bool instanceOf(const Value& x, const Value& c) {
  if (c.is(Kind::DType))
    return (x.isTensor() && x.tensor().dtype() == c.dtypeValue()) ||
           (x.is(Kind::Variable) && x.as<VariableObj>()->value.dtype() == c.dtypeValue());
  if (c.is(Kind::ModuleType)) return x.is(Kind::Module) && x.as<ModuleObj>()->typeName == c.as<ModuleTypeObj>()->name;
  const std::string& n = c.as<BuiltinObj>()->name;
  if (n == "Variable") return x.is(Kind::Variable);
  if (n == "str") return x.is(Kind::Str);
  if (n == "list") return x.is(Kind::List);
  if (n == "tuple") return x.is(Kind::Tuple);
  if (n == "dict") return x.is(Kind::Dict);
  if (n == "set") return x.is(Kind::Set);
  if (!x.is(Kind::Module)) return false;
  auto* m = x.as<ModuleObj>();
  switch (builtinClass(n)) {
    case Class::Module:
    case Class::Layer: return true;
    case Class::Model: return isModel(*m);
    case Class::Sequential: return m->typeName == "Sequential";
    case Class::Other: return false;
  }
  return false;
}

bool subclassOf(const Value& a, const Value& b) {
  if (a.is(Kind::DType) || b.is(Kind::DType)) return a.is(Kind::DType) && b.is(Kind::DType) && a.dtypeValue() == b.dtypeValue();
  if (a.is(Kind::ModuleType) && b.is(Kind::ModuleType)) return a.sameObject(b);
  // A module type is a Layer (and so a Module); the builtins are ordered Module > Layer > Model > Sequential.
  Class ca = a.is(Kind::ModuleType) ? Class::Layer : builtinClass(a.as<BuiltinObj>()->name);
  Class cb = b.is(Kind::ModuleType) ? Class::Other : builtinClass(b.as<BuiltinObj>()->name);
  if (ca == Class::Other || cb == Class::Other) return !a.is(Kind::ModuleType) && !b.is(Kind::ModuleType) && a.sameObject(b);
  return int(ca) >= int(cb);
}

Value boolean(bool b) { return Value(Tensor::scalar<bool>(b)); }

}  // namespace

void registerClasses(Env& env) {
  env.set(intern("isinstance"), makeBuiltin("isinstance", [](Interpreter&, Args& a) {
            ArgReader r(a, "isinstance", {"object", "classinfo"});
            for (const Value& c : classesOf(r, 1))
              if (instanceOf(r.get(0), c)) return boolean(true);
            return boolean(false);
          }));
  env.set(intern("issubclass"), makeBuiltin("issubclass", [](Interpreter&, Args& a) {
            ArgReader r(a, "issubclass", {"class", "classinfo"});
            checkClass(r, 0, r.get(0));
            for (const Value& c : classesOf(r, 1))
              if (subclassOf(r.get(0), c)) return boolean(true);
            return boolean(false);
          }));
  // Python's hasattr and getattr, for callbacks (stdlib/callbacks.model) and programs that test
  // what a module offers: an attribute is there when reading it is not an error.
  env.set(intern("hasattr"), makeBuiltin("hasattr", [](Interpreter& in, Args& a) {
            ArgReader r(a, "hasattr", {"object", "name"});
            try {
              in.getAttr(r.get(0), intern(r.str(1)));
            } catch (const WeftError&) {
              return boolean(false);
            }
            return boolean(true);
          }));
  env.set(intern("getattr"), makeBuiltin("getattr", [](Interpreter& in, Args& a) {
            ArgReader r(a, "getattr", {"object", "name", "default?"});
            if (a.pos.size() + a.kw.size() < 3) return in.getAttr(r.get(0), intern(r.str(1)));
            try {
              return in.getAttr(r.get(0), intern(r.str(1)));
            } catch (const WeftError&) {
              return r.get(2);
            }
          }));
  env.set(intern("clear_session"), makeBuiltin("clear_session", [](Interpreter& in, Args& a) {
            ArgReader r(a, "clear_session", {});
            in.clearModuleNames();
            return Value();
          }));
}

}  // namespace weft
