// Parses `saved_model.yaml` into a Manifest, checking everything a loader relies on: the format
// and version, every field's kind, every index in range, every shape bounded, every file name
// safe. Malformed YAML, a document that is not a mapping, a missing key: all are WeftErrors
// located in the file where yaml-cpp knows the place (FILE:LINE:COL, the line and a caret), and
// naming the file otherwise.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <sstream>

#include "../../grammar/diagnostics.h"
#include "../../grammar/shown_text.h"
#include "../mesh/mesh.h"
#include "manifest.h"
#include "path_safety.h"

namespace weft::saved {
namespace {

constexpr int kMaxDepth = 64;            // nested attribute lists and return structures
constexpr int64_t kMaxNodes = 1'000'000;  // nodes visited: YAML aliases can share subtrees

// The error `why` at yaml-cpp's mark in `file`, which counts columns in bytes from 0.
WeftError errorAt(const std::shared_ptr<const SourceFile>& file, const YAML::Mark& mark, const std::string& why) {
  if (mark.line < 0 || mark.column < 0) return WeftError("cannot load '" + file->path + "': " + why);
  const uint32_t line = uint32_t(mark.line) + 1;
  const std::string_view text = file->line(line);
  uint32_t col = 1;
  for (size_t i = 0; i < size_t(mark.column) && i < text.size(); ++i) col += (uint8_t(text[i]) & 0xC0) != 0x80;
  return WeftError(SourceRange{file, {line, col}, {line, col}}, why);
}

// yaml-cpp builds a tree node of some hundred bytes for each entry before any check here runs:
// the entries are counted first with its event parser, which builds nothing, so that a manifest
// of millions of entries is refused after reading kMaxNodes of them, not after building them all.
class EntryCounter : public YAML::EventHandler {
 public:
  explicit EntryCounter(const std::shared_ptr<const SourceFile>& file) : file_(file) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& at, YAML::anchor_t) override { count(at); }
  void OnAlias(const YAML::Mark& at, YAML::anchor_t) override { count(at); }
  void OnScalar(const YAML::Mark& at, const std::string&, YAML::anchor_t, const std::string&) override { count(at); }
  void OnSequenceStart(const YAML::Mark& at, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(at);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& at, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(at);
  }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& at) {
    if (++entries_ > kMaxNodes)
      throw errorAt(file_, at, "the manifest has more than " + std::to_string(kMaxNodes) + " entries");
  }
  const std::shared_ptr<const SourceFile>& file_;
  int64_t entries_ = 0;
};

class Reader {
 public:
  explicit Reader(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& why) const {
    throw errorAt(file_, at.IsDefined() ? at.Mark() : YAML::Mark::null_mark(), why);
  }
  void visit(const YAML::Node& at) {
    if (++nodes_ > kMaxNodes) fail(at, "the manifest has too many entries");
  }
  YAML::Node get(const YAML::Node& map, const char* key, const std::string& what) const {
    if (!map.IsMap()) fail(map, what + " must be a mapping");
    // yaml-cpp keeps one of two equal keys silently: a manifest saying a field twice is refused.
    int times = 0;
    for (const auto& kv : map) times += kv.first.IsScalar() && kv.first.Scalar() == key;
    if (times > 1) fail(map, what + " has '" + key + "' more than once");
    YAML::Node v = map[key];
    if (!v.IsDefined()) fail(map, what + " has no '" + key + "'");
    return v;
  }
  YAML::Node seq(const YAML::Node& map, const char* key, const std::string& what) const {
    YAML::Node v = get(map, key, what);
    if (v.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
    if (!v.IsSequence()) fail(v, "'" + std::string(key) + "' of " + what + " must be a list");
    return v;
  }
  std::string str(const YAML::Node& v, const std::string& what) const {
    if (v.IsNull()) return "";
    if (!v.IsScalar()) fail(v, what + " must be a string");
    if (std::optional<size_t> at = firstControl(v.Scalar()))
      fail(v, what + " '" + shownText(v.Scalar()) + "' " + controlCharacterReason(v.Scalar(), *at));
    return v.Scalar();
  }
  std::string str(const YAML::Node& map, const char* key, const std::string& what) const {
    return str(get(map, key, what), "'" + std::string(key) + "' of " + what);
  }
  int64_t integer(const YAML::Node& v, const std::string& what, int64_t lo, int64_t hi) const {
    int64_t x = 0;
    try {
      if (!v.IsScalar()) fail(v, what + " must be an integer");
      x = v.as<int64_t>();
    } catch (const YAML::Exception&) {
      fail(v, what + " must be an integer, not '" + v.Scalar() + "'");
    }
    if (x < lo || x > hi)
      fail(v, what + " is " + std::to_string(x) + ", outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
  }
  int64_t integer(const YAML::Node& map, const char* key, const std::string& what, int64_t lo, int64_t hi) const {
    return integer(get(map, key, what), "'" + std::string(key) + "' of " + what, lo, hi);
  }
  bool boolean(const YAML::Node& map, const char* key, const std::string& what) const {
    YAML::Node v = get(map, key, what);
    try {
      if (v.IsScalar()) return v.as<bool>();
    } catch (const YAML::Exception&) {
    }
    fail(v, "'" + std::string(key) + "' of " + what + " must be true or false");
  }
  DType dtype(const YAML::Node& map, const std::string& what) const {
    YAML::Node v = get(map, "dtype", what);
    std::string s = str(v, "'dtype' of " + what);
    std::optional<DType> d = rt::dtypeFromName(s);
    if (!d) fail(v, "'dtype' of " + what + " is '" + s + "', not one of f32, f64, i32, i64, bool");
    return *d;
  }
  // A shape of at most kMaxRank dimensions, each from 0 to 2**40 (None only when allowed), whose
  // element count fits in 2**48: no declared shape can make the loader allocate without bound.
  Shape shape(const YAML::Node& map, const std::string& what, bool allowNone, const char* key = "shape") const {
    YAML::Node v = get(map, key, what);
    if (!v.IsSequence()) fail(v, "'" + std::string(key) + "' of " + what + " must be a list of sizes");
    if (v.size() > size_t(rt::kMaxRank))
      fail(v, "'shape' of " + what + " has " + std::to_string(v.size()) + " dimensions, more than " +
                  std::to_string(rt::kMaxRank));
    Shape s;
    __int128 count = 1;
    for (const YAML::Node& d : v) {
      if (d.IsNull() || (d.IsScalar() && d.Scalar() == "None")) {
        if (!allowNone) fail(d, "'shape' of " + what + " must be fully known (no None)");
        s.push_back(rt::kUnknownDim);
        continue;
      }
      int64_t n = integer(d, "a dimension of " + what, 0, int64_t(1) << 40);
      count *= n;
      if (count > (__int128(1) << 48)) fail(d, "'shape' of " + what + " is too large");
      s.push_back(n);
    }
    return s;
  }
  std::string fileName(const YAML::Node& map, const char* key, const std::string& what) const {
    YAML::Node v = get(map, key, what);
    std::string f = str(v, "'" + std::string(key) + "' of " + what);
    if (std::string why = relativeNameProblem(f); !why.empty()) fail(v, "file name '" + f + "' " + why);
    return f;
  }

  AttrRef ref(const YAML::Node& v, const Manifest& m, size_t numModules, int depth) {
    visit(v);
    if (depth > kMaxDepth) fail(v, "attribute lists nest too deeply");
    if (!v.IsMap() || v.size() != 1) fail(v, "an attribute must be {variable: N}, {module: N} or {list: [...]}");
    AttrRef r;
    if (v["variable"]) {
      r.kind = AttrRef::Kind::Variable;
      r.index = int(integer(v["variable"], "a variable reference", 0, int64_t(m.variables.size()) - 1));
    } else if (v["module"]) {
      r.kind = AttrRef::Kind::Module;
      r.index = int(integer(v["module"], "a module reference", 1, int64_t(numModules) - 1));
    } else if (v["list"] && v["list"].IsSequence()) {
      r.kind = AttrRef::Kind::List;
      for (const YAML::Node& item : v["list"]) r.items.push_back(ref(item, m, numModules, depth + 1));
    } else {
      fail(v, "an attribute must be {variable: N}, {module: N} or {list: [...]}");
    }
    return r;
  }

  ReturnShape returns(const YAML::Node& v, size_t numOutputs, int depth) {
    visit(v);
    if (depth > kMaxDepth) fail(v, "'returns' nests too deeply");
    if (!v.IsMap() || v.size() != 1) fail(v, "'returns' must be {output: N}, {tuple: [...]}, {list: [...]}, {dict: [...]} or {none: true}");
    ReturnShape r;
    if (v["output"]) {
      r.kind = ReturnShape::Kind::Output;
      r.output = int(integer(v["output"], "an output reference", 0, int64_t(numOutputs) - 1));
    } else if (v["none"]) {
      r.kind = ReturnShape::Kind::None;
    } else if ((v["tuple"] && v["tuple"].IsSequence()) || (v["list"] && v["list"].IsSequence())) {
      r.kind = v["tuple"] ? ReturnShape::Kind::Tuple : ReturnShape::Kind::List;
      for (const YAML::Node& item : r.kind == ReturnShape::Kind::Tuple ? v["tuple"] : v["list"])
        r.items.push_back(returns(item, numOutputs, depth + 1));
    } else if (v["dict"] && v["dict"].IsSequence()) {
      r.kind = ReturnShape::Kind::Dict;
      for (const YAML::Node& item : v["dict"]) {
        r.keys.push_back(str(item, "key", "a dict entry of 'returns'"));
        r.items.push_back(returns(get(item, "value", "a dict entry of 'returns'"), numOutputs, depth + 1));
      }
    } else {
      fail(v, "'returns' must be {output: N}, {tuple: [...]}, {list: [...]}, {dict: [...]} or {none: true}");
    }
    return r;
  }

  std::vector<TensorSpecEntry> specs(const YAML::Node& fn, const char* key, const std::string& what) {
    std::vector<TensorSpecEntry> out;
    for (const YAML::Node& s : seq(fn, key, what)) {
      visit(s);
      std::string w = std::string(key) + " of " + what;
      TensorSpecEntry e;
      e.name = str(s, "name", w);
      e.type.dtype = dtype(s, w + " '" + e.name + "'");
      e.type.shape = shape(s, w + " '" + e.name + "'", true);
      out.push_back(std::move(e));
    }
    return out;
  }

  Manifest read(const std::string& text);

 private:
  std::shared_ptr<const SourceFile> file_;
  int64_t nodes_ = 0;
};

Manifest Reader::read(const std::string& text) {
  YAML::Node doc;
  try {
    std::istringstream in(text);
    EntryCounter counter(file_);
    YAML::Parser(in).HandleNextDocument(counter);
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw errorAt(file_, e.mark, "not valid YAML: " + e.msg);
  }
  if (!doc.IsMap()) fail(doc, "the manifest must be a YAML mapping");
  Manifest m;
  std::string format = str(doc, "format", "the manifest");
  if (format != kFormatName) fail(doc["format"], "'format' is '" + format + "', not '" + kFormatName + "'");
  YAML::Node version = get(doc, "version", "the manifest");
  int64_t v = integer(version, "'version'", INT64_MIN, INT64_MAX);
  if (v != kFormatVersion)
    fail(version, "unknown format version " + std::to_string(v) + " (this weft reads version " +
                      std::to_string(kFormatVersion) + ")");
  m.version = int(v);

  YAML::Node modules = seq(doc, "modules", "the manifest");
  if (modules.size() == 0) fail(modules, "'modules' is empty: a saved model has a root module");
  YAML::Node variables = seq(doc, "variables", "the manifest");
  // Variables first (module attributes refer to them), sizes known before the indices are checked.
  YAML::Node meshes = seq(doc, "meshes", "the manifest");
  for (const YAML::Node& mesh : meshes) {
    visit(mesh);
    MeshEntry e;
    e.name = str(mesh, "name", "a mesh");
    std::set<std::string> seen;
    int64_t devices = 1;
    YAML::Node dims = seq(mesh, "dims", "mesh '" + e.name + "'");
    if (dims.size() > mesh::kMaxMeshDims)
      fail(dims, "mesh '" + e.name + "' has " + std::to_string(dims.size()) + " dimensions, more than " +
                     std::to_string(mesh::kMaxMeshDims));
    for (const YAML::Node& d : dims) {
      visit(d);
      std::string n = str(d, "name", "a dimension of mesh '" + e.name + "'");
      if (n.empty() || !seen.insert(n).second) fail(d, "mesh '" + e.name + "' has an empty or repeated dimension name");
      int64_t size = integer(d, "size", "dimension '" + n + "'", 1, mesh::kMaxDevices);
      devices *= size;
      if (devices > mesh::kMaxDevices) fail(d, "mesh '" + e.name + "' has more than " + std::to_string(mesh::kMaxDevices) + " devices");
      e.dimNames.push_back(n);
      e.dimSizes.push_back(size);
    }
    m.meshes.push_back(std::move(e));
  }
  std::set<std::string> files;
  for (const YAML::Node& var : variables) {
    visit(var);
    VariableEntry e;
    e.name = str(var, "name", "a variable");
    std::string what = "variable '" + e.name + "'";
    e.path = str(var, "path", what);
    e.owner = int(integer(var, "owner", what, -1, int64_t(modules.size()) - 1));
    e.key = str(var, "key", what);
    e.type.dtype = dtype(var, what);
    e.type.shape = shape(var, what, false);
    e.trainable = boolean(var, "trainable", what);
    e.ownTrainable = boolean(var, "own_trainable", what);
    YAML::Node layout = get(var, "layout", what);
    if (!layout.IsNull()) {
      LayoutEntry l;
      if (m.meshes.empty()) fail(layout, what + " has a layout, but the manifest has no mesh");
      l.mesh = int(integer(layout, "mesh", "the layout of " + what, 0, int64_t(m.meshes.size()) - 1));
      const MeshEntry& mesh = m.meshes[size_t(l.mesh)];
      std::set<std::string> used;
      for (const YAML::Node& d : seq(layout, "dims", "the layout of " + what)) {
        visit(d);
        if (d.IsNull()) {
          l.dims.push_back(std::nullopt);
          continue;
        }
        std::string n = str(d, "a layout dimension of " + what);
        if (std::find(mesh.dimNames.begin(), mesh.dimNames.end(), n) == mesh.dimNames.end())
          fail(d, "the layout of " + what + " names '" + n + "', not a dimension of its mesh");
        if (!used.insert(n).second) fail(d, "the layout of " + what + " uses mesh dimension '" + n + "' twice");
        l.dims.push_back(n);
      }
      if (l.dims.size() != size_t(e.type.shape.size()))
        fail(layout, "the layout of " + what + " has " + std::to_string(l.dims.size()) + " dimensions, its shape " +
                         std::to_string(e.type.shape.size()));
      e.layout = std::move(l);
    }
    e.file = fileName(var, "file", what);
    if (!files.insert(e.file).second) fail(var, what + " shares its file '" + e.file + "' with another variable");
    m.variables.push_back(std::move(e));
  }

  for (size_t i = 0; i < modules.size(); ++i) {
    const YAML::Node mod = modules[i];
    visit(mod);
    ModuleEntry e;
    e.type = str(mod, "type", "a module");
    e.name = str(mod, "name", "a module");
    std::string what = "module '" + e.name + "'";
    e.path = str(mod, "path", what);
    // Parents come first, so that the module tree has no cycle.
    e.parent = int(integer(mod, "parent", what, i == 0 ? -1 : 0, i == 0 ? -1 : int64_t(i) - 1));
    e.key = str(mod, "key", what);
    e.trainable = boolean(mod, "trainable", what);
    if (mod["output_shape"]) e.outputShape = shape(mod, what, true, "output_shape");
    std::set<std::string> names;
    for (const YAML::Node& a : seq(mod, "attributes", what)) {
      visit(a);
      std::string n = str(a, "name", "an attribute of " + what);
      if (n.empty() || !names.insert(n).second) fail(a, what + " has an empty or repeated attribute name");
      e.attributes.emplace_back(n, ref(get(a, "ref", "attribute '" + n + "'"), m, modules.size(), 0));
    }
    m.modules.push_back(std::move(e));
  }
  YAML::Node root = get(doc, "root", "the manifest");
  if (str(root, "type", "'root'") != m.modules[0].type || str(root, "name", "'root'") != m.modules[0].name)
    fail(root, "'root' does not match the first module");

  std::set<std::string> fnNames;
  for (const YAML::Node& fn : seq(doc, "functions", "the manifest")) {
    visit(fn);
    FunctionEntry e;
    e.name = str(fn, "name", "a function");
    std::string what = "function '" + e.name + "'";
    if (e.name.empty() || !fnNames.insert(e.name).second) fail(fn, "functions need distinct, non-empty names");
    e.method = str(fn, "method", what);
    e.file = fileName(fn, "graph", what);
    if (!files.insert(e.file).second) fail(fn, what + " shares its file '" + e.file + "' with another entry");
    e.inputs = specs(fn, "inputs", what);
    e.outputs = specs(fn, "outputs", what);
    for (const YAML::Node& v : seq(fn, "variables", what)) {
      visit(v);
      e.variables.push_back(int(integer(v, "a variable of " + what, 0, int64_t(m.variables.size()) - 1)));
    }
    e.returns = returns(get(fn, "returns", what), e.outputs.size(), 0);
    m.functions.push_back(std::move(e));
  }
  YAML::Node sigs = get(doc, "signatures", "the manifest");
  if (!sigs.IsNull()) {
    if (!sigs.IsMap()) fail(sigs, "'signatures' must be a mapping from names to functions");
    for (const auto& kv : sigs) {
      visit(kv.first);
      std::string name = str(kv.first, "a signature's name");
      for (const auto& [other, unused] : m.signatures)
        if (other == name) fail(kv.first, "signature '" + name + "' is named more than once");
      std::string fn = str(kv.second, "signature '" + name + "'");
      int index = -1;
      for (size_t i = 0; i < m.functions.size(); ++i)
        if (m.functions[i].name == fn) index = int(i);
      if (index < 0) fail(kv.second, "signature '" + name + "' names '" + fn + "', which is not among 'functions'");
      m.signatures.emplace_back(name, index);
    }
  }
  return m;
}

}  // namespace

Manifest readManifest(const std::string& text, const std::string& file) {
  auto source = std::make_shared<const SourceFile>(file, text);
  Reader r(source);
  try {
    return r.read(source->text);
  } catch (const YAML::Exception& e) {  // anything yaml-cpp throws that the checks above let through
    throw errorAt(source, e.mark, e.msg);
  }
}

}  // namespace weft::saved
