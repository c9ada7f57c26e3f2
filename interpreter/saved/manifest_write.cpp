// Prints a Manifest as `saved_model.yaml` (docs/saved_models.md describes the fields).
#include <yaml-cpp/yaml.h>

#include "../../grammar/shown_text.h"
#include "manifest.h"

namespace weft::saved {
namespace {

void emitShape(YAML::Emitter& y, const Shape& s) {
  y << YAML::Flow << YAML::BeginSeq;
  for (int64_t d : s) {
    if (d == rt::kUnknownDim) y << YAML::Null;
    else y << d;
  }
  y << YAML::EndSeq;
}

void emitRef(YAML::Emitter& y, const AttrRef& r) {
  y << YAML::Flow << YAML::BeginMap;
  switch (r.kind) {
    case AttrRef::Kind::Variable: y << YAML::Key << "variable" << YAML::Value << r.index; break;
    case AttrRef::Kind::Module: y << YAML::Key << "module" << YAML::Value << r.index; break;
    case AttrRef::Kind::List:
      y << YAML::Key << "list" << YAML::Value << YAML::BeginSeq;
      for (const AttrRef& item : r.items) emitRef(y, item);
      y << YAML::EndSeq;
      break;
  }
  y << YAML::EndMap;
}

void emitSpecs(YAML::Emitter& y, const char* key, const std::vector<TensorSpecEntry>& specs) {
  y << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const auto& s : specs) {
    y << YAML::Flow << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << s.name;
    y << YAML::Key << "dtype" << YAML::Value << rt::dtypeName(s.type.dtype);
    y << YAML::Key << "shape" << YAML::Value;
    emitShape(y, s.type.shape);
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
}

void emitReturns(YAML::Emitter& y, const ReturnShape& r) {
  y << YAML::Flow;
  switch (r.kind) {
    case ReturnShape::Kind::Output: y << YAML::BeginMap << YAML::Key << "output" << YAML::Value << r.output << YAML::EndMap; return;
    case ReturnShape::Kind::None: y << YAML::BeginMap << YAML::Key << "none" << YAML::Value << true << YAML::EndMap; return;
    case ReturnShape::Kind::Tuple:
    case ReturnShape::Kind::List:
      y << YAML::BeginMap << YAML::Key << (r.kind == ReturnShape::Kind::Tuple ? "tuple" : "list") << YAML::Value
        << YAML::BeginSeq;
      for (const auto& item : r.items) emitReturns(y, item);
      y << YAML::EndSeq << YAML::EndMap;
      return;
    case ReturnShape::Kind::Dict:
      y << YAML::BeginMap << YAML::Key << "dict" << YAML::Value << YAML::BeginSeq;
      for (size_t i = 0; i < r.items.size(); ++i) {
        y << YAML::BeginMap << YAML::Key << "key" << YAML::Value << r.keys[i] << YAML::Key << "value" << YAML::Value;
        emitReturns(y, r.items[i]);
        y << YAML::EndMap;
      }
      y << YAML::EndSeq << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string shapeText(const Shape& s) {
  std::string t = "[";
  for (int i = 0; i < s.size(); ++i) {
    if (i) t += ", ";
    t += s[i] == rt::kUnknownDim ? "None" : std::to_string(s[i]);
  }
  return t + "]";
}

std::string controlTextIn(const Manifest& m) {
  std::string why;
  auto check = [&](const std::string& text, const std::string& what) {
    if (!why.empty()) return;
    if (std::optional<size_t> at = firstControl(text))
      why = what + " '" + shownText(text) + "', which " + controlCharacterReason(text, *at);
  };
  for (const auto& mod : m.modules) {
    check(mod.name, "a module is named");  // first: the other messages quote it
    check(mod.type, "module '" + mod.name + "' has the type");
    check(mod.path, "module '" + mod.name + "' has the path");
    check(mod.key, "module '" + mod.name + "' has the key");
    for (const auto& a : mod.attributes) check(a.first, "module '" + mod.name + "' has an attribute named");
  }
  for (const auto& v : m.variables) {
    check(v.name, "a variable is named");
    check(v.path, "variable '" + v.name + "' has the path");
    check(v.key, "variable '" + v.name + "' has the key");
  }
  for (const auto& mesh : m.meshes) {
    check(mesh.name, "a mesh is named");
    for (const auto& d : mesh.dimNames) check(d, "mesh '" + mesh.name + "' has a dimension named");
  }
  for (const auto& f : m.functions) {
    check(f.name, "a function is named");
    check(f.method, "function '" + f.name + "' has the method");
    for (const auto& s : f.inputs) check(s.name, "function '" + f.name + "' has an input named");
    for (const auto& s : f.outputs) check(s.name, "function '" + f.name + "' has an output named");
    std::vector<const ReturnShape*> shapes{&f.returns};
    while (!shapes.empty()) {
      const ReturnShape* r = shapes.back();
      shapes.pop_back();
      for (const auto& k : r->keys) check(k, "function '" + f.name + "' returns a dict key");
      for (const auto& item : r->items) shapes.push_back(&item);
    }
  }
  for (const auto& s : m.signatures) check(s.first, "a signature is named");
  return why;
}

std::string writeManifest(const Manifest& m) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "format" << YAML::Value << kFormatName;
  y << YAML::Key << "version" << YAML::Value << m.version;
  y << YAML::Key << "root" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << m.modules[0].type;
  y << YAML::Key << "name" << YAML::Value << m.modules[0].name;
  y << YAML::EndMap;

  y << YAML::Key << "modules" << YAML::Value << YAML::BeginSeq;
  for (const auto& mod : m.modules) {
    y << YAML::BeginMap;
    y << YAML::Key << "type" << YAML::Value << mod.type;
    y << YAML::Key << "name" << YAML::Value << mod.name;
    y << YAML::Key << "path" << YAML::Value << mod.path;
    y << YAML::Key << "parent" << YAML::Value << mod.parent;
    y << YAML::Key << "key" << YAML::Value << mod.key;
    y << YAML::Key << "trainable" << YAML::Value << mod.trainable;
    if (mod.outputShape) {
      y << YAML::Key << "output_shape" << YAML::Value;
      emitShape(y, *mod.outputShape);
    }
    y << YAML::Key << "attributes" << YAML::Value;
    if (mod.attributes.empty()) y << YAML::Flow;
    y << YAML::BeginSeq;
    for (const auto& [name, ref] : mod.attributes) {
      y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name << YAML::Key << "ref"
        << YAML::Value;
      emitRef(y, ref);
      y << YAML::EndMap;
    }
    y << YAML::EndSeq << YAML::EndMap;
  }
  y << YAML::EndSeq;

  y << YAML::Key << "variables" << YAML::Value;
  if (m.variables.empty()) y << YAML::Flow;
  y << YAML::BeginSeq;
  for (const auto& v : m.variables) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << v.name;
    y << YAML::Key << "path" << YAML::Value << v.path;
    y << YAML::Key << "owner" << YAML::Value << v.owner;
    y << YAML::Key << "key" << YAML::Value << v.key;
    y << YAML::Key << "dtype" << YAML::Value << rt::dtypeName(v.type.dtype);
    y << YAML::Key << "shape" << YAML::Value;
    emitShape(y, v.type.shape);
    y << YAML::Key << "trainable" << YAML::Value << v.trainable;
    y << YAML::Key << "own_trainable" << YAML::Value << v.ownTrainable;
    y << YAML::Key << "layout" << YAML::Value;
    if (!v.layout) {
      y << YAML::Null;
    } else {
      y << YAML::Flow << YAML::BeginMap << YAML::Key << "mesh" << YAML::Value << v.layout->mesh << YAML::Key
        << "dims" << YAML::Value << YAML::BeginSeq;
      for (const auto& d : v.layout->dims) {
        if (d) y << *d;
        else y << YAML::Null;
      }
      y << YAML::EndSeq << YAML::EndMap;
    }
    y << YAML::Key << "file" << YAML::Value << v.file;
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;

  y << YAML::Key << "meshes" << YAML::Value;
  if (m.meshes.empty()) y << YAML::Flow;
  y << YAML::BeginSeq;
  for (const auto& mesh : m.meshes) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << mesh.name;
    y << YAML::Key << "dims" << YAML::Value << YAML::BeginSeq;
    for (size_t i = 0; i < mesh.dimNames.size(); ++i)
      y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << mesh.dimNames[i] << YAML::Key
        << "size" << YAML::Value << mesh.dimSizes[i] << YAML::EndMap;
    y << YAML::EndSeq << YAML::EndMap;
  }
  y << YAML::EndSeq;

  y << YAML::Key << "signatures" << YAML::Value;
  if (m.signatures.empty()) y << YAML::Flow;
  y << YAML::BeginMap;
  for (const auto& [name, fn] : m.signatures) y << YAML::Key << name << YAML::Value << m.functions[size_t(fn)].name;
  y << YAML::EndMap;

  y << YAML::Key << "functions" << YAML::Value;
  if (m.functions.empty()) y << YAML::Flow;
  y << YAML::BeginSeq;
  for (const auto& f : m.functions) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << f.name;
    y << YAML::Key << "method" << YAML::Value << f.method;
    y << YAML::Key << "graph" << YAML::Value << f.file;
    emitSpecs(y, "inputs", f.inputs);
    emitSpecs(y, "outputs", f.outputs);
    y << YAML::Key << "variables" << YAML::Value << YAML::Flow << f.variables;
    y << YAML::Key << "returns" << YAML::Value;
    emitReturns(y, f.returns);
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace weft::saved
