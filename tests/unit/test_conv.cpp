// conv2d and the 2-D poolings against PyTorch references (tests/fixtures, made by
// make_fixtures.py) and a naive loop; error texts; shape inference on abstract tensors.
#include <cmath>
#include <sstream>

#include "interpreter/eval/interpreter.h"
#include "interpreter/saved/npy.h"
#include "stdlib/runtime/conv.h"
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
