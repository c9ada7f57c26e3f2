// Writes an ONNX graph as Weft source (source.h). Every name from the file reaches the source only
// as a checked identifier, an escaped string literal or an escaped comment.
#include "source.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "../../grammar/diagnostics.h"
#include "reader.h"

namespace weft::onnx {
namespace {

// Names the generated code uses itself, Weft's keywords and operators (and Python's, which Weft's
// errors recognise), and the attributes every module has: a
// graph name that would be one of these gets a prefix.
const std::unordered_set<std::string>& reserved() {
  static const std::unordered_set<std::string> names{
      "module", "fn", "return", "if", "elif", "else", "for", "in", "while", "break", "continue", "with", "as",
      "import", "from", "true", "false", "none", "mesh", "layout_map", "on", "assert", "pass", "and", "or", "not",
      "is", "class", "def", "lambda", "try", "except", "finally", "raise", "yield", "del", "global", "nonlocal",
      "async", "await", "True", "False", "None",
      "onnx", "weights", "constants", "self", "Variable", "call", "build", "name", "variables",
      "trainable_variables", "non_trainable_variables", "submodules", "trainable", "summary", "layers", "_",
      "_graph"};
  return names;
}

// The ONNX inputs whose values an op needs while tracing: sizes, axes, repeats, bounds. An
// initializer feeding one is a constant, never a Variable, and a graph input feeding one is taken
// by value when call() is a graph function (docs/onnx.md).
bool needsValue(const std::string& op, size_t input) {
  static const std::map<std::string, std::set<size_t>> inputs{
      {"Reshape", {1}}, {"Expand", {1}}, {"Tile", {1}}, {"ConstantOfShape", {0}}, {"Slice", {1, 2, 3, 4}},
      {"Unsqueeze", {1}}, {"Squeeze", {1}}, {"Split", {1}}, {"TopK", {1}}, {"Pad", {1, 3}}, {"OneHot", {1}},
      {"Range", {0, 1, 2}}, {"Resize", {1, 2, 3}}, {"Upsample", {1}}, {"CumSum", {1}}, {"Trilu", {1}},
      {"ReduceSum", {1}}, {"ReduceMean", {1}}, {"ReduceMax", {1}}, {"ReduceMin", {1}}, {"ReduceProd", {1}},
      {"ReduceL1", {1}}, {"ReduceL2", {1}}, {"ReduceSumSquare", {1}}, {"ReduceLogSum", {1}},
      {"ReduceLogSumExp", {1}}, {"Loop", {0, 1}}};
  auto it = inputs.find(op);
  return it != inputs.end() && it->second.count(input);
}

// The ops whose inputs from this index on are one list argument (ONNX's variadic inputs).
int variadicFrom(const std::string& op) {
  static const std::map<std::string, int> ops{{"Concat", 0}, {"Sum", 0}, {"Max", 0}, {"Min", 0}, {"Mean", 0},
                                              {"Loop", 2}, {"Scan", 0}, {"SequenceConstruct", 0},
                                              {"Einsum", 0}};
  auto it = ops.find(op);
  return it == ops.end() ? -1 : it->second;
}

std::string stringLiteral(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += "\xEF\xBF\xBD";  // U+FFFD: Weft strings have no other escapes
    else out += char(c);
  }
  return out + "\"";
}

// A graph name as a Variable's name, which may hold no control character: those become '?'.
std::string variableName(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += c < 0x20 || c == 0x7f ? '?' : char(c);
  return stringLiteral(out);
}

// A name in a comment: printable, one line.
std::string commentText(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else out += char(c);
  }
  return out;
}

std::string floatLiteral(float f) {
  if (std::isnan(f)) return "float(\"nan\")";
  if (std::isinf(f)) return f > 0 ? "float(\"inf\")" : "-float(\"inf\")";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", double(f));
  std::string s = b;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string intLiteral(int64_t i) {
  if (i >= INT32_MIN && i <= INT32_MAX) return std::to_string(i);
  return "i64(\"" + std::to_string(i) + "\")";  // a literal is an i32
}

template <class T, class F>
std::string listOf(const std::vector<T>& v, F item) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + item(v[i]);
  return out + "]";
}

class Writer {
 public:
  Writer(const ModelFile& m, const SourceOptions& o) : model_(m), options_(o) {
    auto it = m.opsets.find("");
    opset_ = it == m.opsets.end() ? 1 : it->second;
  }

  Source write() {
    checkOpsets();
    const Graph& g = model_.graph;
    std::ostringstream s;
    s << "# " << commentText(options_.origin) << ", imported from ONNX (IR version " << model_.irVersion << ", opset "
      << opset_;
    if (!model_.producer.empty())
      s << ", made by " << commentText(model_.producer + (model_.producerVersion.empty() ? "" : " " + model_.producerVersion));
    s << ").\n# Each line of call() is one node of the graph; the ops are stdlib/onnx_ops.model's.\n";
    s << "import onnx_ops as onnx\n\n";
    s << "module " << options_.moduleName << "(weights, constants) {\n";
    std::set<std::string> initializerNames;
    for (const TensorData& t : g.initializers) initializerNames.insert(t.name);
    std::set<std::string> valueOnly = initializersNeedingValues(g);
    for (const TensorData& t : g.initializers) {
      const std::string id = define(t.name);
      DType d;
      const bool variable = weftDType(t.type, d) && d != DType::Bool && (d == DType::F32 || d == DType::F64) &&
                            !valueOnly.count(t.name);
      const std::string key = stringLiteral(t.name);
      if (variable) s << "  " << id << " = Variable(weights[" << key << "], name=" << variableName(t.name) << ")\n";
      else s << "  " << id << " = constants[" << key << "]\n";
      source_.tensors.push_back({t.name, &t, variable});
    }
    if (!g.initializers.empty()) s << "\n";
    std::vector<std::string> params, names, byValue;
    for (const ValueInfo& in : g.inputs) {
      if (initializerNames.count(in.name)) continue;  // IR < 4 lists initializers among the inputs
      names.push_back(define(in.name));
      params.push_back(names.back() + annotation(in));
      DType d;
      if (options_.graphFunction && valueOnly.count(in.name) && weftDType(in.type, d))
        byValue.push_back(names.back() + " = tensor(" + names.back() + ", dtype=" + rt::dtypeName(d) + ")");
    }
    if (byValue.empty()) {
      if (options_.graphFunction) s << "  @function\n";
      s << "  fn call(" << join(params) << ") {\n";
    } else {
      // A graph input an op needs the value of enters the graph function as a list: each value
      // traces a graph of its own, as a Python value does in tf.function.
      std::vector<std::string> args;
      for (const std::string& n : names) {
        bool value = false;
        for (const std::string& b : byValue) value = value || b.rfind(n + " = ", 0) == 0;
        args.push_back(value ? n + ".tolist()" : n);
      }
      s << "  fn call(" << join(params) << ") {\n    return self._graph(" << join(args) << ")\n  }\n\n";
      s << "  @function\n  fn _graph(" << join(names) << ") {\n";
      for (const std::string& b : byValue) s << "    " << b << "  # taken by value\n";
    }
    body(s, g, "    ");
    std::vector<std::string> outs;
    for (const ValueInfo& o : g.outputs) outs.push_back(use(o.name, "the graph's output"));
    s << "    return " << (outs.size() == 1 ? outs[0] : "(" + join(outs) + (outs.size() == 1 ? "," : "") + ")") << "\n";
    s << "  }\n}\n";
    if (options_.standalone) program(s);
    source_.text = s.str();
    return std::move(source_);
  }

 private:
  void checkOpsets() {
    for (const auto& [domain, version] : model_.opsets) {
      if (!domain.empty())
        throw WeftError("the model uses the operator set '" + commentText(domain) + "', which Weft does not know (only ai.onnx)");
      if (version < 1 || version > kMaxOpset)
        throw WeftError("the model's opset " + std::to_string(version) + " is outside the opsets 1-" +
                        std::to_string(kMaxOpset) + " that Weft reads (ONNX 1.12)");
    }
  }

  // The tensors read from their files, then the module made from them.
  void program(std::ostream& s) {
    std::set<std::string> files;
    s << "\n# The model's tensors, written by `weft import` beside this file: run it from its folder.\n";
    for (const char* dict : {"weights", "constants"}) {
      s << dict << " = {\n";
      for (ModuleTensor& t : source_.tensors) {
        if (t.variable != (dict[0] == 'w')) continue;
        std::string base;
        for (unsigned char c : t.key) base += c < 0x80 && (std::isalnum(c) || c == '_' || c == '-') ? char(c) : '_';
        if (base.empty() || base[0] == '-') base = "t" + base;
        std::string name = base;
        for (int k = 2; files.count(name); ++k) name = base + "_" + std::to_string(k);
        files.insert(name);
        t.file = "tensors/" + name + ".npy";
        s << "  " << stringLiteral(t.key) << ": load_npy(" << stringLiteral(t.file) << "),\n";
      }
      s << "}\n";
    }
    s << "model = " << options_.moduleName << "(weights, constants)\n";
  }

  std::set<std::string> initializersNeedingValues(const Graph& g) {
    std::set<std::string> out;
    std::function<void(const Graph&)> visit = [&](const Graph& graph) {
      for (const Node& n : graph.nodes) {
        for (size_t i = 0; i < n.inputs.size(); ++i)
          if (needsValue(n.opType, i)) out.insert(n.inputs[i]);
        for (const Attribute& a : n.attributes)
          if (a.g) visit(*a.g);
      }
    };
    visit(g);
    return out;
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
  }

  std::string annotation(const ValueInfo& v) {
    DType d;
    if (!weftDType(v.type, d)) return "";
    std::string out = std::string(": ") + rt::dtypeName(d);
    if (!v.hasShape || v.dims.size() > size_t(rt::kMaxRank)) return "";
    out += listOf(v.dims, [](const Dim& dim) { return dim.size >= 0 ? std::to_string(dim.size) : std::string("None"); });
    return out;
  }

  // A new graph value's identifier.
  std::string define(const std::string& name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;  // a subgraph's outer name
    std::string id;
    for (unsigned char c : name) id += (std::isalnum(c) || c == '_') && c < 0x80 ? char(c) : '_';
    if (id.empty() || std::isdigit((unsigned char)id[0])) id = "v_" + id;
    if (reserved().count(id)) id = "v_" + id;
    std::string unique = id;
    for (int k = 2; taken_.count(unique); ++k) unique = id + "_" + std::to_string(k);
    taken_.insert(unique);
    ids_[name] = unique;
    return unique;
  }

  std::string use(const std::string& name, const std::string& by) {
    auto it = ids_.find(name);
    if (it == ids_.end())
      throw WeftError(by + " reads '" + commentText(name) + "', which no node, input or initializer defines before it");
    return it->second;
  }

  std::string nodeLabel(const Node& n) {
    return "node " + (n.name.empty() ? std::string("#") + std::to_string(nodeCount_) : "'" + commentText(n.name) + "'") +
           " (" + commentText(n.opType) + ")";
  }

  std::string functionFor(const Node& n) {
    if (!n.domain.empty() && n.domain != "ai.onnx")
      throw WeftError(nodeLabel(n) + ": the operator set '" + commentText(n.domain) + "' is not supported (only ai.onnx)");
    bool identifier = !n.opType.empty() && std::isupper((unsigned char)n.opType[0]);
    for (unsigned char c : n.opType) identifier = identifier && c < 0x80 && std::isalnum(c);
    if (identifier)
      for (int64_t v = opset_; v >= 1; --v)
        if (options_.hasFunction(n.opType + "_v" + std::to_string(v))) return n.opType + "_v" + std::to_string(v);
    if (identifier && options_.hasFunction(n.opType)) return n.opType;
    throw WeftError(nodeLabel(n) + ": Weft does not support the ONNX op " + commentText(n.opType) + " (opset " +
                    std::to_string(opset_) + ") yet");
  }

  std::string attributeValue(const Node& n, const Attribute& a, std::ostream& s, const std::string& indent) {
    using K = Attribute::Kind;
    switch (a.kind) {
      case K::Float: return floatLiteral(a.f);
      case K::Int: return intLiteral(a.i);
      case K::String: return stringLiteral(a.s);
      case K::Floats: return listOf(a.floats, floatLiteral);
      case K::Ints: return listOf(a.ints, intLiteral);
      case K::Strings: return listOf(a.strings, stringLiteral);
      case K::Tensor: {
        const std::string key = (n.outputs.empty() ? n.name : n.outputs[0]) + ":" + a.name;
        source_.tensors.push_back({key, &a.t, false});
        return "constants[" + stringLiteral(key) + "]";
      }
      case K::Graph: return closure(*a.g, s, indent);
      case K::Tensors: case K::Graphs: case K::Other: break;
    }
    throw WeftError(nodeLabel(n) + ": attribute '" + commentText(a.name) + "' has a kind Weft does not read");
  }

  // A subgraph as a local function before the node that runs it; returns its name.
  std::string closure(const Graph& g, std::ostream& s, const std::string& indent) {
    const std::string name = define("_graph_" + std::to_string(++graphs_) + "_" + g.name);
    // The inputs come as one list, since Weft calls have no `*args` (Loop's and Scan's bodies
    // take their loop values so).
    s << indent << "fn " << name << "(" << (g.inputs.empty() ? "" : "inputs") << ") {  # subgraph "
      << commentText(g.name) << "\n";
    for (size_t i = 0; i < g.inputs.size(); ++i)
      s << indent << "  " << define(g.inputs[i].name) << " = inputs[" << i << "]\n";
    for (const TensorData& t : g.initializers) {
      const std::string key = "subgraph " + g.name + ":" + t.name;
      source_.tensors.push_back({key, &t, false});
      s << indent << "  " << define(t.name) << " = constants[" << stringLiteral(key) << "]\n";
    }
    body(s, g, indent + "  ");
    std::vector<std::string> outs;
    for (const ValueInfo& o : g.outputs) outs.push_back(use(o.name, "subgraph '" + commentText(g.name) + "'"));
    s << indent << "  return " << listOf(outs, [](const std::string& x) { return x; }) << "\n" << indent << "}\n";
    return name;
  }

  void body(std::ostream& s, const Graph& g, const std::string& indent) {
    for (const Node& n : g.nodes) {
      ++nodeCount_;
      const std::string fn = functionFor(n);
      std::vector<std::string> args;
      const int variadic = variadicFrom(n.opType);
      std::vector<std::string> list;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        std::string a = n.inputs[i].empty() ? "none" : use(n.inputs[i], nodeLabel(n));
        if (variadic >= 0 && int(i) >= variadic) list.push_back(a);
        else args.push_back(a);
      }
      if (variadic >= 0) args.push_back(listOf(list, [](const std::string& x) { return x; }));
      for (const Attribute& a : n.attributes) {
        bool ok = !a.name.empty() && (std::isalpha((unsigned char)a.name[0]) || a.name[0] == '_');
        for (unsigned char c : a.name) ok = ok && c < 0x80 && (std::isalnum(c) || c == '_');
        if (!ok || reserved().count(a.name))
          throw WeftError(nodeLabel(n) + ": attribute '" + commentText(a.name) + "' is not one Weft knows");
        args.push_back(a.name + "=" + attributeValue(n, a, s, indent));
      }
      if (n.outputs.size() > 1) args.push_back("_outputs=" + std::to_string(n.outputs.size()));
      std::vector<std::string> outs;
      for (const std::string& o : n.outputs) outs.push_back(o.empty() ? "_" : define(o));
      s << indent << (outs.empty() ? "" : join(outs) + " = ") << "onnx." << fn << "(" << join(args) << ")  # "
        << commentText(n.name.empty() ? "(unnamed)" : n.name) << "\n";
    }
  }

  const ModelFile& model_;
  const SourceOptions& options_;
  int64_t opset_ = 1;
  Source source_;
  std::map<std::string, std::string> ids_;
  std::set<std::string> taken_;
  int graphs_ = 0;
  int nodeCount_ = 0;
};

}  // namespace

Source writeSource(const ModelFile& model, const SourceOptions& options) { return Writer(model, options).write(); }

}  // namespace weft::onnx
