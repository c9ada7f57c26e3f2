// Weft's ops in ONNX's terms (export.h). Weft's convolutions and pools are NHWC with HWIO kernels,
// ONNX's NCHW with OIHW ones: each is wrapped in the transposes between them.
#include "export.h"

#include <cstring>
#include <set>

#include "../../grammar/diagnostics.h"

namespace weft::onnx {
namespace {

using ops::OpId;
using K = Attribute::Kind;
using ops::TensorType;

ElemType elemOf(DType d) {
  switch (d) {
    case DType::F32: return ElemType::Float;
    case DType::F64: return ElemType::Double;
    case DType::I32: return ElemType::Int32;
    case DType::I64: return ElemType::Int64;
    case DType::Bool: return ElemType::Bool;
  }
  return ElemType::Float;
}

TensorData dataOf(const std::string& name, const Tensor& t) {
  TensorData d;
  d.name = name;
  d.type = elemOf(t.dtype());
  for (int i = 0; i < t.rank(); ++i) d.dims.push_back(t.shape()[i]);
  d.bytes.assign(static_cast<const char*>(t.raw()), size_t(t.bytes()));
  return d;
}

Attribute ints(const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.kind = K::Ints;
  a.ints = std::move(v);
  return a;
}
Attribute integer(const std::string& name, int64_t v) {
  Attribute a;
  a.name = name;
  a.kind = K::Int;
  a.i = v;
  return a;
}
Attribute real(const std::string& name, double v) {
  Attribute a;
  a.name = name;
  a.kind = K::Float;
  a.f = float(v);
  return a;
}
Attribute text(const std::string& name, std::string v) {
  Attribute a;
  a.name = name;
  a.kind = K::String;
  a.s = std::move(v);
  return a;
}

class Exporter {
 public:
  Exporter(const graph::Graph& g, const std::vector<Tensor>& vars) : g_(g), vars_(vars) {}

  ModelFile run() {
    auto sharded = [](const spmd::Placements& p) {
      for (const auto& q : p)
        if (!q.replicated()) return true;
      return false;
    };
    for (const auto& p : g_.placements)
      if (sharded(p)) throw WeftError("graph '" + g_.name + "' is sharded on a mesh: a sharded layout has no ONNX form");
    for (const auto& v : g_.variables)
      if (sharded(v.placements))
        throw WeftError("graph '" + g_.name + "': variable '" + v.name + "' is sharded: a sharded layout has no ONNX form");
    ModelFile m;
    m.irVersion = 8;
    m.producer = "weft";
    m.opsets[""] = 17;
    m.graph.name = g_.name;
    names_.assign(g_.values.size(), "");
    for (size_t i = 0; i < g_.body.params.size(); ++i) {
      const int id = g_.body.params[i];
      names_[size_t(id)] = "input_" + std::to_string(i);
      m.graph.inputs.push_back(info(names_[size_t(id)], g_.values[size_t(id)]));
    }
    // Initializers are named by their variables' paths, made unique (two layers' `kernel`).
    std::set<std::string> taken;
    for (size_t i = 0; i < g_.variables.size(); ++i) {
      std::string n = g_.variables[i].name.empty() ? "variable" : g_.variables[i].name;
      for (int k = 2; !taken.insert(n).second; ++k) n = g_.variables[i].name + "_" + std::to_string(k);
      variableNames_.push_back(n);
      m.graph.initializers.push_back(dataOf(n, vars_.at(i)));
    }
    for (const graph::Node& n : g_.body.nodes) node(n, m.graph);
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      const int id = g_.body.results[i];
      const std::string out = "output_" + std::to_string(i);
      add(m.graph, "Identity", {name(id)}, {out});
      m.graph.outputs.push_back(info(out, g_.values[size_t(id)]));
    }
    m.graph.initializers.insert(m.graph.initializers.end(), constants_.begin(), constants_.end());
    return m;
  }

 private:
  static ValueInfo info(const std::string& name, const TensorType& t) {
    ValueInfo v;
    v.name = name;
    v.type = elemOf(t.dtype);
    v.hasShape = true;
    for (int i = 0; i < t.shape.rank(); ++i) {
      Dim d;
      if (t.shape[i] >= 0) d.size = t.shape[i];
      else d.param = "d" + std::to_string(i);
      v.dims.push_back(d);
    }
    return v;
  }

  const std::string& name(int id) const { return names_.at(size_t(id)); }

  std::string fresh() { return "t" + std::to_string(++count_); }

  // A node; returns its first output.
  std::string add(Graph& out, const std::string& op, std::vector<std::string> in, std::vector<std::string> outs = {},
                  std::vector<Attribute> attrs = {}) {
    if (outs.empty()) outs = {fresh()};
    Node n;
    n.name = op + "_" + std::to_string(++nodes_);
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = outs;
    n.attributes = std::move(attrs);
    out.nodes.push_back(std::move(n));
    return outs[0];
  }

  std::string constant(const Tensor& t) {
    const std::string n = "const_" + std::to_string(constants_.size());
    constants_.push_back(dataOf(n, t));
    return n;
  }
  std::string int64s(const std::vector<int64_t>& v) {
    Tensor t = Tensor::empty(DType::I64, Shape{int64_t(v.size())});
    std::memcpy(t.raw(), v.data(), v.size() * sizeof(int64_t));
    return constant(t);
  }
  std::string scalarLike(double v, DType d) {
    Tensor t = Tensor::empty(d, Shape{});
    switch (d) {
      case DType::F32: *t.data<float>() = float(v); break;
      case DType::F64: *t.data<double>() = v; break;
      case DType::I32: *t.data<int32_t>() = int32_t(v); break;
      case DType::I64: *t.data<int64_t>() = int64_t(v); break;
      case DType::Bool: *t.data<bool>() = v != 0; break;
    }
    return constant(t);
  }

  [[noreturn]] void refuse(const graph::Node& n, const std::string& why) {
    std::string where = n.loc.file.empty() ? "" : " (" + n.loc.file + ":" + std::to_string(n.loc.line) + ")";
    throw WeftError("graph '" + g_.name + "': " + ops::opDef(n.op).name + where + " " + why);
  }

  std::vector<int64_t> axes(const graph::Node& n, int rank) {
    std::vector<int64_t> a = n.attrs.ints("axes");
    if (a.empty())
      for (int i = 0; i < rank; ++i) a.push_back(i);
    return a;
  }

  std::string nchw(Graph& out, const std::string& x) { return add(out, "Transpose", {x}, {}, {ints("perm", {0, 3, 1, 2})}); }
  std::string nhwc(Graph& out, const std::string& x, const std::string& to) {
    return add(out, "Transpose", {x}, {to}, {ints("perm", {0, 2, 3, 1})});
  }

  void node(const graph::Node& n, Graph& out) {
    for (int id : n.outputs) names_[size_t(id)] = "v" + std::to_string(id);
    std::vector<std::string> in;
    for (int id : n.inputs) in.push_back(name(id));
    const std::string y = n.outputs.empty() ? "" : name(n.outputs[0]);
    const TensorType& outType = n.outputs.empty() ? TensorType{} : g_.values[size_t(n.outputs[0])];
    const TensorType inType = n.inputs.empty() ? TensorType{} : g_.values[size_t(n.inputs[0])];
    auto simple = [&](const char* op, std::vector<Attribute> attrs = {}) { add(out, op, in, {y}, std::move(attrs)); };
    switch (n.op) {
      case OpId::Constant: {
        // A constant is an initializer under the value's own name.
        TensorData d = dataOf(y, n.attrs.tensor("value"));
        constants_.push_back(std::move(d));
        return;
      }
      case OpId::ReadVariable: {
        add(out, "Identity", {variableNames_.at(size_t(n.attrs.i("var")))}, {y});
        return;
      }
      case OpId::UnaryNeg: return simple("Neg");
      case OpId::UnaryAbs: return simple("Abs");
      case OpId::UnaryExp: return simple("Exp");
      case OpId::UnaryLog: return simple("Log");
      case OpId::UnarySqrt: return simple("Sqrt");
      case OpId::UnaryRsqrt: add(out, "Reciprocal", {add(out, "Sqrt", in)}, {y}); return;
      case OpId::UnaryTanh: return simple("Tanh");
      case OpId::UnarySigmoid: return simple("Sigmoid");
      case OpId::UnaryRelu: return simple("Relu");
      case OpId::UnaryErf: return simple("Erf");
      case OpId::UnarySin: return simple("Sin");
      case OpId::UnaryCos: return simple("Cos");
      case OpId::UnaryFloor: return simple("Floor");
      case OpId::UnaryCeil: return simple("Ceil");
      case OpId::UnaryRound: return simple("Round");
      case OpId::UnarySign: return simple("Sign");
      case OpId::UnaryNot: return simple("Not");
      case OpId::UnaryLog1p: add(out, "Log", {add(out, "Add", {in[0], scalarLike(1, inType.dtype)})}, {y}); return;
      case OpId::UnaryExpm1: add(out, "Sub", {add(out, "Exp", in), scalarLike(1, inType.dtype)}, {y}); return;
      case OpId::UnarySquare: add(out, "Mul", {in[0], in[0]}, {y}); return;
      case OpId::BinaryAdd: return simple("Add");
      case OpId::BinarySub: return simple("Sub");
      case OpId::BinaryMul: return simple("Mul");
      case OpId::BinaryDiv: {
        if (inType.dtype == outType.dtype) return simple("Div");
        // Weft's integer true division is a float one.
        Attribute to = integer("to", int64_t(elemOf(outType.dtype)));
        add(out, "Div", {add(out, "Cast", {in[0]}, {}, {to}), add(out, "Cast", {in[1]}, {}, {to})}, {y});
        return;
      }
      case OpId::BinaryPow: return simple("Pow");
      case OpId::BinaryMaximum: return simple("Max");
      case OpId::BinaryMinimum: return simple("Min");
      case OpId::BinaryEq: return simple("Equal");
      case OpId::BinaryNe: add(out, "Not", {add(out, "Equal", in)}, {y}); return;
      case OpId::BinaryLt: return simple("Less");
      case OpId::BinaryLe: return simple("LessOrEqual");
      case OpId::BinaryGt: return simple("Greater");
      case OpId::BinaryGe: return simple("GreaterOrEqual");
      case OpId::BinaryAnd: return simple("And");
      case OpId::BinaryOr: return simple("Or");
      case OpId::BinaryFloorDiv:
        if (inType.dtype == DType::F32 || inType.dtype == DType::F64) {
          add(out, "Floor", {add(out, "Div", in)}, {y});
          return;
        }
        refuse(n, "of integers has no ONNX form (ONNX's integer Div truncates)");
      case OpId::BinaryMod:
        if (inType.dtype == DType::I32 || inType.dtype == DType::I64) return simple("Mod", {integer("fmod", 0)});
        refuse(n, "of floats has no ONNX form (ONNX's float Mod is C's fmod, Weft's is floored)");
      case OpId::ReduceSum: {
        const bool k = n.attrs.b("keepdims");
        std::string x = in[0];
        if (inType.dtype == DType::Bool) x = add(out, "Cast", {x}, {}, {integer("to", int64_t(ElemType::Int32))});
        add(out, "ReduceSum", {x, int64s(axes(n, inType.shape.rank()))}, {y}, {integer("keepdims", k)});
        return;
      }
      case OpId::ReduceMean: case OpId::ReduceMax: case OpId::ReduceMin: case OpId::ReduceProd: {
        if (n.op == OpId::ReduceMean && inType.dtype != outType.dtype) refuse(n, "of integers has no ONNX form");
        const char* op = n.op == OpId::ReduceMean ? "ReduceMean" : n.op == OpId::ReduceMax ? "ReduceMax"
                         : n.op == OpId::ReduceMin ? "ReduceMin" : "ReduceProd";
        add(out, op, in, {y}, {ints("axes", axes(n, inType.shape.rank())), integer("keepdims", n.attrs.b("keepdims"))});
        return;
      }
      case OpId::MatMul: return simple("MatMul");
      case OpId::ArgMax: case OpId::ArgMin: {
        std::string r = add(out, n.op == OpId::ArgMax ? "ArgMax" : "ArgMin", in, {},
                            {integer("axis", n.attrs.i("axis")), integer("keepdims", n.attrs.b("keepdims"))});
        add(out, "Cast", {r}, {y}, {integer("to", int64_t(ElemType::Int32))});
        return;
      }
      case OpId::Cast: return simple("Cast", {integer("to", int64_t(elemOf(n.attrs.dtype("dtype"))))});
      case OpId::Reshape: {
        std::vector<int64_t> s;
        for (int i = 0; i < outType.shape.rank(); ++i) s.push_back(outType.shape[i] < 0 ? -1 : outType.shape[i]);
        add(out, "Reshape", {in[0], int64s(s)}, {y});
        return;
      }
      case OpId::Transpose: {
        std::vector<int64_t> p = n.attrs.ints("perm");
        if (p.empty())
          for (int i = inType.shape.rank() - 1; i >= 0; --i) p.push_back(i);
        return simple("Transpose", {ints("perm", p)});
      }
      case OpId::BroadcastTo: add(out, "Expand", {in[0], int64s(n.attrs.ints("shape"))}, {y}); return;
      case OpId::Concat: return simple("Concat", {integer("axis", n.attrs.i("axis"))});
      case OpId::Stack: {
        std::vector<std::string> parts;
        const int64_t a = n.attrs.i("axis");
        for (const std::string& x : in) parts.push_back(add(out, "Unsqueeze", {x, int64s({a})}));
        add(out, "Concat", parts, {y}, {integer("axis", a)});
        return;
      }
      case OpId::Split: {
        std::vector<std::string> outs;
        for (int id : n.outputs) outs.push_back(name(id));
        add(out, "Split", {in[0], int64s(n.attrs.ints("sizes"))}, outs, {integer("axis", n.attrs.i("axis"))});
        return;
      }
      case OpId::Squeeze: add(out, "Squeeze", {in[0], int64s(n.attrs.ints("axes"))}, {y}); return;
      case OpId::ExpandDims: add(out, "Unsqueeze", {in[0], int64s({n.attrs.i("axis")})}, {y}); return;
      case OpId::Where: return simple("Where");
      case OpId::Clip: return simple("Clip");
      case OpId::Conv2D: {
        const bool same = n.attrs.s("padding") == "same";
        std::string w = add(out, "Transpose", {in[1]}, {}, {ints("perm", {3, 2, 0, 1})});
        std::string c = add(out, "Conv", {nchw(out, in[0]), w}, {},
                            {ints("strides", n.attrs.ints("strides")), ints("dilations", n.attrs.ints("dilation")),
                             text("auto_pad", same ? "SAME_UPPER" : "VALID")});
        nhwc(out, c, y);
        return;
      }
      case OpId::MaxPool2D: case OpId::AvgPool2D: {
        const bool same = n.attrs.s("padding") == "same";
        std::vector<Attribute> attrs{ints("kernel_shape", n.attrs.ints("pool")), ints("strides", n.attrs.ints("strides")),
                                     text("auto_pad", same ? "SAME_UPPER" : "VALID")};
        std::string p = add(out, n.op == OpId::MaxPool2D ? "MaxPool" : "AveragePool", {nchw(out, in[0])}, {}, attrs);
        nhwc(out, p, y);
        return;
      }
      case OpId::LayerNorm:
        return simple("LayerNormalization", {integer("axis", -1), real("epsilon", n.attrs.f("epsilon"))});
      case OpId::Gelu: {
        const DType d = inType.dtype;
        if (n.attrs.b("approximate")) {
          // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
          std::string cube = add(out, "Mul", {in[0], add(out, "Mul", {in[0], in[0]})});
          std::string inner = add(out, "Add", {in[0], add(out, "Mul", {cube, scalarLike(0.044715, d)})});
          std::string t = add(out, "Tanh", {add(out, "Mul", {inner, scalarLike(0.7978845608028654, d)})});
          std::string h = add(out, "Mul", {in[0], scalarLike(0.5, d)});
          add(out, "Mul", {h, add(out, "Add", {t, scalarLike(1, d)})}, {y});
        } else {
          std::string e = add(out, "Erf", {add(out, "Div", {in[0], scalarLike(1.4142135623730951, d)})});
          std::string h = add(out, "Mul", {in[0], scalarLike(0.5, d)});
          add(out, "Mul", {h, add(out, "Add", {e, scalarLike(1, d)})}, {y});
        }
        return;
      }
      case OpId::ShapeOf: add(out, "Cast", {add(out, "Shape", in)}, {y}, {integer("to", int64_t(elemOf(outType.dtype)))}); return;
      case OpId::Full: case OpId::Eye: case OpId::Arange: case OpId::Linspace: {
        // Inputless and of a fixed shape: the value itself.
        constants_.push_back(dataOf(y, ops::apply1(n.op, {}, n.attrs)));
        return;
      }
      case OpId::AssignVariable: refuse(n, "assigns a variable: an ONNX model has no state");
      case OpId::Print: refuse(n, "prints: an ONNX model has no side effects");
      case OpId::Check: refuse(n, "checks an assertion: ONNX has no assertions");
      case OpId::Cond: case OpId::While: refuse(n, "is graph control flow, which export does not write yet");
      case OpId::RandomNormal: case OpId::RandomUniform: case OpId::RandomTruncatedNormal:
        refuse(n, "draws random numbers, which no other engine draws alike");
      case OpId::AllReduce: case OpId::AllGather: case OpId::ReduceScatter: case OpId::AllToAll: case OpId::LocalSlice:
      case OpId::Relayout: refuse(n, "is a collective: a sharded layout has no ONNX form");
      case OpId::ReduceAny: case OpId::ReduceAll: case OpId::KthLargest: case OpId::OneHot: case OpId::GetItem:
      case OpId::SetItem: case OpId::Take: case OpId::BroadcastRows: case OpId::UpdateRow:
      case OpId::Conv2DBackpropInput: case OpId::Conv2DBackpropFilter: case OpId::MaxPool2DGrad:
      case OpId::AvgPool2DGrad: case OpId::MaxPool2DGradGrad: case OpId::Attention: case OpId::AttentionGrad:
      case OpId::LayerNormGrad: case OpId::AdamUpdate:
        refuse(n, "has no ONNX export yet");
    }
    refuse(n, "has no ONNX export yet");
  }

  const graph::Graph& g_;
  const std::vector<Tensor>& vars_;
  std::vector<std::string> names_;
  std::vector<std::string> variableNames_;
  std::vector<TensorData> constants_;
  int count_ = 0;
  int nodes_ = 0;
};

}  // namespace

ModelFile exportGraph(const graph::Graph& g, const std::vector<Tensor>& variables) { return Exporter(g, variables).run(); }

}  // namespace weft::onnx

