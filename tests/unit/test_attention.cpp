// scaled_dot_product_attention: the fused kernel against the explicit formula softmax(scale q k^T
// + mask) v built from primitive ops (f64, several blocks, masks that broadcast, causal), against
// PyTorch's F.scaled_dot_product_attention (fixtures), its gradient op against the tape of the
// explicit formula, its errors and shape inference.
#include <doctest/doctest.h>

#include <cmath>
#include <utility>

#include "interpreter/autodiff/tape.h"
#include "interpreter/ops/ops.h"
#include "interpreter/saved/npy.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::BinaryOp;
using ops::ReduceOp;
using testutil::errorOf;
using testutil::normal;


Tensor scalar(double v, DType dt) { return ops::full(Shape{}, v, dt); }

// softmax(scale q k^T + mask) v with the [tq, tk] scores materialised, from primitive ops.
Tensor explicitAttention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                         double scale) {
  const DType dt = q.dtype();
  std::vector<int> perm;
  for (int a = 0; a < k.rank(); ++a) perm.push_back(a);
  std::swap(perm[size_t(k.rank() - 1)], perm[size_t(k.rank() - 2)]);
  Tensor s = ops::binary(BinaryOp::Mul, ops::matmul(q, ops::transpose(k, perm)), scalar(scale, dt));
  const int64_t tq = q.shape()[q.rank() - 2], tk = k.shape()[k.rank() - 2];
  const Tensor negInf = scalar(-INFINITY, dt);
  if (mask && mask->dtype() == DType::Bool) s = ops::where(*mask, s, negInf);
  else if (mask) s = ops::binary(BinaryOp::Add, s, *mask);
  if (causal) {
    Tensor i = ops::reshape(ops::arange(0, double(tq), 1, DType::I64), {tq, 1});
    Tensor j = ops::arange(0, double(tk), 1, DType::I64);
    s = ops::where(ops::binary(BinaryOp::Le, j, i), s, negInf);
  }
  const int last = s.rank() - 1;
  Tensor e = ops::unary(ops::UnaryOp::Exp, ops::binary(BinaryOp::Sub, s, ops::reduce(ReduceOp::Max, s, {last}, true)));
  Tensor p = ops::binary(BinaryOp::Div, e, ops::reduce(ReduceOp::Sum, e, {last}, true));
  return ops::matmul(p, v);
}

double maxDiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  Tensor d = ops::cast(ops::unary(ops::UnaryOp::Abs, ops::binary(BinaryOp::Sub, a, b)), DType::F64);
  return d.numel() ? ops::reduce(ReduceOp::Max, d, {}, false).asDouble() : 0.0;
}

struct Config {
  Shape q;
  int64_t tk, dv;
  bool causal;
  int maskKind;  // 0 none, 1 bool [tq, tk], 2 float [lead0, 1, tq, tk] or [tq, tk]
};

Tensor maskFor(const Config& c, uint32_t seed) {
  const int r = c.q.rank();
  const int64_t tq = c.q[r - 2];
  Shape ms{tq, c.tk};
  if (c.maskKind == 1) {
    Tensor u = normal(ms, seed);
    Tensor keep = ops::binary(BinaryOp::Gt, u, scalar(-1.0, DType::F64));
    // Every row keeps its first key, so no row is wholly masked off here.
    Tensor first = ops::binary(BinaryOp::Eq, ops::arange(0, double(c.tk), 1, DType::I64), scalar(0, DType::I64));
    return ops::binary(BinaryOp::Or, keep, first);
  }
  if (r == 4) ms = Shape{c.q[0], 1, tq, c.tk};
  return normal(ms, seed);
}

}  // namespace

TEST_CASE("attention: the fused kernel matches the explicit softmax formula (f64 and f32, blocks, masks)") {
  const std::vector<Config> configs = {
      {{2, 5, 3}, 5, 4, false, 0},      {{2, 5, 3}, 5, 4, true, 0},      {{1, 3, 8}, 7, 2, false, 1},
      {{2, 3, 9, 4}, 9, 4, true, 2},    {{1, 130, 16}, 200, 8, false, 0}, {{1, 130, 16}, 130, 8, true, 1},
      {{2, 2, 70, 8}, 70, 8, false, 2}, {{1, 200, 4}, 65, 4, true, 0},   {{1, 1, 3}, 129, 3, false, 1},
      // Past kWide keys: blocks of 64 keys, the online softmax across them.
      {{1, 130, 16}, 300, 8, false, 0}, {{1, 300, 4}, 300, 4, true, 1},  {{1, 1, 3}, 290, 3, false, 2},
      // Sizes of whole and partial packets in the block products: the GPT example's heads, and odd ones.
      {{2, 128, 32}, 128, 32, true, 0}, {{1, 100, 37}, 300, 33, true, 2}, {{1, 70, 40}, 70, 17, false, 1}};
  uint32_t seed = 1;
  for (const Config& c : configs)
    for (DType dt : {DType::F64, DType::F32}) {
      INFO("q ", c.q.str(), " tk ", c.tk, " causal ", c.causal, " mask ", c.maskKind, " ", rt::dtypeName(dt));
      Shape ks = c.q, vs = c.q;
      const int r = c.q.rank();
      ks[r - 2] = c.tk, vs[r - 2] = c.tk, vs[r - 1] = c.dv;
      Tensor q = normal(c.q, seed++, dt), k = normal(ks, seed++, dt), v = normal(vs, seed++, dt);
      Tensor m = c.maskKind ? maskFor(c, seed++) : Tensor();
      if (c.maskKind == 2) m = ops::cast(m, dt);
      const Tensor* mask = c.maskKind ? &m : nullptr;
      const double scale = 1.0 / std::sqrt(double(c.q.back()));
      Tensor fused = ops::scaledDotProductAttention(q, k, v, mask, c.causal, std::nullopt);
      CHECK(maxDiff(fused, explicitAttention(q, k, v, mask, c.causal, scale)) < (dt == DType::F64 ? 1e-12 : 2e-5));
    }
  // A given scale; a row with every key masked off gives zeros, not NaN.
  Tensor q = normal({4, 3}, 90), k = normal({5, 3}, 91), v = normal({5, 2}, 92);
  CHECK(maxDiff(ops::scaledDotProductAttention(q, k, v, nullptr, false, 0.25),
                explicitAttention(q, k, v, nullptr, false, 0.25)) < 1e-12);
  Tensor none = ops::binary(BinaryOp::Gt, ops::reshape(ops::arange(0, 20, 1, DType::I64), {4, 5}), scalar(4, DType::I64));
  std::vector<double> y = testutil::values<double>(ops::scaledDotProductAttention(q, k, v, &none, false, std::nullopt));
  std::vector<double> all = testutil::values<double>(explicitAttention(q, k, v, nullptr, false, 1 / std::sqrt(3.0)));
  CHECK(y[0] == 0.0);
  CHECK(y[1] == 0.0);
  for (size_t i = 2; i < y.size(); ++i) CHECK(std::abs(y[i] - all[i]) < 1e-12);
}

TEST_CASE("attention: the gradient op matches the tape of the explicit formula") {
  // 100 keys are one block; 300 are blocks of 64, with the row statistics in a pass of their own.
  // Heads of 8 and 6 values, and of 37 and 33: whole packets and single columns in the block products.
  for (int64_t t : {100, 300})
  for (bool causal : {false, true})
  for (std::pair<int64_t, int64_t> dims : {std::pair<int64_t, int64_t>{8, 6}, {37, 33}}) {
    // (Variables, not a structured binding: doctest's INFO captures them in a lambda, and clang 14
    // cannot capture a binding.)
    const int64_t d = dims.first, dv = dims.second;
    Tensor q = normal({2, t, d}, 10), k = normal({2, t, d}, 11), v = normal({2, t, dv}, 12);
    Tensor dout = normal({2, t, dv}, 13);
    Tensor mask = ops::binary(BinaryOp::Gt, normal({t, t}, 14), scalar(-1.5, DType::F64));
    Tensor out = ops::scaledDotProductAttention(q, k, v, &mask, causal, std::nullopt);
    std::vector<Tensor> fused = ops::scaledDotProductAttentionGrad(q, k, v, out, dout, &mask, causal, std::nullopt);
    autodiff::Tape tape({});
    std::vector<Tensor> w{tape.watch(q), tape.watch(k), tape.watch(v)};
    Tensor y = explicitAttention(w[0], w[1], w[2], &mask, causal, 1 / std::sqrt(double(d)));
    Tensor loss = ops::reduce(ReduceOp::Sum, ops::binary(BinaryOp::Mul, y, dout), {}, false);
    auto g = tape.gradients(loss);
    for (int i = 0; i < 3; ++i) {
      INFO("input ", i, " t ", t, " causal ", causal, " d ", d);
      CHECK(maxDiff(fused[size_t(i)], *g[size_t(i)]) < 1e-11);
    }
  }
}

TEST_CASE("attention: against PyTorch's F.scaled_dot_product_attention and its backward (fixtures)") {
  auto fx = [](const std::string& name) { return saved::readNpy(std::string(WEFT_SOURCE_DIR) + "/tests/fixtures/attention/" + name + ".npy"); };
  for (const char* c : {"plain", "causal", "mask"}) {
    INFO("case ", c);
    const std::string p = c;
    Tensor q = fx(p + "_q"), k = fx(p + "_k"), v = fx(p + "_v"), dout = fx(p + "_dout");
    const bool causal = p == "causal";
    Tensor mask = p == "mask" ? fx("mask_mask") : Tensor();
    const Tensor* m = p == "mask" ? &mask : nullptr;
    Tensor out = ops::scaledDotProductAttention(q, k, v, m, causal, std::nullopt);
    CHECK(maxDiff(out, fx(p + "_out")) < 2e-5);
    std::vector<Tensor> d = ops::scaledDotProductAttentionGrad(q, k, v, out, dout, m, causal, std::nullopt);
    CHECK(maxDiff(d[0], fx(p + "_dq")) < 5e-5);
    CHECK(maxDiff(d[1], fx(p + "_dk")) < 5e-5);
    CHECK(maxDiff(d[2], fx(p + "_dv")) < 5e-5);
  }
}

TEST_CASE("attention: errors name the op and the shapes; abstract inputs infer the result") {
  Tensor q = normal({2, 4, 8}, 1, DType::F32), k = normal({2, 6, 8}, 2, DType::F32), v = normal({2, 6, 3}, 3, DType::F32);
  Tensor bad = ops::full(Shape{4, 5}, 1, DType::Bool);
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, k, v, &bad, false, std::nullopt); }) ==
        "scaled_dot_product_attention: the mask has shape [4, 5], which does not broadcast to the scores' shape "
        "[2, 4, 6] [..., queries, keys]");
  Tensor ints = ops::full(Shape{4, 6}, 1, DType::I32);
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, k, v, &ints, false, std::nullopt); }) ==
        "scaled_dot_product_attention: the mask must be bool (true: attend) or f32 (added to the scores), got i32");
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, normal({2, 6, 7}, 4, DType::F32), v, nullptr, false, std::nullopt); }) ==
        "scaled_dot_product_attention: q and k must have the same depth (last axis) (q [2, 4, 8], k [2, 6, 7], v [2, 6, 3])");
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, k, normal({2, 5, 3}, 5, DType::F32), nullptr, false, std::nullopt); }) ==
        "scaled_dot_product_attention: k and v must have the same number of keys (second-to-last axis) (q [2, 4, 8], "
        "k [2, 6, 8], v [2, 5, 3])");
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, normal({3, 6, 8}, 6, DType::F32), v, nullptr, false, std::nullopt); }) ==
        "scaled_dot_product_attention: q, k and v must have the same leading (batch) axes (q [2, 4, 8], k [3, 6, 8], "
        "v [2, 6, 3])");
  CHECK(errorOf([&] { ops::scaledDotProductAttention(q, ops::cast(k, DType::F64), v, nullptr, false, std::nullopt); }) ==
        "dtype mismatch: f32 and f64 (in scaled_dot_product_attention)");
  CHECK(errorOf([&] { ops::scaledDotProductAttention(ops::cast(q, DType::I32), k, v, nullptr, false, std::nullopt); }) ==
        "scaled_dot_product_attention is not defined for i32 tensors (use cast() to convert to f32)");
  Tensor out = ops::scaledDotProductAttention(q, k, v, nullptr, false, std::nullopt);
  CHECK(errorOf([&] { ops::scaledDotProductAttentionGrad(q, k, v, out, q, nullptr, false, std::nullopt); }) ==
        "scaled_dot_product_attention_grad: the output's gradient has type f32[2, 4, 8], but attention of these q, k, v "
        "gives f32[2, 4, 3]");
  Tensor aq = Tensor::abstract(DType::F32, Shape{-1, 4, 4, 8}), ak = Tensor::abstract(DType::F32, Shape{-1, 4, 6, 8});
  Tensor av = Tensor::abstract(DType::F32, Shape{2, 4, 6, 3}), am = Tensor::abstract(DType::Bool, Shape{-1, 1, 4, 6});
  CHECK(ops::scaledDotProductAttention(aq, ak, av, &am, true, std::nullopt).shape() == Shape{2, 4, 4, 3});
}

}  // namespace weft
