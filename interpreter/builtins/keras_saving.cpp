// The native half of Keras' whole-model saving (stdlib/saving.model, docs/saved_models.md):
// a layer's constructor arguments as plain values, those values as YAML and back, and the
// saved-model folder with a Keras model's metadata beside its manifest:
//
//   keras_metadata.yaml   the architecture, the compile arguments and the optimizer's state, as
//                         one mapping of plain values (strings, numbers, booleans, none, lists,
//                         mappings); tensors are its "arrays", by index
//   keras/arrays/N.npy    those tensors
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>

#include "../../stdlib/runtime/npy.h"
#include "../eval/args.h"
#include "../values/context.h"
#include "../saved/npy.h"
#include "../saved/path_safety.h"
#include "../saved/snapshot.h"
#include "../values/format.h"
#include "../values/literal.h"
#include "keras.h"

namespace weft {

void addConstructorArgs(const ModuleObj& m, DictObj& config) {
  // A module's constructor parameters are the scope its attributes sit in (eval/modules.cpp).
  if (const Env* params = m.attrs->parent().get())
    for (const auto& [k, v] : params->entries())
      if (symbolName(k) != "self") config.set(makeStr(symbolName(k)), v);
}

namespace {

constexpr const char* kMetadataFile = "keras_metadata.yaml";
constexpr size_t kMaxMetadataBytes = 1 << 20;
constexpr int kMaxDepth = 64;
constexpr int64_t kMaxNodes = 1 << 20;

std::string arrayFile(size_t i) { return "keras/arrays/" + std::to_string(i) + ".npy"; }

// Python's repr of a float, with a point or exponent so that it reads back as a float.
std::string floatText(double v) {
  std::string t = formatFloat(v, DType::F64);
  if (t.find_first_of(".einf") == std::string::npos) t += ".0";
  return t;
}

void emit(YAML::Emitter& out, const Value& v, int depth, const std::string& what) {
  if (depth > kMaxDepth) throw WeftError(what + ": the configuration is nested too deeply");
  switch (v.kind()) {
    case Kind::None: out << YAML::Null; return;
    case Kind::Str: out << YAML::DoubleQuoted << v.as<StrObj>()->text; return;
    case Kind::List:
    case Kind::Tuple: {
      out << YAML::BeginSeq;
      for (const Value& x : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items) emit(out, x, depth + 1, what);
      out << YAML::EndSeq;
      return;
    }
    case Kind::Dict: {
      out << YAML::BeginMap;
      for (const auto& [k, x] : v.as<DictObj>()->entries) {
        if (!k.is(Kind::Str)) throw WeftError(what + ": a configuration key must be a string, not " + typeNameOf(k));
        out << YAML::Key << YAML::DoubleQuoted << k.as<StrObj>()->text << YAML::Value;
        emit(out, x, depth + 1, what);
      }
      out << YAML::EndMap;
      return;
    }
    case Kind::Tensor: {
      const Tensor& t = v.tensor();
      if (t.rank() == 0 && !t.isAbstract()) {
        if (t.dtype() == DType::Bool) {
          out << (t.asInt() != 0 ? "true" : "false");
        } else if (const Literal* l = v.literal()) {
          out << (l->isFloat ? floatText(l->f) : std::to_string(l->i));
        } else {
          out << (rt::isInt(t.dtype()) ? std::to_string(t.asInt()) : floatText(t.asDouble()));
        }
        return;
      }
      break;
    }
    default: break;
  }
  throw WeftError(what + ": " + typeNameOf(v) + " cannot be saved in a model's configuration");
}

bool isIntegerText(const std::string& s) {
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

Value parse(const YAML::Node& n, int depth, int64_t& nodes, const std::string& file) {
  auto bad = [&](const std::string& why) -> Value { throw WeftError("cannot load '" + file + "': " + why); };
  if (depth > kMaxDepth) return bad("nested too deeply");
  if (++nodes > kMaxNodes) return bad("too many entries");
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return Value();
    case YAML::NodeType::Sequence: {
      std::vector<Value> items;
      for (const auto& x : n) items.push_back(parse(x, depth + 1, nodes, file));
      return makeList(std::move(items));
    }
    case YAML::NodeType::Map: {
      auto d = std::make_shared<DictObj>();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) return bad("a key that is not a string");
        Value key = makeStr(kv.first.Scalar());
        if (d->find(key)) return bad("the key '" + kv.first.Scalar() + "' twice");
        d->set(key, parse(kv.second, depth + 1, nodes, file));
      }
      return Value(std::move(d));
    }
    case YAML::NodeType::Scalar: break;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return makeStr(s);  // quoted: a string
  if (s == "~" || s == "null") return Value();
  if (s == "true" || s == "false") return Value(Tensor::scalar<bool>(s == "true"));
  if (isIntegerText(s)) {
    try {
      return Value(Literal::parse(s, DType::I64, "an integer"));
    } catch (const WeftError&) {
      return bad("'" + s + "' is outside the range of an integer");
    }
  }
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return bad("'" + s + "' is not a number, a boolean or a quoted string");
  return Value(Literal::real(v));
}

Value standardValue(Interpreter& in, const std::string& name, const SourceRange& site) {
  Value v = in.preludeValue(name, site);
  return v.isNone() ? in.native(name) : v;
}

// _layer_config(module): the arguments its constructor was given (after defaults), by name.
Value layerConfig(Interpreter&, Args& a) {
  ArgReader r(a, "_layer_config", {"module"});
  if (!r.get(0).is(Kind::Module)) r.fail(0, "a module");
  auto d = std::make_shared<DictObj>();
  addConstructorArgs(*r.get(0).as<ModuleObj>(), *d);
  return Value(std::move(d));
}

Value dictOf(std::vector<std::pair<std::string, Value>> entries) {
  auto d = std::make_shared<DictObj>();
  for (auto& [k, v] : entries) d->set(makeStr(k), std::move(v));
  return Value(std::move(d));
}

// _functional_config(model): a functional Model's graph as plain values. "nodes" lists its
// tensors, inputs first and each after the tensors it is computed from: an Input's
// {"input": {name, shape, batch_size, dtype}}, or a layer call's {"layer": index into
// model.layers, "args": [...], "kwargs": {...}} whose tensors are {"node": index}; "inputs" and
// "outputs" are node indices.
Value functionalConfig(Interpreter&, Args& a) {
  ArgReader r(a, "_functional_config", {"model"});
  if (!r.get(0).is(Kind::Module)) r.fail(0, "a model");
  auto* m = r.get(0).as<ModuleObj>();
  Value* layers = m->attrs->findLocal(intern("layers"));
  Value* ins = m->attrs->findLocal(intern("inputs"));
  Value* outs = m->attrs->findLocal(intern("outputs"));
  if (!layers || !ins || !outs || !layers->is(Kind::List) || !ins->is(Kind::List) || !outs->is(Kind::List))
    r.fail(0, "a functional Model");
  std::map<const Object*, int64_t> ids;
  std::vector<Value> nodes;
  auto layerIndex = [&](const Value& layer) {
    const auto& items = layers->as<ListObj>()->items;
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].sameObject(layer)) return int64_t(i);
    throw WeftError(a.site, "model.save: a layer of model '" + m->name + "' is not among its layers");
  };
  std::function<int64_t(const Value&)> visit = [&](const Value& t) -> int64_t {
    if (auto it = ids.find(t.object()); it != ids.end()) return it->second;
    auto* sym = dynamic_cast<SymbolicTensor*>(t.object());
    if (!sym) throw WeftError(a.site, "model.save: model '" + m->name + "' has an output that is not a Keras tensor");
    Value node;
    if (sym->inputs.empty()) {
      std::vector<Value> shape;
      for (int i = 1; i < sym->spec.rank(); ++i) shape.push_back(makeInt(sym->spec.shape()[i]));
      node = dictOf({{"input", dictOf({{"name", makeStr(sym->layer.as<ModuleObj>()->name)},
                                       {"shape", makeList(std::move(shape))},
                                       {"batch_size", sym->batchIsNone ? Value() : makeInt(sym->spec.shape()[0])},
                                       {"dtype", makeStr(rt::dtypeName(sym->spec.dtype()))}})}});
    } else {
      auto ref = [&](const Value& x) { return dictOf({{"node", makeInt(visit(x))}}); };
      std::vector<Value> args;
      for (const Value& i : sym->inputs) args.push_back(mapSymbolic(i, ref));
      auto kwargs = std::make_shared<DictObj>();
      for (const auto& [k, v] : sym->kwargs) kwargs->set(makeStr(symbolName(k)), mapSymbolic(v, ref));
      node = dictOf({{"layer", makeInt(layerIndex(sym->layer))}, {"args", makeList(std::move(args))},
                     {"kwargs", Value(std::move(kwargs))}});
    }
    int64_t id = int64_t(nodes.size());
    ids[t.object()] = id;
    nodes.push_back(std::move(node));
    return id;
  };
  std::vector<Value> inIds, outIds;
  for (const Value& t : ins->as<ListObj>()->items) inIds.push_back(makeInt(visit(t)));
  for (const Value& t : outs->as<ListObj>()->items) outIds.push_back(makeInt(visit(t)));
  return dictOf({{"nodes", makeList(std::move(nodes))}, {"inputs", makeList(std::move(inIds))},
                 {"outputs", makeList(std::move(outIds))}});
}

// _save_keras(model, dir, metadata, arrays): save(model, dir) with metadata and arrays beside it.
Value saveKeras(Interpreter& in, Args& a) {
  ArgReader r(a, "_save_keras", {"model", "dir", "metadata", "arrays"});
  std::string dir = r.str(1);
  if (!writesFiles()) return Value();
  YAML::Emitter out;
  emit(out, r.get(2), 0, "model.save");
  std::string metadata = std::string(out.c_str()) + "\n";
  if (metadata.size() > kMaxMetadataBytes)  // what load_model would refuse is never written
    throw WeftError(a.site, "model.save: the model's Keras metadata would be " + std::to_string(metadata.size()) +
                                " bytes, more than the " + std::to_string(kMaxMetadataBytes >> 20) +
                                " MiB load_model reads");
  saved::SavedModel model = saved::snapshot(in, r.get(0), Value());
  model.extraFiles.emplace_back(kMetadataFile, std::move(metadata));
  std::vector<Value> arrays = r.items(3);
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Tensor& t = tensorOf(arrays[i], "model.save");
    std::string bytes = rt::npyHeader(t.dtype(), t.shape());
    bytes.append(static_cast<const char*>(t.raw()), size_t(t.bytes()));
    model.extraFiles.emplace_back(arrayFile(i), std::move(bytes));
  }
  saved::writeSavedModel(dir, model);
  return Value();
}

// The variables of a saved model as [path, tensor] pairs, in the manifest's order.
Value variablesOf(const saved::SavedModel& m) {
  std::vector<Value> out;
  for (size_t i = 0; i < m.manifest.variables.size(); ++i)
    out.push_back(makeList({makeStr(m.manifest.variables[i].path), Value(m.variables[i])}));
  return makeList(std::move(out));
}

}  // namespace

void registerKerasSaving(Env& env) {
  env.set(intern("_layer_config"), makeBuiltin("_layer_config", layerConfig));
  env.set(intern("_save_keras"), makeBuiltin("_save_keras", saveKeras));
  env.set(intern("_functional_config"), makeBuiltin("_functional_config", functionalConfig));
  // _read_weights(dir): the [path, tensor] pairs of a saved model's variables (load_weights).
  env.set(intern("_read_weights"), makeBuiltin("_read_weights", [](Interpreter&, Args& a) {
            ArgReader r(a, "_read_weights", {"dir"});
            return variablesOf(saved::readSavedModelAtCall(r.str(0)));
          }));
  // _read_keras(dir): {"metadata": ..., "arrays": [...], "variables": [[path, tensor], ...]} of
  // a folder model.save wrote (load_model); every file is read inside dir, with every check of
  // a saved model's.
  env.set(intern("_read_keras"), makeBuiltin("_read_keras", [](Interpreter&, Args& a) {
            ArgReader r(a, "_read_keras", {"dir"});
            std::string dir = r.str(0);
            saved::SavedModel model = saved::readSavedModelAtCall(dir);
            std::error_code ec;
            if (!std::filesystem::exists(std::filesystem::path(dir) / kMetadataFile, ec))
              throw WeftError(a.site, "load_model: '" + dir + "' is a saved model but not one model.save wrote (it has no " +
                                          kMetadataFile + "); load(\"" + dir + "\") loads it");
            std::string file = saved::fileInside(dir, kMetadataFile);
            YAML::Node root;
            try {
              root = YAML::Load(saved::readSmallFile(file, kMaxMetadataBytes));
            } catch (const YAML::Exception& e) {
              throw WeftError(a.site, "cannot load '" + file + "': " + e.what());
            }
            int64_t nodes = 0;
            Value metadata = parse(root, 0, nodes, file);
            if (!metadata.is(Kind::Dict)) throw WeftError(a.site, "cannot load '" + file + "': not a mapping");
            Value* count = metadata.as<DictObj>()->find(makeStr("arrays"));
            if (!count || !count->isTensor() || count->tensor().rank() != 0 || !rt::isInt(count->tensor().dtype()) ||
                count->tensor().asInt() < 0 || count->tensor().asInt() > 1000000)
              throw WeftError(a.site, "cannot load '" + file + "': 'arrays' must be a count of arrays");
            std::vector<Value> arrays;
            for (int64_t i = 0; i < count->tensor().asInt(); ++i)
              arrays.push_back(Value(saved::readNpy(saved::fileInside(dir, arrayFile(size_t(i))))));
            auto out = std::make_shared<DictObj>();
            out->set(makeStr("metadata"), metadata);
            out->set(makeStr("arrays"), makeList(std::move(arrays)));
            out->set(makeStr("variables"), variablesOf(model));
            return Value(std::move(out));
          }));
  // _keras_object(name, kind): the standard library's value of that name when it is of the kind
  // a configuration names — "class" a module type (a layer, optimizer, loss or schedule),
  // "function" a public function, "dtype" a dtype — else none: a saved model's metadata is
  // untrusted, and must not reach `save` or a private helper by naming it.
  env.set(intern("_keras_object"), makeBuiltin("_keras_object", [](Interpreter& in, Args& a) {
            ArgReader r(a, "_keras_object", {"name", "kind"});
            std::string name = r.str(0), kind = r.str(1);
            Value v = standardValue(in, name, a.site);
            bool fits = kind == "class"      ? v.is(Kind::ModuleType)
                        : kind == "function" ? (v.is(Kind::Function) || v.is(Kind::Builtin)) && name[0] != '_'
                        : kind == "dtype"    ? v.is(Kind::DType)
                                             : false;
            return fits ? v : Value();
          }));
  // _keras_name(value): the name the standard library binds `value` to, or none (a function or
  // module type of the program's own).
  env.set(intern("_keras_name"), makeBuiltin("_keras_name", [](Interpreter& in, Args& a) {
            ArgReader r(a, "_keras_name", {"value"});
            const Value& v = r.get(0);
            std::string name = v.is(Kind::Function)     ? v.as<FunctionObj>()->name
                               : v.is(Kind::Builtin)    ? v.as<BuiltinObj>()->name
                               : v.is(Kind::ModuleType) ? v.as<ModuleTypeObj>()->name
                                                        : "";
            if (name.empty() || !standardValue(in, name, a.site).sameObject(v)) return Value();
            return makeStr(name);
          }));
  // _construct(callee, kwargs, args=[]): callee(*args, **kwargs), the keyword arguments from a
  // dict of strings.
  env.set(intern("_construct"), makeBuiltin("_construct", [](Interpreter& in, Args& a) {
            ArgReader r(a, "_construct", {"callee", "kwargs", "args?"});
            Args ca;
            ca.site = a.site;
            if (r.has(2)) ca.pos = r.items(2);
            ca.kw = r.keywords(1);
            return in.call(r.get(0), ca);
          }));
}

}  // namespace weft
