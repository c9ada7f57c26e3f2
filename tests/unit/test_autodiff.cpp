// Every primitive's VJP rule against central finite differences in f64, looping over the op
// table: a new op needs a case here (or a place in one of the lists of ops without a gradient),
// or this test fails.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "interpreter/autodiff/rules.h"
#include "interpreter/autodiff/tape.h"
#include "interpreter/eval/interpreter.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::OpId;

Tensor f64(const Shape& shape, std::vector<double> v) { return testutil::make<double>(shape, std::move(v)); }

// Values in [lo, hi), well apart from each other (no ties for max, no kinks at 0).
Tensor spread(const Shape& shape, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t = Tensor::empty(DType::F64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double x = u(gen);
    if (lo < 0 && hi > 0 && std::abs(x) < 0.2) x += x < 0 ? -0.3 : 0.3;
    t.data<double>()[i] = x;
  }
  return t;
}

struct Case {
  std::vector<Tensor> in;
  ops::Attrs attrs;
};

ops::Attrs reduceAttrs(std::vector<int64_t> axes, bool keep) { return {{"axes", axes}, {"keepdims", keep}}; }
std::vector<int64_t> subs(std::vector<ops::Subscript> s) { return ops::encodeSubscripts(s); }
ops::Subscript range(std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c = std::nullopt) {
  ops::Subscript s;
  s.kind = ops::Subscript::Range;
  s.start = a;
  s.stop = b;
  s.step = c;
  return s;
}
ops::Subscript index(int64_t i) {
  ops::Subscript s;
  s.index = i;
  return s;
}

// The differentiable ops and inputs to check them at (several cases for some).
std::multimap<OpId, Case> cases() {
  std::multimap<OpId, Case> c;
  Shape s23{2, 3};
  auto any = [&](uint32_t k) { return spread(s23, -2.0, 2.0, k); };
  auto pos = [&](uint32_t k) { return spread(s23, 0.5, 2.0, k); };
  auto add = [&](OpId op, std::vector<Tensor> in, ops::Attrs a = {}) { c.insert({op, Case{std::move(in), std::move(a)}}); };
  for (OpId op : {OpId::UnaryNeg, OpId::UnaryAbs, OpId::UnaryExp, OpId::UnaryTanh, OpId::UnarySigmoid, OpId::UnaryRelu,
                  OpId::UnaryErf, OpId::UnarySin, OpId::UnaryCos, OpId::UnaryExpm1, OpId::UnarySquare})
    add(op, {any(1)});
  for (OpId op : {OpId::UnaryLog, OpId::UnarySqrt, OpId::UnaryRsqrt, OpId::UnaryLog1p}) add(op, {pos(2)});
  // gelu, both forms: around 0, in the tails, and below the clamp at -1000 (a zero gradient).
  for (bool approximate : {false, true}) {
    add(OpId::Gelu, {any(46)}, {{"approximate", approximate}});
    add(OpId::Gelu, {f64(Shape{5}, {-1200.0, -1000.5, -7.5, -3.2, 4.1})}, {{"approximate", approximate}});
  }
  // Binary ops, also broadcasting ([2, 3] with [3], [2, 1] and a scalar).
  for (OpId op : {OpId::BinaryAdd, OpId::BinarySub, OpId::BinaryMul, OpId::BinaryDiv, OpId::BinaryMaximum,
                  OpId::BinaryMinimum}) {
    add(op, {any(3), op == OpId::BinaryDiv ? pos(4) : any(4)});
    add(op, {any(5), spread(Shape{3}, 0.5, 2.0, 6)});
    add(op, {spread(Shape{2, 1}, 0.5, 2.0, 7), any(8)});
    add(op, {any(9), spread(Shape{}, 0.5, 2.0, 10)});
  }
  add(OpId::BinaryPow, {pos(11), any(12)});
  add(OpId::BinaryPow, {pos(13), spread(Shape{3}, -1.0, 2.0, 14)});
  add(OpId::BinaryMod, {f64(Shape{3}, {5.3, -2.7, 7.1}), f64(Shape{3}, {2.0, 1.5, -3.0})});
  Tensor x234 = spread(Shape{2, 3, 4}, -2.0, 2.0, 15);
  for (OpId op : {OpId::ReduceSum, OpId::ReduceMean, OpId::ReduceMax, OpId::ReduceMin, OpId::ReduceProd}) {
    add(op, {x234}, reduceAttrs({}, false));
    add(op, {x234}, reduceAttrs({1}, false));
    add(op, {x234}, reduceAttrs({0, -1}, true));
  }
  add(OpId::ReduceMean, {x234}, reduceAttrs({1}, false).set("shards", int64_t(4)));  // a device's share
  add(OpId::MatMul, {spread(Shape{2, 3}, -1, 1, 16), spread(Shape{3, 4}, -1, 1, 17)});
  add(OpId::MatMul, {spread(Shape{2, 2, 3}, -1, 1, 18), spread(Shape{3, 4}, -1, 1, 19)});  // batch broadcast
  add(OpId::MatMul, {spread(Shape{3}, -1, 1, 20), spread(Shape{3, 4}, -1, 1, 21)});        // vector @ matrix
  add(OpId::MatMul, {spread(Shape{2, 3}, -1, 1, 22), spread(Shape{3}, -1, 1, 23)});        // matrix @ vector
  add(OpId::MatMul, {spread(Shape{3}, -1, 1, 24), spread(Shape{3}, -1, 1, 25)});           // dot
  // Operands read transposed (the gradients' own products): each flag, both, and rows stacked in
  // a batch axis times a transposed matrix.
  auto flags = [](bool a, bool b) { return ops::Attrs{{"transpose_a", a}, {"transpose_b", b}}; };
  add(OpId::MatMul, {spread(Shape{3, 2}, -1, 1, 60), spread(Shape{3, 4}, -1, 1, 61)}, flags(true, false));
  add(OpId::MatMul, {spread(Shape{2, 3}, -1, 1, 62), spread(Shape{4, 3}, -1, 1, 63)}, flags(false, true));
  add(OpId::MatMul, {spread(Shape{3, 2}, -1, 1, 64), spread(Shape{4, 3}, -1, 1, 65)}, flags(true, true));
  add(OpId::MatMul, {spread(Shape{2, 2, 3}, -1, 1, 66), spread(Shape{4, 3}, -1, 1, 67)}, flags(false, true));
  add(OpId::Cast, {any(26)}, {{"dtype", DType::F64}});
  add(OpId::Reshape, {any(27)}, {{"shape", std::vector<int64_t>{3, -1}}});
  add(OpId::Relayout, {any(88)}, {{"mesh", std::string("batch=2")}, {"to", std::vector<int64_t>{-1}}});
  add(OpId::Transpose, {x234}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  add(OpId::Transpose, {any(28)}, {{"perm", std::vector<int64_t>{}}});
  add(OpId::BroadcastTo, {spread(Shape{3, 1}, -1, 1, 29)}, {{"shape", std::vector<int64_t>{2, 3, 4}}});
  add(OpId::Concat, {any(30), spread(Shape{2, 2}, -1, 1, 31)}, {{"axis", int64_t(1)}});
  add(OpId::Stack, {any(32), any(33)}, {{"axis", int64_t(-1)}});
  add(OpId::Split, {x234}, {{"sizes", std::vector<int64_t>{1, 3}}, {"axis", int64_t(2)}});
  add(OpId::Squeeze, {spread(Shape{2, 1, 3}, -1, 1, 34)}, {{"axes", std::vector<int64_t>{1}}});
  add(OpId::ExpandDims, {any(35)}, {{"axis", int64_t(-1)}});
  Tensor mask = testutil::make<bool>(s23, {true, false, true, false, false, true});
  add(OpId::Where, {mask, any(36), any(37)});
  add(OpId::Where, {mask, spread(Shape{3}, -1, 1, 38), spread(Shape{}, -1, 1, 39)});
  add(OpId::Clip, {spread(s23, -3, 3, 40), f64(Shape{}, {-0.9}), f64(Shape{}, {1.1})});
  add(OpId::GetItem, {x234}, {{"subs", subs({index(1), range(std::nullopt, std::nullopt, 2)})}});
  add(OpId::GetItem, {x234}, {{"subs", subs({range(0, 2), index(-1), range(1, std::nullopt)})}});
  add(OpId::SetItem, {x234, spread(Shape{3}, -1, 1, 41)}, {{"subs", subs({index(0), range(std::nullopt, std::nullopt), index(2)})}});
  add(OpId::Take, {x234, testutil::i32(Shape{4}, {2, 0, 2, -1})}, {{"axis", int64_t(1)}});
  add(OpId::Take, {spread(Shape{5, 3}, -1, 1, 42), testutil::i32(Shape{2, 2}, {4, 1, 1, 0})}, {{"axis", int64_t(0)}});
  add(OpId::BroadcastRows, {any(43), Tensor::scalar<int64_t>(3)});
  add(OpId::UpdateRow, {spread(Shape{4, 2, 3}, -1, 1, 44), any(45), Tensor::scalar<int32_t>(1)});
  // conv2d and its gradient ops (each linear in each operand): valid and same padding (odd
  // totals put the extra row/column at the bottom/right), strides 1 and 2, dilation, a non-square
  // kernel and strides, 1x1 kernels (the GEMM-only path), and enough channels for the forward
  // pass's Winograd path.
  auto conv = [&](Shape xs, Shape ws, std::vector<int64_t> strides, const char* padding, std::vector<int64_t> dilation,
                  uint32_t seed) {
    ops::Attrs attrs{{"strides", strides}, {"padding", std::string(padding)}, {"dilation", dilation}};
    Tensor x = spread(xs, -1, 1, seed), w = spread(ws, -1, 1, seed + 1);
    Tensor dy = spread(ops::apply1(OpId::Conv2D, std::vector<Tensor>{x, w}, attrs).shape(), -1, 1, seed + 2);
    add(OpId::Conv2D, {x, w}, attrs);
    add(OpId::Conv2DBackpropInput, {dy, w}, ops::Attrs(attrs).set("input_size", std::vector<int64_t>{xs[1], xs[2]}));
    add(OpId::Conv2DBackpropFilter, {x, dy}, ops::Attrs(attrs).set("kernel_size", std::vector<int64_t>{ws[0], ws[1]}));
  };
  conv(Shape{2, 5, 5, 2}, Shape{3, 3, 2, 3}, {1, 1}, "valid", {1, 1}, 50);
  conv(Shape{2, 5, 5, 2}, Shape{3, 3, 2, 3}, {1, 1}, "same", {1, 1}, 52);
  conv(Shape{1, 7, 6, 2}, Shape{3, 3, 2, 2}, {2, 2}, "valid", {1, 1}, 54);
  conv(Shape{1, 6, 5, 2}, Shape{3, 3, 2, 2}, {2, 2}, "same", {1, 1}, 56);
  conv(Shape{1, 7, 7, 2}, Shape{3, 3, 2, 2}, {1, 1}, "valid", {2, 2}, 58);
  conv(Shape{1, 6, 7, 2}, Shape{2, 3, 2, 3}, {1, 2}, "same", {2, 1}, 60);
  conv(Shape{2, 3, 4, 3}, Shape{1, 1, 3, 2}, {1, 1}, "valid", {1, 1}, 62);
  conv(Shape{1, 5, 5, 3}, Shape{1, 1, 3, 2}, {2, 2}, "same", {1, 1}, 64);
  conv(Shape{1, 4, 4, 16}, Shape{3, 3, 16, 16}, {1, 1}, "same", {1, 1}, 66);
  // The pools, their gradient ops and max_pool2d_grad_grad (the max pool's are linear in the
  // gradient, with no gradient for x): overlapping and disjoint windows, valid and same padding
  // (the average's divisor counts only the elements inside the input). Values well apart: no ties
  // (see the test below), so that a small step in x moves no maximum.
  auto pool = [&](Shape xs, std::vector<int64_t> size, std::vector<int64_t> strides, const char* padding,
                  uint32_t seed) {
    ops::Attrs attrs{{"pool", size}, {"strides", strides}, {"padding", std::string(padding)}};
    Tensor x = spread(xs, -2, 2, seed);
    Tensor dy = spread(ops::apply1(OpId::MaxPool2D, std::vector<Tensor>{x}, attrs).shape(), -1, 1, seed + 10);
    add(OpId::MaxPool2D, {x}, attrs);
    add(OpId::AvgPool2D, {x}, attrs);
    add(OpId::MaxPool2DGrad, {x, dy}, attrs);
    add(OpId::AvgPool2DGrad, {dy}, ops::Attrs(attrs).set("input_size", std::vector<int64_t>{xs[1], xs[2]}));
    add(OpId::MaxPool2DGradGrad, {x, spread(xs, -1, 1, seed + 20)}, attrs);
  };
  pool(Shape{2, 4, 4, 3}, {2, 2}, {2, 2}, "valid", 70);
  pool(Shape{1, 5, 5, 2}, {3, 3}, {1, 1}, "valid", 71);
  pool(Shape{1, 5, 5, 2}, {3, 3}, {2, 2}, "same", 72);
  pool(Shape{1, 5, 4, 2}, {2, 2}, {1, 1}, "same", 73);
  pool(Shape{1, 5, 7, 2}, {2, 3}, {1, 2}, "valid", 74);
  // Attention: plain, causal, a given scale, bool masks that broadcast (a float mask has no gradient: test_attention.cpp), more queries
  // than keys, and lengths past one block of the kernel (64) so that the online softmax rescales.
  auto attention = [&](Shape qs, int64_t tk, int64_t dv, std::optional<Tensor> mask, bool causal, uint32_t seed,
                       std::optional<double> scale = std::nullopt) {
    Shape ks = qs, vs = qs;
    ks[qs.rank() - 2] = tk, vs[qs.rank() - 2] = tk, vs[qs.rank() - 1] = dv;
    std::vector<Tensor> in{spread(qs, -1, 1, seed), spread(ks, -1, 1, seed + 1), spread(vs, -1, 1, seed + 2)};
    if (mask) in.push_back(*mask);
    ops::Attrs attrs{{"causal", causal}};
    if (scale) attrs.set("scale", *scale);
    add(OpId::Attention, in, attrs);
  };
  attention(Shape{2, 5, 3}, 5, 4, std::nullopt, false, 80);
  attention(Shape{2, 5, 3}, 5, 4, std::nullopt, true, 81);
  attention(Shape{1, 4, 3}, 6, 2, std::nullopt, false, 82, 0.7);
  Tensor keep = ops::binary(ops::BinaryOp::Ne, ops::reshape(ops::arange(0, 12, 1, DType::I32), {1, 3, 4}),
                            ops::full(Shape{}, 5, DType::I32));  // [1, 3, 4]: one key of one query masked
  attention(Shape{2, 2, 3, 3}, 4, 2, ops::reshape(keep, {1, 1, 3, 4}), false, 83);
  attention(Shape{2, 3, 4}, 4, 2, keep, true, 85);
  attention(Shape{1, 70, 2}, 130, 2, std::nullopt, false, 86);
  attention(Shape{1, 70, 2}, 70, 3, std::nullopt, true, 87);
  // layer_norm over the last axis: one row, several, and rows of rank 3.
  for (Shape s : {Shape{5}, Shape{3, 4}, Shape{2, 2, 3}}) {
    const uint32_t seed = uint32_t(90 + 3 * s.rank());
    const Shape p{s.back()};
    add(OpId::LayerNorm, {spread(s, -2, 2, seed), spread(p, 0.5, 1.5, seed + 1), spread(p, -1, 1, seed + 2)},
        {{"epsilon", 0.01}});
  }
  return c;
}

// Ops whose results do not depend smoothly on their inputs, and the graph-only ops.
const std::set<OpId> kNoGradient = {
    OpId::UnaryFloor, OpId::UnaryCeil, OpId::UnaryRound, OpId::UnarySign, OpId::UnaryNot, OpId::BinaryFloorDiv,
    OpId::BinaryEq, OpId::BinaryNe, OpId::BinaryLt, OpId::BinaryLe, OpId::BinaryGt, OpId::BinaryGe, OpId::BinaryAnd,
    OpId::BinaryOr, OpId::ReduceAny, OpId::ReduceAll, OpId::ArgMax, OpId::ArgMin, OpId::KthLargest, OpId::AdamUpdate, OpId::OneHot, OpId::Full, OpId::Eye,
    OpId::Arange, OpId::Linspace, OpId::RandomNormal, OpId::RandomUniform, OpId::RandomTruncatedNormal, OpId::ShapeOf};
// Ops whose rule is an error naming what is missing (attention's and layer_norm's gradients: no
// second order yet).
const std::set<OpId> kNoRuleYet = {OpId::AttentionGrad, OpId::LayerNormGrad};
const std::set<OpId> kGraphOnly = {OpId::Constant, OpId::ReadVariable, OpId::AssignVariable,
                                   OpId::Print, OpId::Check, OpId::Cond, OpId::While};

// L = sum_j sum(out_j * r_j), with fixed random weights r_j, so every output element counts.
Tensor lossOf(OpId op, const std::vector<Tensor>& in, const ops::Attrs& attrs) {
  std::vector<Tensor> out = ops::apply(op, in, attrs);
  Tensor total = ops::full(Shape{}, 0.0, DType::F64);
  for (size_t j = 0; j < out.size(); ++j) {
    Tensor r = spread(out[j].shape(), -1.0, 1.0, 100 + uint32_t(j));
    total = ops::binary(ops::BinaryOp::Add, total,
                        ops::reduce(ops::ReduceOp::Sum, ops::binary(ops::BinaryOp::Mul, out[j], r), {}, false));
  }
  return total;
}

void checkCase(OpId op, const Case& c) {
  std::vector<Tensor> watched = c.in;
  std::vector<size_t> floats;
  std::vector<Tensor> grads;
  {
    autodiff::Tape tape({});
    for (size_t i = 0; i < c.in.size(); ++i)
      if (rt::isFloat(c.in[i].dtype())) {
        watched[i] = tape.watch(c.in[i]);
        floats.push_back(i);
      }
    Tensor loss = lossOf(op, watched, c.attrs);
    auto g = tape.gradients(loss);
    for (size_t k = 0; k < floats.size(); ++k) grads.push_back(g[k] ? *g[k] : ops::full(c.in[floats[k]].shape(), 0.0, DType::F64));
  }
  const double h = 1e-6;
  for (size_t k = 0; k < floats.size(); ++k) {
    size_t i = floats[k];
    REQUIRE(grads[k].shape() == c.in[i].shape());
    REQUIRE(grads[k].dtype() == DType::F64);
    for (int64_t e = 0; e < c.in[i].numel(); ++e) {
      std::vector<Tensor> plus = c.in, minus = c.in;
      plus[i] = c.in[i].clone();
      minus[i] = c.in[i].clone();
      plus[i].data<double>()[e] += h;
      minus[i].data<double>()[e] -= h;
      double fd = (lossOf(op, plus, c.attrs).asDouble() - lossOf(op, minus, c.attrs).asDouble()) / (2 * h);
      double got = grads[k].asDouble(e);
      INFO(ops::opName(op), " input ", i, " element ", e, ": tape ", got, ", finite differences ", fd);
      CHECK(std::abs(got - fd) <= 1e-6 * (1.0 + std::abs(fd)));
    }
  }
}

}  // namespace

TEST_CASE("autodiff: every op's VJP rule matches central finite differences (f64)") {
  auto all = cases();
  for (int i = 0; i < ops::kOpCount; ++i) {
    OpId op = OpId(i);
    const ops::OpDef& d = ops::opDef(op);
    INFO("op ", std::string(d.name));
    if (d.family == ops::Family::Collective) continue;  // checked on a mesh's devices: test_collectives.cpp
    if (kGraphOnly.count(op)) {
      CHECK((d.vjp == nullptr));
      continue;
    }
    if (kNoGradient.count(op)) {
      CHECK((d.vjp == autodiff::noGradient));
      continue;
    }
    if (kNoRuleYet.count(op)) {
      std::vector<bool> need(6, true);
      CHECK(testutil::errorOf([&] { d.vjp({{}, {}, {}, {}, need}); }).find("has no gradient yet") != std::string::npos);
      continue;
    }
    // A differentiable op: it has a rule and at least one case.
    REQUIRE((d.vjp != nullptr));
    CHECK((d.vjp != autodiff::noGradient));
    REQUIRE_MESSAGE(all.count(op) > 0, "no finite-difference case for op ", std::string(d.name));
    auto [lo, hi] = all.equal_range(op);
    for (auto it = lo; it != hi; ++it) checkCase(op, it->second);
  }
}

TEST_CASE("autodiff: max pooling's gradient goes to the first maximum of a window on ties") {
  // One 2x2 window holding 1, 3 / 3, 3: its maximum comes from the first 3 (row-major), as in
  // PyTorch and TensorFlow; overlapping windows (stride 1) each send theirs to their own first.
  Tensor x = testutil::make<double>(Shape{1, 2, 2, 1}, {1, 3, 3, 3});
  Tensor dy = testutil::make<double>(Shape{1, 1, 1, 1}, {5});
  ops::Attrs attrs{{"pool", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                   {"padding", std::string("valid")}};
  {
    autodiff::Tape tape({});
    Tensor w = tape.watch(x);
    Tensor y = ops::apply1(OpId::MaxPool2D, std::vector<Tensor>{w}, attrs);
    Tensor loss = ops::reduce(ops::ReduceOp::Sum, ops::binary(ops::BinaryOp::Mul, y, dy), {}, false);
    auto g = tape.gradients(loss);
    REQUIRE(g[0]);
    CHECK(testutil::values<double>(*g[0]) == std::vector<double>{0, 5, 0, 0});
  }
  Tensor row = testutil::make<double>(Shape{1, 1, 4, 1}, {2, 2, 2, 1});
  Tensor g = ops::maxPool2dGrad(row, testutil::make<double>(Shape{1, 1, 3, 1}, {1, 10, 100}), {1, 2}, {1, 1}, "valid");
  CHECK(testutil::values<double>(g) == std::vector<double>{1, 10, 100, 0});
  // NaN wins, as in the forward pass (the last NaN of a window).
  Tensor nan = testutil::make<double>(Shape{1, 1, 3, 1}, {std::nan(""), 1, std::nan("")});
  g = ops::maxPool2dGrad(nan, testutil::make<double>(Shape{1, 1, 1, 1}, {7}), {1, 3}, {1, 1}, "valid");
  CHECK(testutil::values<double>(g) == std::vector<double>{0, 0, 7});
}

TEST_CASE("autodiff: a variable the value does not use has no gradient; reads are leaves") {
  auto w = std::make_shared<VariableObj>();
  w->value = f64(Shape{2}, {1.0, 2.0});
  auto unused = std::make_shared<VariableObj>();
  unused->value = f64(Shape{}, {3.0});
  autodiff::Tape tape({w, unused});
  Tensor a = readVariable(*w), b = readVariable(*w);  // two reads of one variable add up
  Tensor loss = ops::reduce(ops::ReduceOp::Sum, ops::binary(ops::BinaryOp::Mul, a, b), {}, false);
  auto g = tape.gradients(loss);
  REQUIRE(g[0]);
  CHECK(testutil::values<double>(*g[0]) == std::vector<double>{2.0, 4.0});
  CHECK(!g[1]);
  CHECK(tape.wasRead(0));
  CHECK(!tape.wasRead(1));
}

// The gradient through a graph while loop (a backward while loop recomputing each iteration,
// docs/training.md) against central finite differences of the loss run eagerly: an RNN-like
// loop reading a variable, carrying two float values and an integer counter.
TEST_CASE("autodiff: a graph while loop's gradient matches central finite differences (f64)") {
  std::ostringstream out, err;
  Interpreter in(out, err);
  auto run = [&](const std::string& src) {
    REQUIRE_MESSAGE(in.runSource(std::make_shared<SourceFile>("while_fd.model", src)) == 0, err.str());
  };
  run(R"(
w = Variable(tensor([[0.5, -0.3], [0.2, 0.4]], dtype=f64))
x = tensor([0.3, -0.7], dtype=f64)
fn loss() {
  h = x
  y = cast(0.0, f64)
  k = 0
  while k < 4 {
    h = tanh(matmul(h, w) + x)
    y = y * 0.5 + sum(h * h)
    k += 1
  }
  return y + sum(h)
}
@function
fn grads() { return value_and_grad(loss, [w]) }
got = grads()[1][0]
)");
  auto global = [&](const char* name) -> Value& {
    Value* v = in.globals()->findLocal(intern(name));
    REQUIRE(v);
    return *v;
  };
  Tensor got = global("got").tensor();
  auto* w = global("w").as<VariableObj>();
  Tensor w0 = w->value.clone();
  REQUIRE(got.shape() == w0.shape());
  REQUIRE(got.dtype() == DType::F64);
  const double h = 1e-6;
  auto lossAt = [&](int64_t e, double d) {
    w->value = w0.clone();
    w->value.data<double>()[e] += d;
    run("l = loss()\n");
    return global("l").tensor().asDouble();
  };
  for (int64_t e = 0; e < w0.numel(); ++e) {
    double fd = (lossAt(e, h) - lossAt(e, -h)) / (2 * h);
    INFO("element ", e, ": graph ", got.asDouble(e), ", finite differences ", fd);
    CHECK(std::abs(got.asDouble(e) - fd) <= 1e-6 * (1.0 + std::abs(fd)));
    CHECK(std::abs(fd) > 1e-3);  // each element matters
  }
  w->value = w0;
}

}  // namespace weft
