#include "verify.h"

#include "../../grammar/diagnostics.h"
#include "../ops/ops.h"

namespace weft::graph {
namespace {

using ops::OpId;

bool isBoolScalar(const TensorType& t) { return t.dtype == DType::Bool && t.shape.rank() == 0; }

// What is wrong with a type, or "": a dimension below -1 (None), or so many elements that shape
// arithmetic in the ops' inference could overflow (no tensor that large can exist anyway).
std::string typeProblem(const TensorType& t) {
  constexpr int64_t kMaxElements = int64_t(1) << 53;
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < rt::kUnknownDim) return "a negative dimension";
    if (d > 0 && (n > kMaxElements / d || d > kMaxElements)) return "more than 2^53 elements";
    if (d > 0) n *= d;
  }
  return "";
}

std::string valueName(int id) { return "%" + std::to_string(id); }

// The number of `{}` placeholders of a print format, or -1 when a brace is unpaired.
int placeholders(const std::string& format) {
  int n = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    bool doubled = i + 1 < format.size() && format[i + 1] == c;
    if (c == '{' && i + 1 < format.size() && format[i + 1] == '}')
      ++n, ++i;
    else if (c == '{' && i + 1 < format.size() && format[i + 1] == ':' && format.find('}', i) != std::string::npos)
      ++n, i = format.find('}', i);  // an f-string field with its format spec: `{:.4f}`
    else if ((c == '{' || c == '}') && doubled)
      ++i;
    else if (c == '{' || c == '}')
      return -1;
  }
  return n;
}

class Verifier {
 public:
  Verifier(const Graph& g, const std::vector<SourceRange>* nodeAt)
      : g_(g), nodeAt_(nodeAt), defined_(g.values.size()), visible_(g.values.size()) {}

  void run() {
    for (size_t k = 0; k < g_.variables.size(); ++k)
      for (int64_t d : g_.variables[k].type.shape)
        if (d < 0)
          fail("variable " + std::to_string(k) + " '" + g_.variables[k].name + "' has type " +
               typeText(g_.variables[k].type) + ": a variable's shape is fully known");
    for (size_t k = 0; k < g_.variables.size(); ++k)
      if (std::string p = typeProblem(g_.variables[k].type); !p.empty())
        fail("variable " + std::to_string(k) + " '" + g_.variables[k].name + "' has type " +
             typeText(g_.variables[k].type) + " with " + p);
    for (size_t id = 0; id < g_.values.size(); ++id)
      if (std::string p = typeProblem(g_.values[id]); !p.empty())
        fail(valueName(int(id)) + " has type " + typeText(g_.values[id]) + " with " + p);
    placements();
    block(g_.body);
    // A value no node defines may stay in the table (the passes leave such holes) as long as
    // nothing uses it: a use is checked where it is.
  }

 private:
  // A sharded graph's placements: one per mesh dimension, each fitting its value's type.
  void placements() const {
    const spmd::MeshAxes& mesh = g_.mesh;
    if (mesh.empty()) {
      if (!g_.placements.empty()) fail("the graph has placements but no mesh");
      return;
    }
    if (mesh.sizes.size() != mesh.names.size())
      fail("the mesh has " + std::to_string(mesh.names.size()) + " names and " + std::to_string(mesh.sizes.size()) +
           " sizes");
    auto check = [&](const std::string& what, const TensorType& t, const spmd::Placements& ps) {
      if (ps.empty()) return;
      if (auto why = spmd::misfit(t.shape, ps, mesh)) fail(what + " " + typeText(t) + ": " + *why);
    };
    for (size_t id = 0; id < g_.placements.size() && id < g_.values.size(); ++id)
      check(valueName(int(id)), g_.values[id], g_.placements[id]);
    for (size_t k = 0; k < g_.variables.size(); ++k)
      check("variable " + std::to_string(k), g_.variables[k].type, g_.variables[k].placements);
  }

  [[noreturn]] void fail(const std::string& reason, const Node* n = nullptr, int index = -1) const {
    if (!n) throw WeftError("graph '" + g_.name + "': " + reason);
    std::string op = ops::opDef(n->op).name;
    if (nodeAt_ && index >= 0 && size_t(index) < nodeAt_->size())
      throw WeftError((*nodeAt_)[index], op + ": " + reason);
    std::string where = "graph '" + g_.name + "', node " + std::to_string(index) + " (" + op;
    if (!(n->loc == Loc{})) where += " at " + n->loc.file + ":" + std::to_string(n->loc.line);
    throw WeftError(where + "): " + reason);
  }

  bool inRange(int id) const { return id >= 0 && size_t(id) < g_.values.size(); }
  const TensorType& type(int id) const { return g_.values[size_t(id)]; }
  std::string typed(int id) const { return valueName(id) + " (" + typeText(type(id)) + ")"; }

  void define(int id, std::vector<int>& scope, const Node* n, int index) {
    if (!inRange(id))
      fail(valueName(id) + " is not a value of the graph (it has " + std::to_string(g_.values.size()) + ")", n, index);
    if (defined_[id]) fail(valueName(id) + " is defined twice", n, index);
    defined_[id] = visible_[id] = 1;
    scope.push_back(id);
  }
  void use(int id, const Node* n, int index) const {
    if (!inRange(id))
      fail(valueName(id) + " is not a value of the graph (it has " + std::to_string(g_.values.size()) + ")", n, index);
    if (visible_[id]) return;
    if (defined_[id]) fail(valueName(id) + " is used outside the block that defines it", n, index);
    fail(valueName(id) + " is used before it is defined", n, index);
  }

  // Checks a block's nodes and that its results are in scope; the caller checks their types.
  void block(const Block& b, const Node* owner = nullptr, int ownerIndex = -1) {
    std::vector<int> scope;
    for (int id : b.params) define(id, scope, owner, ownerIndex);
    for (const Node& n : b.nodes) node(n, scope);
    for (int id : b.results) use(id, owner, ownerIndex);
    for (int id : scope) visible_[id] = 0;
  }

  void node(const Node& n, std::vector<int>& scope) {
    int me = ++index_;
    const ops::OpDef& def = ops::opDef(n.op);
    auto bad = [&](const std::string& reason) { fail(reason, &n, me); };
    for (int id : n.inputs) use(id, &n, me);
    for (int id : n.outputs)
      if (!inRange(id))
        bad(valueName(id) + " is not a value of the graph (it has " + std::to_string(g_.values.size()) + ")");
    if (def.arity >= 0 && n.inputs.size() != size_t(def.arity) && !fusedMatmul(n))
      bad("takes " + std::to_string(def.arity) + " input" + (def.arity == 1 ? "" : "s") + ", given " +
          std::to_string(n.inputs.size()));
    checkAttrs(n, def, bad);
    size_t blocks = n.op == OpId::Cond || n.op == OpId::While ? 2 : 0;
    if (n.blocks.size() != blocks)
      bad("has " + std::to_string(n.blocks.size()) + " block" + (n.blocks.size() == 1 ? "" : "s") + ", expected " +
          std::to_string(blocks));

    switch (n.op) {
      case OpId::Constant: constant(n, bad); break;
      case OpId::ReadVariable:
      case OpId::AssignVariable: variable(n, bad); break;
      case OpId::Print: print(n, bad); break;
      case OpId::Check: check(n, bad); break;
      case OpId::Cond: cond(n, me, bad); break;
      case OpId::While: loop(n, me, bad); break;
      WEFT_FOR_EACH_KERNEL_OP(WEFT_OP_CASE)
        if (def.family == ops::Family::Collective && !g_.mesh.empty()) placedCollective(n, bad);
        else infer(n, def, bad);
        break;
    }
    for (int id : n.outputs) define(id, scope, &n, me);
  }

  // The fused forms the passes write (graph/passes.h): a matmul with a bias input and an
  // `epilogue` (fuse-epilogues), and elementwise nodes of a loop group, `fuse` (fuse-elementwise).
  static bool fusedMatmul(const Node& n) { return n.op == OpId::MatMul && n.inputs.size() == 3; }
  static bool fusionAttr(const Node& n, const ops::OpDef& def, const std::string& key, ops::AttrKind& kind) {
    if (key == "fuse" && def.fusible) return kind = ops::AttrKind::Int, true;
    if (key == "epilogue" && fusedMatmul(n)) return kind = ops::AttrKind::Str, true;
    return false;
  }

  template <class Bad>
  void checkAttrs(const Node& n, const ops::OpDef& def, Bad& bad) const {
    const auto& items = n.attrs.items();
    for (size_t i = 0; i < items.size(); ++i) {
      ops::AttrKind fusion;
      if (fusionAttr(n, def, items[i].key, fusion)) {
        if (ops::kindOf(items[i].value) != fusion)
          bad("attribute '" + items[i].key + "' is " + ops::attrKindName(ops::kindOf(items[i].value)) + ", expected " +
              ops::attrKindName(fusion));
        continue;
      }
      bool known = false;
      for (const auto& spec : def.attrs) known = known || items[i].key == spec.key;
      if (!known) bad(std::string("has no attribute '") + items[i].key + "'");
      for (size_t j = 0; j < i; ++j)
        if (items[j].key == items[i].key) bad("attribute '" + items[i].key + "' is given twice");
    }
    for (const auto& spec : def.attrs) {
      const ops::AttrValue* v = n.attrs.find(spec.key);
      if (!v && !spec.optional)
        bad(std::string("attribute '") + spec.key + "' (" + ops::attrKindName(spec.kind) + ") is missing");
      else if (v && ops::kindOf(*v) != spec.kind)
        bad(std::string("attribute '") + spec.key + "' is " + ops::attrKindName(ops::kindOf(*v)) + ", expected " +
            ops::attrKindName(spec.kind));
    }
  }

  template <class Bad>
  void outputCount(const Node& n, size_t count, Bad& bad) const {
    if (n.outputs.size() != count)
      bad("has " + std::to_string(n.outputs.size()) + " output" + (n.outputs.size() == 1 ? "" : "s") + ", expected " +
          std::to_string(count));
  }

  // An op with an inference function: it must give the declared types.
  template <class Bad>
  void infer(const Node& n, const ops::OpDef& def, Bad& bad) const {
    std::vector<TensorType> in;
    for (int id : n.inputs) in.push_back(type(id));
    if (fusedMatmul(n)) {  // the product's inference; the bias is one row of its width
      const TensorType bias = in.back();
      in.pop_back();
      if (n.outputs.size() == 1 && (bias.shape.rank() == 0 || type(n.outputs[0]).shape.rank() == 0 ||
                                    bias.shape.back() != type(n.outputs[0]).shape.back()))
        bad("its bias " + typeText(bias) + " is not a row of the result's width");
      const std::string& act = n.attrs.has("epilogue") ? n.attrs.s("epilogue") : "";
      ops::OpId id;
      if (!act.empty() && !(ops::findOp(act, id) && ops::opDef(id).epilogue))
        bad("its epilogue '" + act + "' is not an activation a matmul applies in place");
    }
    std::vector<TensorType> out;
    try {
      out = def.infer(in, n.attrs);
    } catch (const WeftError& e) {
      // The message names the op already; the node's prefix says it once.
      const std::string self = std::string(def.name) + ": ";
      bad(e.message.rfind(self, 0) == 0 ? e.message.substr(self.size()) : e.message);
    } catch (const std::exception& e) {
      bad(std::string("its inference failed: ") + e.what());
    }
    outputCount(n, out.size(), bad);
    for (size_t i = 0; i < out.size(); ++i) {
      int id = n.outputs[i];
      if (!accepts(type(id), out[i].dtype, out[i].shape))
        bad("output " + valueName(id) + " is declared " + typeText(type(id)) + ", but " + def.name + " gives " +
            typeText(out[i]));
    }
  }

  // A collective of a graph over global values (propagate-placements): its value stays what it
  // was, and only its placement on its mesh dimension changes, as the op moves it.
  template <class Bad>
  void placedCollective(const Node& n, Bad& bad) const {
    outputCount(n, 1, bad);
    const int in = n.inputs[0], out = n.outputs[0];
    if (type(in) != type(out))
      bad("output " + valueName(out) + " is declared " + typeText(type(out)) + ", but a collective of a placed graph "
          "keeps its input's " + typeText(type(in)));
    const int64_t k = n.attrs.i("mesh_dim");
    if (k < 0 || k >= g_.mesh.rank() || n.attrs.i("group") != g_.mesh.sizes[size_t(k)])
      bad("mesh_dim " + std::to_string(k) + " and group " + std::to_string(n.attrs.i("group")) +
          " are not a dimension of mesh(" + spmd::meshText(g_.mesh) + ")");
    spmd::Placements from = g_.placementsOf(in), to = g_.placementsOf(out);
    using spmd::Placement;
    auto axis = [&](const char* key) { return int(n.attrs.i(key)); };
    Placement a, b;  // what the op takes mesh dimension k from and to
    if (n.op == OpId::AllReduce) a = Placement::p(), b = Placement::r();
    else if (n.op == OpId::AllGather) a = Placement::s(axis("axis")), b = Placement::r();
    else if (n.op == OpId::ReduceScatter) a = Placement::p(), b = Placement::s(axis("axis"));
    else if (n.op == OpId::AllToAll) a = Placement::s(axis("concat_axis")), b = Placement::s(axis("split_axis"));
    else a = Placement::r(), b = Placement::s(axis("axis"));  // local_slice
    const std::string want = "takes " + a.str() + " to " + b.str() + " on mesh dimension " + std::to_string(k);
    if (from[size_t(k)] != a || to[size_t(k)] != b) bad(std::string(ops::opName(n.op)) + " " + want + ", not " +
                                                        from[size_t(k)].str() + " to " + to[size_t(k)].str());
    from[size_t(k)] = to[size_t(k)];
    if (from != to) bad("changes placements on mesh dimensions other than " + std::to_string(k));
  }

  template <class Bad>
  void constant(const Node& n, Bad& bad) const {
    outputCount(n, 1, bad);
    const Tensor& t = n.attrs.tensor("value");
    // A shape-only trace (weft check) has constants without data; only a graph that runs needs it.
    if (t.isAbstract() && !ops::shapesOnly()) bad("the constant has no data");
    if (type(n.outputs[0]) != TensorType{t.dtype(), t.shape()})
      bad("output " + valueName(n.outputs[0]) + " is declared " + typeText(type(n.outputs[0])) +
          ", but the constant is " + typeText({t.dtype(), t.shape()}));
  }

  template <class Bad>
  void variable(const Node& n, Bad& bad) const {
    bool read = n.op == OpId::ReadVariable;
    outputCount(n, read ? 1 : 0, bad);
    int64_t k = n.attrs.i("var");
    if (k < 0 || size_t(k) >= g_.variables.size())
      bad("variable " + std::to_string(k) + " does not exist (the graph has " + std::to_string(g_.variables.size()) +
          ")");
    const VariableSlot& v = g_.variables[size_t(k)];
    int id = read ? n.outputs[0] : n.inputs[0];
    if (type(id) != v.type)
      bad(std::string(read ? "reads " : "assigns ") + typed(id) + (read ? " from" : " to") + " variable " +
          std::to_string(k) + " '" + v.name + "' of type " + typeText(v.type));
  }

  template <class Bad>
  void print(const Node& n, Bad& bad) const {
    outputCount(n, 0, bad);
    int count = placeholders(n.attrs.s("format"));
    if (count < 0) bad("the format has an unpaired brace (write {{ or }} for a brace)");
    if (size_t(count) != n.inputs.size())
      bad("the format has " + std::to_string(count) + " placeholder" + (count == 1 ? "" : "s") + " for " +
          std::to_string(n.inputs.size()) + " input" + (n.inputs.size() == 1 ? "" : "s"));
  }

  template <class Bad>
  void check(const Node& n, Bad& bad) const {
    outputCount(n, 0, bad);
    if (type(n.inputs[0]) != TensorType{DType::Bool, Shape{}}) bad("checks " + typed(n.inputs[0]) + ", not a bool scalar");
    const std::vector<int64_t>& span = n.attrs.ints("span");
    bool lines = span.size() == 4;
    for (int64_t x : span) lines = lines && x >= 0 && x <= int64_t(UINT32_MAX);
    if (!lines) bad("span is not [line, column, end line, end column]");
  }

  // A block's params must have these types, in this order.
  template <class Bad>
  void params(const Block& b, const char* which, const std::vector<TensorType>& types, Bad& bad) const {
    if (b.params.size() != types.size())
      bad(std::string("the ") + which + " block has " + std::to_string(b.params.size()) + " parameters, expected " +
          std::to_string(types.size()));
    for (size_t i = 0; i < types.size(); ++i)
      if (inRange(b.params[i]) && type(b.params[i]) != types[i])
        bad(std::string("the ") + which + " block's parameter " + typed(b.params[i]) + " should be " +
            typeText(types[i]));
  }
  // A block's results must fit these types.
  template <class Bad>
  void results(const Block& b, const char* which, const std::vector<TensorType>& types, Bad& bad) const {
    if (b.results.size() != types.size())
      bad(std::string("the ") + which + " block yields " + std::to_string(b.results.size()) + " value" +
          (b.results.size() == 1 ? "" : "s") + ", expected " + std::to_string(types.size()));
    for (size_t i = 0; i < types.size(); ++i) {
      const TensorType& t = type(b.results[i]);
      if (!accepts(types[i], t.dtype, t.shape))
        bad(std::string("the ") + which + " block yields " + typed(b.results[i]) + " where " + typeText(types[i]) +
            " is expected");
    }
  }
  std::vector<TensorType> types(const std::vector<int>& ids, size_t from = 0) const {
    std::vector<TensorType> t;
    for (size_t i = from; i < ids.size(); ++i) t.push_back(type(ids[i]));
    return t;
  }

  // cond(pred, operands...): each branch takes the operands as params and yields the outputs.
  template <class Bad>
  void cond(const Node& n, int me, Bad& bad) {
    if (n.inputs.empty()) bad("needs a condition input");
    if (!isBoolScalar(type(n.inputs[0]))) bad("the condition " + typed(n.inputs[0]) + " is not a bool scalar");
    std::vector<TensorType> operands = types(n.inputs, 1), outs = types(n.outputs);
    const char* names[] = {"then", "else"};
    for (int i = 0; i < 2; ++i) {
      params(n.blocks[i], names[i], operands, bad);
      block(n.blocks[i], &n, me);
      results(n.blocks[i], names[i], outs, bad);
    }
  }

  // while(init...): the outputs are the loop values; both blocks take them as params, the cond
  // block yields a bool scalar and the body the next loop values.
  template <class Bad>
  void loop(const Node& n, int me, Bad& bad) {
    outputCount(n, n.inputs.size(), bad);
    std::vector<TensorType> loopTypes = types(n.outputs);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorType& init = type(n.inputs[i]);
      if (!accepts(loopTypes[i], init.dtype, init.shape))
        bad("the initial value " + typed(n.inputs[i]) + " does not fit the loop value " + typed(n.outputs[i]));
    }
    const char* names[] = {"cond", "body"};
    for (int i = 0; i < 2; ++i) {
      params(n.blocks[i], names[i], loopTypes, bad);
      block(n.blocks[i], &n, me);
    }
    results(n.blocks[0], "cond", {TensorType{DType::Bool, {}}}, bad);
    results(n.blocks[1], "body", loopTypes, bad);
  }

  const Graph& g_;
  const std::vector<SourceRange>* nodeAt_;
  std::vector<char> defined_, visible_;
  int index_ = -1;
};

}  // namespace

void verify(const Graph& g, const std::vector<SourceRange>* nodeAt) { Verifier(g, nodeAt).run(); }

}  // namespace weft::graph
