#include "dot.h"

#include <map>

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

class DotWriter {
 public:
  explicit DotWriter(const Graph& g) : g_(g) {}

  std::string run() {
    out_ = "digraph " + q(g_.name) + " {\n";
    out_ +=
        "  compound=true;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    number(g_.body);
    modules();
    for (size_t i = 0; i < g_.body.params.size(); ++i) {
      int id = g_.body.params[i];
      producer_[id] = "v" + std::to_string(id);
      out_ += "  v" + std::to_string(id) + " [label=" + q("input " + std::to_string(i) + "\n" + type(id)) +
              ", shape=invhouse, style=filled, fillcolor=\"#dbeafe\"];\n";
    }
    index_ = -1;
    nodes(g_.body.nodes, "  ");
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      std::string name = "out" + std::to_string(i);
      out_ += "  " + name + " [label=" + q("output " + std::to_string(i)) +
              ", shape=house, style=filled, fillcolor=\"#dcfce7\"];\n";
      edge(g_.body.results[i], name);
    }
    return out_ + edges_ + "}\n";
  }

 private:
  std::string type(int id) const {
    return id >= 0 && size_t(id) < g_.values.size() ? typeText(g_.values[size_t(id)]) : "?";
  }

  // Numbers nodes as the text does, and finds the top-level variable reads and writes, which are
  // drawn inside their variable's module cluster.
  void number(const Block& b) {
    for (const Node& n : b.nodes) {
      ++index_;
      if (&b == &g_.body && (n.op == OpId::ReadVariable || n.op == OpId::AssignVariable)) {
        int64_t k = varOf(n);
        if (k >= 0) varNodes_[k].push_back({index_, &n});
      }
      for (const Block& inner : n.blocks) number(inner);
    }
  }
  int64_t varOf(const Node& n) const {
    const ops::AttrValue* v = n.attrs.find("var");
    if (!v || !std::holds_alternative<int64_t>(*v)) return -1;
    int64_t k = std::get<int64_t>(*v);
    return k >= 0 && size_t(k) < g_.variables.size() ? k : -1;
  }

  // Variables in nested clusters, one per module path prefix.
  void modules() {
    struct Group {
      std::map<std::string, Group> children;
      std::vector<size_t> vars;
    } root;
    for (size_t k = 0; k < g_.variables.size(); ++k) {
      Group* at = &root;
      for (const auto& part : splitPath(g_.variables[k].name).first) at = &at->children[part];
      at->vars.push_back(k);
    }
    int clusters = 0;
    auto emit = [&](auto& self, const Group& grp, const std::string& pad) -> void {
      for (size_t k : grp.vars) {
        out_ += pad + "var" + std::to_string(k) +
                " [label=" + q(splitPath(g_.variables[k].name).second + "\n" + typeText(g_.variables[k].type)) +
                ", tooltip=" + q(g_.variables[k].name) + ", shape=cylinder, style=filled, fillcolor=\"#fef3c7\"];\n";
        for (const auto& [index, n] : varNodes_[k]) out_ += pad + nodeDecl(*n, index) + "\n";
      }
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
    if (n.op == OpId::Print) {
      const ops::AttrValue* v = n.attrs.find("format");
      if (v && std::holds_alternative<std::string>(*v)) label += "\n\"" + std::get<std::string>(*v) + "\"";
    }
    std::string decl = "n" + std::to_string(index) + " [label=" + q(label) + ", shape=box";
    if (!locText(n.loc).empty()) decl += ", tooltip=" + q(locText(n.loc));
    if (ops::opDef(n.op).effect) decl += ", style=\"rounded\"";
    return decl + "];";
  }

  void edge(int from, const std::string& to) {
    auto it = producer_.find(from);
    if (it == producer_.end()) return;
    edges_ += "  " + it->second + " -> " + to + " [label=" + q(type(from)) + "];\n";
  }

  void nodes(const std::vector<Node>& list, const std::string& pad) {
    for (const Node& n : list) node(n, pad);
  }

  void node(const Node& n, const std::string& pad) {
    int me = ++index_;
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
    bool declared = false;
    if (int64_t k = varOf(n); k >= 0 && (n.op == OpId::ReadVariable || n.op == OpId::AssignVariable))
      for (const auto& [index, v] : varNodes_[k]) declared = declared || index == me;
    if (!declared) out_ += inner + nodeDecl(n, me) + "\n";
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
        producer_[id] = "v" + std::to_string(id);
        out_ += bpad + "v" + std::to_string(id) + " [label=" + q("%" + std::to_string(id) + "\n" + type(id)) +
                ", shape=ellipse];\n";
        edges_ += "  " + name + " -> v" + std::to_string(id) + " [style=dotted];\n";
      }
      nodes(blk.nodes, bpad);
      std::string yield = bname + "_yield";
      out_ += bpad + yield + " [label=\"yield\", shape=plaintext];\n";
      for (int id : blk.results) edge(id, yield);
      edges_ += "  " + yield + " -> " + name + " [style=dotted, constraint=false];\n";
      out_ += inner + "}\n";
    }
    if (control) out_ += pad + "}\n";
    for (int id : n.outputs) producer_[id] = name;
  }

  const Graph& g_;
  std::string out_;
  // Edges follow every node: an edge written inside a cluster would pull its ends into it.
  std::string edges_;
  int index_ = -1;
  std::map<int64_t, std::vector<std::pair<int, const Node*>>> varNodes_;
  std::map<int, std::string> producer_;
};

}  // namespace

std::string dotText(const Graph& g) { return DotWriter(g).run(); }

}  // namespace weft::graph
