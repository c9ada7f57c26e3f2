// conv2d, max_pool2d and avg_pool2d, their gradients and max_pool2d_grad's: argument checks and
// shape rules here, the loops in stdlib/runtime/conv.h, conv_grad.h and pool.h. Every message
// names the op and the shapes involved.
#include "../../stdlib/runtime/conv.h"
#include "../../stdlib/runtime/conv_grad.h"
#include "../../stdlib/runtime/pool.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {
namespace {

std::string pairStr(Pair p) { return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ")"; }
std::string sizeStr(int64_t h, int64_t w) { return std::to_string(h) + "x" + std::to_string(w); }

bool isSame(const std::string& op, const std::string& padding) {
  if (padding == "same") return true;
  if (padding != "valid") fail(op + ": padding must be \"valid\" or \"same\", got \"" + padding + "\"");
  return false;
}

void checkPositive(const std::string& op, const char* what, Pair v) {
  if (v[0] < 1 || v[1] < 1) fail(op + ": " + what + " must be positive, got " + pairStr(v));
}

// `shapes` is the parenthesised list of every operand's shape, appended to the messages.
void checkInput(const std::string& op, const TensorType& x, const std::string& shapes) {
  if (x.shape.rank() != 4)
    fail(op + ": the input must have rank 4 [batch, height, width, channels], got " + x.shape.str() +
         (shapes.empty() ? "" : " " + shapes));
  if (!rt::isFloat(x.dtype))
    fail(op + " is not defined for " + dtypeStr(x.dtype) + " tensors (use cast() to convert to f32)");
}

// One op's work is bounded as its bytes are (docs/robustness.md): a huge window over a small
// input needs no memory, but would run for minutes past --timeout. Window steps per byte of the
// one-tensor limit.
constexpr double kStepsPerByte = 64;

std::string formatCount(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", v);
  return text;
}

std::string sizeText(const Shape& s) {
  std::string t = "[";
  for (int i = 0; i < s.rank(); ++i) t += (i ? ", " : "") + (s[i] < 0 ? std::string("None") : std::to_string(s[i]));
  return t + "]";
}

// The window geometry for input shape xs and a kh x kw window, or a WeftError; `perStep` is the
// work of one window position per input channel: a kernel's output channels, or 0 for a pool,
// whose loops visit only the window's part inside the input.
// An open height or width (a graph traced with `None` there) gives an open output size, and
// the checks that need it wait for the sizes the graph runs with.
rt::Window2D geometry(const std::string& op, const char* window, const Shape& xs, int64_t kh, int64_t kw,
                      Pair strides, Pair dilation, const std::string& padding, const std::string& shapes,
                      int64_t perStep) {
  const bool same = isSame(op, padding);
  rt::Window2D g;
  g.n = xs[0], g.h = xs[1], g.w = xs[2], g.c = xs[3];
  g.kh = kh, g.kw = kw, g.sh = strides[0], g.sw = strides[1], g.dh = dilation[0], g.dw = dilation[1];
  rt::Window1D wy, wx;
  // An open size: only the dilation can fail now.
  auto sy = rt::windowSize(g.h < 0 ? 0 : g.h, kh, g.sh, g.dh, same || g.h < 0, wy);
  auto sx = rt::windowSize(g.w < 0 ? 0 : g.w, kw, g.sw, g.dw, same || g.w < 0, wx);
  if (sy == rt::WindowStatus::DilationOverflow || sx == rt::WindowStatus::DilationOverflow)
    fail(op + ": dilation " + pairStr(dilation) + " is too large for a " + sizeStr(kh, kw) + " kernel");
  if (sy == rt::WindowStatus::TooLarge || sx == rt::WindowStatus::TooLarge) {
    std::string dilated = wy.extent != kh || wx.extent != kw ? ", dilated to " + sizeStr(wy.extent, wx.extent) : "";
    fail(op + ": the " + window + " (" + sizeStr(kh, kw) + dilated + ") is larger than the input (" +
         sizeStr(g.h, g.w) + ") with padding \"valid\" " + shapes);
  }
  g.padTop = wy.padBefore, g.padLeft = wx.padBefore, g.oh = wy.out, g.ow = wx.out;
  if (g.h < 0) g.oh = rt::kUnknownDim, g.padTop = 0;
  if (g.w < 0) g.ow = rt::kUnknownDim, g.padLeft = 0;
  if (g.n >= 0 && g.oh >= 0 && g.ow >= 0 && g.c >= 0) {
    const bool pool = perStep == 0;
    const double rows = double(pool ? std::min(kh, g.h) : kh), cols = double(pool ? std::min(kw, g.w) : kw);
    const double steps = double(g.n) * double(g.oh) * double(g.ow) * double(g.c) * rows * cols *
                         double(pool ? 1 : perStep);
    const double most = kStepsPerByte * double(memoryLimits().maxTensorBytes);
    if (steps > most)
      fail(op + ": a " + sizeStr(kh, kw) + " " + window + " over an input " + sizeText(xs) + " takes " +
           formatCount(steps) + " steps, more than one op may (" + formatCount(most) +
           ", 64 per byte of --max-tensor-bytes)");
  }
  return g;
}

}  // namespace

rt::Window2D conv2dGeometry(const Shape& xs, const Shape& ws, Pair strides, const std::string& padding,
                            Pair dilation) {
  return geometry("conv2d", "kernel", xs, ws[0], ws[1], strides, dilation, padding, "", ws[3]);
}

rt::Window2D pool2dGeometry(const Shape& xs, Pair pool, Pair strides, const std::string& padding) {
  return geometry("pool2d", "pool window", xs, pool[0], pool[1], strides, {1, 1}, padding, "", 0);
}

namespace {

// What an op's checks decide: the window geometry its kernel runs and its result's type.
struct Plan {
  rt::Window2D g;
  TensorType out;
  int64_t channels;  // the kernel's output channels (conv2d and its gradients)
};

// The bytes of `elements` values of a float dtype (the gradient kernels size in values).
template <class F>
int64_t floatBytes(DType t, F elements) {
  return rt::dispatch(t, [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) return elements(T{}) * int64_t(sizeof(T));
    else return 0;
  });
}

Plan conv2dPlan(const TensorType& x, const TensorType& w, Pair strides, const std::string& padding, Pair dilation) {
  const std::string op = "conv2d";
  const Shape &xs = x.shape, &ws = w.shape;
  const std::string shapes = "(" + xs.str() + " and " + ws.str() + ")";
  checkInput(op, x, "(kernel " + ws.str() + ")");
  if (ws.rank() != 4)
    fail("conv2d: the kernel must have rank 4 [height, width, in_channels, out_channels], got " + ws.str() +
         " (input " + xs.str() + ")");
  if (x.dtype != w.dtype)
    fail("dtype mismatch: " + dtypeStr(x.dtype) + " and " + dtypeStr(w.dtype) +
         " (in conv2d; use cast() to convert one of them)");
  if (xs[3] != ws[2])
    fail("conv2d: input has " + std::to_string(xs[3]) + " channels but the kernel expects " + std::to_string(ws[2]) +
         " " + shapes);
  if (ws[0] < 1 || ws[1] < 1) fail("conv2d: the kernel's height and width must be positive " + shapes);
  checkPositive(op, "strides", strides);
  checkPositive(op, "dilation", dilation);
  rt::Window2D g = geometry(op, "kernel", xs, ws[0], ws[1], strides, dilation, padding, shapes, ws[3]);
  // The kernel copies the input into a zero-padded buffer: a huge dilation under "same" must
  // not become a huge allocation.
  const rt::Window1D wy{g.oh, g.padTop, (g.kh - 1) * g.dh + 1}, wx{g.ow, g.padLeft, (g.kw - 1) * g.dw + 1};
  const double padded = double(g.n) * double(rt::paddedSize(g.h, wy, g.sh)) * double(rt::paddedSize(g.w, wx, g.sw)) *
                        double(g.c) * double(rt::dtypeSize(x.dtype));
  if (g.n >= 0 && g.h >= 0 && g.w >= 0 && padded > double(memoryLimits().maxTensorBytes))
    fail("conv2d: padding the input for a " + sizeStr(wy.extent, wx.extent) + " window needs too much memory " + shapes);
  return {g, {x.dtype, Shape{g.n, g.oh, g.ow, ws[3]}}, ws[3]};
}

Plan pool2dPlan(bool isMax, const TensorType& x, Pair pool, Pair strides, const std::string& padding) {
  const std::string op = isMax ? "max_pool2d" : "avg_pool2d";
  checkInput(op, x, "");
  checkPositive(op, "pool_size", pool);
  checkPositive(op, "strides", strides);
  rt::Window2D g =
      geometry(op, "pool window", x.shape, pool[0], pool[1], strides, {1, 1}, padding, "(" + x.shape.str() + ")", 0);
  return {g, {x.dtype, Shape{g.n, g.oh, g.ow, g.c}}, g.c};
}

}  // namespace

TensorType conv2dType(const TensorType& x, const TensorType& w, Pair strides, const std::string& padding, Pair dilation) {
  return conv2dPlan(x, w, strides, padding, dilation).out;
}

namespace {

int64_t conv2dBytes(const Plan& p) {
  return floatBytes(p.out.dtype, [&](auto t) { return rt::conv2dWorkspaceSize<decltype(t)>(p.g, p.channels); });
}

}  // namespace

int64_t conv2dWorkspace(const TensorType& x, const TensorType& w, Pair strides, const std::string& padding,
                        Pair dilation) {
  return conv2dBytes(conv2dPlan(x, w, strides, padding, dilation));
}

Tensor conv2d(const Tensor& x, const Tensor& w, Pair strides, const std::string& padding, Pair dilation) {
  const Plan p = conv2dPlan(typeOf(x), typeOf(w), strides, padding, dilation);
  Tensor y = Tensor::empty(p.out.dtype, p.out.shape);
  void* ws = scratch(conv2dBytes(p));
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) rt::conv2d(x.data<T>(), w.data<T>(), y.data<T>(), p.g, p.channels, static_cast<T*>(ws));
  });
  return y;
}

TensorType pool2dType(bool isMax, const TensorType& x, Pair pool, Pair strides, const std::string& padding) {
  return pool2dPlan(isMax, x, pool, strides, padding).out;
}

Tensor pool2d(bool isMax, const Tensor& x, Pair pool, Pair strides, const std::string& padding) {
  const Plan p = pool2dPlan(isMax, typeOf(x), pool, strides, padding);
  Tensor y = Tensor::empty(p.out.dtype, p.out.shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) rt::pool2d(isMax, x.data<T>(), y.data<T>(), p.g);
  });
  return y;
}

namespace {

void checkRank4(const std::string& op, const TensorType& dy) {
  if (dy.shape.rank() != 4)
    fail(op + ": the output's gradient must have rank 4 [batch, height, width, channels], got " + dy.shape.str());
}

// The checks every gradient op makes of the output's gradient dy: rank 4, the dtype of the
// forward op's operands, and the shape the forward op gives for geometry g (an open size
// matches any).
void checkOutputGradient(const std::string& op, const TensorType& dy, DType dtype, const rt::Window2D& g,
                         int64_t channels, const std::string& forward) {
  checkRank4(op, dy);
  if (dy.dtype != dtype) fail("dtype mismatch: " + dtypeStr(dy.dtype) + " and " + dtypeStr(dtype) + " (in " + op + ")");
  const Shape& d = dy.shape;
  Shape want{g.n, g.oh, g.ow, channels};
  bool fits = true;  // an open size matches any
  for (int i = 0; i < 4; ++i) fits &= d[i] == rt::kUnknownDim || want[i] == rt::kUnknownDim || sizes::same(d[i], want[i]);
  if (!fits)
    fail(op + ": the output's gradient has shape " + d.str() + ", but " + forward + " gives " + want.str());
}

void checkSize(const std::string& op, const char* what, Pair v) {
  if (v[0] < 0 || v[1] < 0) fail(op + ": " + what + " must be known and non-negative, got " + pairStr(v));
}

Plan backpropInputPlan(const TensorType& dy, const TensorType& w, Pair inputSize, Pair strides,
                       const std::string& padding, Pair dilation) {
  const std::string op = "conv2d_backprop_input";
  if (w.shape.rank() != 4)
    fail(op + ": the kernel must have rank 4 [height, width, in_channels, out_channels], got " + w.shape.str());
  if (!rt::isFloat(w.dtype))
    fail(op + " is not defined for " + dtypeStr(w.dtype) + " tensors (use cast() to convert to f32)");
  const Shape& ws = w.shape;
  if (ws[0] < 1 || ws[1] < 1) fail(op + ": the kernel's height and width must be positive, got " + ws.str());
  checkSize(op, "input_size", inputSize);
  checkPositive(op, "strides", strides);
  checkPositive(op, "dilation", dilation);
  checkRank4(op, dy);
  Shape xs{dy.shape[0], inputSize[0], inputSize[1], ws[2]};
  const std::string forward = "conv2d of an input " + xs.str() + " and a kernel " + ws.str();
  rt::Window2D g = geometry(op, "kernel", xs, ws[0], ws[1], strides, dilation, padding, "(" + forward + ")", ws[3]);
  checkOutputGradient(op, dy, w.dtype, g, ws[3], forward);
  return {g, {w.dtype, xs}, ws[3]};
}

Plan backpropFilterPlan(const TensorType& x, const TensorType& dy, Pair kernelSize, Pair strides,
                        const std::string& padding, Pair dilation) {
  const std::string op = "conv2d_backprop_filter";
  checkInput(op, x, "");
  checkPositive(op, "kernel_size", kernelSize);
  checkPositive(op, "strides", strides);
  checkPositive(op, "dilation", dilation);
  checkRank4(op, dy);
  const Shape& xs = x.shape;
  Shape ws{kernelSize[0], kernelSize[1], xs[3], dy.shape[3]};
  const std::string forward = "conv2d of an input " + xs.str() + " and a kernel " + ws.str();
  rt::Window2D g = geometry(op, "kernel", xs, ws[0], ws[1], strides, dilation, padding, "(" + forward + ")", ws[3]);
  checkOutputGradient(op, dy, x.dtype, g, ws[3], forward);
  return {g, {x.dtype, ws}, ws[3]};
}

Plan maxPoolGradPlan(const TensorType& x, const TensorType& dy, Pair pool, Pair strides, const std::string& padding) {
  const std::string op = "max_pool2d_grad";
  checkInput(op, x, "");
  checkPositive(op, "pool_size", pool);
  checkPositive(op, "strides", strides);
  const std::string forward = "max_pool2d of an input " + x.shape.str();
  rt::Window2D g =
      geometry(op, "pool window", x.shape, pool[0], pool[1], strides, {1, 1}, padding, "(" + x.shape.str() + ")", 0);
  checkOutputGradient(op, dy, x.dtype, g, g.c, forward);
  return {g, x, g.c};
}

Plan avgPoolGradPlan(const TensorType& dy, Pair inputSize, Pair pool, Pair strides, const std::string& padding) {
  const std::string op = "avg_pool2d_grad";
  checkInput(op, dy, "");
  checkSize(op, "input_size", inputSize);
  checkPositive(op, "pool_size", pool);
  checkPositive(op, "strides", strides);
  Shape xs{dy.shape[0], inputSize[0], inputSize[1], dy.shape[3]};
  const std::string forward = "avg_pool2d of an input " + xs.str();
  rt::Window2D g = geometry(op, "pool window", xs, pool[0], pool[1], strides, {1, 1}, padding, "(" + xs.str() + ")", 0);
  checkOutputGradient(op, dy, dy.dtype, g, g.c, forward);
  return {g, {dy.dtype, xs}, g.c};
}

Plan maxPoolGradGradPlan(const TensorType& x, const TensorType& gx, Pair pool, Pair strides,
                         const std::string& padding) {
  const std::string op = "max_pool2d_grad_grad";
  checkInput(op, x, "");
  checkPositive(op, "pool_size", pool);
  checkPositive(op, "strides", strides);
  rt::Window2D g =
      geometry(op, "pool window", x.shape, pool[0], pool[1], strides, {1, 1}, padding, "(" + x.shape.str() + ")", 0);
  // gx is a gradient of max_pool2d_grad's result: it has x's type (an unknown batch matches any).
  if (gx.dtype != x.dtype) fail("dtype mismatch: " + dtypeStr(gx.dtype) + " and " + dtypeStr(x.dtype) + " (in " + op + ")");
  const Shape &d = gx.shape, &xs = x.shape;
  const bool batch = d.rank() == 4 && (d[0] == rt::kUnknownDim || xs[0] == rt::kUnknownDim || sizes::same(d[0], xs[0]));
  if (!batch || !sizes::same(d[1], xs[1]) || !sizes::same(d[2], xs[2]) || !sizes::same(d[3], xs[3]))
    fail(op + ": the input's gradient has shape " + d.str() + ", but the input has shape " + xs.str());
  return {g, {x.dtype, Shape{g.n, g.oh, g.ow, g.c}}, g.c};
}

}  // namespace

TensorType conv2dBackpropInputType(const TensorType& dy, const TensorType& w, Pair inputSize, Pair strides,
                                   const std::string& padding, Pair dilation) {
  return backpropInputPlan(dy, w, inputSize, strides, padding, dilation).out;
}

namespace {

int64_t backpropInputBytes(const Plan& p) {
  return floatBytes(p.out.dtype,
                    [&](auto t) { return rt::conv2dBackpropInputWorkspaceSize<decltype(t)>(p.g, p.channels); });
}

}  // namespace

int64_t conv2dBackpropInputWorkspace(const TensorType& dy, const TensorType& w, Pair inputSize, Pair strides,
                                     const std::string& padding, Pair dilation) {
  return backpropInputBytes(backpropInputPlan(dy, w, inputSize, strides, padding, dilation));
}

Tensor conv2dBackpropInput(const Tensor& dy, const Tensor& w, Pair inputSize, Pair strides, const std::string& padding,
                           Pair dilation) {
  const Plan p = backpropInputPlan(typeOf(dy), typeOf(w), inputSize, strides, padding, dilation);
  Tensor dx = Tensor::empty(p.out.dtype, p.out.shape);
  void* ws = scratch(backpropInputBytes(p));
  rt::dispatch(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::conv2dBackpropInput(dy.data<T>(), w.data<T>(), dx.data<T>(), p.g, p.channels, static_cast<T*>(ws));
  });
  return dx;
}

TensorType conv2dBackpropFilterType(const TensorType& x, const TensorType& dy, Pair kernelSize, Pair strides,
                                    const std::string& padding, Pair dilation) {
  return backpropFilterPlan(x, dy, kernelSize, strides, padding, dilation).out;
}

namespace {

int64_t backpropFilterBytes(const Plan& p) {
  return floatBytes(p.out.dtype,
                    [&](auto t) { return rt::conv2dBackpropFilterWorkspaceSize<decltype(t)>(p.g, p.channels); });
}

}  // namespace

int64_t conv2dBackpropFilterWorkspace(const TensorType& x, const TensorType& dy, Pair kernelSize, Pair strides,
                                      const std::string& padding, Pair dilation) {
  return backpropFilterBytes(backpropFilterPlan(x, dy, kernelSize, strides, padding, dilation));
}

Tensor conv2dBackpropFilter(const Tensor& x, const Tensor& dy, Pair kernelSize, Pair strides, const std::string& padding,
                            Pair dilation) {
  const Plan p = backpropFilterPlan(typeOf(x), typeOf(dy), kernelSize, strides, padding, dilation);
  Tensor dw = Tensor::empty(p.out.dtype, p.out.shape);
  void* ws = scratch(backpropFilterBytes(p));
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      rt::conv2dBackpropFilter(x.data<T>(), dy.data<T>(), dw.data<T>(), p.g, p.channels, static_cast<T*>(ws));
  });
  return dw;
}

TensorType maxPool2dGradType(const TensorType& x, const TensorType& dy, Pair pool, Pair strides,
                             const std::string& padding) {
  return maxPoolGradPlan(x, dy, pool, strides, padding).out;
}

Tensor maxPool2dGrad(const Tensor& x, const Tensor& dy, Pair pool, Pair strides, const std::string& padding) {
  const Plan p = maxPoolGradPlan(typeOf(x), typeOf(dy), pool, strides, padding);
  Tensor dx = Tensor::empty(p.out.dtype, p.out.shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) rt::maxPool2dGrad(x.data<T>(), dy.data<T>(), dx.data<T>(), p.g);
  });
  return dx;
}

TensorType avgPool2dGradType(const TensorType& dy, Pair inputSize, Pair pool, Pair strides, const std::string& padding) {
  return avgPoolGradPlan(dy, inputSize, pool, strides, padding).out;
}

Tensor avgPool2dGrad(const Tensor& dy, Pair inputSize, Pair pool, Pair strides, const std::string& padding) {
  const Plan p = avgPoolGradPlan(typeOf(dy), inputSize, pool, strides, padding);
  Tensor dx = Tensor::empty(p.out.dtype, p.out.shape);
  rt::dispatch(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) rt::avgPool2dGrad(dy.data<T>(), dx.data<T>(), p.g);
  });
  return dx;
}

TensorType maxPool2dGradGradType(const TensorType& x, const TensorType& gx, Pair pool, Pair strides,
                                 const std::string& padding) {
  return maxPoolGradGradPlan(x, gx, pool, strides, padding).out;
}

Tensor maxPool2dGradGrad(const Tensor& x, const Tensor& gx, Pair pool, Pair strides, const std::string& padding) {
  const Plan p = maxPoolGradGradPlan(typeOf(x), typeOf(gx), pool, strides, padding);
  Tensor y = Tensor::empty(p.out.dtype, p.out.shape);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) rt::maxPool2dGradGrad(x.data<T>(), gx.data<T>(), y.data<T>(), p.g);
  });
  return y;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

// The attributes of conv2d and its gradients, read once for the three columns.
struct ConvAttrs {
  std::array<int64_t, 2> size, strides, dilation;  // size: the gradient's input_size or kernel_size
  std::string padding;
};
ConvAttrs convAttrs(OpId op, const Attrs& a, const char* sizeKey) {
  return {sizeKey ? pairAttr(op, a, sizeKey) : std::array<int64_t, 2>{}, pairAttr(op, a, "strides"),
          pairAttr(op, a, "dilation"), a.s("padding")};
}
ConvAttrs conv(const Attrs& a) { return convAttrs(OpId::Conv2D, a, nullptr); }
ConvAttrs backpropInput(const Attrs& a) { return convAttrs(OpId::Conv2DBackpropInput, a, "input_size"); }
ConvAttrs backpropFilter(const Attrs& a) { return convAttrs(OpId::Conv2DBackpropFilter, a, "kernel_size"); }
// The pools and their gradients: pool, strides, padding and (avg_pool2d_grad) input_size.
struct PoolAttrs {
  std::array<int64_t, 2> pool, strides, inputSize;
  std::string padding;
};
PoolAttrs poolAttrs(OpId op, const Attrs& a) {
  return {pairAttr(op, a, "pool"), pairAttr(op, a, "strides"),
          op == OpId::AvgPool2DGrad ? pairAttr(op, a, "input_size") : std::array<int64_t, 2>{}, a.s("padding")};
}

template <bool IsMax>
Out runPool(In in, const Attrs& a) {
  const PoolAttrs p = poolAttrs(IsMax ? OpId::MaxPool2D : OpId::AvgPool2D, a);
  return {impl::pool2d(IsMax, in[0], p.pool, p.strides, p.padding)};
}
template <bool IsMax>
Types inferPool(Ty in, const Attrs& a) {
  const PoolAttrs p = poolAttrs(IsMax ? OpId::MaxPool2D : OpId::AvgPool2D, a);
  return {impl::pool2dType(IsMax, in[0], p.pool, p.strides, p.padding)};
}

}  // namespace

// conv2d, the pools and their gradients (TensorFlow's Conv2DBackpropInput/Filter, MaxPoolGrad,
// AvgPoolGrad), the ops the VJP rules of conv2d and the pools are built from, and
// max_pool2d_grad's gradient (MaxPoolGradGrad), which theirs need in turn.
void defineConvRows() {
  {
    OpDef& d = defineRow(OpId::Conv2D, Family::Conv);
    d.attrs = {{"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      const ConvAttrs c = conv(a);
      return {impl::conv2dType(in[0], in[1], c.strides, c.padding, c.dilation)};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      const ConvAttrs c = conv(a);
      return {impl::conv2d(in[0], in[1], c.strides, c.padding, c.dilation)};
    };
    d.workspace = [](Ty in, const Attrs& a) {
      const ConvAttrs c = conv(a);
      return impl::conv2dWorkspace(in[0], in[1], c.strides, c.padding, c.dilation);
    };
  }
  for (OpId id : {OpId::MaxPool2D, OpId::AvgPool2D}) {
    OpDef& d = defineRow(id, Family::Conv);
    d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
    d.infer = id == OpId::MaxPool2D ? inferPool<true> : inferPool<false>;
    d.run = id == OpId::MaxPool2D ? runPool<true> : runPool<false>;
  }
  {
    OpDef& d = defineRow(OpId::Conv2DBackpropInput, Family::Conv);
    d.attrs = {{"input_size", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      const ConvAttrs c = backpropInput(a);
      return {impl::conv2dBackpropInputType(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      const ConvAttrs c = backpropInput(a);
      return {impl::conv2dBackpropInput(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
    };
    d.workspace = [](Ty in, const Attrs& a) {
      const ConvAttrs c = backpropInput(a);
      return impl::conv2dBackpropInputWorkspace(in[0], in[1], c.size, c.strides, c.padding, c.dilation);
    };
  }
  {
    OpDef& d = defineRow(OpId::Conv2DBackpropFilter, Family::Conv);
    d.attrs = {{"kernel_size", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      const ConvAttrs c = backpropFilter(a);
      return {impl::conv2dBackpropFilterType(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      const ConvAttrs c = backpropFilter(a);
      return {impl::conv2dBackpropFilter(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
    };
    d.workspace = [](Ty in, const Attrs& a) {
      const ConvAttrs c = backpropFilter(a);
      return impl::conv2dBackpropFilterWorkspace(in[0], in[1], c.size, c.strides, c.padding, c.dilation);
    };
  }
  {
    OpDef& d = defineRow(OpId::MaxPool2DGrad, Family::Conv);
    d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      const PoolAttrs p = poolAttrs(OpId::MaxPool2DGrad, a);
      return {impl::maxPool2dGradType(in[0], in[1], p.pool, p.strides, p.padding)};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      const PoolAttrs p = poolAttrs(OpId::MaxPool2DGrad, a);
      return {impl::maxPool2dGrad(in[0], in[1], p.pool, p.strides, p.padding)};
    };
  }
  {
    OpDef& d = defineRow(OpId::AvgPool2DGrad, Family::Conv);
    d.attrs = {{"input_size", K::Ints}, {"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
    d.infer = [](Ty in, const Attrs& a) -> Types {
      const PoolAttrs p = poolAttrs(OpId::AvgPool2DGrad, a);
      return {impl::avgPool2dGradType(in[0], p.inputSize, p.pool, p.strides, p.padding)};
    };
    d.run = [](In in, const Attrs& a) -> Out {
      const PoolAttrs p = poolAttrs(OpId::AvgPool2DGrad, a);
      return {impl::avgPool2dGrad(in[0], p.inputSize, p.pool, p.strides, p.padding)};
    };
  }
  OpDef& d = defineRow(OpId::MaxPool2DGradGrad, Family::Conv);
  d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
  d.infer = [](Ty in, const Attrs& a) -> Types {
    const PoolAttrs p = poolAttrs(OpId::MaxPool2DGradGrad, a);
    return {impl::maxPool2dGradGradType(in[0], in[1], p.pool, p.strides, p.padding)};
  };
  d.run = [](In in, const Attrs& a) -> Out {
    const PoolAttrs p = poolAttrs(OpId::MaxPool2DGradGrad, a);
    return {impl::maxPool2dGradGrad(in[0], in[1], p.pool, p.strides, p.padding)};
  };
}

}  // namespace weft::ops
