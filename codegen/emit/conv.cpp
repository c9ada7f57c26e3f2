// Emit rules of conv2d, the pools and their gradients (NHWC): the window geometry the
// interpreter's kernels use, as a rt::Window2D literal whose batch is the run-time size, and calls
// of stdlib/runtime's conv.h, conv_grad.h and pool.h.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/ops/impl.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// The operands whose first dimension is the batch (conv2d_backprop_input's kernel is not).
bool batched(const Node& n, size_t i) { return !((n.op == OpId::Conv2DBackpropInput || n.op == OpId::Conv2D) && i == 1); }

// Only the batch may be open (the inference checks that the operands' batches agree): the
// geometry is the sizes the graph knows.
void checkStatic(const Emitter& e, const Node& n) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Shape& s = e.type(n.inputs[i]).shape;
    for (int a = batched(n, i) ? 1 : 0; a < s.rank(); ++a)
      if (s[a] == rt::kUnknownDim) e.unsupported(n, "only its batch size may be known only at run time");
  }
}

// The forward op's window geometry, as a C++ expression; the batch size is the first operand's.
std::string geometry(const Emitter& e, const Node& n) {
  checkStatic(e, n);
  auto pair = [&](const char* k) {
    const auto& v = n.attrs.ints(k);
    return std::array<int64_t, 2>{v[0], v[1]};
  };
  const Shape& s0 = e.type(n.inputs[0]).shape;
  auto conv = [&](const Shape& xs, const Shape& ws) {
    return ops::impl::conv2dGeometry(xs, ws, pair("strides"), n.attrs.s("padding"), pair("dilation"));
  };
  auto pool = [&](const Shape& xs) { return ops::impl::pool2dGeometry(xs, pair("pool"), pair("strides"), n.attrs.s("padding")); };
  rt::Window2D g;
  switch (n.op) {
    case OpId::Conv2D: g = conv(Shape{1, s0[1], s0[2], s0[3]}, e.type(n.inputs[1]).shape); break;
    case OpId::Conv2DBackpropInput: {  // (dy, kernel)
      const Shape& ws = e.type(n.inputs[1]).shape;
      const auto size = pair("input_size");
      g = conv(Shape{1, size[0], size[1], ws[2]}, ws);
      break;
    }
    case OpId::Conv2DBackpropFilter: {  // (x, dy)
      const auto size = pair("kernel_size");
      g = conv(Shape{1, s0[1], s0[2], s0[3]}, Shape{size[0], size[1], s0[3], e.type(n.inputs[1]).shape[3]});
      break;
    }
    case OpId::AvgPool2DGrad: {  // (dy)
      const auto size = pair("input_size");
      g = pool(Shape{1, size[0], size[1], s0[3]});
      break;
    }
    case OpId::MaxPool2D:
    case OpId::AvgPool2D:
    case OpId::MaxPool2DGrad:  // (x, dy)
    case OpId::MaxPool2DGradGrad: g = pool(Shape{1, s0[1], s0[2], s0[3]}); break;
    default: throw std::logic_error(std::string(opName(n.op)) + " has no window");  // only the ops above call this
  }
  auto i = [](int64_t v) { return std::to_string(v); };
  return "weft::rt::Window2D{" + e.dims(n.inputs[0])[0] + ", " + i(g.h) + ", " + i(g.w) + ", " + i(g.c) + ", " + i(g.kh) +
         ", " + i(g.kw) + ", " + i(g.sh) + ", " + i(g.sw) + ", " + i(g.dh) + ", " + i(g.dw) + ", " + i(g.padTop) + ", " +
         i(g.padLeft) + ", " + i(g.oh) + ", " + i(g.ow) + "}";
}

// conv2d and its gradients take their scratch from the workspace (the table's workspace column,
// from the runtime's formulas).
void convMemory(Emitter& e, const Node& n) {
  const int out = n.outputs[0];
  e.own(out);
  const char* size = n.op == OpId::Conv2D                ? "conv2dWorkspaceSize"
                     : n.op == OpId::Conv2DBackpropInput ? "conv2dBackpropInputWorkspaceSize"
                                                         : "conv2dBackpropFilterWorkspaceSize";
  e.workspace("size_t(weft::rt::" + std::string(size) + "<" + e.T(out) + ">(" + geometry(e, n) + ", " +
              std::to_string(e.type(n.inputs[1]).shape[3]) + ")) * sizeof(" + e.T(out) + ")");
}

std::string args(const Emitter& e, const Node& n) {
  std::string s;
  for (int i : n.inputs) s += e.ptr(i) + ", ";
  return s + e.ptr(n.outputs[0]) + ", " + geometry(e, n);
}

void convCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::conv2d(" << args(e, n) << ", " << e.type(n.inputs[1]).shape[3] << ", reinterpret_cast<"
           << e.T(n.outputs[0]) << "*>(ws));\n";
}

void poolCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::pool2d(" << (n.op == OpId::MaxPool2D ? "true" : "false") << ", " << args(e, n) << ");\n";
}

// conv2d_backprop_input (dy, kernel) -> dx; conv2d_backprop_filter (x, dy) -> dkernel.
void convGradCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::" << (n.op == OpId::Conv2DBackpropInput ? "conv2dBackpropInput(" : "conv2dBackpropFilter(")
           << args(e, n) << ", " << e.type(n.inputs[1]).shape[3] << ", reinterpret_cast<" << e.T(n.outputs[0])
           << "*>(ws));\n";
}

// max_pool2d_grad (x, dy) -> dx; max_pool2d_grad_grad (x, gx) -> the pooled shape;
// avg_pool2d_grad (dy) -> dx.
void poolGradCode(Emitter& e, const Node& n, const std::string& p) {
  const char* fn = n.op == OpId::MaxPool2DGrad ? "maxPool2dGrad(" : n.op == OpId::MaxPool2DGradGrad ? "maxPool2dGradGrad(" : "avgPool2dGrad(";
  e.code() << p << "weft::rt::" << fn << args(e, n) << ");\n";
}

}  // namespace

const ops::EmitRule kConvRule{"conv.h", nullptr, convMemory, convCode};
const ops::EmitRule kPoolRule{"pool.h", nullptr, nullptr, poolCode};
const ops::EmitRule kConvGradRule{"conv_grad.h", nullptr, convMemory, convGradCode};
const ops::EmitRule kPoolGradRule{"pool.h", nullptr, nullptr, poolGradCode};

}  // namespace weft::codegen
