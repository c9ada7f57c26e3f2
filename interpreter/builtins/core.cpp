// print, len, range, containers, conversions and Variable.
#include <chrono>

#include "../../grammar/shown_text.h"
#include "../graph/tracer.h"
#include "../eval/interpreter.h"
#include "../eval/operators.h"
#include "../mesh/scope.h"
#include "../ops/ops.h"
#include "../spmd/ranks.h"
#include "../values/format.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

Value print(Interpreter& in, Args& a) {
  std::string sep = " ", end = "\n";
  for (auto& [k, v] : a.kw) {
    const std::string& key = symbolName(k);
    if ((key != "sep" && key != "end") || !v.is(Kind::Str))
      throw WeftError(a.site, "print() takes only the string keywords sep and end");
    (key == "sep" ? sep : end) = v.as<StrObj>()->text;
  }
  if (auto* tracer = graph::Tracer::active()) {  // a print node: it prints on every call of the graph
    std::string format;
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < a.pos.size(); ++i) {
      if (i) format += escapeBraces(sep);
      if (isTensorLike(a.pos[i])) {
        format += "{}";
        tensors.push_back(tensorOf(a.pos[i], "print argument"));
      } else if (auto* text = dynamic_cast<TracedText*>(a.pos[i].object())) {  // an f-string of traced values
        format += text->format;
        tensors.insert(tensors.end(), text->tensors.begin(), text->tensors.end());
      } else {
        format += escapeBraces(toStr(a.pos[i]));
      }
    }
    tracer->print(format + escapeBraces(end), tensors);
    return Value();
  }
  std::string line;
  for (size_t i = 0; i < a.pos.size(); ++i) {
    if (i) line += sep;
    line += toStr(a.pos[i]);
  }
  in.out() << line << end;
  return Value();
}

Value len(Interpreter&, Args& a) {
  ArgReader r(a, "len", {"x"});
  const Value& v = r.get(0);
  int64_t n;
  switch (v.kind()) {
    case Kind::List: n = int64_t(v.as<ListObj>()->items.size()); break;
    case Kind::Tuple: n = int64_t(v.as<TupleObj>()->items.size()); break;
    case Kind::Dict:
    case Kind::Set: n = int64_t(v.as<DictObj>()->entries.size()); break;
    case Kind::Str: n = int64_t(v.as<StrObj>()->text.size()); break;
    case Kind::Tensor:
    case Kind::Variable: {
      const Tensor& t = tensorOf(v, "x");
      if (t.rank() == 0) throw WeftError(a.site, "len() of a scalar tensor");
      // A graph value's unknown length is a graph value too (as tf.shape(x)[0]).
      if (t.shape()[0] == rt::kUnknownDim)
        return Value(ops::cast(ops::getItem(ops::shapeOf(t), {ops::Subscript{ops::Subscript::Index, 0}}), DType::I32));
      n = t.shape()[0];
      break;
    }
    default:
      if (auto* rg = dynamic_cast<RangeObj*>(v.object())) {
        n = rg->size();
        break;
      }
      if (v.is(Kind::Opaque))
        if (auto length = v.as<OpaqueObj>()->length()) {
          n = *length;
          break;
        }
      throw WeftError(a.site, "len() of " + aTypeName(v));
  }
  return makeInt(n);
}

Value range(Interpreter&, Args& a) {
  ArgReader r(a, "range", {"start", "stop?", "step?"});
  int64_t start = 0, stop, step = r.integer(2, 1);
  if (r.has(1)) start = r.integer(0), stop = r.integer(1);
  else stop = r.integer(0);
  if (step == 0) throw WeftError(a.site, "range() step cannot be zero");
  return Value(std::make_shared<RangeObj>(start, stop, step));
}

std::vector<Value> toItems(Interpreter& in, const Value& v) {
  std::vector<Value> out;
  // A range knows its length: one that cannot be a list fails before taking any item.
  if (auto* rg = dynamic_cast<RangeObj*>(v.object())) {
    const int64_t n = rg->size(), most = INT64_MAX / int64_t(sizeof(Value));
    checkValueBytes(n > most ? INT64_MAX : n * int64_t(sizeof(Value)), "a list");
  }
  in.forEach(v, [&](Value x) {
    if (out.size() % 4096 == 0) checkValueBytes(int64_t((out.size() + 4096) * sizeof(Value)), "a list");
    out.push_back(std::move(x));
    return false;
  });
  return out;
}

Value enumerate(Interpreter& in, Args& a) {
  ArgReader r(a, "enumerate", {"items", "start?"});
  in.iterate(r.get(0));  // not iterable: the error is here, not at the loop
  return Value(std::make_shared<EnumerateObj>(r.get(0), r.integer(1, 0)));
}

Value zip(Interpreter& in, Args& a) {
  if (!a.kw.empty()) throw WeftError(a.site, "zip() takes no keyword arguments");
  for (const Value& v : a.pos) in.iterate(v);
  return Value(std::make_shared<ZipObj>(a.pos));
}

Value variable(Interpreter& in, Args& a) {
  ArgReader r(a, "Variable", {"initial", "dtype?", "trainable?", "name?"});
  auto var = std::make_shared<VariableObj>();
  std::optional<DType> dt;
  if (r.has(1)) dt = r.dtype(1, DType::F32);
  var->value = tensorFromValue(r.get(0), dt, "Variable()");
  var->trainable = var->ownTrainable = r.flag(2, true);
  var->named = r.has(3);
  var->scope = in.variableScope();  // `with name_scope("block")`: "block/NAME"
  var->name = r.has(3) ? r.str(3) : "Variable";
  if (!var->scope.empty()) var->name = var->scope + "/" + var->name;
  // A name reaches saved models, generated code and terminals: no control characters.
  if (std::optional<size_t> at = firstControl(var->name)) r.fail(3, controlCharacterReason(var->name, *at));
  if (in.insideGraphFunction())
    throw WeftError(a.site, "cannot create a Variable inside a graph function (@function), as in TensorFlow; "
                            "create it outside, in the module body, or in build()");
  mesh::variableCreated(in, *var);  // plan mode; an active layout_map_scope
  return Value(std::move(var));
}

}  // namespace

void registerCoreBuiltins(Env& env) {
  def(env, "print", print);
  def(env, "len", len);
  def(env, "range", range);
  def(env, "enumerate", enumerate);
  def(env, "zip", zip);
  def(env, "Variable", variable);
  // Seconds from a monotonic clock, as Python's time.perf_counter (for timing in programs);
  // under mpirun, rank 0's clock on every rank (spmd/ranks.h).
  def(env, "perf_counter", [](Interpreter&, Args& a) {
    ArgReader r(a, "perf_counter", {});
    auto now = std::chrono::steady_clock::now().time_since_epoch();
    return Value(Tensor::scalar<double>(spmd::fromRankZero(std::chrono::duration<double>(now).count())));
  });
  def(env, "str", [](Interpreter&, Args& a) {
    ArgReader r(a, "str", {"x"});
    return makeStr(toStr(r.get(0)));
  });
  // The kind of a value as a string: "tensor", "str", "list", ..., or a module's type name.
  def(env, "type", [](Interpreter&, Args& a) {
    ArgReader r(a, "type", {"x"});
    const Value& v = r.get(0);
    if (v.is(Kind::Variable)) return makeStr("Variable");
    if (v.is(Kind::Module)) return makeStr(v.as<ModuleObj>()->typeName);
    if (v.is(Kind::Opaque)) return makeStr(v.as<OpaqueObj>()->typeName());
    return makeStr(kindName(v.kind()));
  });
  def(env, "repr", [](Interpreter&, Args& a) {
    ArgReader r(a, "repr", {"x"});
    return makeStr(toRepr(r.get(0)));
  });
  def(env, "list", [](Interpreter& in, Args& a) {
    ArgReader r(a, "list", {"items?"});
    return makeList(r.has(0) ? toItems(in, r.get(0)) : std::vector<Value>{});
  });
  def(env, "set", [](Interpreter& in, Args& a) {
    ArgReader r(a, "set", {"items?"});
    return makeSet(r.has(0) ? toItems(in, r.get(0)) : std::vector<Value>{});
  });
  def(env, "tuple", [](Interpreter& in, Args& a) {
    ArgReader r(a, "tuple", {"items?"});
    return makeTuple(r.has(0) ? toItems(in, r.get(0)) : std::vector<Value>{});
  });
  // Dtypes are values; calling one casts (`f32(x)`), and `int`/`float` are i32/f32 as in annotations.
  // NumPy's and TensorFlow's names (`float32`) are the same values.
  for (DType d : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool})
    env.set(intern(rt::dtypeName(d)), Value::dtype(d));
  for (const char* keras : {"float32", "float64", "int32", "int64"})
    env.set(intern(keras), Value::dtype(*dtypeFromString(keras)));
  env.set(intern("int"), Value::dtype(DType::I32));
  env.set(intern("float"), Value::dtype(DType::F32));
}

}  // namespace weft
