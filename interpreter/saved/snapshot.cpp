// snapshot(): a module as a SavedModel. Its submodules and variables are numbered in the order
// `m.submodules` and `m.variables` list them; each signature and graph method is traced from its
// annotations (a Keras model from its input shape) on a fresh tracer, as weft check does.
#include <cctype>
#include <map>
#include <set>

#include "../../grammar/diagnostics.h"
#include "../graph/tracer.h"
#include "../graph/verify.h"
#include "../mesh/layout.h"
#include "../mesh/shards.h"
#include "../values/format.h"
#include "snapshot.h"

namespace weft::saved {
namespace {

// A file name made of the characters every file system takes.
std::string fileStem(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out = "_" + out;
  if (out.size() > 100) out.resize(100);
  return out;
}

// The file's name, unique among `used` as a file system that ignores case (macOS's, Windows')
// compares names, so that a folder copied there keeps every file: variables w and W are w.npy
// and W_1.npy.
std::string uniqueFile(const std::string& folder, const std::string& stem, const char* ext, std::set<std::string>& used) {
  auto folded = [](std::string n) {
    for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
    return n;
  };
  std::string name = folder + "/" + fileStem(stem) + ext;
  for (int i = 1; !used.insert(folded(name)).second; ++i) name = folder + "/" + fileStem(stem) + "_" + std::to_string(i) + ext;
  return name;
}

class Snapshot {
 public:
  Snapshot(Interpreter& in, ModuleObj& root) : in_(in), root_(root) {}
  SavedModel make(const Value& signatures);

 private:
  std::string pathOf(const ModuleObj* m) const;
  std::optional<AttrRef> refOf(const Value& v, int depth);
  int addFunction(const std::string& name, const std::string& method, const Value& callee, const std::string& what);
  std::vector<TensorSpecEntry> inputsOf(const Value& callee, const std::string& what);
  ReturnShape returnsOf(const Value& v, std::vector<Tensor>& outs, const std::string& what, int depth);

  Interpreter& in_;
  ModuleObj& root_;
  SavedModel model_;
  std::map<const Object*, int> modules_, variables_, functions_;
  std::map<const mesh::MeshObj*, int> meshes_;
  std::set<std::string> files_;
  static constexpr size_t kMaxVisited = 1000000;
  size_t visited_ = 0;  // values refOf looked at
};

// The object path of m below the root ("" for the root), or nullopt when its chain of parents
// does not lead to the root.
std::string Snapshot::pathOf(const ModuleObj* m) const {
  std::string p;
  for (; m && m != &root_; m = m->parentModule()) p = p.empty() ? m->keyInParent : m->keyInParent + "." + p;
  return m == &root_ ? p : std::string("\x01");
}

std::optional<AttrRef> Snapshot::refOf(const Value& v, int depth) {
  if (depth > 32) return std::nullopt;
  // Lists that share their items are written once per appearance: bounded, not 2^depth.
  if (++visited_ > kMaxVisited)
    throw WeftError("cannot save: the modules' attributes hold more than " + std::to_string(kMaxVisited) +
                    " list items (a list that appears several times counts each time)");
  if (v.is(Kind::Variable)) {
    auto it = variables_.find(v.object());
    if (it != variables_.end()) return AttrRef{AttrRef::Kind::Variable, it->second, {}};
  } else if (v.is(Kind::Module)) {
    auto it = modules_.find(v.object());
    if (it != modules_.end() && it->second > 0) return AttrRef{AttrRef::Kind::Module, it->second, {}};
  } else if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    const auto& items = v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items;
    AttrRef r{AttrRef::Kind::List, 0, {}};
    for (const Value& item : items)
      if (auto sub = refOf(item, depth + 1)) r.items.push_back(std::move(*sub));
    if (!r.items.empty()) return r;
  }
  return std::nullopt;
}

std::vector<TensorSpecEntry> Snapshot::inputsOf(const Value& callee, const std::string& what) {
  std::vector<TensorSpecEntry> inputs;
  if (callee.is(Kind::Function)) {
    const FunctionObj& fn = *callee.as<FunctionObj>();
    for (const auto& p : *fn.params) {
      std::optional<graph::TensorType> t = p.type ? annotatedSignature(*p.type) : std::nullopt;
      if (!t)
        throw WeftError("cannot save " + what + ": parameter '" + symbolName(p.name) + "' of " + fn.name +
                        "() has no tensor annotation (such as f32[None, 784]), so it has no signature");
      inputs.push_back({symbolName(p.name), *t});
    }
    return inputs;
  }
  // A Keras model: its input shape, with an unknown batch dimension.
  const ModuleObj& m = *callee.as<ModuleObj>();
  auto fromSymbolic = [](const SymbolicTensor& sym) {
    graph::TensorType t{sym.spec.dtype(), {}};
    for (int i = 0; i < sym.spec.rank(); ++i)
      t.shape.push_back(i == 0 && sym.batchIsNone ? rt::kUnknownDim : sym.spec.shape()[i]);
    return t;
  };
  // A functional Model: one input per Input(...) it was made from, named after it.
  if (Value* ins = m.attrs->findLocal(intern("inputs")); m.inputShape.isNone() && ins && ins->is(Kind::List)) {
    for (const Value& v : ins->as<ListObj>()->items) {
      auto* sym = dynamic_cast<SymbolicTensor*>(v.object());
      if (!sym || !sym->layer.is(Kind::Module))
        throw WeftError("cannot save " + what + ": the inputs of model '" + m.name + "' are not Keras inputs");
      inputs.push_back({sym->layer.as<ModuleObj>()->name, fromSymbolic(*sym)});
    }
    return inputs;
  }
  graph::TensorType t{DType::F32, {}};
  if (auto* sym = dynamic_cast<SymbolicTensor*>(m.inputShape.object())) {
    t = fromSymbolic(*sym);
  } else if (m.inputShape.is(Kind::List) || m.inputShape.is(Kind::Tuple)) {
    t.shape.push_back(rt::kUnknownDim);
    const auto& dims = m.inputShape.is(Kind::List) ? m.inputShape.as<ListObj>()->items : m.inputShape.as<TupleObj>()->items;
    for (const Value& d : dims) {
      if (!d.isTensor() || d.tensor().rank() != 0 || !rt::isInt(d.tensor().dtype()) || d.tensor().isAbstract() ||
          t.shape.size() >= rt::kMaxRank)
        throw WeftError("cannot save " + what + ": its input_shape is not a list of sizes");
      t.shape.push_back(d.tensor().asInt());
    }
  } else {
    throw WeftError("cannot save " + what + ": module '" + m.name +
                    "' does not know its input shape (give its first layer input_shape=, or an Input)");
  }
  inputs.push_back({"inputs", t});
  return inputs;
}

ReturnShape Snapshot::returnsOf(const Value& v, std::vector<Tensor>& outs, const std::string& what, int depth) {
  if (depth > 32) throw WeftError("cannot save " + what + ": its result nests too deeply");
  ReturnShape r;
  if (v.is(Kind::Variable)) return returnsOf(Value(readVariable(*v.as<VariableObj>())), outs, what, depth);
  if (v.isTensor()) {
    r.kind = ReturnShape::Kind::Output;
    r.output = int(outs.size());
    outs.push_back(v.tensor());
  } else if (v.isNone()) {
    r.kind = ReturnShape::Kind::None;
  } else if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    r.kind = v.is(Kind::List) ? ReturnShape::Kind::List : ReturnShape::Kind::Tuple;
    for (const Value& x : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items)
      r.items.push_back(returnsOf(x, outs, what, depth + 1));
  } else if (v.is(Kind::Dict)) {
    r.kind = ReturnShape::Kind::Dict;
    for (const auto& [k, x] : v.as<DictObj>()->entries) {
      if (!k.is(Kind::Str)) throw WeftError("cannot save " + what + ": it returns a dict whose keys are not strings");
      r.keys.push_back(k.as<StrObj>()->text);
      r.items.push_back(returnsOf(x, outs, what, depth + 1));
    }
  } else {
    throw WeftError("cannot save " + what + ": it returns " + typeNameOf(v) +
                    "; a saved function returns tensors (alone, or in lists, tuples and dicts)");
  }
  return r;
}

int Snapshot::addFunction(const std::string& name, const std::string& method, const Value& callee, const std::string& what) {
  if (auto it = functions_.find(callee.object()); it != functions_.end()) {
    FunctionEntry& f = model_.manifest.functions[size_t(it->second)];
    if (f.method.empty()) f.method = method;
    return it->second;
  }
  FunctionEntry f;
  f.name = name;
  for (int i = 1; std::any_of(model_.manifest.functions.begin(), model_.manifest.functions.end(),
                              [&](const FunctionEntry& e) { return e.name == f.name; });
       ++i)
    f.name = name + "_" + std::to_string(i);
  f.method = method;
  f.inputs = inputsOf(callee, what);
  graph::Graph g;
  std::vector<std::shared_ptr<VariableObj>> vars;
  {
    graph::Tracer tracer(f.name);
    Args args;
    for (const auto& input : f.inputs) args.pos.push_back(Value(tracer.addInput(input.type)));
    Value result = in_.call(callee, args);
    std::vector<Tensor> outs;
    f.returns = returnsOf(result, outs, what, 0);
    g = tracer.finish(outs);
    vars = tracer.variables();
  }
  graph::verify(g);
  for (size_t i = 0; i < g.body.results.size(); ++i)
    f.outputs.push_back({f.returns.kind == ReturnShape::Kind::Dict && f.returns.items.size() == g.body.results.size()
                             ? f.returns.keys[i]
                             : "output_" + std::to_string(i),
                         g.values[size_t(g.body.results[i])]});
  for (const auto& v : vars) {
    auto it = variables_.find(v.get());
    if (it == variables_.end())
      throw WeftError("cannot save " + what + ": it uses Variable '" + v->name + "', which module '" + root_.name +
                      "' does not hold");
    f.variables.push_back(it->second);
  }
  f.file = uniqueFile("graphs", f.name, ".txt", files_);
  model_.manifest.functions.push_back(std::move(f));
  model_.graphs.push_back(std::move(g));
  functions_[callee.object()] = int(model_.graphs.size()) - 1;
  return int(model_.graphs.size()) - 1;
}

SavedModel Snapshot::make(const Value& signatures) {
  Manifest& m = model_.manifest;
  // Modules: the root, then every submodule depth first; a parent always before its child.
  std::vector<ModuleObj*> mods{&root_};
  for (const Value& v : in_.collectSubmodules(&root_)) mods.push_back(v.as<ModuleObj>());
  for (size_t i = 0; i < mods.size(); ++i) modules_[mods[i]] = int(i);
  for (size_t i = 0; i < mods.size(); ++i) {
    ModuleEntry e;
    e.type = mods[i]->typeName;
    e.name = mods[i]->name;
    e.trainable = mods[i]->trainable;
    if (const auto& out = mods[i]->outputShape) {
      e.outputShape = *out;
      if (!mods[i]->batchFixed && out->rank() > 0) (*e.outputShape)[0] = rt::kUnknownDim;
    }
    if (i > 0) {
      e.path = pathOf(mods[i]);
      auto parent = modules_.find(mods[i]->parentModule());
      if (e.path != "\x01" && parent != modules_.end() && size_t(parent->second) < i) {
        e.parent = parent->second;
        e.key = mods[i]->keyInParent;
      } else {  // held, but first adopted elsewhere: hung below the root under its own key
        e.path = mods[i]->keyInParent;
        e.parent = 0;
        e.key = e.path;
      }
    }
    m.modules.push_back(std::move(e));
  }
  std::vector<Value> vars = in_.collectVariables(&root_);
  for (size_t i = 0; i < vars.size(); ++i) variables_[vars[i].object()] = int(i);
  for (const Value& value : vars) {
    const VariableObj& v = *value.as<VariableObj>();
    VariableEntry e;
    e.name = v.name;
    e.type = graph::typeOf(v.value);
    e.trainable = v.trainable;
    e.ownTrainable = v.ownTrainable;
    auto owner = modules_.find(v.ownerModule());
    std::string ownerPath = owner != modules_.end() ? m.modules[size_t(owner->second)].path : "";
    if (owner != modules_.end() && (owner->second == 0 || !ownerPath.empty())) {
      e.owner = owner->second;
      e.key = v.keyInOwner;
      e.path = ownerPath.empty() ? v.keyInOwner : ownerPath + "." + v.keyInOwner;
    } else {
      e.owner = 0;
      e.key = v.path();
      e.path = e.key;
    }
    if (const mesh::LayoutObj* l = mesh::layoutOf(v)) {
      auto [it, fresh] = meshes_.emplace(l->mesh.get(), int(m.meshes.size()));
      if (fresh) m.meshes.push_back({l->mesh->name, l->mesh->dimNames, l->mesh->dimSizes});
      e.layout = LayoutEntry{it->second, l->dims};
    }
    e.file = uniqueFile("variables", e.path, ".npy", files_);
    m.variables.push_back(std::move(e));
    model_.variables.push_back(v.value);
  }
  for (size_t i = 0; i < mods.size(); ++i)
    for (const auto& [k, v] : mods[i]->attrs->entries())
      if (auto r = refOf(v, 0)) m.modules[i].attributes.emplace_back(symbolName(k), std::move(*r));

  // The root's graph methods whose parameters are all annotated.
  std::vector<std::pair<std::string, Value>> methods;
  for (const auto& [k, v] : root_.attrs->entries()) {
    if (!v.is(Kind::Function) || !v.as<FunctionObj>()->graph) continue;
    const FunctionObj& fn = *v.as<FunctionObj>();
    bool annotated = true;
    for (const auto& p : *fn.params) annotated = annotated && p.type && annotatedSignature(*p.type);
    if (annotated) methods.emplace_back(symbolName(k), v);
  }
  auto methodName = [&](const Value& v) -> std::string {
    for (const auto& [k, x] : root_.attrs->entries())
      if (x.sameObject(v)) return symbolName(k);
    return "";
  };
  if (!signatures.isNone()) {
    if (!signatures.is(Kind::Dict))
      throw WeftError("save(): signatures must be a dict from names to graph functions, not " + typeNameOf(signatures));
    for (const auto& [k, v] : signatures.as<DictObj>()->entries) {
      if (!k.is(Kind::Str)) throw WeftError("save(): a signature's name must be a string, not " + typeNameOf(k));
      const std::string& name = k.as<StrObj>()->text;
      if (name.empty()) throw WeftError("save(): a signature's name may not be empty");
      std::string what = "signature '" + name + "'";
      int fn;
      if (v.is(Kind::Function)) {
        fn = addFunction(methodName(v).empty() ? fileStem(v.as<FunctionObj>()->name) : methodName(v), methodName(v), v, what);
      } else if (v.is(Kind::Module)) {
        if (!v.as<ModuleObj>()->built)
          throw WeftError("cannot save " + what + ": module '" + v.as<ModuleObj>()->name +
                          "' is not built yet; call it on an input first");
        fn = addFunction(v.object() == &root_ ? "call" : v.as<ModuleObj>()->name,
                         v.object() == &root_ ? "call" : "", v, what);
      } else {
        throw WeftError("cannot save " + what + ": it must be a graph function, a method or a callable module, not " +
                        typeNameOf(v));
      }
      m.signatures.emplace_back(name, fn);
    }
  }
  for (const auto& [name, v] : methods) addFunction(name, name, v, "method '" + name + "'");
  if (signatures.isNone()) {
    // As TensorFlow: a lone graph method is the default signature; a built Keras model's call is.
    if (methods.size() == 1) {
      m.signatures.emplace_back("serving_default", 0);
    } else if (methods.empty() && root_.built && root_.attrs->findLocal(intern("call")) &&
               (!root_.inputShape.isNone() || root_.attrs->findLocal(intern("inputs")))) {
      Value self(std::static_pointer_cast<Object>(root_.shared_from_this()));
      m.signatures.emplace_back("serving_default", addFunction("call", "call", self, "model '" + root_.name + "'"));
    }
  }
  return std::move(model_);
}

}  // namespace

SavedModel snapshot(Interpreter& in, const Value& obj, const Value& signatures) {
  if (!obj.is(Kind::Module)) throw WeftError("save() saves a module, not " + typeNameOf(obj));
  return Snapshot(in, *obj.as<ModuleObj>()).make(signatures);
}

}  // namespace weft::saved
