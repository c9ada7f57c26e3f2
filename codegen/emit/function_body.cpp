#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "function_emitter.h"
#include "grammar/diagnostics.h"
#include "interpreter/graph/text.h"
#include "interpreter/ops/impl.h"
#include "stdlib/runtime/strided.h"
#include "memory_plan.h"
#include "../passes/passes.h"
#include "op_emit.h"
#include "variable_plan.h"

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

// The runtime functor of each elementwise and reduce op (op_list.h's column).
const char* functorOf(OpId op) {
  switch (op) {
#define WEFT_FN(F, Id, N, A, Fn, ...) \
  case OpId::F##Id: return #Fn;
    WEFT_FOR_EACH_UNARY_OP(WEFT_FN)
    WEFT_FOR_EACH_BINARY_OP(WEFT_FN)
    WEFT_FOR_EACH_REDUCE_OP(WEFT_FN)
#undef WEFT_FN
    default: return nullptr;
  }
}


bool isLiteral(const std::string& d) { return !d.empty() && (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-'); }
bool isSimple(const std::string& d) {
  for (char c : d)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

std::string product(const std::vector<std::string>& dims) {
  int64_t k = 1;
  std::vector<std::string> terms;
  for (const auto& d : dims) {
    if (isLiteral(d)) k *= std::stoll(d);
    else terms.push_back(d);
  }
  if (k == 0) return "0";
  std::string s = k == 1 && !terms.empty() ? "" : std::to_string(k);
  for (const auto& t : terms) s += (s.empty() ? "" : " * ") + t;
  return terms.empty() || (terms.size() == 1 && k == 1) ? s : "(" + s + ")";
}

std::string shapeList(const std::vector<std::string>& dims) {
  std::string s = "Shape{";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "}";
}

class Body {
 public:
  Body(const CompileUnit& unit, const ExportGraph& e) : unit_(unit), e_(e), g_(e.graph) {
    const size_t n = g_.values.size();
    dims_.resize(n);
    ptr_.resize(n);
    in_.owned.assign(n, false);
    in_.aliasOf.assign(n, -1);
    in_.inPlace.assign(n, -1);
    in_.sameSize.assign(n, false);
    constPtr_.assign(n, false);
    uses_ = graph::useCounts(g_);
  }

  FunctionCode run() {
    FunctionCode out;
    vars_ = planVariables(g_);
    // Inputs: their sizes are checked against the signature; open sizes bind names.
    for (size_t i = 0; i < g_.body.params.size(); ++i) {
      int v = g_.body.params[i];
      std::string name = identifier(i < e_.inputNames.size() ? e_.inputNames[i] : "in" + std::to_string(i));
      if (name == "st" || name == "fail" || name.rfind("out", 0) == 0 || name.rfind("v", 0) == 0 ||
          name.rfind("c", 0) == 0 || name.rfind("slot", 0) == 0)
        name = "in_" + name;
      out.inputNames.push_back(name);
      const graph::TensorType& t = g_.values[size_t(v)];
      pro_ << "  // " << name << ": " << graph::typeText(t) << "\n";
      for (int a = 0; a < t.shape.rank(); ++a) {
        std::string given = name + "_shape[" + std::to_string(a) + "]";
        if (t.shape[a] != rt::kUnknownDim) {
          pro_ << "  if (" << given << " != " << t.shape[a] << ") return fail(\"input '" << name << "' expects "
               << graph::typeText(t) << ", got size \" + std::to_string(" << given << ") + \" in dimension " << a
               << "\");\n";
          dims_[size_t(v)].push_back(std::to_string(t.shape[a]));
        } else {
          std::string d = "v" + std::to_string(v) + "_d" + std::to_string(a);
          pro_ << "  const int64_t " << d << " = " << given << ";\n"
               << "  if (" << d << " < 0) return fail(\"input '" << name << "' has a negative size\");\n";
          dims_[size_t(v)].push_back(d);
        }
      }
      ptr_[size_t(v)] = "const_cast<" + std::string(cppType(t.dtype)) + "*>(" + name + ")";
      constPtr_[size_t(v)] = true;
    }
    sizes(g_.body);
    // Outputs: their shapes first, then whether they fit.
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      int r = g_.body.results[i];
      const auto& d = dims_[size_t(r)];
      std::string o = "out" + std::to_string(i);
      for (size_t a = 0; a < d.size(); ++a) pro_ << "  " << o << "_shape[" << a << "] = " << d[a] << ";\n";
    }
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      const auto& d = dims_[size_t(g_.body.results[i])];
      std::string o = "out" + std::to_string(i);
      pro_ << "  if (" << o << "_capacity < " << product(d) << ") return fail(\"output " << i << " needs \" + std::to_string("
           << product(d) << ") + \" elements, its buffer holds \" + std::to_string(" << o << "_capacity));\n";
    }
    MemoryPlan plan;
    layout(plan);
    nodes(g_.body, 1);
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

 private:
  [[noreturn]] void unsupported(const Node& n, const std::string& why) const {
    throw WeftError("export '" + e_.name + "': " + ops::opName(n.op) + " (at " + where(n) +
                    ") cannot be compiled to C++: " + why);
  }
  std::string where(const Node& n) const {
    std::string f = n.loc.file;
    size_t slash = f.find_last_of('/');
    if (slash != std::string::npos && f.rfind("<stdlib>", 0) != 0) f = f.substr(slash + 1);
    return f + ":" + std::to_string(n.loc.line);
  }
  const graph::TensorType& type(int v) const { return g_.values[size_t(v)]; }
  std::string T(int v) const { return cppType(type(v).dtype); }
  std::string ptr(int v) const { return "v" + std::to_string(v); }
  std::string numel(int v) const { return product(dims_[size_t(v)]); }
  std::string bytes(int v) const {
    return "size_t(" + numel(v) + ") * " + std::to_string(rt::dtypeSize(type(v).dtype));
  }

  // --- sizes: every dimension of every value, as a C++ expression of the inputs' sizes ---

  // The name for dimension a of v: a literal when the graph knows it, else `expr` (declared
  // once as a variable when it is more than a name).
  std::string dim(int v, int a, const std::string& expr) {
    int64_t known = type(v).shape[a];
    if (known != rt::kUnknownDim) return std::to_string(known);
    if (isSimple(expr)) return expr;
    std::string d = "v" + std::to_string(v) + "_d" + std::to_string(a);
    pro_ << "  const int64_t " << d << " = " << expr << ";\n";
    return d;
  }
  void check(const Node& n, const std::string& cond, const std::string& message) {
    checks_[&n].push_back({cond, message});
  }
  // NumPy broadcasting of the operands' dimensions into v's.
  void broadcast(const Node& n, int v, const std::vector<int>& operands) {
    const int rank = type(v).shape.rank();
    std::vector<std::string> out;
    for (int a = 0; a < rank; ++a) {
      std::vector<std::string> ds;
      for (int o : operands) {
        const auto& od = dims_[size_t(o)];
        int k = a - (rank - int(od.size()));
        if (k >= 0 && od[size_t(k)] != "1") ds.push_back(od[size_t(k)]);
      }
      std::sort(ds.begin(), ds.end());
      ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
      std::string expr = ds.empty() ? "1" : ds[0];
      for (size_t i = 1; i < ds.size(); ++i) expr = "std::max<int64_t>(" + expr + ", " + ds[i] + ")";
      std::string d = dim(v, a, expr);
      for (const auto& x : ds)
        if (x != d)
          check(n, "(" + x + " == " + d + " || " + x + " == 1)",
                "\"" + std::string(ops::opName(n.op)) + ": sizes \" + std::to_string(" + x + ") + \" and \" + std::to_string(" +
                    d + ") + \" do not broadcast\"");
      out.push_back(d);
    }
    dims_[size_t(v)] = out;
  }
  void same(int v, int from) { dims_[size_t(v)] = dims_[size_t(from)]; }
  void known(const Node& n, int v) {
    for (int64_t d : type(v).shape)
      if (d == rt::kUnknownDim) unsupported(n, "its result has a size known only at run time");
    dims_[size_t(v)].clear();
    for (int64_t d : type(v).shape) dims_[size_t(v)].push_back(std::to_string(d));
  }

  void sizes(const Block& b) {
    for (const auto& n : b.nodes) sizesOf(n);
  }

  void sizesOf(const Node& n) {
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    auto inDims = [&](int i) -> const std::vector<std::string>& { return dims_[size_t(n.inputs[size_t(i)])]; };
    if (isUnary(n.op) || n.op == OpId::Cast) return same(out, n.inputs[0]);
    if (isBinary(n.op) || n.op == OpId::Where || n.op == OpId::Clip) return broadcast(n, out, n.inputs);
    if (isReduce(n.op) || n.op == OpId::ArgMax || n.op == OpId::ArgMin) {
      const auto& d = inDims(0);
      std::vector<bool> red = reducedAxes(n, int(d.size()));
      bool keep = n.attrs.b("keepdims");
      std::vector<std::string> r;
      for (size_t a = 0; a < d.size(); ++a)
        if (!red[a]) r.push_back(dim(out, int(r.size()), d[a]));
        else if (keep) r.push_back("1");
      dims_[size_t(out)] = r;
      return;
    }
    switch (n.op) {
      case OpId::MatMul: {
        if (n.attrs.has("transpose_a") || n.attrs.has("transpose_b")) {  // operands read transposed
          const auto [m, k, kb, nn] = transposedSizes(n);
          if (k != kb)
            check(n, k + " == " + kb, "\"matmul: inner dimensions differ (\" + std::to_string(" + k + ") + \" and \" + std::to_string(" + kb + ") + \")\"");
          std::vector<std::string> r;
          const auto& a = inDims(0);
          if (a.size() > 2)  // rows stacked in leading axes, times a transposed matrix
            for (size_t i = 0; i + 1 < a.size(); ++i) r.push_back(dim(out, int(i), a[i]));
          else
            r.push_back(dim(out, 0, m));
          r.push_back(dim(out, int(r.size()), nn));
          dims_[size_t(out)] = r;
          return;
        }
        const auto &a = inDims(0), &b = inDims(1);
        const bool av = a.size() == 1, bv = b.size() == 1;
        std::string k = a.back(), kb = bv ? b[0] : b[b.size() - 2];
        if (k != kb)
          check(n, k + " == " + kb, "\"matmul: inner dimensions differ (\" + std::to_string(" + k + ") + \" and \" + std::to_string(" + kb + ") + \")\"");
        const int rank = type(out).shape.rank();
        std::vector<std::string> r;
        // Batch dimensions broadcast.
        const int batch = rank - (av ? 0 : 1) - (bv ? 0 : 1);
        std::vector<std::string> ab(a.begin(), a.end() - (av ? 1 : 2)), bb(b.begin(), b.end() - (bv ? 1 : 2));
        for (int i = 0; i < batch; ++i) {
          int ia = i - (batch - int(ab.size())), ib = i - (batch - int(bb.size()));
          std::string x = ia >= 0 ? ab[size_t(ia)] : "1", y = ib >= 0 ? bb[size_t(ib)] : "1";
          std::string expr = x == "1" ? y : (y == "1" || y == x ? x : "std::max<int64_t>(" + x + ", " + y + ")");
          r.push_back(dim(out, i, expr));
          if (x != y && x != "1" && y != "1")
            check(n, "(" + x + " == " + y + " || " + x + " == 1 || " + y + " == 1)", "\"matmul: batch sizes do not broadcast\"");
        }
        if (!av) r.push_back(dim(out, int(r.size()), a[a.size() - 2]));
        if (!bv) r.push_back(dim(out, int(r.size()), b.back()));
        dims_[size_t(out)] = r;
        if (n.inputs.size() == 3) {  // a fused bias: one row of the result's width
          const auto& bias = inDims(2);
          if (bias.back() != r.back()) check(n, bias.back() + " == " + r.back(), "\"matmul: the bias does not fit the result\"");
        }
        return;
      }
      case OpId::Reshape: {
        const auto& target = n.attrs.ints("shape");
        std::vector<std::string> r;
        std::vector<std::string> known;
        int wild = -1;
        for (size_t a = 0; a < target.size(); ++a) {
          if (target[a] == -1) wild = int(a);
          else known.push_back(std::to_string(target[a]));
        }
        for (size_t a = 0; a < target.size(); ++a) {
          if (int(a) != wild) {
            r.push_back(std::to_string(target[a]));
            continue;
          }
          std::string k = product(known);
          r.push_back(dim(out, int(a), k == "0" ? "0" : "(" + numel(n.inputs[0]) + ") / " + k));
        }
        dims_[size_t(out)] = r;
        check(n, product(r) + " == " + numel(n.inputs[0]),
              "\"reshape: \" + std::to_string(" + numel(n.inputs[0]) + ") + \" elements do not fit the new shape\"");
        return;
      }
      case OpId::Transpose: {
        const auto& d = inDims(0);
        std::vector<int> perm = permOf(n, int(d.size()));
        std::vector<std::string> r;
        for (size_t a = 0; a < perm.size(); ++a) r.push_back(dim(out, int(a), d[size_t(perm[a])]));
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::ExpandDims: {
        std::vector<std::string> r = inDims(0);
        int rank = int(r.size()) + 1;
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += rank;
        r.insert(r.begin() + axis, "1");
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Squeeze: {
        // The graph's type says which dimensions remain; the others must be 1.
        const auto& d = inDims(0);
        const auto& axes = n.attrs.ints("axes");
        std::vector<std::string> r;
        for (size_t a = 0; a < d.size(); ++a) {
          bool drop = axes.empty() ? d[a] == "1" : false;
          for (int64_t x : axes) drop = drop || (x < 0 ? x + int64_t(d.size()) : x) == int64_t(a);
          if (!drop) r.push_back(d[a]);
          else if (d[a] != "1") check(n, d[a] + " == 1", "\"squeeze: a squeezed dimension is not 1\"");
        }
        if (int(r.size()) != type(out).shape.rank()) unsupported(n, "sizes known only at run time");
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Concat: {
        int rank = type(out).shape.rank();
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += rank;
        std::vector<std::string> r;
        for (int a = 0; a < rank; ++a) {
          if (a == axis) {
            std::vector<std::string> parts;
            for (size_t i = 0; i < n.inputs.size(); ++i) parts.push_back(inDims(int(i))[size_t(a)]);
            std::string expr;
            for (const auto& p : parts) expr += (expr.empty() ? "" : " + ") + p;
            r.push_back(dim(out, a, "(" + expr + ")"));
          } else {
            r.push_back(dim(out, a, inDims(0)[size_t(a)]));
            for (size_t i = 1; i < n.inputs.size(); ++i)
              if (inDims(int(i))[size_t(a)] != r.back())
                check(n, inDims(int(i))[size_t(a)] + " == " + r.back(), "\"concat: the inputs' sizes differ off the axis\"");
          }
        }
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Cond: {
        sizes(n.blocks[0]);
        sizes(n.blocks[1]);
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          const auto &t = dims_[size_t(n.blocks[0].results[i])], &f = dims_[size_t(n.blocks[1].results[i])];
          std::vector<std::string> r;
          for (size_t a = 0; a < t.size(); ++a) {
            r.push_back(dim(n.outputs[i], int(a), t[a]));
            if (t[a] != f[a]) unsupported(n, "its branches give results whose sizes may differ at run time");
          }
          dims_[size_t(n.outputs[i])] = r;
        }
        return;
      }
      case OpId::While: {
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          same(n.outputs[i], n.inputs[i]);
          for (const auto& b : n.blocks) same(b.params[i], n.inputs[i]);
        }
        sizes(n.blocks[0]);
        sizes(n.blocks[1]);
        for (size_t i = 0; i < n.outputs.size(); ++i)
          if (dims_[size_t(n.blocks[1].results[i])] != dims_[size_t(n.inputs[i])])
            unsupported(n, "a loop value's sizes may change at run time");
        return;
      }
      case OpId::Conv2D:
      case OpId::MaxPool2D:
      case OpId::AvgPool2D: {
        // NHWC: only the batch may be open; it passes through.
        const auto& d = inDims(0);
        for (size_t a = 1; a < d.size(); ++a)
          if (!isLiteral(d[a])) unsupported(n, "only its batch size may be known only at run time");
        std::vector<std::string> r{dim(out, 0, d[0])};
        for (int a = 1; a < 4; ++a) r.push_back(std::to_string(type(out).shape[a]));
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Conv2DBackpropInput:
      case OpId::Conv2DBackpropFilter:
      case OpId::MaxPool2DGrad:
      case OpId::AvgPool2DGrad:
      case OpId::MaxPool2DGradGrad: {
        // NHWC operands (and conv2d_backprop_input's kernel) whose batch alone may be open; two
        // batched operands must agree on it. The filter's gradient has no batch.
        std::vector<std::string> batches;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          const bool batched = !(n.op == OpId::Conv2DBackpropInput && i == 1);
          const auto& d = inDims(int(i));
          for (size_t a = batched ? 1 : 0; a < d.size(); ++a)
            if (!isLiteral(d[a])) unsupported(n, "only its batch size may be known only at run time");
          if (batched) batches.push_back(d[0]);
        }
        if (batches.size() == 2 && batches[0] != batches[1])
          check(n, batches[0] + " == " + batches[1],
                "\"" + std::string(ops::opName(n.op)) + ": the operands' batch sizes differ\"");
        if (n.op == OpId::Conv2DBackpropFilter) return known(n, out);
        std::vector<std::string> r{dim(out, 0, batches[0])};
        for (int a = 1; a < 4; ++a) r.push_back(std::to_string(type(out).shape[a]));
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Attention:
      case OpId::AttentionGrad: {
        // The leading (batch) axes of q, k and v may be open and must agree; the lengths, depths
        // and the mask are static. The gradient's results have the shapes of q, k and v.
        for (int i = 0; i < int(n.inputs.size()); ++i) {
          const auto& d = inDims(i);
          const bool batched = i < 3 || (n.op == OpId::AttentionGrad && i < 5);
          for (size_t a = batched ? d.size() - 2 : 0; a < d.size(); ++a)
            if (!isLiteral(d[a])) unsupported(n, "only its batch axes may have sizes known only at run time");
          if (batched)
            for (size_t a = 0; a + 2 < d.size(); ++a)
              if (d[a] != inDims(0)[a])
                check(n, d[a] + " == " + inDims(0)[a], "\"" + std::string(ops::opName(n.op)) + ": the batch axes differ\"");
        }
        if (n.op == OpId::AttentionGrad) {
          for (int i = 0; i < 3; ++i) same(n.outputs[size_t(i)], n.inputs[size_t(i)]);
          return;
        }
        std::vector<std::string> r = inDims(0);
        r.back() = inDims(2).back();
        for (size_t a = 0; a < r.size(); ++a) r[a] = dim(out, int(a), r[a]);
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::OneHot: {
        std::vector<std::string> r;
        for (size_t a = 0; a < inDims(0).size(); ++a) r.push_back(dim(out, int(a), inDims(0)[a]));
        r.push_back(std::to_string(n.attrs.i("depth")));
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::Take: {
        const auto &x = inDims(0), &idx = inDims(1);
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += int64_t(x.size());
        std::vector<std::string> r;
        for (int64_t a = 0; a < axis; ++a) r.push_back(x[size_t(a)]);
        for (const auto& d : idx) r.push_back(d);
        for (size_t a = size_t(axis) + 1; a < x.size(); ++a) r.push_back(x[a]);
        for (size_t a = 0; a < r.size(); ++a) r[a] = dim(out, int(a), r[a]);
        dims_[size_t(out)] = r;
        return;
      }
      case OpId::AssignVariable:
      case OpId::Print: return;
      case OpId::BroadcastTo:
        broadcast(n, out, n.inputs);  // the target's sizes are in the graph's type
        return;
      default:
        for (int o : n.outputs) known(n, o);
        return;
    }
  }

  // What a getitem selects, from its input's static shape (the interpreter's own rule).
  ops::impl::Selection selectionOf(const Node& n) const {
    const Shape& s = type(n.inputs[0]).shape;
    for (int64_t d : s)
      if (d == rt::kUnknownDim) unsupported(n, "indexing a tensor whose sizes are known only at run time");
    return ops::impl::selection(s, ops::decodeSubscripts(n.attrs.ints("subs")));
  }

  // A conv or pool node's (or its gradient's) window geometry, the forward op's, as a C++
  // expression; the batch size is the first operand's.
  std::string geometry(const Node& n) const {
    auto pair = [&](const char* k) { const auto& v = n.attrs.ints(k); return std::array<int64_t, 2>{v[0], v[1]}; };
    const Shape& s0 = type(n.inputs[0]).shape;
    auto conv = [&](const Shape& xs, const Shape& ws) {
      return ops::impl::conv2dGeometry(xs, ws, pair("strides"), n.attrs.s("padding"), pair("dilation"));
    };
    auto pool = [&](const Shape& xs) {
      return ops::impl::pool2dGeometry(xs, pair("pool"), pair("strides"), n.attrs.s("padding"));
    };
    rt::Window2D g;
    switch (n.op) {
      case OpId::Conv2D: g = conv(Shape{1, s0[1], s0[2], s0[3]}, type(n.inputs[1]).shape); break;
      case OpId::Conv2DBackpropInput: {  // (dy, kernel)
        const Shape& ws = type(n.inputs[1]).shape;
        const auto size = pair("input_size");
        g = conv(Shape{1, size[0], size[1], ws[2]}, ws);
        break;
      }
      case OpId::Conv2DBackpropFilter: {  // (x, dy)
        const auto size = pair("kernel_size");
        g = conv(Shape{1, s0[1], s0[2], s0[3]}, Shape{size[0], size[1], s0[3], type(n.inputs[1]).shape[3]});
        break;
      }
      case OpId::AvgPool2DGrad: {  // (dy)
        const auto size = pair("input_size");
        g = pool(Shape{1, size[0], size[1], s0[3]});
        break;
      }
      default: g = pool(Shape{1, s0[1], s0[2], s0[3]}); break;  // the pools, max_pool2d_grad(_grad) (x, ...)
    }
    auto i = [](int64_t v) { return std::to_string(v); };
    return "weft::rt::Window2D{" + dims_[size_t(n.inputs[0])][0] + ", " + i(g.h) + ", " + i(g.w) + ", " + i(g.c) + ", " +
           i(g.kh) + ", " + i(g.kw) + ", " + i(g.sh) + ", " + i(g.sw) + ", " + i(g.dh) + ", " + i(g.dw) + ", " +
           i(g.padTop) + ", " + i(g.padLeft) + ", " + i(g.oh) + ", " + i(g.ow) + "}";
  }

  // A transpose's permutation; none given reverses the axes, as NumPy's.
  static std::vector<int> permOf(const Node& n, int rank) {
    const auto& given = n.attrs.ints("perm");
    std::vector<int> perm;
    for (int a = 0; a < rank; ++a)
      perm.push_back(given.empty() ? rank - 1 - a : int(given[size_t(a)] < 0 ? given[size_t(a)] + rank : given[size_t(a)]));
    return perm;
  }

  std::vector<bool> reducedAxes(const Node& n, int rank) const {
    std::vector<bool> red(size_t(rank), false);
    if (n.op == OpId::ArgMax || n.op == OpId::ArgMin) {
      int64_t a = n.attrs.i("axis");
      red[size_t(a < 0 ? a + rank : a)] = true;
      return red;
    }
    const auto& axes = n.attrs.ints("axes");
    if (axes.empty()) red.assign(size_t(rank), true);
    for (int64_t a : axes) red[size_t(a < 0 ? a + rank : a)] = true;
    return red;
  }

  // --- the memory plan: which values own arena bytes, which alias others ---

  void layout(MemoryPlan& plan) {
    // Decided before planning: constants, variables and views need no bytes of their own.
    std::function<void(const Block&)> mark = [&](const Block& b) {
      for (const auto& n : b.nodes) {
        for (const auto& inner : n.blocks) mark(inner);
        markNode(n);
      }
    };
    mark(g_.body);
    for (auto& [id, group] : groups_) fuseGroup(group);
    plan = planMemory(g_, in_);
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
        if (pass == 1)
          layout_ << "  " << t << "* v" << v << " = reinterpret_cast<" << t << "*>(v" << root << ");\n";
        else if (plan.slotOf[v] >= 0)
          layout_ << "  " << t << "* v" << v << " = reinterpret_cast<" << t << "*>(arena + slot" << plan.slotOf[v] << ");\n";
        else
          layout_ << "  " << t << "* v" << v << " = " << ptr_[v] << ";\n";
      }
  }

  void own(int v) {
    in_.owned[size_t(v)] = true;
    declared_[size_t(v)] = true;
  }
  void alias(int v, int of) {
    in_.aliasOf[size_t(v)] = of;
    declared_[size_t(v)] = true;
  }

  // A group of the fuse-elementwise pass runs as one loop when its sizes agree: every result of
  // the group's size, every input from outside it that size or a single element. Its results
  // used only inside it then need no memory (the others are written as the loop goes), and its
  // inputs live until its end.
  void fuseGroup(const std::vector<const Node*>& group) {
    const int out = group.back()->outputs[0];
    const auto& d = dims_[size_t(out)];
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

  void markNode(const Node& n) {
    if (declared_.empty()) declared_.assign(g_.values.size(), false);
    if (n.attrs.has("fuse")) groups_[n.attrs.i("fuse")].push_back(&n);
    for (int p : g_.body.params) declared_[size_t(p)] = true;
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    switch (n.op) {
      case OpId::Constant: {
        const Tensor& t = n.attrs.tensor("value");
        std::string name = "c" + std::to_string(out);
        constants_ << "alignas(64) const " << (t.dtype() == DType::Bool ? "bool" : cppType(t.dtype())) << " " << name
                   << "[" << std::max<int64_t>(1, t.numel()) << "] = {";
        for (int64_t i = 0; i < t.numel(); ++i) constants_ << (i ? ", " : "") << literal(t, i);
        if (t.numel() == 0) constants_ << "0";
        constants_ << "};\n";
        ptr_[size_t(out)] = "const_cast<" + std::string(cppType(t.dtype())) + "*>(" + name + ")";
        declared_[size_t(out)] = true;
        return;
      }
      case OpId::ReadVariable: {
        int slot = int(n.attrs.i("var"));
        if (vars_.copiedReads.count(&n)) own(out);  // a copy: a later assignment must not change it
        else {
          ptr_[size_t(out)] = "st." + unit_.variables[size_t(e_.variables[size_t(slot)])].ident;
          declared_[size_t(out)] = true;
        }
        return;
      }
      case OpId::Reshape:
      case OpId::ExpandDims:
      case OpId::Squeeze:
        return alias(out, n.inputs[0]);
      case OpId::GetItem:
        if (selectionOf(n).whole) return alias(out, n.inputs[0]);
        return own(out);
      case OpId::Conv2D: {
        own(out);
        workspaces_.push_back("size_t(weft::rt::conv2dWorkspaceSize<" + T(out) + ">(" + geometry(n) + ", " +
                              std::to_string(type(n.inputs[1]).shape[3]) + ")) * sizeof(" + T(out) + ")");
        return;
      }
      case OpId::Conv2DBackpropInput:
      case OpId::Conv2DBackpropFilter: {
        own(out);
        const std::string size = n.op == OpId::Conv2DBackpropInput ? "conv2dBackpropInputWorkspaceSize"
                                                                   : "conv2dBackpropFilterWorkspaceSize";
        workspaces_.push_back("size_t(weft::rt::" + size + "<" + T(out) + ">(" + geometry(n) + ", " +
                              std::to_string(type(n.inputs[1]).shape[3]) + ")) * sizeof(" + T(out) + ")");
        return;
      }
      case OpId::Cast:
        if (type(out).dtype == type(n.inputs[0]).dtype) return alias(out, n.inputs[0]);
        return own(out);
      case OpId::While:
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          own(n.outputs[i]);
          for (const auto& b : n.blocks) alias(b.params[i], n.outputs[i]);
        }
        return;
      case OpId::AssignVariable:
      case OpId::Print: return;
      default: break;
    }
    for (int o : n.outputs) own(o);
    // Elementwise results may take the bytes of a same-sized input that dies here.
    if (auto into = vars_.computedInto.find(out); into != vars_.computedInto.end()) {
      in_.owned[size_t(out)] = false;  // computed straight into the variable it is assigned to
      ptr_[size_t(out)] = "st." + unit_.variables[size_t(e_.variables[size_t(into->second)])].ident;
      return;
    }
    if (elementwiseInPlace(n.op) && n.outputs.size() == 1)
      for (int i : n.inputs)
        if (dims_[size_t(i)] == dims_[size_t(out)] && !constPtr_[size_t(i)] && in_.aliasOf[size_t(i)] < 0 &&
            rt::dtypeSize(type(i).dtype) == rt::dtypeSize(type(out).dtype) && in_.owned[size_t(i)]) {
          in_.inPlace[size_t(out)] = i;
          in_.sameSize[size_t(out)] = true;
          break;
        }
    // The workspaces of the op table's column, from the runtime functions that compute it.
    if (n.op == OpId::MatMul) {
      const ops::MatmulTransposes t = ops::transposes(n.attrs);
      workspaces_.push_back("weft::rt::matmulWorkspaceBytes<" + T(out) + ">(" + shapeList(dims_[size_t(n.inputs[0])]) +
                            ", " + shapeList(dims_[size_t(n.inputs[1])]) + ", " + (t.a ? "true" : "false") + ", " +
                            (t.b ? "true" : "false") + ")");
    }
    if (isReduce(n.op))
      workspaces_.push_back("weft::rt::reduceWorkspaceBytes(" + numel(n.inputs[0]) + ", " +
                            std::to_string(rt::dtypeSize(type(out).dtype)) + ")");
  }

  std::string literal(const Tensor& t, int64_t i) const {
    switch (t.dtype()) {
      case DType::F32: {
        float f = t.data<float>()[i];
        if (std::isnan(f)) return "std::numeric_limits<float>::quiet_NaN()";
        if (std::isinf(f)) return f < 0 ? "-std::numeric_limits<float>::infinity()" : "std::numeric_limits<float>::infinity()";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%af", double(f));
        return buf;
      }
      case DType::F64: {
        double f = t.data<double>()[i];
        if (std::isnan(f)) return "std::numeric_limits<double>::quiet_NaN()";
        if (std::isinf(f)) return f < 0 ? "-std::numeric_limits<double>::infinity()" : "std::numeric_limits<double>::infinity()";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%a", f);
        return buf;
      }
      case DType::I32: return t.data<int32_t>()[i] == INT32_MIN ? "INT32_MIN" : std::to_string(t.data<int32_t>()[i]);
      case DType::I64: return t.data<int64_t>()[i] == INT64_MIN ? "INT64_MIN" : std::to_string(t.data<int64_t>()[i]) + "LL";
      case DType::Bool: return t.data<bool>()[i] ? "true" : "false";
    }
    return "0";
  }

  // --- the nodes ---

  std::string pad(int depth) const { return std::string(size_t(2 * depth), ' '); }

  void nodes(const Block& b, int depth) {
    for (const auto& n : b.nodes) {
      if (skip_.count(&n)) continue;
      auto f = fused_.find(&n);
      if (f != fused_.end()) fusedLoop(f->second, depth);
      else node(n, depth);
    }
  }

  // The kernel header a node's code calls.
  static std::string headerOf(OpId op) {
    if (isUnary(op) || op == OpId::Cast) return "unary.h";
    if (isBinary(op) || op == OpId::Where || op == OpId::Clip) return "binary.h";
    if (isReduce(op)) return "reduce.h";
    switch (op) {
      case OpId::ArgMax:
      case OpId::ArgMin: return "arg_reduce.h";
      case OpId::MatMul: return "matmul.h";
      case OpId::Transpose:
      case OpId::BroadcastTo:
      case OpId::GetItem:
      case OpId::SetItem: return "copy.h";
      case OpId::Concat:
      case OpId::Stack:
      case OpId::Split:
      case OpId::OneHot:
      case OpId::Take: return "layout_ops.h";
      case OpId::Print: return "format.h";
      case OpId::RandomNormal:
      case OpId::RandomUniform: return "random.h";
      case OpId::Conv2D: return "conv.h";
      case OpId::MaxPool2D:
      case OpId::AvgPool2D:
      case OpId::MaxPool2DGrad:
      case OpId::AvgPool2DGrad:
      case OpId::MaxPool2DGradGrad: return "pool.h";
      case OpId::Conv2DBackpropInput:
      case OpId::Conv2DBackpropFilter: return "conv_grad.h";
      default: return "compiled.h";
    }
  }

  // One loop over chunks of the group's elements; each node a kernel call on a chunk.
  void fusedLoop(const std::vector<const Node*>& group, int depth) {
    headers_.insert("unary.h");
    headers_.insert("binary.h");
    const std::string p = pad(depth);
    const int out = group.back()->outputs[0];
    code_ << p << "// fused:";
    for (const Node* n : group) code_ << " " << ops::opName(n->op);
    code_ << " -> " << graph::typeText(type(out)) << "   (" << where(*group.front()) << "-" << group.back()->loc.line << ")\n";
    for (const Node* n : group)
      for (const auto& [cond, msg] : checks_[n])
        code_ << p << "if (!(" << cond << ")) return fail(\"" << where(*n) << ": \" + std::string(" << msg << "));\n";
    std::map<int, std::string> chunk;  // value -> its chunk buffer
    code_ << p << "for (int64_t i0 = 0, total = " << numel(out) << "; i0 < total; i0 += 256) {\n"
          << p << "  const int64_t m = std::min<int64_t>(256, total - i0);\n";
    for (const Node* n : group) {
      int v = n->outputs[0];
      std::string dst;
      if (n == group.back() || declared_[size_t(v)]) {
        dst = ptr(v) + " + i0";
      } else {
        dst = "t" + std::to_string(v);
        code_ << p << "  alignas(64) " << T(v) << " " << dst << "[256];\n";
        chunk[v] = dst;
      }
      auto src = [&](int i) -> std::pair<std::string, std::string> {  // pointer, stride
        if (chunk.count(i)) return {chunk[i], "1"};
        if (numel(i) == "1" && numel(out) != "1") return {ptr(i), "0"};
        return {ptr(i) + " + i0", "1"};
      };
      if (isUnary(n->op)) {
        code_ << p << "  weft::rt::unaryKernel<weft::rt::" << functorOf(n->op) << ">(" << src(n->inputs[0]).first << ", "
              << dst << ", m);\n";
      } else {
        const ops::BinaryRule rule = binaryRule(n->op);
        if (rt::isInt(type(n->inputs[1]).dtype) && (rule == ops::BinaryRule::IntDiv || rule == ops::BinaryRule::Power)) {
          auto [b, sb] = src(n->inputs[1]);
          code_ << p << "  if (std::string why = weft::rt::intOperandError(" << b << ", " << (sb == "0" ? "1" : "m") << ", "
                << (rule == ops::BinaryRule::Power ? "true" : "false") << "); !why.empty()) return fail(\"" << where(*n)
                << ": \" + why);\n";
        }
        auto [a, sa] = src(n->inputs[0]);
        auto [b, sb] = src(n->inputs[1]);
        code_ << p << "  weft::rt::binaryRow<weft::rt::" << functorOf(n->op) << ">(" << a << ", " << sa << ", " << b << ", "
              << sb << ", " << dst << ", m);\n";
      }
    }
    code_ << p << "}\n";
  }

  void node(const Node& n, int depth) {
    const std::string p = pad(depth);
    code_ << p << "// " << ops::opName(n.op);
    if (!n.outputs.empty()) code_ << " -> " << graph::typeText(type(n.outputs[0]));
    code_ << "   (" << where(n) << ")\n";
    for (const auto& [cond, msg] : checks_[&n])
      code_ << p << "if (!(" << cond << ")) return fail(\"" << where(n) << ": \" + std::string(" << msg << "));\n";
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    auto in = [&](int i) { return ptr(n.inputs[size_t(i)]); };
    auto sh = [&](int v) { return shapeList(dims_[size_t(v)]); };
    headers_.insert(headerOf(n.op));
    if (isUnary(n.op)) {
      code_ << p << "weft::rt::unaryKernel<weft::rt::" << functorOf(n.op) << ">(" << in(0) << ", " << ptr(out) << ", "
            << numel(out) << ");\n";
      return;
    }
    if (isBinary(n.op)) {
      const ops::BinaryRule rule = binaryRule(n.op);
      if (rt::isInt(type(n.inputs[1]).dtype) && (rule == ops::BinaryRule::IntDiv || rule == ops::BinaryRule::Power))
        code_ << p << "if (std::string why = weft::rt::intOperandError(" << in(1) << ", " << numel(n.inputs[1]) << ", "
              << (rule == ops::BinaryRule::Power ? "true" : "false") << "); !why.empty()) return fail(\"" << where(n)
              << ": \" + why);\n";
      code_ << p << "weft::rt::binaryKernel<weft::rt::" << functorOf(n.op) << ">(" << in(0) << ", " << sh(n.inputs[0])
            << ", " << in(1) << ", " << sh(n.inputs[1]) << ", " << ptr(out) << ", " << sh(out) << ");\n";
      return;
    }
    if (isReduce(n.op)) return reduce(n, depth);
    switch (n.op) {
      case OpId::Constant: return;
      case OpId::ReadVariable:
        if (in_.owned[size_t(out)])
          code_ << p << "copy(" << ptr(out) << ", st."
                << unit_.variables[size_t(e_.variables[size_t(n.attrs.i("var"))])].ident << ", " << bytes(out) << ");\n";
        return;
      case OpId::AssignVariable:
        code_ << p << "copy(st." << unit_.variables[size_t(e_.variables[size_t(n.attrs.i("var"))])].ident << ", " << in(0)
              << ", " << bytes(n.inputs[0]) << ");\n";
        return;
      case OpId::Cast:
        if (in_.aliasOf[size_t(out)] < 0)
          code_ << p << "weft::rt::castKernel(" << in(0) << ", " << ptr(out) << ", " << numel(out) << ");\n";
        return;
      case OpId::Reshape:
      case OpId::ExpandDims:
      case OpId::Squeeze: return;  // views of their input
      case OpId::MatMul: return matmul(n, depth);
      case OpId::Where:
      case OpId::Clip:
        code_ << p << "weft::rt::ternaryKernel<weft::rt::" << (n.op == OpId::Where ? "Where" : "Clip") << ">(" << in(0)
              << ", " << sh(n.inputs[0]) << ", " << in(1) << ", " << sh(n.inputs[1]) << ", " << in(2) << ", "
              << sh(n.inputs[2]) << ", " << ptr(out) << ", " << sh(out) << ");\n";
        return;
      case OpId::Transpose: {
        code_ << p << "{\n" << p << "  const int perm[] = {";
        std::vector<int> perm = permOf(n, type(n.inputs[0]).shape.rank());
        for (size_t a = 0; a < perm.size(); ++a) code_ << (a ? ", " : "") << perm[a];
        if (perm.empty()) code_ << "0";
        code_ << "};\n" << p << "  weft::rt::permuteKernel(" << in(0) << ", " << sh(n.inputs[0]) << ", perm, " << ptr(out)
              << ");\n" << p << "}\n";
        return;
      }
      case OpId::BroadcastTo:
        code_ << p << "weft::rt::broadcastToKernel(" << in(0) << ", " << sh(n.inputs[0]) << ", " << ptr(out) << ", "
              << sh(out) << ");\n";
        return;
      case OpId::Concat: {
        int rank = type(out).shape.rank();
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += rank;
        const auto& od = dims_[size_t(out)];
        std::string outer = product(std::vector<std::string>(od.begin(), od.begin() + axis));
        code_ << p << "{\n" << p << "  const " << T(out) << "* parts[] = {";
        for (size_t i = 0; i < n.inputs.size(); ++i) code_ << (i ? ", " : "") << in(int(i));
        code_ << "};\n" << p << "  const int64_t chunks[] = {";
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          const auto& d = dims_[size_t(n.inputs[i])];
          code_ << (i ? ", " : "") << product(std::vector<std::string>(d.begin() + axis, d.end()));
        }
        code_ << "};\n" << p << "  weft::rt::concatKernel(parts, chunks, " << n.inputs.size() << ", " << outer << ", "
              << ptr(out) << ");\n" << p << "}\n";
        return;
      }
      case OpId::ArgMax:
      case OpId::ArgMin: {
        const auto& d = dims_[size_t(n.inputs[0])];
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += int64_t(d.size());
        std::string O = product(std::vector<std::string>(d.begin(), d.begin() + axis)), R = d[size_t(axis)],
                    I = product(std::vector<std::string>(d.begin() + axis + 1, d.end()));
        code_ << p << "if (" << R << " == 0 && " << O << " * " << I << " > 0) return fail(\"" << where(n)
              << ": " << ops::opName(n.op) << " of an empty axis\");\n";
        code_ << p << "if (" << O << " * " << I << " > 0) weft::rt::argReduceKernel<" << (n.op == OpId::ArgMax ? "true" : "false")
              << ">(" << in(0) << ", " << ptr(out) << ", " << O << ", " << R << ", " << I << ");\n";
        return;
      }
      case OpId::ShapeOf: {
        const auto& d = dims_[size_t(n.inputs[0])];
        for (size_t a = 0; a < d.size(); ++a) code_ << p << ptr(out) << "[" << a << "] = " << d[a] << ";\n";
        return;
      }
      case OpId::GetItem: {
        ops::impl::Selection sel = selectionOf(n);
        if (sel.whole) return;  // a view
        auto st = rt::stridesOf(sel.shape);
        code_ << p << "{\n" << p << "  const int64_t from[] = {";
        for (int a = 0; a < sel.shape.rank(); ++a) code_ << (a ? ", " : "") << sel.strides[a];
        code_ << (sel.shape.rank() ? "" : "0") << "}, to[] = {";
        for (int a = 0; a < sel.shape.rank(); ++a) code_ << (a ? ", " : "") << st[size_t(a)];
        code_ << (sel.shape.rank() ? "" : "0") << "};\n"
              << p << "  weft::rt::stridedCopy(" << in(0) << " + " << sel.base << ", from, " << ptr(out) << ", to, "
              << sh(out) << ");\n" << p << "}\n";
        return;
      }
      case OpId::Stack: {  // the inputs, each one chunk per outer index: concat's kernel
        int64_t axis = n.attrs.i("axis");
        const auto& d = dims_[size_t(n.inputs[0])];
        if (axis < 0) axis += int64_t(d.size()) + 1;
        std::string outer = product(std::vector<std::string>(d.begin(), d.begin() + axis)),
                    chunk = product(std::vector<std::string>(d.begin() + axis, d.end()));
        code_ << p << "{\n" << p << "  const " << T(out) << "* parts[] = {";
        for (size_t i = 0; i < n.inputs.size(); ++i) code_ << (i ? ", " : "") << in(int(i));
        code_ << "};\n" << p << "  const int64_t chunks[] = {";
        for (size_t i = 0; i < n.inputs.size(); ++i) code_ << (i ? ", " : "") << chunk;
        code_ << "};\n" << p << "  weft::rt::concatKernel(parts, chunks, " << n.inputs.size() << ", " << outer << ", "
              << ptr(out) << ");\n" << p << "}\n";
        return;
      }
      case OpId::Split: {
        int64_t axis = n.attrs.i("axis");
        const auto& d = dims_[size_t(n.inputs[0])];
        if (axis < 0) axis += int64_t(d.size());
        std::string outer = product(std::vector<std::string>(d.begin(), d.begin() + axis)),
                    inner = product(std::vector<std::string>(d.begin() + axis + 1, d.end()));
        int64_t offset = 0;
        for (size_t k = 0; k < n.outputs.size(); ++k) {
          int64_t size = n.attrs.ints("sizes")[k];
          code_ << p << "weft::rt::splitKernel(" << in(0) << ", " << outer << ", " << d[size_t(axis)] << " * " << inner << ", "
                << offset << " * " << inner << ", " << size << " * " << inner << ", " << ptr(n.outputs[k]) << ");\n";
          offset += size;
        }
        return;
      }
      case OpId::OneHot:
        code_ << p << "weft::rt::oneHotKernel(" << in(0) << ", " << numel(n.inputs[0]) << ", " << n.attrs.i("depth") << ", "
              << ptr(out) << ");\n";
        return;
      case OpId::Take: {
        const auto& x = dims_[size_t(n.inputs[0])];
        int64_t axis = n.attrs.i("axis");
        if (axis < 0) axis += int64_t(x.size());
        std::string outer = product(std::vector<std::string>(x.begin(), x.begin() + axis)),
                    inner = product(std::vector<std::string>(x.begin() + axis + 1, x.end()));
        code_ << p << "if (std::string why = weft::rt::gatherIndexError(" << in(1) << ", " << numel(n.inputs[1]) << ", "
              << x[size_t(axis)] << ", " << axis << "); !why.empty()) return fail(\"" << where(n) << ": \" + why);\n"
              << p << "weft::rt::gatherKernel(" << in(0) << ", " << outer << ", " << x[size_t(axis)] << ", " << inner << ", "
              << in(1) << ", " << numel(n.inputs[1]) << ", " << ptr(out) << ");\n";
        return;
      }
      case OpId::SetItem: {  // a copy of x with the selection overwritten by the value, broadcast
        const Shape& xs = type(n.inputs[0]).shape;
        for (int64_t d : xs)
          if (d == rt::kUnknownDim) unsupported(n, "indexing a tensor whose sizes are known only at run time");
        ops::impl::Selection sel = ops::impl::selection(xs, ops::decodeSubscripts(n.attrs.ints("subs")));
        int64_t vs[rt::kMaxRank] = {};
        rt::broadcastStrides(type(n.inputs[1]).shape, sel.shape, vs);
        code_ << p << "copy(" << ptr(out) << ", " << in(0) << ", " << bytes(out) << ");\n"
              << p << "{\n" << p << "  const int64_t from[] = {";
        for (int a = 0; a < sel.shape.rank(); ++a) code_ << (a ? ", " : "") << vs[a];
        code_ << (sel.shape.rank() ? "" : "0") << "}, to[] = {";
        for (int a = 0; a < sel.shape.rank(); ++a) code_ << (a ? ", " : "") << sel.strides[a];
        code_ << (sel.shape.rank() ? "" : "0") << "};\n"
              << p << "  weft::rt::stridedCopy(" << in(1) << ", from, " << ptr(out) << " + " << sel.base << ", to, "
              << shapeList([&] {
                   std::vector<std::string> v;
                   for (int64_t d : sel.shape) v.push_back(std::to_string(d));
                   return v;
                 }()) << ");\n" << p << "}\n";
        return;
      }
      case OpId::RandomNormal:
      case OpId::RandomUniform: {  // the state's stream, advanced as the interpreter's is
        const bool normal = n.op == OpId::RandomNormal;
        code_ << p << "weft::rt::" << (normal ? "normalKernel(" : "uniformKernel(") << ptr(out) << ", " << numel(out)
              << ", st.random_key, st.random_counter, "
              << graph::floatText(n.attrs.f(normal ? "mean" : "minval")) << ", "
              << graph::floatText(n.attrs.f(normal ? "stddev" : "maxval")) << ");\n"
              << p << "st.random_counter += uint64_t(weft::rt::blocksFor<" << T(out) << ">(" << numel(out) << "));\n";
        return;
      }
      case OpId::Conv2D:
        code_ << p << "weft::rt::conv2d(" << in(0) << ", " << in(1) << ", " << ptr(out) << ", " << geometry(n) << ", "
              << type(n.inputs[1]).shape[3] << ", reinterpret_cast<" << T(out) << "*>(ws));\n";
        return;
      case OpId::MaxPool2D:
      case OpId::AvgPool2D:
        code_ << p << "weft::rt::pool2d(" << (n.op == OpId::MaxPool2D ? "true" : "false") << ", " << in(0) << ", "
              << ptr(out) << ", " << geometry(n) << ");\n";
        return;
      case OpId::Conv2DBackpropInput:  // (dy, kernel) -> dx
      case OpId::Conv2DBackpropFilter:  // (x, dy) -> dkernel
        code_ << p << "weft::rt::" << (n.op == OpId::Conv2DBackpropInput ? "conv2dBackpropInput(" : "conv2dBackpropFilter(")
              << in(0) << ", " << in(1) << ", " << ptr(out) << ", " << geometry(n) << ", " << type(n.inputs[1]).shape[3]
              << ", reinterpret_cast<" << T(out) << "*>(ws));\n";
        return;
      case OpId::MaxPool2DGrad:  // (x, dy) -> dx
      case OpId::MaxPool2DGradGrad:  // (x, gx) -> the pooled shape
        code_ << p << "weft::rt::" << (n.op == OpId::MaxPool2DGrad ? "maxPool2dGrad(" : "maxPool2dGradGrad(") << in(0)
              << ", " << in(1) << ", " << ptr(out) << ", " << geometry(n) << ");\n";
        return;
      case OpId::AvgPool2DGrad:  // (dy) -> dx
        code_ << p << "weft::rt::avgPool2dGrad(" << in(0) << ", " << ptr(out) << ", " << geometry(n) << ");\n";
        return;
      case OpId::Attention:  // (q, k, v[, mask]) -> out
      case OpId::AttentionGrad: {  // (q, k, v, out, dout[, mask]) -> dq, dk, dv
        headers_.insert("attention.h");
        const bool grad = n.op == OpId::AttentionGrad;
        const size_t maskAt = grad ? 5 : 3;
        const bool masked = n.inputs.size() > maskAt;
        const double scale = ops::impl::attentionScale(n.attrs, type(n.inputs[0]).shape.back());
        code_ << p << "{\n"
              << p << "  const Shape maskShape = " << (masked ? sh(n.inputs[maskAt]) : "Shape{}") << ";\n"
              << p << "  const weft::rt::Attention g = weft::rt::attentionGeometry(" << sh(n.inputs[0]) << ", "
              << sh(n.inputs[1]) << ", " << sh(n.inputs[2]) << ", " << (masked ? "&maskShape" : "nullptr") << ", "
              << (n.attrs.b("causal") ? "true" : "false") << ", " << graph::floatText(scale) << ");\n"
              << p << "  weft::rt::" << (grad ? "attentionBackward(" : "attentionForward(") << in(0) << ", " << in(1)
              << ", " << in(2) << ", " << (masked ? in(int(maskAt)) : std::string("static_cast<const bool*>(nullptr)"));
        if (grad)
          code_ << ", " << in(3) << ", " << in(4) << ", " << ptr(n.outputs[0]) << ", " << ptr(n.outputs[1]) << ", "
                << ptr(n.outputs[2]);
        else
          code_ << ", " << ptr(out);
        code_ << ", g);\n" << p << "}\n";
        return;
      }
      case OpId::Print: return print(n, depth);
      case OpId::Cond: {
        code_ << p << "if (" << in(0) << "[0]) {\n";
        nodes(n.blocks[0], depth + 1);
        for (size_t i = 0; i < n.outputs.size(); ++i)
          code_ << p << "  copy(" << ptr(n.outputs[i]) << ", " << ptr(n.blocks[0].results[i]) << ", " << bytes(n.outputs[i]) << ");\n";
        code_ << p << "} else {\n";
        nodes(n.blocks[1], depth + 1);
        for (size_t i = 0; i < n.outputs.size(); ++i)
          code_ << p << "  copy(" << ptr(n.outputs[i]) << ", " << ptr(n.blocks[1].results[i]) << ", " << bytes(n.outputs[i]) << ");\n";
        code_ << p << "}\n";
        return;
      }
      case OpId::While: return loop(n, depth);
      default: unsupported(n, "the C++ code generator has no emitter for it yet");
    }
  }

  static ops::BinaryRule binaryRule(OpId op) {
    static const ops::BinaryRule rules[] = {
#define WEFT_RULE(F, Id, N, A, Fn, R) ops::BinaryRule::R,
        WEFT_FOR_EACH_BINARY_OP(WEFT_RULE)
#undef WEFT_RULE
    };
    return rules[int(op) - int(OpId::BinaryAdd)];
  }

  void reduce(const Node& n, int depth) {
    const std::string p = pad(depth);
    headers_.insert("unary.h");  // castKernel
    const int out = n.outputs[0], x = n.inputs[0];
    const auto& d = dims_[size_t(x)];
    std::vector<bool> red = reducedAxes(n, int(d.size()));
    std::vector<std::string> count;
    for (size_t a = 0; a < d.size(); ++a)
      if (red[a]) count.push_back(d[a]);
    std::string src = ptr(x);
    code_ << p << "{\n"
          << p << "  " << T(out) << "* scratch = reinterpret_cast<" << T(out) << "*>(static_cast<char*>(ws) + "
          << "weft::rt::reduceCastBytes(" << numel(x) << ", sizeof(" << T(out) << ")));\n";
    if (type(out).dtype != type(x).dtype) {  // sum of bools, mean of integers: cast first, as eager code does
      code_ << p << "  " << T(out) << "* cast = reinterpret_cast<" << T(out) << "*>(ws);\n"
            << p << "  weft::rt::castKernel(" << src << ", cast, " << numel(x) << ");\n";
      src = "cast";
    }
    if (n.op == OpId::ReduceMax || n.op == OpId::ReduceMin)
      code_ << p << "  if (" << product(count) << " == 0 && " << numel(out) << " > 0) return fail(\"" << where(n) << ": "
            << ops::opName(n.op) << " of an empty tensor\");\n";
    code_ << p << "  const bool reduced[] = {";
    for (size_t a = 0; a < d.size(); ++a) code_ << (a ? ", " : "") << (red[a] ? "true" : "false");
    if (d.empty()) code_ << "false";
    code_ << "};\n"
          << p << "  weft::rt::reduceKernel<weft::rt::" << functorOf(n.op) << ">(" << src << ", " << shapeList(d)
          << ", reduced, " << ptr(out) << ", scratch);\n";
    if (n.op == OpId::ReduceMean) code_ << p << "  weft::rt::meanFromSum(" << ptr(out) << ", " << numel(out) << ", " << product(count) << ");\n";
    code_ << p << "}\n";
  }

  // A product of matrices with transposed operands: its m, its k on each side, its n.
  std::array<std::string, 4> transposedSizes(const Node& n) const {
    const auto &a = dims_[size_t(n.inputs[0])], &b = dims_[size_t(n.inputs[1])];
    const bool ta = n.attrs.has("transpose_a") && n.attrs.b("transpose_a");
    const bool tb = n.attrs.has("transpose_b") && n.attrs.b("transpose_b");
    // Without transpose_a, the rows of `a` may be stacked in leading axes: m counts them all.
    std::vector<std::string> lead(a.begin(), a.end() - 1);
    std::string m = ta ? a[1] : (a.size() == 1 ? std::string("1") : product(lead));
    return {m, ta ? a[0] : a.back(), tb ? b[1] : b[0], tb ? b[0] : b[1]};
  }

  void matmul(const Node& n, int depth) {
    const std::string p = pad(depth);
    const int out = n.outputs[0];
    if (n.attrs.has("transpose_a") || n.attrs.has("transpose_b")) {
      const auto [m, k, kb, nn] = transposedSizes(n);
      code_ << p << "weft::rt::gemm(" << ptr(n.inputs[0]) << ", " << ptr(n.inputs[1]) << ", " << ptr(out) << ", " << m
            << ", " << k << ", " << nn << ", ws, false, "
            << (n.attrs.has("transpose_a") && n.attrs.b("transpose_a") ? "true" : "false") << ", "
            << (n.attrs.has("transpose_b") && n.attrs.b("transpose_b") ? "true" : "false") << ");\n";
      return;
    }
    const auto &a = dims_[size_t(n.inputs[0])], &b = dims_[size_t(n.inputs[1])];
    std::string m = a.size() == 1 ? "1" : a[a.size() - 2], k = a.back(), nn = b.size() == 1 ? "1" : b.back();
    if (n.inputs.size() == 3) {  // fused: bias rows, the product accumulated onto them, the activation
      headers_.insert("copy.h");
      headers_.insert("unary.h");
      std::string rows = "(" + numel(n.inputs[0]) + ") / std::max<int64_t>(" + k + ", 1)";
      if (k == "0") rows = product(std::vector<std::string>(a.begin(), a.end() - 1));
      code_ << p << "{\n" << p << "  const int64_t rows = " << rows << ";\n"
            << p << "  weft::rt::broadcastToKernel(" << ptr(n.inputs[2]) << ", Shape{" << nn << "}, " << ptr(out)
            << ", Shape{rows, " << nn << "});\n"
            << p << "  weft::rt::gemm(" << ptr(n.inputs[0]) << ", " << ptr(n.inputs[1]) << ", " << ptr(out) << ", rows, " << k
            << ", " << nn << ", ws, true);\n";
      const std::string& act = n.attrs.s("epilogue");
      if (!act.empty()) {
        ops::OpId id;
        ops::findOp(act, id);
        code_ << p << "  weft::rt::unaryKernel<weft::rt::" << functorOf(id) << ">(" << ptr(out) << ", " << ptr(out)
              << ", rows * " << nn << ");\n";
      }
      code_ << p << "}\n";
      return;
    }
    const auto& od = dims_[size_t(out)];
    std::vector<std::string> ab(a.begin(), a.end() - (a.size() == 1 ? 1 : 2)), bb(b.begin(), b.end() - (b.size() == 1 ? 1 : 2));
    std::vector<std::string> cb(od.begin(), od.end() - (a.size() > 1) - (b.size() > 1));
    code_ << p << "weft::rt::batchedMatmul(" << ptr(n.inputs[0]) << ", " << shapeList(ab) << ", " << ptr(n.inputs[1]) << ", "
          << shapeList(bb) << ", " << ptr(out) << ", " << shapeList(cb) << ", " << m << ", " << k << ", " << nn << ", ws);\n";
  }

  // print: the text of its format with each {} replaced by a tensor, written to stdout at once.
  void print(const Node& n, int depth) {
    const std::string p = pad(depth);
    const std::string& f = n.attrs.s("format");
    code_ << p << "{\n" << p << "  std::string line;\n";
    std::string lit;
    size_t next = 0;
    auto flush = [&] {
      if (!lit.empty()) code_ << p << "  line += " << cppString(lit) << ";\n";
      lit.clear();
    };
    for (size_t i = 0; i < f.size(); ++i) {
      char c = f[i];
      if ((c == '{' || c == '}') && i + 1 < f.size() && f[i + 1] == c) {
        lit += c;
        ++i;
      } else if (c == '{' && i + 1 < f.size() && f[i + 1] == '}') {
        flush();
        if (next < n.inputs.size()) {
          int v = n.inputs[next++];
          code_ << p << "  line += weft::rt::formatTensor(" << ptr(v) << ", weft::rt::DType::" << dtypeEnumName(type(v).dtype)
                << ", " << shapeList(dims_[size_t(v)]) << ");\n";
        }
        ++i;
      } else if (c == '{' && i + 1 < f.size() && f[i + 1] == ':') {  // an f-string field's spec
        flush();
        size_t close = f.find('}', i);
        if (next < n.inputs.size()) {
          int v = n.inputs[next++];
          code_ << p << "  {\n" << p << "    std::string field;\n"
                << p << "    if (std::string why = weft::rt::formatTensorWithSpec(" << ptr(v) << ", weft::rt::DType::"
                << dtypeEnumName(type(v).dtype) << ", " << shapeList(dims_[size_t(v)]) << ", "
                << cppString(f.substr(i + 2, close - i - 2)) << ", field); !why.empty()) return fail(\"" << where(n)
                << ": \" + why);\n" << p << "    line += field;\n" << p << "  }\n";
        }
        i = close;
      } else {
        lit += c;
      }
    }
    flush();
    code_ << p << "  std::fwrite(line.data(), 1, line.size(), stdout);\n" << p << "}\n";
  }

  // while: the loop values live in the node's outputs; each iteration's results are copied back.
  void loop(const Node& n, int depth) {
    const std::string p = pad(depth);
    const Block &cond = n.blocks[0], &body = n.blocks[1];
    for (size_t i = 0; i < n.inputs.size(); ++i)
      code_ << p << "copy(" << ptr(n.outputs[i]) << ", " << ptr(n.inputs[i]) << ", " << bytes(n.outputs[i]) << ");\n";
    code_ << p << "for (;;) {\n";
    nodes(cond, depth + 1);
    code_ << p << "  if (!" << ptr(cond.results[0]) << "[0]) break;\n";
    nodes(body, depth + 1);
    // Results that are other loop values are copied first, in an order that reads each before
    // it is overwritten; then the newly computed ones.
    std::map<int, size_t> paramIndex;
    for (size_t i = 0; i < body.params.size(); ++i) paramIndex[body.params[i]] = i;
    std::vector<size_t> pending;
    for (size_t i = 0; i < body.results.size(); ++i) {
      auto it = paramIndex.find(body.results[i]);
      if (it != paramIndex.end() && it->second != i) pending.push_back(i);
    }
    std::vector<bool> done(body.results.size(), false);
    while (!pending.empty()) {
      bool progress = false;
      for (size_t k = 0; k < pending.size(); ++k) {
        size_t i = pending[k];
        // Slot i may be overwritten once no pending copy still reads it.
        bool read = false;
        for (size_t j : pending)
          if (j != i && paramIndex[body.results[j]] == i) read = true;
        if (read) continue;
        size_t from = paramIndex[body.results[i]];
        code_ << p << "  copy(" << ptr(n.outputs[i]) << ", " << ptr(n.outputs[from]) << ", " << bytes(n.outputs[i]) << ");\n";
        done[i] = true;
        pending.erase(pending.begin() + long(k));
        progress = true;
        break;
      }
      if (!progress) unsupported(n, "its loop values are exchanged in a cycle (a, b = b, a)");
    }
    for (size_t i = 0; i < body.results.size(); ++i)
      if (!paramIndex.count(body.results[i]))
        code_ << p << "  copy(" << ptr(n.outputs[i]) << ", " << ptr(body.results[i]) << ", " << bytes(n.outputs[i]) << ");\n";
    code_ << p << "}\n";
  }

  const CompileUnit& unit_;
  const ExportGraph& e_;
  const graph::Graph& g_;
  std::vector<std::vector<std::string>> dims_;
  std::vector<std::string> ptr_;
  std::vector<bool> constPtr_, declared_;
  PlanInput in_;
  VariablePlan vars_;
  std::vector<int> uses_;  // per value: how many inputs and results name it
  std::map<const Node*, std::vector<std::pair<std::string, std::string>>> checks_;
  std::vector<std::string> workspaces_;
  std::map<int64_t, std::vector<const Node*>> groups_;          // fuse-elementwise groups
  std::map<const Node*, std::vector<const Node*>> fused_;       // by last node: a group run as one loop
  std::set<const Node*> skip_;                                  // the other nodes of those groups
  std::ostringstream pro_, layout_, code_, constants_;
  std::set<std::string> headers_;
};

}  // namespace

FunctionCode emitFunctionBody(const CompileUnit& unit, const ExportGraph& e) { return Body(unit, e).run(); }

}  // namespace weft::codegen
