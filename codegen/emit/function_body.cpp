// The driver of an export's call(): the inputs' size checks, then three walks over the graph —
// each node's sizes, its memory (the plan's slots, aliases and workspaces), its code — each
// through the node's emit rule (the op table's emit column, emit_rule.h). What an op means in C++
// lives in its family's file; this file knows only inputs, outputs, the arena and fused loops.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <functional>

#include "emit_rule.h"
#include "emitter.h"
#include "function_emitter.h"
#include "grammar/diagnostics.h"
#include "interpreter/graph/passes.h"
#include "interpreter/graph/text.h"

namespace weft::codegen {

const char* dtypeEnumName(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F64: return "F64";
    case DType::I32: return "I32";
    case DType::I64: return "I64";
    case DType::Bool: return "Bool";
  }
  return "F32";
}

namespace {

using graph::Block;
using graph::Node;
using ops::OpId;

bool isSimple(const std::string& d) {
  for (char c : d)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

const ops::EmitRule& ruleOf(const Emitter& e, const Node& n) {
  const ops::OpDef& d = ops::opDef(n.op);
  if (!d.emit) e.unsupported(n, "the C++ code generator has no rule for it");
  return *d.emit;
}

}  // namespace

Emitter::Emitter(const CompileUnit& unit, const ExportGraph& e) : unit_(unit), e_(e), g_(e.graph) {
  registerEmitRules();
  const size_t n = g_.values.size();
  sizes_.resize(n);
  dims_.resize(n);
  ptr_.resize(n);
  in_.owned.assign(n, false);
  in_.aliasOf.assign(n, -1);
  in_.inPlace.assign(n, -1);
  in_.sameSize.assign(n, false);
  constPtr_.assign(n, false);
  declared_.assign(n, false);
  uses_ = graph::useCounts(g_);
  std::function<void(const Block&)> loops = [&](const Block& b) {
    for (const auto& n : b.nodes) {
      if (n.op == ops::OpId::While) loopParams_.insert(n.blocks[1].params.begin(), n.blocks[1].params.end());
      for (const auto& inner : n.blocks) loops(inner);
    }
  };
  loops(g_.body);
}

FunctionCode Emitter::run() {
  FunctionCode out;
  vars_ = graph::planVariables(g_);
  // Inputs: their sizes are checked against the signature; open sizes bind names.
  for (size_t i = 0; i < g_.body.params.size(); ++i) {
    int v = g_.body.params[i];
    std::string name = identifier(i < e_.inputNames.size() ? e_.inputNames[i] : "in" + std::to_string(i));
    const bool sharded = !unit_.mesh.empty();  // the device function's own parameters
    if (name == "st" || name == "fail" || (sharded && (name == "comm" || name == "device" || name == "sizesOnly")) || name.rfind("out", 0) == 0 || name.rfind("v", 0) == 0 ||
        name.rfind("c", 0) == 0 || name.rfind("slot", 0) == 0)
      name = "in_" + name;
    out.inputNames.push_back(name);
    const graph::TensorType& t = g_.values[size_t(v)];
    pro_ << "  // " << name << ": " << graph::typeText(t) << "\n";
    std::vector<ops::Dim> dims;
    for (int a = 0; a < t.shape.rank(); ++a) {
      std::string given = name + "_shape[" + std::to_string(a) + "]";
      if (t.shape[a] != rt::kUnknownDim) {
        pro_ << "  if (" << given << " != " << t.shape[a] << ") return fail(\"input '" << name << "' expects "
             << graph::typeText(t) << ", got size \" + std::to_string(" << given << ") + \" in dimension " << a
             << "\");\n";
        dims.push_back(t.shape[a]);
      } else {
        std::string d = "v" + std::to_string(v) + "_d" + std::to_string(a);
        pro_ << "  const int64_t " << d << " = " << given << ";\n"
             << "  if (" << d << " < 0) return fail(\"input '" << name << "' has a negative size\");\n";
        dims.push_back(ops::Dim::symbol(d));
      }
    }
    setSizes(v, dims);
    ptr_[size_t(v)] = "const_cast<" + std::string(cppType(t.dtype)) + "*>(" + name + ")";
    constPtr_[size_t(v)] = true;
    declared_[size_t(v)] = true;
  }
  sizes(g_.body);
  // The top level's size checks come before the outputs are sized and before any work: inputs
  // that do not fit fail the call whole, with no output sized from them and no state changed.
  // (A node inside a branch or loop checks where it runs.)
  for (const auto& n : g_.body.nodes)
    if (auto c = checks_.find(&n); c != checks_.end()) {
      for (const auto& [cond, msg] : c->second) pro_ << "  if (!(" << cond << ")) " << fail(n, msg) << "\n";
      checks_.erase(c);
    }
  // Outputs: their shapes first, then whether they fit (counted without overflowing).
  for (size_t i = 0; i < g_.body.results.size(); ++i) {
    const Dims& d = dims_[size_t(g_.body.results[i])];
    std::string o = "out" + std::to_string(i);
    for (size_t a = 0; a < d.size(); ++a) pro_ << "  " << o << "_shape[" << a << "] = " << d[a] << ";\n";
  }
  // A sharded export asks one device for its blocks' sizes before the devices compute.
  if (!unit_.mesh.empty()) pro_ << "  if (sizesOnly) return {};\n";
  for (size_t i = 0; i < g_.body.results.size(); ++i) {
    const Dims& d = dims_[size_t(g_.body.results[i])];
    std::string o = "out" + std::to_string(i);
    std::string need = product(d);
    if (!isLiteral(need)) {
      std::string list;
      for (const auto& x : d) list += (list.empty() ? "" : ", ") + x;
      pro_ << "  const int64_t " << o << "_numel = weft::rt::checkedProduct({" << list << "});\n"
           << "  if (" << o << "_numel < 0) return fail(\"output " << i << " has more elements than int64 counts\");\n";
      need = o + "_numel";
    }
    pro_ << "  if (" << o << "_capacity < " << need << ") return fail(\"output " << i << " needs \" + std::to_string("
         << need << ") + \" elements, its buffer holds \" + std::to_string(" << o << "_capacity));\n";
  }
  layout();
  nodes(g_.body, "  ");
  for (size_t i = 0; i < g_.body.results.size(); ++i) {
    int r = g_.body.results[i];
    code_ << "  copy(out" << i << ", " << ptr(r) << ", " << bytes(r) << ");\n";
  }
  code_ << "  return {};\n";
  out.headers = headers_;
  out.constants = constants_.str();
  out.body = pro_.str() + layout_.str() + code_.str();
  return out;
}

// --- what rules read ---

std::string Emitter::numel(int v) const { return product(dims_[size_t(v)]); }
std::string Emitter::bytes(int v) const {
  return "size_t(" + numel(v) + ") * " + std::to_string(rt::dtypeSize(type(v).dtype));
}
std::string Emitter::shape(int v) const { return shapeList(dims_[size_t(v)]); }

std::string Emitter::where(const Node& n) const {
  std::string f = n.loc.file;
  size_t slash = f.find_last_of('/');
  if (slash != std::string::npos && f.rfind("<stdlib>", 0) != 0) f = f.substr(slash + 1);
  return f + ":" + std::to_string(n.loc.line);
}

void Emitter::unsupported(const Node& n, const std::string& why) const {
  throw WeftError("export '" + e_.name + "': " + ops::opName(n.op) + " (at " + where(n) + ") cannot be compiled to C++: " +
                  why);
}

std::string Emitter::fail(const Node& n, const std::string& message) const {
  return "return fail(" + cppString(where(n) + ": ") + " + std::string(" + message + "));";
}

// --- sizes ---

void Emitter::setSizes(int v, const std::vector<ops::Dim>& d) {
  const Shape& known = type(v).shape;
  sizes_[size_t(v)].clear();
  dims_[size_t(v)].clear();
  for (int a = 0; a < int(d.size()); ++a) {
    sizes_[size_t(v)].push_back(known[a] != rt::kUnknownDim ? ops::Dim(known[a]) : d[size_t(a)]);
    dims_[size_t(v)].push_back(print(sizes_[size_t(v)].back()));
  }
}

std::string Emitter::print(const ops::Dim& d) {
  if (isSimple(d.str())) return d.str();
  auto [it, added] = declaredSizes_.try_emplace(d.str(), "vs" + std::to_string(declaredSizes_.size()));
  if (added) pro_ << "  const int64_t " << it->second << " = " << d.str() << ";\n";
  return it->second;
}

void Emitter::check(const Node& n, const std::string& cond, const std::string& message) {
  auto& checks = checks_[&n];
  if (std::find(checks.begin(), checks.end(), std::pair{cond, message}) == checks.end()) checks.push_back({cond, message});
}

void Emitter::known(const Node& n, int v) {
  for (int64_t d : type(v).shape)
    if (d == rt::kUnknownDim) unsupported(n, "its result has a size known only at run time");
  setSizes(v, std::vector<ops::Dim>(type(v).shape.begin(), type(v).shape.end()));
}

// The op's own inference, on its inputs' symbolic sizes: the results' sizes, and what the call
// must check of its inputs when it runs (as eager code checks them).
void Emitter::inferSizes(const Node& n) {
  std::vector<graph::TensorType> in;
  for (int i : n.inputs) in.push_back({type(i).dtype, encoded(i)});
  std::vector<graph::TensorType> out;
  try {
    out = ops::opDef(n.op).infer(in, n.attrs);
  } catch (const WeftError& err) {
    unsupported(n, "its inference failed on the sizes it is compiled for: " + err.message);
  }
  const std::string op = ops::opName(n.op);
  auto text = [&](const ops::Dim& d) { return "std::to_string(" + print(d) + ")"; };
  for (const ops::SizeRequirement& r : symbols_.takeRequirements()) {
    const std::string a = print(r.a), b = print(r.b);
    switch (r.kind) {
      case ops::SizeRequirement::Equal:
        check(n, a + " == " + b, "\"" + op + ": sizes \" + " + text(r.a) + " + \" and \" + " + text(r.b) + " + \" differ\"");
        break;
      case ops::SizeRequirement::Broadcast:
        check(n, "(" + a + " == " + b + " || " + a + " == 1 || " + b + " == 1)",
              "\"" + op + ": sizes \" + " + text(r.a) + " + \" and \" + " + text(r.b) + " + \" do not broadcast\"");
        break;
      case ops::SizeRequirement::BroadcastTo:
        check(n, "(" + a + " == " + b + " || " + a + " == 1)",
              "\"" + op + ": a size \" + " + text(r.a) + " + \" does not broadcast to \" + " + text(r.b));
        break;
      case ops::SizeRequirement::InRange:
        check(n, "(0 <= " + a + " && " + a + " < " + b + ")",
              "\"" + op + ": index \" + " + text(r.a) + " + \" is out of range for a dimension of size \" + " + text(r.b));
        break;
    }
  }
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const std::vector<ops::Dim> dims = symbols_.decode(out[k].shape);
    for (const ops::Dim& d : dims)
      if (d.isConstant() && d.constant() < 0) unsupported(n, "its result has a size known only at run time");
    setSizes(n.outputs[k], dims);
  }
}

void Emitter::sizes(const Block& b) {
  for (const auto& n : b.nodes) {
    const ops::EmitRule& r = ruleOf(*this, n);
    if (r.sizes) r.sizes(*this, n);
    else inferSizes(n);
  }
}

// --- memory ---

void Emitter::own(int v) {
  in_.owned[size_t(v)] = true;
  declared_[size_t(v)] = true;
}

void Emitter::alias(int v, int of) {
  in_.aliasOf[size_t(v)] = of;
  declared_[size_t(v)] = true;
}

void Emitter::heap(int v, const std::string& rows) {
  heap_.insert(v);
  point(v, "nullptr");
  pro_ << "  int64_t " << rows << " = 0;\n  std::vector<unsigned char> " << ptr(v) << "_heap;\n";
}

int Emitter::rootOf(int v) const {
  while (in_.aliasOf[size_t(v)] >= 0) v = in_.aliasOf[size_t(v)];
  return v;
}

void Emitter::point(int v, const std::string& expr) {
  ptr_[size_t(v)] = expr;
  declared_[size_t(v)] = true;
}

std::string Emitter::constant(const Tensor& t, const std::string& name) {
  const std::string type = t.dtype() == DType::Bool ? "bool" : cppType(t.dtype());
  constants_ << "alignas(64) const " << type << " " << name << "[" << std::max<int64_t>(1, t.numel()) << "] = {";
  for (int64_t i = 0; i < t.numel(); ++i) constants_ << (i ? ", " : "") << literal(t, i);
  if (t.numel() == 0) constants_ << "0";
  constants_ << "};\n";
  return "const_cast<" + std::string(cppType(t.dtype())) + "*>(" + name + ")";
}

std::string Emitter::variable(const Node& n) const {
  return "st." + unit_.variables[size_t(e_.variables[size_t(n.attrs.i("var"))])].ident;
}

void Emitter::ownResults(const Node& n) {
  bool anyInto = false;
  for (int o : n.outputs) {
    own(o);
    if (auto into = vars_.computedInto.find(o); into != vars_.computedInto.end()) {
      in_.owned[size_t(o)] = false;  // computed straight into the variable it is assigned to
      ptr_[size_t(o)] = "st." + unit_.variables[size_t(e_.variables[size_t(into->second)])].ident;
      anyInto = true;
    }
  }
  if (n.outputs.size() != 1 || anyInto) return;
  const int out = n.outputs[0];
  if (!ops::opDef(n.op).inPlace) return;
  for (int i : n.inputs)
    if (dims_[size_t(i)] == dims_[size_t(out)] && !constPtr_[size_t(i)] && in_.aliasOf[size_t(i)] < 0 &&
        rt::dtypeSize(type(i).dtype) == rt::dtypeSize(type(out).dtype) && in_.owned[size_t(i)]) {
      in_.inPlace[size_t(out)] = i;
      in_.sameSize[size_t(out)] = true;
      return;
    }
}

void Emitter::markNode(const Node& n) {
  if (n.attrs.has("fuse")) groups_[n.attrs.i("fuse")].push_back(&n);
  const ops::EmitRule& r = ruleOf(*this, n);
  if (r.memory) r.memory(*this, n);
  else ownResults(n);
}

void Emitter::layout() {
  // Decided before planning: constants, variables and views need no bytes of their own.
  std::function<void(const Block&)> mark = [&](const Block& b) {
    for (const auto& n : b.nodes) {
      for (const auto& inner : n.blocks) mark(inner);
      markNode(n);
    }
  };
  mark(g_.body);
  for (auto& [id, group] : groups_) fuseGroup(group);
  MemoryPlan plan = planMemory(g_, in_);
  // Slot sizes (the largest of their values'), then offsets, then one reservation.
  std::vector<std::string> slotBytes;
  for (const auto& slot : plan.slots) {
    std::vector<std::string> bs;
    for (int v : slot) bs.push_back(bytes(v));
    std::sort(bs.begin(), bs.end());
    bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
    std::string e = bs[0];
    for (size_t i = 1; i < bs.size(); ++i) e = "std::max<size_t>(" + e + ", " + bs[i] + ")";
    slotBytes.push_back(e);
  }
  layout_ << "  // Memory plan: " << plan.slots.size() << " slots in one arena, reused by liveness.\n";
  layout_ << "  size_t at = 0;\n";
  for (size_t s = 0; s < plan.slots.size(); ++s)
    layout_ << "  const size_t slot" << s << " = at;\n  at += (" << slotBytes[s] << " + 63) / 64 * 64;\n";
  std::string ws = "0";
  for (const auto& w : workspaces_) ws = ws == "0" ? w : "std::max<size_t>(" + ws + ", " + w + ")";
  layout_ << "  const size_t workspace = at;\n  at += " << (ws == "0" ? "0" : "(size_t(" + ws + ") + 63) / 64 * 64") << ";\n"
          << "  char* arena = arena_.reserve(at + 64);\n"
          << "  if (!arena) return fail(\"out of memory (\" + std::to_string(at) + \" bytes)\");\n"
          << "  void* ws = arena + workspace;\n  (void)ws;\n"
          << "  auto copy = [](void* dst, const void* src, size_t n) { if (dst != src && n) std::memmove(dst, src, n); };\n"
          << "  (void)copy;\n";
  // Each value's pointer: into the arena, the state, a constant, an input, or what it views.
  for (int pass = 0; pass < 2; ++pass)  // views last: what they view is declared by then
    for (size_t v = 0; v < g_.values.size(); ++v) {
      if (!declared_[v] || (in_.aliasOf[v] >= 0) != (pass == 1)) continue;
      std::string t = T(int(v));
      int root = int(v);
      while (in_.aliasOf[size_t(root)] >= 0) root = in_.aliasOf[size_t(root)];
      if (pass == 1 && heap_.count(root)) {  // set when its node runs: the alias follows the pointer
        if (type(int(v)).dtype != type(root).dtype) throw std::logic_error("a value of another dtype aliases a heap value");
        layout_ << "  " << t << "*& v" << v << " = v" << root << ";\n";
      } else if (pass == 1)
        layout_ << "  " << t << "* v" << v << " = reinterpret_cast<" << t << "*>(v" << root << ");\n";
      else if (plan.slotOf[v] >= 0)
        layout_ << "  " << t << "* v" << v << " = reinterpret_cast<" << t << "*>(arena + slot" << plan.slotOf[v] << ");\n";
      else
        layout_ << "  " << t << "* v" << v << " = " << ptr_[v] << ";\n";
    }
}

// A group of the fuse-elementwise pass runs as one loop when its sizes agree: every result of
// the group's size, every input from outside it that size or a single element. Its results
// used only inside it then need no memory (the others are written as the loop goes), and its
// inputs live until its end.
void Emitter::fuseGroup(const std::vector<const Node*>& group) {
  const int out = group.back()->outputs[0];
  const Dims& d = dims_[size_t(out)];
  std::set<int> inside;
  std::map<int, int> usesInside;
  for (const Node* n : group) {
    if (dims_[size_t(n->outputs[0])] != d) return;
    inside.insert(n->outputs[0]);
    for (int i : n->inputs) ++usesInside[i];
  }
  for (const Node* n : group)
    for (int i : n->inputs)
      if (!inside.count(i) && dims_[size_t(i)] != d && numel(i) != "1") return;
  for (const Node* n : group) {
    for (int i : n->inputs)
      if (!inside.count(i)) in_.liveUntil.push_back({i, out});
    const int v = n->outputs[0];
    in_.inPlace[size_t(v)] = -1;
    if (n == group.back()) continue;
    skip_.insert(n);
    if (uses_[size_t(v)] > usesInside[v]) continue;  // used after the group: written by the loop
    in_.owned[size_t(v)] = false;
    declared_[size_t(v)] = false;
  }
  fused_[group.back()] = group;
}

// --- code ---

void Emitter::nodes(const Block& b, const std::string& pad) {
  for (const auto& n : b.nodes) {
    if (skip_.count(&n)) continue;
    auto f = fused_.find(&n);
    if (f == fused_.end()) {
      node(n, pad);
      continue;
    }
    // The group's values that live only in the loop's chunk buffers, and the checks of its nodes.
    std::set<int> chunked;
    std::vector<std::pair<std::string, std::string>> checks;
    for (const Node* m : f->second) {
      if (m != f->second.back() && !declared_[size_t(m->outputs[0])]) chunked.insert(m->outputs[0]);
      for (const auto& [cond, msg] : checks_[m]) checks.push_back({cond, fail(*m, msg)});
    }
    for (const Node* m : f->second) need(ruleOf(*this, *m).header);
    fusedLoop(*this, f->second, chunked, checks, pad);
  }
}

void Emitter::node(const Node& n, const std::string& pad) {
  code_ << pad << "// " << ops::opName(n.op);
  if (!n.outputs.empty()) code_ << " -> " << graph::typeText(type(n.outputs[0]));
  code_ << "   (" << where(n) << ")\n";
  for (const auto& [cond, msg] : checks_[&n]) code_ << pad << "if (!(" << cond << ")) " << fail(n, msg) << "\n";
  const ops::EmitRule& r = ruleOf(*this, n);
  if (*r.header) need(r.header);
  r.code(*this, n, pad);
}

FunctionCode emitFunctionBody(const CompileUnit& unit, const ExportGraph& e) { return Emitter(unit, e).run(); }

}  // namespace weft::codegen
