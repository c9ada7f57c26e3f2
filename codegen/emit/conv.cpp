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

// Only the batch may be open (the inference checks that the operands' batches agree): the
// geometry is the sizes the graph knows. `kernel` is the operand without a batch, or -1.
void checkStatic(const Emitter& e, const Node& n, int kernel) {
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Shape& s = e.type(n.inputs[i]).shape;
    for (int a = int(i) == kernel ? 0 : 1; a < s.rank(); ++a)
      if (s[a] == rt::kUnknownDim) e.unsupported(n, "only its batch size may be known only at run time");
  }
}

std::array<int64_t, 2> pair(const Node& n, const char* key) {
  const auto& v = n.attrs.ints(key);
  return {v[0], v[1]};
}
rt::Window2D convWindow(const Node& n, const Shape& xs, const Shape& ws) {
  return ops::impl::conv2dGeometry(xs, ws, pair(n, "strides"), n.attrs.s("padding"), pair(n, "dilation"));
}
rt::Window2D poolWindow(const Node& n, const Shape& xs) {
  return ops::impl::pool2dGeometry(xs, pair(n, "pool"), pair(n, "strides"), n.attrs.s("padding"));
}

// Each op's forward window, of batch 1.
rt::Window2D conv2dWindow(const Emitter& e, const Node& n) {  // (x, kernel)
  checkStatic(e, n, 1);
  const Shape& xs = e.type(n.inputs[0]).shape;
  return convWindow(n, Shape{1, xs[1], xs[2], xs[3]}, e.type(n.inputs[1]).shape);
}
rt::Window2D backpropInputWindow(const Emitter& e, const Node& n) {  // (dy, kernel)
  checkStatic(e, n, 1);
  const Shape& ws = e.type(n.inputs[1]).shape;
  const auto size = pair(n, "input_size");
  return convWindow(n, Shape{1, size[0], size[1], ws[2]}, ws);
}
rt::Window2D backpropFilterWindow(const Emitter& e, const Node& n) {  // (x, dy)
  checkStatic(e, n, -1);
  const Shape& xs = e.type(n.inputs[0]).shape;
  const auto size = pair(n, "kernel_size");
  return convWindow(n, Shape{1, xs[1], xs[2], xs[3]}, Shape{size[0], size[1], xs[3], e.type(n.inputs[1]).shape[3]});
}
rt::Window2D inputPoolWindow(const Emitter& e, const Node& n) {  // x first: the pools, max_pool2d_grad(_grad)
  checkStatic(e, n, -1);
  const Shape& xs = e.type(n.inputs[0]).shape;
  return poolWindow(n, Shape{1, xs[1], xs[2], xs[3]});
}
rt::Window2D avgPoolGradWindow(const Emitter& e, const Node& n) {  // (dy)
  checkStatic(e, n, -1);
  const auto size = pair(n, "input_size");
  return poolWindow(n, Shape{1, size[0], size[1], e.type(n.inputs[0]).shape[3]});
}

// An op of the family: the runtime's header and function (with the arguments before the
// operands), its window, and for conv2d and its gradients the runtime's formula of the scratch
// they take from the workspace (the table's workspace column is the same formula).
struct WindowOp {
  const char* header;
  const char* call;
  rt::Window2D (*window)(const Emitter& e, const Node& n);
  const char* workspace;  // null: none
};

// The window, as a rt::Window2D literal whose batch is the first operand's run-time size.
std::string geometry(const Emitter& e, const Node& n, const WindowOp& op) {
  const rt::Window2D g = op.window(e, n);
  auto i = [](int64_t v) { return std::to_string(v); };
  return "weft::rt::Window2D{" + e.dims(n.inputs[0])[0] + ", " + i(g.h) + ", " + i(g.w) + ", " + i(g.c) + ", " + i(g.kh) +
         ", " + i(g.kw) + ", " + i(g.sh) + ", " + i(g.sw) + ", " + i(g.dh) + ", " + i(g.dw) + ", " + i(g.padTop) + ", " +
         i(g.padLeft) + ", " + i(g.oh) + ", " + i(g.ow) + "}";
}

template <const WindowOp& Op>
void memory(Emitter& e, const Node& n) {
  const int out = n.outputs[0];
  e.own(out);
  e.workspace("size_t(weft::rt::" + std::string(Op.workspace) + "<" + e.T(out) + ">(" + geometry(e, n, Op) + ", " +
              std::to_string(e.type(n.inputs[1]).shape[3]) + ")) * sizeof(" + e.T(out) + ")");
}

// The call on the operands, the result and the window; conv2d and its gradients add the
// kernel's last size and their workspace.
template <const WindowOp& Op>
void code(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& c = e.code();
  c << p << "weft::rt::" << Op.call;
  for (int i : n.inputs) c << e.ptr(i) << ", ";
  c << e.ptr(n.outputs[0]) << ", " << geometry(e, n, Op);
  if (Op.workspace) c << ", " << e.type(n.inputs[1]).shape[3] << ", reinterpret_cast<" << e.T(n.outputs[0]) << "*>(ws)";
  c << ");\n";
}

template <const WindowOp& Op>
const ops::EmitRule kRule{Op.header, nullptr, Op.workspace ? &memory<Op> : nullptr, code<Op>};

constexpr WindowOp kConv2D{"conv.h", "conv2d(", conv2dWindow, "conv2dWorkspaceSize"};
constexpr WindowOp kMaxPool{"pool.h", "pool2d(true, ", inputPoolWindow, nullptr};
constexpr WindowOp kAvgPool{"pool.h", "pool2d(false, ", inputPoolWindow, nullptr};
// conv2d_backprop_input (dy, kernel) -> dx; conv2d_backprop_filter (x, dy) -> dkernel.
constexpr WindowOp kBackpropInput{"conv_grad.h", "conv2dBackpropInput(", backpropInputWindow,
                                  "conv2dBackpropInputWorkspaceSize"};
constexpr WindowOp kBackpropFilter{"conv_grad.h", "conv2dBackpropFilter(", backpropFilterWindow,
                                   "conv2dBackpropFilterWorkspaceSize"};
// max_pool2d_grad (x, dy) -> dx; max_pool2d_grad_grad (x, gx) -> the pooled shape;
// avg_pool2d_grad (dy) -> dx.
constexpr WindowOp kMaxPoolGrad{"pool.h", "maxPool2dGrad(", inputPoolWindow, nullptr};
constexpr WindowOp kMaxPoolGradGrad{"pool.h", "maxPool2dGradGrad(", inputPoolWindow, nullptr};
constexpr WindowOp kAvgPoolGrad{"pool.h", "avgPool2dGrad(", avgPoolGradWindow, nullptr};

}  // namespace

void registerConvEmitRules() {
  ops::setEmit({OpId::Conv2D}, &kRule<kConv2D>);
  ops::setEmit({OpId::MaxPool2D}, &kRule<kMaxPool>);
  ops::setEmit({OpId::AvgPool2D}, &kRule<kAvgPool>);
  ops::setEmit({OpId::Conv2DBackpropInput}, &kRule<kBackpropInput>);
  ops::setEmit({OpId::Conv2DBackpropFilter}, &kRule<kBackpropFilter>);
  ops::setEmit({OpId::MaxPool2DGrad}, &kRule<kMaxPoolGrad>);
  ops::setEmit({OpId::MaxPool2DGradGrad}, &kRule<kMaxPoolGradGrad>);
  ops::setEmit({OpId::AvgPool2DGrad}, &kRule<kAvgPoolGrad>);
}

}  // namespace weft::codegen
