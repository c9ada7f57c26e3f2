#include "dot.h"

#include <map>
#include <set>

#include "text.h"

namespace weft::graph {
namespace {

using ops::OpId;

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out;
}
std::string q(const std::string& s) { return "\"" + escaped(s) + "\""; }

// A variable's module path and its own name: "block.d1.kernel" is {"block", "d1"} and "kernel",
// "demo_module/x" is {"demo_module"} and "x".
std::pair<std::vector<std::string>, std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t i = 0; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '.' || path[i] == '/') {
      parts.push_back(path.substr(b, i - b));
      b = i + 1;
    }
  std::string leaf = parts.back();
  parts.pop_back();
  return {parts, leaf};
}

std::string locText(const Loc& loc) { return loc == Loc{} ? "" : loc.file + ":" + std::to_string(loc.line); }

// A short view of a small constant ("[1.0, 2.0]"); empty for larger ones.
std::string constantPreview(const Tensor& t) {
  if (t.isAbstract() || t.numel() > 4) return "";
  std::string s = t.rank() ? "[" : "";
  for (int64_t i = 0; i < t.numel(); ++i) s += (i ? ", " : "") + elementText(t, i);
  return s + (t.rank() ? "]" : "");
}

// The parts of a scope path: "mlp/hidden" is {"mlp", "hidden"}.
std::vector<std::string> scopeParts(const std::string& scope) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t i = 0; i <= scope.size(); ++i)
    if (i == scope.size() || scope[i] == '/') {
      if (i > b) parts.push_back(scope.substr(b, i - b));
      b = i + 1;
    }
  return parts;
}

// Nodes are numbered as the text numbers them; every value's producer is known before anything
// is drawn, so that nodes can be drawn in their module's cluster in any order.
class DotWriter {
 public:
  explicit DotWriter(const Graph& g) : g_(g) {}

  std::string run() {
    out_ = "digraph " + q(g_.name) + " {\n";
    out_ +=
        "  compound=true;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    for (int id : g_.body.params) producer_[id] = "v" + std::to_string(id);
    number(g_.body);
    modules();
    for (size_t i = 0; i < g_.body.params.size(); ++i) {
      int id = g_.body.params[i];
      out_ += "  v" + std::to_string(id) + " [label=" + q("input " + std::to_string(i) + "\n" + type(id)) +
              ", shape=invhouse, style=filled, fillcolor=\"#dbeafe\"];\n";
    }
    for (const Node& n : g_.body.nodes)
      if (!placed_.count(&n)) node(n, "  ");
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      std::string name = "out" + std::to_string(i);
      out_ += "  " + name + " [label=" + q("output " + std::to_string(i)) +
              ", shape=house, style=filled, fillcolor=\"#dcfce7\"];\n";
      edge(g_.body.results[i], name);
    }
    return out_ + edges_ + "}\n";
  }

 private:
  struct Group {
    std::map<std::string, Group> children;
    std::vector<size_t> vars;
    std::vector<const Node*> nodes;  // top-level nodes made by this module's code
  };

  // A value's type, and on a mesh its placements: "f32[8, 16]{model: S1}".
  std::string type(int id) const {
    if (id < 0 || size_t(id) >= g_.values.size()) return "?";
    std::string t = typeText(g_.values[size_t(id)]);
    return g_.mesh.empty() ? t : t + spmd::placementsText(g_.mesh, g_.placementsOf(id));
  }

  // Numbers nodes as the text does, records who produces each value, and finds the top-level
  // variable reads and writes, which are drawn beside their variable.
  void number(const Block& b) {
    for (const Node& n : b.nodes) {
      int me = ++index_;
      index_of_[&n] = me;
      for (int id : n.outputs) producer_[id] = "n" + std::to_string(me);
      if (&b == &g_.body && (n.op == OpId::ReadVariable || n.op == OpId::AssignVariable)) {
        int64_t k = varOf(n);
        if (k >= 0) varNodes_[k].push_back(&n);
      }
      for (const Block& inner : n.blocks) {
        for (int id : inner.params) producer_[id] = "v" + std::to_string(id);
        number(inner);
      }
    }
  }
  int64_t varOf(const Node& n) const {
    const ops::AttrValue* v = n.attrs.find("var");
    if (!v || !std::holds_alternative<int64_t>(*v)) return -1;
    int64_t k = std::get<int64_t>(*v);
    return k >= 0 && size_t(k) < g_.variables.size() ? k : -1;
  }

  // Nested clusters, one per module path: a variable goes in the module of its first use (or,
  // in a graph read back from text, of its own path), a top-level node in its scope's.
  void modules() {
    Group root;
    auto at = [&](const std::vector<std::string>& parts) {
      Group* g = &root;
      for (const auto& part : parts) g = &g->children[part];
      return g;
    };
    for (size_t k = 0; k < g_.variables.size(); ++k) {
      const VariableSlot& v = g_.variables[k];
      at(v.scope.empty() ? splitPath(v.name).first : scopeParts(v.scope))->vars.push_back(k);
      for (const Node* n : varNodes_[int64_t(k)]) placed_.insert(n);
    }
    for (const Node& n : g_.body.nodes)
      if (!placed_.count(&n) && !n.scope.empty()) {
        at(scopeParts(n.scope))->nodes.push_back(&n);
        placed_.insert(&n);
      }
    int clusters = 0;
    auto emit = [&](auto& self, const Group& grp, const std::string& pad) -> void {
      for (size_t k : grp.vars) {
        out_ += pad + "var" + std::to_string(k) +
                " [label=" + q(splitPath(g_.variables[k].name).second + "\n" + typeText(g_.variables[k].type)) +
                ", tooltip=" + q(g_.variables[k].name) + ", shape=cylinder, style=filled, fillcolor=\"#fef3c7\"];\n";
        for (const Node* n : varNodes_[int64_t(k)]) node(*n, pad);
      }
      for (const Node* n : grp.nodes) node(*n, pad);
      for (const auto& [name, child] : grp.children) {
        out_ += pad + "subgraph cluster_m" + std::to_string(clusters++) + " {\n" + pad + "  label=" + q(name) +
                "; style=rounded; color=\"#9ca3af\";\n";
        self(self, child, pad + "  ");
        out_ += pad + "}\n";
      }
    };
    emit(emit, root, "  ");
  }

  std::string nodeDecl(const Node& n, int index) const {
    std::string label = ops::opDef(n.op).name;
    if (n.op == OpId::Constant) {
      const ops::AttrValue* v = n.attrs.find("value");
      if (v && std::holds_alternative<Tensor>(*v)) {
        std::string preview = constantPreview(std::get<Tensor>(*v));
        if (!preview.empty()) label += "\n" + preview;
      }
    }
    if (n.op == OpId::Print || n.op == OpId::Check) {
      const ops::AttrValue* v = n.attrs.find(n.op == OpId::Print ? "format" : "message");
      if (v && std::holds_alternative<std::string>(*v)) label += "\n\"" + std::get<std::string>(*v) + "\"";
    }
    // A collective stands out: data crosses devices there (SPEC §7.1).
    const bool collective = ops::opDef(n.op).family == ops::Family::Collective && n.attrs.has("mesh_dim");
    if (collective) {
      const int64_t k = n.attrs.i("mesh_dim");
      if (k >= 0 && k < g_.mesh.rank()) label += "\nover " + g_.mesh.names[size_t(k)];
    }
    std::string decl = "n" + std::to_string(index) + " [label=" + q(label) + (collective ? ", shape=hexagon" : ", shape=box");
    if (!locText(n.loc).empty()) decl += ", tooltip=" + q(locText(n.loc));
    if (collective) decl += ", style=filled, fillcolor=\"#fecaca\"";
    else if (ops::opDef(n.op).effect) decl += ", style=\"rounded\"";
    return decl + "];";
  }

  void edge(int from, const std::string& to) {
    auto it = producer_.find(from);
    if (it == producer_.end()) return;
    edges_ += "  " + it->second + " -> " + to + " [label=" + q(type(from)) + "];\n";
  }

  void node(const Node& n, const std::string& pad) {
    int me = index_of_.at(&n);
    std::string name = "n" + std::to_string(me);
    bool control = !n.blocks.empty();
    std::string inner = pad;
    if (control) {
      std::string title = ops::opDef(n.op).name;
      if (!locText(n.loc).empty()) title += " @ " + locText(n.loc);
      out_ += pad + "subgraph cluster_" + name + " {\n" + pad + "  label=" + q(title) +
              "; style=filled; fillcolor=\"#f3f4f6\"; color=\"#6b7280\";\n";
      inner = pad + "  ";
    }
    out_ += inner + nodeDecl(n, me) + "\n";
    for (int id : n.inputs) edge(id, name);
    if (int64_t k = varOf(n); k >= 0) {
      std::string var = "var" + std::to_string(k);
      if (n.op == OpId::ReadVariable) edges_ += "  " + var + " -> " + name + " [style=dashed];\n";
      if (n.op == OpId::AssignVariable) edges_ += "  " + name + " -> " + var + " [style=dashed];\n";
    }
    const char* names[2][2] = {{"then", "else"}, {"cond", "body"}};
    for (size_t b = 0; b < n.blocks.size(); ++b) {
      const Block& blk = n.blocks[b];
      std::string title = b < 2 ? names[n.op == OpId::While ? 1 : 0][b] : "block";
      std::string bname = name + "_b" + std::to_string(b);
      out_ += inner + "subgraph cluster_" + bname + " {\n" + inner + "  label=" + q(title) +
              "; style=filled; fillcolor=\"#ffffff\";\n";
      std::string bpad = inner + "  ";
      for (int id : blk.params) {
        out_ += bpad + "v" + std::to_string(id) + " [label=" + q("%" + std::to_string(id) + "\n" + type(id)) +
                ", shape=ellipse];\n";
        edges_ += "  " + name + " -> v" + std::to_string(id) + " [style=dotted];\n";
      }
      for (const Node& inside : blk.nodes) node(inside, bpad);
      std::string yield = bname + "_yield";
      out_ += bpad + yield + " [label=\"yield\", shape=plaintext];\n";
      for (int id : blk.results) edge(id, yield);
      edges_ += "  " + yield + " -> " + name + " [style=dotted, constraint=false];\n";
      out_ += inner + "}\n";
    }
    if (control) out_ += pad + "}\n";
  }

  const Graph& g_;
  std::string out_;
  // Edges follow every node: an edge written inside a cluster would pull its ends into it.
  std::string edges_;
  int index_ = -1;
  std::map<const Node*, int> index_of_;
  std::map<int64_t, std::vector<const Node*>> varNodes_;
  std::set<const Node*> placed_;  // top-level nodes drawn inside a module's cluster
  std::map<int, std::string> producer_;
};

}  // namespace

std::string dotText(const Graph& g) { return DotWriter(g).run(); }

}  // namespace weft::graph
