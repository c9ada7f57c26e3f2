// The printer of the graph text form (docs/graphs.md).
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <variant>

#include "text.h"

namespace weft::graph {
namespace {

template <class F, class Bits>
std::string floatTextOf(F v, Bits canonicalNan, const char* nanFormat) {
  if (std::isnan(v)) {
    Bits bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == canonicalNan) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, nanFormat, bits);
    return buf;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // the shortest text that reads back exactly
  std::string s(buf, r.ptr);
  // A float always shows it is one ("1.0", not "1"), so the kind of an attribute needs no schema.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

bool isBareName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string tensorText(const Tensor& t) {
  if (t.isAbstract()) throw std::logic_error("graph text: a constant without data");
  std::string s = typeText({t.dtype(), t.shape()}) + " [";
  for (int64_t i = 0; i < t.numel(); ++i) s += (i ? ", " : "") + elementText(t, i);
  return s + "]";
}

std::string attrText(const ops::AttrValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>)
          return std::to_string(x);
        else if constexpr (std::is_same_v<T, double>)
          return floatText(x);
        else if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return quoted(x);
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::string s = "[";
          for (size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + std::to_string(x[i]);
          return s + "]";
        } else if constexpr (std::is_same_v<T, DType>)
          return rt::dtypeName(x);
        else
          return tensorText(x);
      },
      v);
}

class Printer {
 public:
  explicit Printer(const Graph& g) : g_(g) {}

  std::string run() {
    out_ = "graph " + (isBareName(g_.name) ? g_.name : quoted(g_.name)) + "(" + params(g_.body.params) + ")";
    if (!g_.mesh.empty()) out_ += " on mesh(" + spmd::meshText(g_.mesh) + ")";
    out_ += " {\n";
    for (size_t k = 0; k < g_.variables.size(); ++k) {
      const VariableSlot& v = g_.variables[k];
      out_ += "  var " + std::to_string(k) + " " + quoted(v.name) + ": " + typeText(v.type);
      if (!g_.mesh.empty())
        out_ += spmd::placementsText(g_.mesh, v.placements.empty() ? spmd::Placements(size_t(g_.mesh.rank())) : v.placements);
      out_ += "\n";
    }
    nodes(g_.body.nodes, 1);
    out_ += "  return" + values(g_.body.results, " ") + "\n}\n";
    return out_;
  }

 private:
  // A value's type, with its placements when the graph has a mesh: f32[8, 16]{batch: S0, model: R}.
  std::string type(int id) const {
    if (id < 0 || size_t(id) >= g_.values.size()) return "?";
    std::string s = typeText(g_.values[size_t(id)]);
    if (!g_.mesh.empty()) s += spmd::placementsText(g_.mesh, g_.placementsOf(id));
    return s;
  }
  static std::string values(const std::vector<int>& ids, const char* lead = "") {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", %" : std::string(lead) + "%") + std::to_string(ids[i]);
    return s;
  }
  std::string params(const std::vector<int>& ids) const {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", %" : "%") + std::to_string(ids[i]) + ": " + type(ids[i]);
    return s;
  }

  void nodes(const std::vector<Node>& list, int depth) {
    for (const auto& n : list) node(n, depth);
  }

  void node(const Node& n, int depth) {
    std::string pad(size_t(depth) * 2, ' ');
    out_ += pad;
    if (!n.outputs.empty()) out_ += values(n.outputs) + " = ";
    out_ += std::string(ops::opDef(n.op).name) + "(" + values(n.inputs) + ")";
    if (!n.attrs.items().empty()) {
      out_ += " {";
      for (size_t i = 0; i < n.attrs.items().size(); ++i) {
        const auto& a = n.attrs.items()[i];
        out_ += (i ? ", " : "") + a.key + " = " + attrText(a.value);
      }
      out_ += "}";
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) out_ += (i ? ", " : " : ") + type(n.outputs[i]);
    if (!n.blocks.empty()) {
      out_ += " {\n";
      for (const auto& b : n.blocks) {
        out_ += pad + "  (" + params(b.params) + ") {\n";
        nodes(b.nodes, depth + 2);
        out_ += pad + "    yield" + values(b.results, " ") + "\n" + pad + "  }\n";
      }
      out_ += pad + "}";
    }
    if (!(n.loc == Loc{})) out_ += " @ " + quoted(n.loc.file) + ":" + std::to_string(n.loc.line);
    out_ += "\n";
  }

  const Graph& g_;
  std::string out_;
};

}  // namespace

std::string floatText(double v) { return floatTextOf(v, uint64_t(0x7ff8000000000000), "nan:0x%016" PRIx64); }
std::string floatText(float v) { return floatTextOf(v, uint32_t(0x7fc00000), "nan:0x%08" PRIx32); }

std::string elementText(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::F32: return floatText(t.data<float>()[i]);
    case DType::F64: return floatText(t.data<double>()[i]);
    case DType::I32: return std::to_string(t.data<int32_t>()[i]);
    case DType::I64: return std::to_string(t.data<int64_t>()[i]);
    case DType::Bool: return t.data<uint8_t>()[i] ? "true" : "false";
  }
  return "?";
}

std::string printText(const Graph& g) { return Printer(g).run(); }

}  // namespace weft::graph
