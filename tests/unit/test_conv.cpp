// conv2d and the 2-D poolings against PyTorch references (tests/fixtures, made by
// make_fixtures.py) and a naive loop; error texts; shape inference on abstract tensors.
#include <cmath>
#include <sstream>

#include "interpreter/eval/interpreter.h"
#include "interpreter/saved/npy.h"
#include "stdlib/runtime/conv.h"
#include "stdlib/runtime/conv_grad.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

namespace {

Tensor fixture(const std::string& name) {
  return saved::readNpy(std::string(WEFT_SOURCE_DIR) + "/tests/fixtures/" + name + ".npy");
}

void checkClose(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  REQUIRE(got.shape() == want.shape());
  REQUIRE(got.dtype() == want.dtype());
  int bad = 0;
  for (int64_t i = 0; i < got.numel(); ++i)
    if (!(std::abs(got.asDouble(i) - want.asDouble(i)) <= tol * std::max(1.0, std::abs(want.asDouble(i))))) ++bad;
  CHECK(bad == 0);
}

using Pair = std::array<int64_t, 2>;

// Mirrors CONV_CASES and POOL_CASES in tests/fixtures/make_fixtures.py.
struct ConvCase { const char* name; Pair strides; const char* padding; Pair dilation; };
const ConvCase kConvCases[] = {
    {"conv_valid_s1", {1, 1}, "valid", {1, 1}}, {"conv_same_s1", {1, 1}, "same", {1, 1}},
    {"conv_valid_s2", {2, 2}, "valid", {1, 1}}, {"conv_same_s2", {2, 2}, "same", {1, 1}},
    {"conv_valid_d2", {1, 1}, "valid", {2, 2}}, {"conv_same_d2", {1, 2}, "same", {2, 2}},
    {"conv_1x1", {1, 1}, "valid", {1, 1}},      {"conv_same_f64", {1, 1}, "same", {1, 1}},
};
struct PoolCase { const char* name; Pair pool, strides; const char* padding; };
const PoolCase kPoolCases[] = {
    {"maxpool_valid", {2, 2}, {2, 2}, "valid"}, {"maxpool_same", {3, 3}, {2, 2}, "same"},
    {"maxpool_same_s1", {2, 2}, {1, 1}, "same"}, {"avgpool_valid", {3, 2}, {1, 2}, "valid"},
    {"avgpool_same", {3, 3}, {2, 2}, "same"},    {"avgpool_same_s1", {2, 2}, {1, 1}, "same"},
};

// Direct definition in double: TF's padding computed independently of rt::windowSize.
Tensor naiveConv(const Tensor& x, const Tensor& w, Pair s, bool same, Pair d) {
  const Shape &xs = x.shape(), &ws = w.shape();
  int64_t out[2], pad[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t in = xs[1 + a], ext = (ws[a] - 1) * d[a] + 1;
    out[a] = same ? (in + s[a] - 1) / s[a] : (in - ext) / s[a] + 1;
    pad[a] = same ? std::max<int64_t>((out[a] - 1) * s[a] + ext - in, 0) / 2 : 0;
  }
  Tensor y = Tensor::zeros(x.dtype(), Shape{xs[0], out[0], out[1], ws[3]});
  int64_t i = 0;
  for (int64_t b = 0; b < xs[0]; ++b)
    for (int64_t oy = 0; oy < out[0]; ++oy)
      for (int64_t ox = 0; ox < out[1]; ++ox)
        for (int64_t co = 0; co < ws[3]; ++co, ++i) {
          double acc = 0;
          for (int64_t ky = 0; ky < ws[0]; ++ky)
            for (int64_t kx = 0; kx < ws[1]; ++kx) {
              const int64_t iy = oy * s[0] - pad[0] + ky * d[0], ix = ox * s[1] - pad[1] + kx * d[1];
              if (iy < 0 || iy >= xs[1] || ix < 0 || ix >= xs[2]) continue;
              for (int64_t ci = 0; ci < xs[3]; ++ci)
                acc += x.asDouble(((b * xs[1] + iy) * xs[2] + ix) * xs[3] + ci) *
                       w.asDouble(((ky * ws[1] + kx) * ws[2] + ci) * ws[3] + co);
            }
          if (x.dtype() == DType::F32) y.data<float>()[i] = float(acc);
          else y.data<double>()[i] = acc;
        }
  return y;
}

}  // namespace

TEST_CASE("conv2d matches PyTorch on the fixtures") {
  for (const auto& c : kConvCases) {
    CAPTURE(c.name);
    const std::string n = c.name;
    checkClose(ops::conv2d(fixture(n + "_x"), fixture(n + "_w"), c.strides, c.padding, c.dilation), fixture(n + "_y"));
  }
}

TEST_CASE("max_pool2d and avg_pool2d match PyTorch (Keras' divisor for same-padded averages)") {
  for (const auto& c : kPoolCases) {
    CAPTURE(c.name);
    const std::string n = c.name;
    const bool isMax = n.rfind("max", 0) == 0;
    checkClose(ops::pool2d(isMax, fixture(n + "_x"), c.pool, c.strides, c.padding), fixture(n + "_y"));
  }
  // A corner window of a same-padded 2x2 average holds one element: its value, not a quarter.
  Tensor x = iota({1, 3, 3, 1});
  Tensor y = ops::pool2d(false, x, {2, 2}, {2, 2}, "same");
  CHECK(values<float>(y) == std::vector<float>{2, 3.5, 6.5, 8});
}

TEST_CASE("conv2d agrees with a naive loop over tile remainders, channel tails, strides, dilation") {
  struct Case { Shape x, w; Pair s; bool same; Pair d; DType t; };
  const Case cases[] = {
      {{2, 5, 13, 3}, {3, 3, 3, 17}, {1, 1}, true, {1, 1}, DType::F32},   // 13 = 2 tiles of 6 + 1
      {{1, 9, 11, 4}, {5, 3, 4, 9}, {3, 2}, true, {1, 1}, DType::F32},
      {{1, 10, 10, 2}, {3, 3, 2, 33}, {1, 1}, true, {3, 2}, DType::F32},  // dilated, 3 channel blocks
      {{2, 7, 7, 5}, {2, 4, 5, 6}, {2, 3}, false, {2, 1}, DType::F64},
      {{1, 4, 20, 1}, {1, 7, 1, 8}, {1, 1}, true, {1, 1}, DType::F64},
      {{3, 4, 4, 6}, {1, 1, 6, 10}, {2, 2}, false, {1, 1}, DType::F32},   // strided 1x1: not the GEMM path
      {{1, 6, 14, 24}, {3, 3, 24, 20}, {2, 1}, true, {1, 1}, DType::F32},  // kw * c > 64: one run per tap
      {{1, 5, 9, 40}, {2, 2, 40, 5}, {1, 2}, true, {1, 1}, DType::F64},
      {{2, 7, 9, 15}, {3, 3, 15, 32}, {1, 1}, true, {1, 1}, DType::F32},   // a kernel row at a time
      {{1, 6, 5, 15}, {3, 3, 15, 64}, {1, 1}, false, {1, 1}, DType::F32},  // the same, two blocks
      {{1, 8, 31, 3}, {3, 3, 3, 16}, {1, 1}, true, {1, 1}, DType::F32},    // a first layer
      // Winograd F(2x2, 3x3): odd output sizes, channel tails, partial blocks, valid padding.
      {{2, 7, 9, 32}, {3, 3, 32, 33}, {1, 1}, true, {1, 1}, DType::F32},
      {{3, 5, 6, 20}, {3, 3, 20, 17}, {1, 1}, false, {1, 1}, DType::F32},
      {{1, 11, 3, 16}, {3, 3, 16, 16}, {1, 1}, true, {1, 1}, DType::F32},
      {{2, 6, 7, 19}, {3, 3, 19, 24}, {1, 1}, true, {1, 1}, DType::F64},
      {{1, 4, 4, 40}, {3, 3, 40, 64}, {1, 1}, false, {1, 1}, DType::F64},
  };
  ops::seed(3);
  for (const auto& c : cases) {
    CAPTURE(c.x.str());
    Tensor x = ops::randomNormal(c.x, 0, 1, c.t), w = ops::randomNormal(c.w, 0, 0.3, c.t);
    checkClose(ops::conv2d(x, w, c.s, c.same ? "same" : "valid", c.d), naiveConv(x, w, c.s, c.same, c.d));
  }
}

TEST_CASE("conv2d's kernel uses the workspace it is given and nothing past it") {
  for (int64_t c : {32, 8}) {  // Winograd, direct
    CAPTURE(c);
    rt::Window2D g;
    g.n = 2, g.h = 9, g.w = 10, g.c = c, g.kh = 3, g.kw = 3, g.padTop = 1, g.padLeft = 1, g.oh = 9, g.ow = 10;
    const int64_t cout = 32;
    ops::seed(5);
    Tensor x = ops::randomNormal({2, 9, 10, c}, 0, 1, DType::F32), w = ops::randomNormal({3, 3, c, 32}, 0, 0.3, DType::F32);
    const int64_t need = rt::conv2dWorkspaceSize<float>(g, cout);
    std::vector<float> workspace(size_t(need) + 16, 7.0f);  // a canary past the end
    Tensor y = Tensor::empty(DType::F32, {2, 9, 10, 32});
    for (int call = 0; call < 2; ++call) {  // a reused workspace holds the last call's data
      rt::conv2d(x.data<float>(), w.data<float>(), y.data<float>(), g, cout, workspace.data());
      checkClose(y, naiveConv(x, w, {1, 1}, true, {1, 1}));
    }
    for (size_t i = size_t(need); i < workspace.size(); ++i) CHECK(workspace[i] == 7.0f);
  }
}

TEST_CASE("conv2d and pooling on empty tensors") {
  CHECK(ops::conv2d(Tensor::zeros(DType::F32, {0, 4, 4, 2}), iota({3, 3, 2, 5}), {1, 1}, "same", {1, 1}).shape() ==
        Shape{0, 4, 4, 5});
  Tensor noIn = ops::conv2d(iota({1, 4, 4, 0}), Tensor::zeros(DType::F32, {3, 3, 0, 2}), {1, 1}, "same", {1, 1});
  CHECK(values<float>(noIn) == std::vector<float>(32, 0.0f));
  CHECK(ops::pool2d(true, Tensor::zeros(DType::F64, {2, 0, 3, 1}), {2, 2}, {2, 2}, "same").shape() == Shape{2, 0, 2, 1});
  CHECK(errorOf([] { ops::conv2d(iota({1, 4, 4, 2}), iota({0, 3, 2, 5}), {1, 1}, "same", {1, 1}); }) ==
        "conv2d: the kernel's height and width must be positive ([1, 4, 4, 2] and [0, 3, 2, 5])");
}

TEST_CASE("conv2d and pooling errors name the op and the shapes") {
  Tensor x = iota({1, 8, 8, 3}), w = iota({3, 3, 4, 16});
  CHECK(errorOf([&] { ops::conv2d(x, w, {1, 1}, "valid", {1, 1}); }) ==
        "conv2d: input has 3 channels but the kernel expects 4 ([1, 8, 8, 3] and [3, 3, 4, 16])");
  CHECK(errorOf([&] { ops::conv2d(iota({8, 8, 3}), w, {1, 1}, "valid", {1, 1}); }) ==
        "conv2d: the input must have rank 4 [batch, height, width, channels], got [8, 8, 3] (kernel [3, 3, 4, 16])");
  CHECK(errorOf([&] { ops::conv2d(x, iota({3, 3, 3}), {1, 1}, "valid", {1, 1}); }) ==
        "conv2d: the kernel must have rank 4 [height, width, in_channels, out_channels], got [3, 3, 3] (input [1, 8, 8, "
        "3])");
  Tensor w3 = iota({3, 3, 3, 2});
  CHECK(errorOf([&] { ops::conv2d(iota({1, 2, 5, 3}), w3, {1, 1}, "valid", {1, 1}); }) ==
        "conv2d: the kernel (3x3) is larger than the input (2x5) with padding \"valid\" ([1, 2, 5, 3] and [3, 3, 3, 2])");
  CHECK(errorOf([&] { ops::conv2d(iota({1, 4, 4, 3}), w3, {1, 1}, "valid", {2, 1}); }) ==
        "conv2d: the kernel (3x3, dilated to 5x3) is larger than the input (4x4) with padding \"valid\" ([1, 4, 4, 3] "
        "and [3, 3, 3, 2])");
  CHECK(errorOf([&] { ops::conv2d(x, w3, {0, 1}, "valid", {1, 1}); }) == "conv2d: strides must be positive, got (0, 1)");
  CHECK(errorOf([&] { ops::conv2d(x, w3, {1, 1}, "valid", {1, -2}); }) ==
        "conv2d: dilation must be positive, got (1, -2)");
  CHECK(errorOf([&] { ops::conv2d(x, w3, {1, 1}, "valid", {int64_t(1) << 62, 1}); }).find("is too large") !=
        std::string::npos);
  CHECK(errorOf([&] { ops::conv2d(x, w3, {1, 1}, "same", {1000000000, 1}); }) ==
        "conv2d: padding the input for a 2000000001x3 window needs too much memory ([1, 8, 8, 3] and [3, 3, 3, 2])");
  CHECK(errorOf([&] { ops::conv2d(x, w3, {1, 1}, "full", {1, 1}); }) ==
        "conv2d: padding must be \"valid\" or \"same\", got \"full\"");
  CHECK(errorOf([&] { ops::conv2d(ops::cast(x, DType::I32), ops::cast(w3, DType::I32), {1, 1}, "same", {1, 1}); }) ==
        "conv2d is not defined for i32 tensors (use cast() to convert to f32)");
  CHECK(errorOf([&] { ops::conv2d(x, ops::cast(w3, DType::F64), {1, 1}, "same", {1, 1}); }).find(
            "dtype mismatch: f32 and f64") == 0);
  CHECK(errorOf([&] { ops::pool2d(true, iota({4, 4, 1}), {2, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d: the input must have rank 4 [batch, height, width, channels], got [4, 4, 1]");
  CHECK(errorOf([&] { ops::pool2d(false, x, {0, 2}, {2, 2}, "valid"); }) ==
        "avg_pool2d: pool_size must be positive, got (0, 2)");
  CHECK(errorOf([&] { ops::pool2d(false, x, {2, 2}, {2, -1}, "valid"); }) ==
        "avg_pool2d: strides must be positive, got (2, -1)");
  CHECK(errorOf([&] { ops::pool2d(true, iota({1, 2, 2, 1}), {3, 3}, {1, 1}, "valid"); }) ==
        "max_pool2d: the pool window (3x3) is larger than the input (2x2) with padding \"valid\" ([1, 2, 2, 1])");
  CHECK(errorOf([&] { ops::pool2d(true, ops::cast(x, DType::Bool), {2, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d is not defined for bool tensors (use cast() to convert to f32)");
  // A huge same-padded pool window only clips (no buffer), so it is no error.
  CHECK(values<float>(ops::pool2d(true, iota({1, 2, 2, 1}), {int64_t(1) << 40, 3}, {1, 1}, "same")) ==
        std::vector<float>{3, 3, 3, 3});
  CHECK(errorOf([&] { ops::pool2d(true, x, {2, 2}, {2, 2}, "SAME"); }) ==
        "max_pool2d: padding must be \"valid\" or \"same\", got \"SAME\"");
}

TEST_CASE("conv2d and pooling infer shapes on abstract tensors") {
  Tensor x = Tensor::abstract(DType::F32, Shape{8, 32, 31, 3});
  Tensor y = ops::conv2d(x, Tensor::abstract(DType::F32, Shape{3, 3, 3, 16}), {2, 2}, "same", {1, 1});
  CHECK(y.isAbstract());
  CHECK(y.shape() == Shape{8, 16, 16, 16});
  // A concrete kernel with an abstract input (tracing a layer) also only infers.
  CHECK(ops::conv2d(x, iota({5, 5, 3, 4}), {1, 1}, "valid", {1, 1}).isAbstract());
  CHECK(ops::conv2d(x, iota({5, 5, 3, 4}), {1, 1}, "valid", {1, 1}).shape() == Shape{8, 28, 27, 4});
  Tensor p = ops::pool2d(true, x, {2, 2}, {2, 2}, "valid");
  CHECK(p.isAbstract());
  CHECK(p.shape() == Shape{8, 16, 15, 3});
  CHECK(ops::pool2d(false, x, {3, 3}, {2, 2}, "same").shape() == Shape{8, 16, 16, 3});
  CHECK(errorOf([&] { ops::conv2d(x, Tensor::abstract(DType::F32, Shape{3, 3, 4, 16}), {1, 1}, "same", {1, 1}); }) ==
        "conv2d: input has 3 channels but the kernel expects 4 ([8, 32, 31, 3] and [3, 3, 4, 16])");
}

TEST_CASE("the Weft builtins take Keras' arguments: an int or a pair, strides defaulting to pool_size") {
  std::ostringstream out, err;
  Interpreter interp(out, err);
  interp.runSource(std::make_shared<const SourceFile>("<test>", R"(x = ones([1, 6, 6, 2])
print(max_pool2d(x).shape)
print(avg_pool2d(x, 3, strides=1, padding="same").shape)
print(conv2d(x, ones([3, 3, 2, 4]), strides=(2, 1), padding="same").shape)
print(conv2d(x, ones([3, 3, 2, 4]), dilation=[2, 2])[0, 0, 0, 0])
conv2d(x, ones([3, 3, 2, 4]), strides=[1, 2, 3])
)"));
  CHECK(out.str() == "[1, 3, 3, 2]\n[1, 6, 6, 2]\n[1, 3, 6, 4]\n18.0\n");
  CHECK(err.str().find("conv2d() argument 'strides' must be an integer or a pair of integers (height, width)") !=
        std::string::npos);
}

namespace {

// The gradients of sum(dy * conv2d(x, w)) by their definition, in double: (dx, dw).
std::pair<Tensor, Tensor> naiveConvGrads(const Tensor& x, const Tensor& w, const Tensor& dy, Pair s, bool same, Pair d) {
  const Shape &xs = x.shape(), &ws = w.shape(), &ys = dy.shape();
  int64_t pad[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t in = xs[1 + a], ext = (ws[a] - 1) * d[a] + 1;
    pad[a] = same ? std::max<int64_t>((ys[1 + a] - 1) * s[a] + ext - in, 0) / 2 : 0;
  }
  std::vector<double> dx(size_t(x.numel()), 0.0), dw(size_t(w.numel()), 0.0);
  for (int64_t b = 0; b < xs[0]; ++b)
    for (int64_t oy = 0; oy < ys[1]; ++oy)
      for (int64_t ox = 0; ox < ys[2]; ++ox)
        for (int64_t co = 0; co < ws[3]; ++co) {
          const double g = dy.asDouble(((b * ys[1] + oy) * ys[2] + ox) * ys[3] + co);
          for (int64_t ky = 0; ky < ws[0]; ++ky)
            for (int64_t kx = 0; kx < ws[1]; ++kx) {
              const int64_t iy = oy * s[0] - pad[0] + ky * d[0], ix = ox * s[1] - pad[1] + kx * d[1];
              if (iy < 0 || iy >= xs[1] || ix < 0 || ix >= xs[2]) continue;
              for (int64_t ci = 0; ci < xs[3]; ++ci) {
                const int64_t xi = ((b * xs[1] + iy) * xs[2] + ix) * xs[3] + ci, wi = ((ky * ws[1] + kx) * ws[2] + ci) * ws[3] + co;
                dx[size_t(xi)] += g * w.asDouble(wi);
                dw[size_t(wi)] += g * x.asDouble(xi);
              }
            }
        }
  auto tensorOf = [&](const Shape& shape, const std::vector<double>& v) {
    Tensor t = Tensor::empty(x.dtype(), shape);
    for (size_t i = 0; i < v.size(); ++i) {
      if (x.dtype() == DType::F32) t.data<float>()[i] = float(v[i]);
      else t.data<double>()[i] = v[i];
    }
    return t;
  };
  return {tensorOf(xs, dx), tensorOf(ws, dw)};
}

}  // namespace

TEST_CASE("conv2d's gradient ops agree with their definition: im2col chunks, padding, strides, dilation") {
  struct Case { Shape x, w; Pair s; bool same; Pair d; DType t; };
  const Case cases[] = {
      {{2, 5, 6, 3}, {3, 3, 3, 4}, {1, 1}, true, {1, 1}, DType::F64},
      {{1, 8, 7, 2}, {3, 2, 2, 5}, {2, 2}, true, {1, 1}, DType::F64},     // odd same padding at the bottom/right
      {{1, 9, 9, 2}, {3, 3, 2, 3}, {2, 1}, false, {2, 3}, DType::F64},    // dilated, strided
      {{2, 4, 5, 6}, {1, 1, 6, 7}, {1, 1}, false, {1, 1}, DType::F64},    // 1x1: plain GEMMs
      {{2, 5, 5, 6}, {1, 1, 6, 7}, {2, 2}, true, {1, 1}, DType::F32},     // strided 1x1: im2col
      {{4, 30, 30, 64}, {3, 3, 64, 8}, {1, 1}, false, {1, 1}, DType::F32},  // 7 chunks of 455 pixels and a tail
      {{3, 17, 19, 40}, {5, 5, 40, 12}, {2, 1}, true, {1, 2}, DType::F64},  // 1000-element rows: 64-pixel chunks
      {{1, 3, 3, 2}, {3, 3, 2, 40}, {1, 1}, true, {1, 1}, DType::F32},      // tiny products (Eigen's direct path)
  };
  ops::seed(9);
  for (const auto& c : cases) {
    CAPTURE(c.x.str());
    CAPTURE(c.w.str());
    const std::string padding = c.same ? "same" : "valid";
    Tensor x = ops::randomNormal(c.x, 0, 1, c.t), w = ops::randomNormal(c.w, 0, 0.3, c.t);
    Tensor y = ops::conv2d(x, w, c.s, padding, c.d);
    Tensor dy = ops::randomNormal(y.shape(), 0, 1, c.t);
    auto [dx, dw] = naiveConvGrads(x, w, dy, c.s, c.same, c.d);
    const double tol = c.t == DType::F32 ? 1e-4 : 1e-12;
    checkClose(ops::conv2dBackpropInput(dy, w, {c.x[1], c.x[2]}, c.s, padding, c.d), dx, tol);
    checkClose(ops::conv2dBackpropFilter(x, dy, {c.w[0], c.w[1]}, c.s, padding, c.d), dw, tol);
  }
}

TEST_CASE("conv2d's gradient kernels use the workspace they are given and nothing past it") {
  rt::Window2D g;
  g.n = 3, g.h = 20, g.w = 21, g.c = 40, g.kh = 3, g.kw = 3, g.sh = 2, g.padTop = 0, g.padLeft = 1, g.oh = 10, g.ow = 21;
  const int64_t cout = 9;
  ops::seed(6);
  Tensor x = ops::randomNormal({3, 20, 21, 40}, 0, 1, DType::F64), w = ops::randomNormal({3, 3, 40, 9}, 0, 0.3, DType::F64);
  Tensor dy = ops::randomNormal({3, 10, 21, 9}, 0, 1, DType::F64);
  auto [dx, dw] = naiveConvGrads(x, w, dy, {2, 1}, true, {1, 1});
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    const int64_t need = which == 0 ? rt::conv2dBackpropInputWorkspaceSize<double>(g, cout)
                                    : rt::conv2dBackpropFilterWorkspaceSize<double>(g, cout);
    std::vector<double> workspace(size_t(need) + 16, 7.0);  // a canary past the end
    Tensor got = Tensor::empty(DType::F64, which == 0 ? x.shape() : w.shape());
    for (int call = 0; call < 2; ++call) {  // a reused workspace holds the last call's data
      if (which == 0)
        rt::conv2dBackpropInput(dy.data<double>(), w.data<double>(), got.data<double>(), g, cout, workspace.data());
      else
        rt::conv2dBackpropFilter(x.data<double>(), dy.data<double>(), got.data<double>(), g, cout, workspace.data());
      checkClose(got, which == 0 ? dx : dw, 1e-12);
    }
    for (size_t i = size_t(need); i < workspace.size(); ++i) CHECK(workspace[i] == 7.0);
  }
}

TEST_CASE("the pools' gradient ops: overlapping windows add up, the average's divisor excludes padding") {
  // 3x3 input, 2x2 windows at stride 1: the centre is in all four windows.
  Tensor dy = Tensor::empty(DType::F32, {1, 2, 2, 1});
  for (int i = 0; i < 4; ++i) dy.data<float>()[i] = float(1 << i);
  CHECK(values<float>(ops::avgPool2dGrad(dy, {3, 3}, {2, 2}, {1, 1}, "valid")) ==
        std::vector<float>{0.25f, 0.75f, 0.5f, 1.25f, 3.75f, 2.5f, 1, 3, 2});
  // Same-padded 2x2 windows over a 3x3 input at stride 2: the corner window holds one element.
  CHECK(values<float>(ops::avgPool2dGrad(dy, {3, 3}, {2, 2}, {2, 2}, "same")) ==
        std::vector<float>{0.25f, 0.25f, 1, 0.25f, 0.25f, 1, 2, 2, 8});
  // Max: 9 8 7 / 6 5 4 / 3 2 1 — every overlapping window's maximum is its top-left element.
  Tensor x = Tensor::empty(DType::F32, {1, 3, 3, 1});
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = float(9 - i);
  CHECK(values<float>(ops::maxPool2dGrad(x, dy, {2, 2}, {1, 1}, "valid")) == std::vector<float>{1, 2, 0, 4, 8, 0, 0, 0, 0});
  // Channels past a chunk of 64, each with its own maximum.
  Tensor wide = ops::randomNormal({2, 4, 4, 70}, 0, 1, DType::F64);
  Tensor ones = ops::full({2, 2, 2, 70}, 1.0, DType::F64);
  Tensor g = ops::maxPool2dGrad(wide, ones, {2, 2}, {2, 2}, "valid");
  CHECK(ops::reduce(ops::ReduceOp::Sum, g, {}, false).asDouble() == 2 * 2 * 2 * 70);
  Tensor picked = ops::binary(ops::BinaryOp::Mul, g, wide);  // the maxima, where the gradient went
  Tensor pooled = ops::pool2d(true, wide, {2, 2}, {2, 2}, "valid");
  CHECK(std::abs(ops::reduce(ops::ReduceOp::Sum, picked, {}, false).asDouble() -
                 ops::reduce(ops::ReduceOp::Sum, pooled, {}, false).asDouble()) < 1e-9);
}

TEST_CASE("max_pool2d_grad_grad takes each window's element at the maximum max_pool2d_grad picks") {
  auto pick = [](std::vector<double> x, Shape xs, std::vector<double> gx, Pair pool, Pair strides, const char* padding) {
    return values<double>(ops::maxPool2dGradGrad(make<double>(xs, std::move(x)), make<double>(xs, std::move(gx)), pool,
                                                 strides, padding));
  };
  // 9 8 7 / 6 5 4 / 3 2 1 under overlapping 2x2 windows: each window's top-left element.
  std::vector<double> gx{10, 20, 30, 40, 50, 60, 70, 80, 90};
  CHECK(pick({9, 8, 7, 6, 5, 4, 3, 2, 1}, {1, 3, 3, 1}, gx, {2, 2}, {1, 1}, "valid") == std::vector<double>{10, 20, 40, 50});
  // Same padding at stride 2: the windows at the edge hold fewer elements (1 2 3 / 4 9 6 / 7 8 5).
  CHECK(pick({1, 2, 3, 4, 9, 6, 7, 8, 5}, {1, 3, 3, 1}, gx, {2, 2}, {2, 2}, "same") == std::vector<double>{50, 60, 80, 90});
  // Ties go to the first maximum in row-major order, NaN to the last NaN, as in max_pool2d_grad.
  CHECK(pick({1, 3, 3, 3}, {1, 2, 2, 1}, {1, 2, 3, 4}, {2, 2}, {2, 2}, "valid") == std::vector<double>{2});
  CHECK(pick({2, 2, 2, 1}, {1, 1, 4, 1}, {1, 10, 100, 1000}, {1, 2}, {1, 1}, "valid") == std::vector<double>{1, 10, 100});
  CHECK(pick({std::nan(""), 1, std::nan("")}, {1, 1, 3, 1}, {1, 2, 3}, {1, 3}, {1, 1}, "valid") == std::vector<double>{3});
  // The adjoint of max_pool2d_grad in dy: <gg(x, gx), dy> = <gx, grad(x, dy)>, over channels past a
  // chunk of 64, overlapping and same-padded windows.
  ops::seed(11);
  Tensor x = ops::randomNormal({2, 5, 6, 70}, 0, 1, DType::F64), g = ops::randomNormal({2, 5, 6, 70}, 0, 1, DType::F64);
  Tensor dy = ops::randomNormal({2, 3, 3, 70}, 0, 1, DType::F64);
  auto dot = [](const Tensor& a, const Tensor& b) {
    return ops::reduce(ops::ReduceOp::Sum, ops::binary(ops::BinaryOp::Mul, a, b), {}, false).asDouble();
  };
  Tensor y = ops::maxPool2dGradGrad(x, g, {3, 3}, {2, 2}, "same");
  REQUIRE(y.shape() == dy.shape());
  CHECK(std::abs(dot(y, dy) - dot(g, ops::maxPool2dGrad(x, dy, {3, 3}, {2, 2}, "same"))) < 1e-9);
}

TEST_CASE("the gradient ops' errors name the op and the shapes; they infer shapes on abstract tensors") {
  Tensor dy = iota({2, 3, 3, 5}), w = iota({3, 3, 4, 5});
  CHECK(errorOf([&] { ops::conv2dBackpropInput(dy, w, {9, 9}, {2, 2}, "valid", {1, 1}); }) ==
        "conv2d_backprop_input: the output's gradient has shape [2, 3, 3, 5], but conv2d of an input [2, 9, 9, 4] "
        "and a kernel [3, 3, 4, 5] gives [2, 4, 4, 5]");
  CHECK(ops::conv2dBackpropInput(dy, w, {8, 8}, {2, 2}, "valid", {1, 1}).shape() == Shape{2, 8, 8, 4});
  CHECK(errorOf([&] { ops::conv2dBackpropInput(dy, w, {-1, 8}, {2, 2}, "valid", {1, 1}); }) ==
        "conv2d_backprop_input: input_size must be known and non-negative, got (-1, 8)");
  CHECK(errorOf([&] { ops::conv2dBackpropInput(dy, ops::cast(w, DType::F64), {8, 8}, {2, 2}, "valid", {1, 1}); }) ==
        "dtype mismatch: f32 and f64 (in conv2d_backprop_input)");
  CHECK(errorOf([&] { ops::conv2dBackpropInput(iota({3, 3, 5}), w, {8, 8}, {2, 2}, "valid", {1, 1}); }) ==
        "conv2d_backprop_input: the output's gradient must have rank 4 [batch, height, width, channels], got [3, 3, 5]");
  CHECK(errorOf([&] { ops::conv2dBackpropInput(dy, w, {2, 2}, {1, 1}, "valid", {1, 1}); }) ==
        "conv2d_backprop_input: the kernel (3x3) is larger than the input (2x2) with padding \"valid\" (conv2d of an "
        "input [2, 2, 2, 4] and a kernel [3, 3, 4, 5])");
  Tensor x = iota({2, 8, 8, 4});
  CHECK(ops::conv2dBackpropFilter(x, dy, {3, 3}, {2, 2}, "valid", {1, 1}).shape() == Shape{3, 3, 4, 5});
  CHECK(errorOf([&] { ops::conv2dBackpropFilter(x, iota({3, 3, 3, 5}), {3, 3}, {2, 2}, "valid", {1, 1}); }) ==
        "conv2d_backprop_filter: the output's gradient has shape [3, 3, 3, 5], but conv2d of an input [2, 8, 8, 4] "
        "and a kernel [3, 3, 4, 5] gives [2, 3, 3, 5]");
  CHECK(errorOf([&] { ops::conv2dBackpropFilter(x, dy, {0, 3}, {2, 2}, "valid", {1, 1}); }) ==
        "conv2d_backprop_filter: kernel_size must be positive, got (0, 3)");
  CHECK(errorOf([&] { ops::maxPool2dGrad(x, iota({2, 4, 4, 3}), {2, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d_grad: the output's gradient has shape [2, 4, 4, 3], but max_pool2d of an input [2, 8, 8, 4] "
        "gives [2, 4, 4, 4]");
  CHECK(errorOf([&] { ops::maxPool2dGradGrad(x, iota({2, 8, 7, 4}), {2, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d_grad_grad: the input's gradient has shape [2, 8, 7, 4], but the input has shape [2, 8, 8, 4]");
  CHECK(errorOf([&] { ops::maxPool2dGradGrad(x, iota({8, 8, 4}), {2, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d_grad_grad: the input's gradient has shape [8, 8, 4], but the input has shape [2, 8, 8, 4]");
  CHECK(errorOf([&] { ops::maxPool2dGradGrad(x, ops::cast(x, DType::F64), {2, 2}, {2, 2}, "valid"); }) ==
        "dtype mismatch: f64 and f32 (in max_pool2d_grad_grad)");
  CHECK(errorOf([&] { ops::maxPool2dGradGrad(x, x, {9, 2}, {2, 2}, "valid"); }) ==
        "max_pool2d_grad_grad: the pool window (9x2) is larger than the input (8x8) with padding \"valid\" "
        "([2, 8, 8, 4])");
  CHECK(ops::maxPool2dGradGrad(x, x, {3, 3}, {2, 2}, "same").shape() == Shape{2, 4, 4, 4});
  CHECK(errorOf([&] { ops::avgPool2dGrad(dy, {8, 8}, {2, 2}, {2, 2}, "same"); }) ==
        "avg_pool2d_grad: the output's gradient has shape [2, 3, 3, 5], but avg_pool2d of an input [2, 8, 8, 5] "
        "gives [2, 4, 4, 5]");
  CHECK(ops::avgPool2dGrad(dy, {6, 5}, {2, 2}, {2, 2}, "same").shape() == Shape{2, 6, 5, 5});
  CHECK(errorOf([&] { ops::avgPool2dGrad(ops::cast(dy, DType::I32), {6, 6}, {2, 2}, {2, 2}, "same"); }) ==
        "avg_pool2d_grad is not defined for i32 tensors (use cast() to convert to f32)");
  // Abstract operands (a trace, a graph's verification): only the result's type, an unknown batch
  // matching any.
  Tensor ady = Tensor::abstract(DType::F32, Shape{-1, 3, 3, 5});
  CHECK(ops::conv2dBackpropInput(ady, w, {7, 8}, {2, 2}, "valid", {1, 1}).shape() == Shape{-1, 7, 8, 4});
  CHECK(ops::conv2dBackpropFilter(Tensor::abstract(DType::F32, Shape{-1, 8, 8, 4}), ady, {3, 3}, {2, 2}, "valid", {1, 1})
            .shape() == Shape{3, 3, 4, 5});
  CHECK(ops::avgPool2dGrad(ady, {6, 5}, {2, 2}, {2, 2}, "same").isAbstract());
  Tensor ax = Tensor::abstract(DType::F32, Shape{-1, 8, 7, 4});
  CHECK(ops::maxPool2dGradGrad(ax, Tensor::abstract(DType::F32, Shape{2, 8, 7, 4}), {2, 2}, {2, 2}, "same").shape() ==
        Shape{-1, 4, 4, 4});
}
