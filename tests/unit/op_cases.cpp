#include "op_cases.h"

#include "test_ops_util.h"

namespace weft::testutil {
namespace {

using ops::Attrs;
using ops::OpId;
using ops::TensorType;

Tensor t(const Shape& s, DType dtype = DType::F32) { return iota(s, dtype); }
Tensor positive(const Shape& s) { return ops::binary(ops::BinaryOp::Add, t(s), ops::full(Shape{}, 1, DType::F32)); }

}  // namespace

std::multimap<OpId, OpCase> opCases() {
  std::multimap<OpId, OpCase> c;
  auto ok = [&](OpId op, std::vector<Tensor> in, Attrs a = {}) { c.insert({op, OpCase{std::move(in), std::move(a)}}); };
  auto bad = [&](OpId op, std::vector<Tensor> in, Attrs a = {}) {
    c.insert({op, OpCase{std::move(in), std::move(a), false}});
  };
  const Shape s23{2, 3}, s3{3};
  auto family = [](ops::Family f) {
    std::vector<OpId> ids;
    for (int i = 0; i < ops::kOpCount; ++i)
      if (ops::opDef(OpId(i)).family == f) ids.push_back(OpId(i));
    return ids;
  };
  for (const OpId op : family(ops::Family::Unary)) {
    if (op == OpId::Gelu) {  // its form an attribute
      for (bool approximate : {false, true}) {
        const Attrs form{{"approximate", approximate}};
        ok(op, {t(s23)}, form);
        ok(op, {t(Shape{0, 4}, DType::F64)}, form);
        bad(op, {t(s3, DType::I32)}, form);
      }
      continue;
    }
    if (op == OpId::UnaryNot) {
      ok(op, {ops::binary(ops::BinaryOp::Gt, t(s23), t(s3))});
      bad(op, {t(s23)});
      continue;
    }
    ok(op, {positive(s23)});
    ok(op, {t(Shape{0, 4}, DType::F64)});
    // Integer inputs: accepted by the numeric ops, rejected by the float ones.
    const bool numeric = std::string(" neg abs relu sign square ").find(" " + std::string(ops::opDef(op).name) + " ") !=
                         std::string::npos;
    c.insert({op, OpCase{{t(s3, DType::I32)}, {}, numeric}});
  }
  for (const OpId op : family(ops::Family::Binary)) {
    const bool logical = op == OpId::BinaryAnd || op == OpId::BinaryOr;
    const DType dt = logical ? DType::Bool : DType::F32;
    ok(op, {ops::cast(positive(s23), dt), ops::cast(positive(s3), dt)});
    ok(op, {ops::cast(positive(Shape{2, 1}), dt), ops::cast(positive(Shape{1, 4}), dt)});
    bad(op, {ops::cast(t(s23), dt), ops::cast(t(Shape{2}), dt)});                 // shapes do not broadcast
    bad(op, {t(s23), t(s23, DType::F64)});                                       // dtypes differ
    if (!logical) ok(op, {t(s23, DType::I32), ops::cast(positive(s3), DType::I32)});
  }
  for (const OpId op : family(ops::Family::Reduce)) {
    const bool logical = op == OpId::ReduceAny || op == OpId::ReduceAll;
    const Tensor x = logical ? ops::binary(ops::BinaryOp::Gt, t(Shape{2, 3, 4}), t(Shape{4})) : positive(Shape{2, 3, 4});
    ok(op, {x}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", false}});
    ok(op, {x}, {{"axes", std::vector<int64_t>{0, -1}}, {"keepdims", true}});
    ok(op, {x}, {{"axes", std::vector<int64_t>{}}, {"keepdims", false}});
    bad(op, {x}, {{"axes", std::vector<int64_t>{3}}, {"keepdims", false}});
    bad(op, {x}, {{"axes", std::vector<int64_t>{1, 1}}, {"keepdims", false}});
  }
  bad(OpId::ReduceMax, {t(Shape{2, 0})}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", false}});
  ok(OpId::ReduceMean, {t(Shape{4, 5}, DType::I64)}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", false}});
  // A device's share of a mean over an axis split in `shards` blocks (spmd/rules_reduce.cpp).
  ok(OpId::ReduceMean, {positive(Shape{4, 6})}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", false}, {"shards", int64_t(3)}});
  ok(OpId::ReduceMean, {t(Shape{4, 5}, DType::I64)}, {{"axes", std::vector<int64_t>{}}, {"keepdims", true}, {"shards", int64_t(2)}});
  ok(OpId::ReduceSum, {ops::binary(ops::BinaryOp::Gt, t(s23), t(s3))}, {{"axes", std::vector<int64_t>{}}, {"keepdims", false}});

  ok(OpId::MatMul, {t(Shape{64, 128}), t(Shape{128, 96})});
  ok(OpId::MatMul, {t(Shape{3, 20, 30}), t(Shape{30, 40})});
  ok(OpId::MatMul, {t(Shape{2, 1, 20, 30}), t(Shape{3, 30, 10})});
  ok(OpId::MatMul, {t(Shape{30}), t(Shape{30, 40})});
  ok(OpId::MatMul, {t(Shape{128, 64}), t(Shape{128, 96})}, {{"transpose_a", true}, {"transpose_b", false}});
  ok(OpId::MatMul, {t(Shape{5, 64, 128}), t(Shape{96, 128})}, {{"transpose_a", false}, {"transpose_b", true}});
  bad(OpId::MatMul, {t(Shape{2, 3}), t(Shape{4, 5})});
  bad(OpId::MatMul, {t(Shape{}), t(Shape{4, 5})});
  bad(OpId::MatMul, {t(Shape{2, 3}), t(Shape{3, 5}, DType::F64)});
  bad(OpId::MatMul, {t(Shape{2, 2, 3}), t(Shape{3, 5})}, {{"transpose_a", true}});

  for (OpId op : {OpId::ArgMax, OpId::ArgMin}) {
    ok(op, {t(Shape{2, 3, 4})}, {{"axis", int64_t(-1)}, {"keepdims", false}});
    ok(op, {t(Shape{2, 3, 4})}, {{"axis", int64_t(1)}, {"keepdims", true}});
    bad(op, {t(Shape{2, 3})}, {{"axis", int64_t(2)}, {"keepdims", false}});
    bad(op, {t(Shape{2, 0})}, {{"axis", int64_t(1)}, {"keepdims", false}});
  }
  ok(OpId::KthLargest, {t(Shape{2, 3, 4})}, {{"k", int64_t(3)}});
  ok(OpId::KthLargest, {t(Shape{0, 4}, DType::F64)}, {{"k", int64_t(4)}});
  bad(OpId::KthLargest, {t(s23)}, {{"k", int64_t(4)}});
  bad(OpId::KthLargest, {t(s23)}, {{"k", int64_t(0)}});
  bad(OpId::KthLargest, {t(s23, DType::I32)}, {{"k", int64_t(1)}});
  bad(OpId::KthLargest, {t(Shape{})}, {{"k", int64_t(1)}});
  ok(OpId::Cast, {t(s23)}, {{"dtype", DType::I64}});
  ok(OpId::Cast, {t(s23)}, {{"dtype", DType::F32}});
  ok(OpId::Reshape, {t(Shape{2, 6})}, {{"shape", std::vector<int64_t>{3, -1}}});
  bad(OpId::Reshape, {t(Shape{2, 6})}, {{"shape", std::vector<int64_t>{5, -1}}});
  bad(OpId::Reshape, {t(Shape{2, 6})}, {{"shape", std::vector<int64_t>{-1, -1}}});
  ok(OpId::Transpose, {t(Shape{2, 3, 4})}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  ok(OpId::Transpose, {t(Shape{2, 3, 4})}, {{"perm", std::vector<int64_t>{}}});
  bad(OpId::Transpose, {t(Shape{2, 3, 4})}, {{"perm", std::vector<int64_t>{0, 0, 1}}});
  ok(OpId::BroadcastTo, {t(Shape{3, 1})}, {{"shape", std::vector<int64_t>{2, 3, 4}}});
  bad(OpId::BroadcastTo, {t(Shape{3, 2})}, {{"shape", std::vector<int64_t>{3, 4}}});
  ok(OpId::Concat, {t(Shape{2, 3}), t(Shape{2, 5})}, {{"axis", int64_t(1)}});
  ok(OpId::Concat, {t(Shape{2, 3})}, {{"axis", int64_t(0)}});
  bad(OpId::Concat, {t(Shape{2, 3}), t(Shape{3, 3})}, {{"axis", int64_t(1)}});
  bad(OpId::Concat, {t(Shape{})}, {{"axis", int64_t(0)}});
  ok(OpId::Stack, {t(s23), t(s23), t(s23)}, {{"axis", int64_t(1)}});
  bad(OpId::Stack, {t(s23), t(s3)}, {{"axis", int64_t(0)}});
  ok(OpId::Split, {t(Shape{5, 2})}, {{"sizes", std::vector<int64_t>{2, 3}}, {"axis", int64_t(0)}});
  bad(OpId::Split, {t(Shape{5, 2})}, {{"sizes", std::vector<int64_t>{2, 2}}, {"axis", int64_t(0)}});
  ok(OpId::Squeeze, {t(Shape{1, 3, 1})}, {{"axes", std::vector<int64_t>{}}});
  ok(OpId::Squeeze, {t(Shape{1, 3, 1})}, {{"axes", std::vector<int64_t>{-1}}});
  bad(OpId::Squeeze, {t(Shape{1, 3, 1})}, {{"axes", std::vector<int64_t>{1}}});
  ok(OpId::ExpandDims, {t(s23)}, {{"axis", int64_t(-1)}});
  bad(OpId::ExpandDims, {t(s23)}, {{"axis", int64_t(4)}});
  const Tensor mask = ops::binary(ops::BinaryOp::Gt, t(s23), t(s3));
  ok(OpId::Where, {mask, t(s23), t(Shape{})});
  bad(OpId::Where, {t(s23), t(s23), t(s23)});
  bad(OpId::Where, {mask, t(s23), t(s23, DType::F64)});
  ok(OpId::Clip, {t(s23), t(Shape{}), t(s3)});
  bad(OpId::Clip, {mask, mask, mask});
  ok(OpId::OneHot, {t(s3, DType::I32)}, {{"depth", int64_t(4)}, {"dtype", DType::F32}});
  ok(OpId::OneHot, {t(Shape{4, 2}, DType::I64)}, {{"depth", int64_t(9)}, {"dtype", DType::I32}});
  bad(OpId::OneHot, {t(s3)}, {{"depth", int64_t(4)}, {"dtype", DType::F32}});
  bad(OpId::OneHot, {t(s3, DType::I32)}, {{"depth", int64_t(-1)}, {"dtype", DType::F32}});
  ops::Subscript index, range, all;
  index.index = 1;
  range.kind = ops::Subscript::Range;
  range.start = 1;
  range.step = 2;
  all.kind = ops::Subscript::Ellipsis;
  ok(OpId::GetItem, {t(Shape{4, 5})}, {{"subs", ops::encodeSubscripts({index, range})}});
  ok(OpId::GetItem, {t(Shape{4, 5})}, {{"subs", ops::encodeSubscripts({all})}});
  bad(OpId::GetItem, {t(Shape{4})}, {{"subs", ops::encodeSubscripts({index, index})}});
  ok(OpId::SetItem, {t(Shape{4, 5}), t(Shape{2})}, {{"subs", ops::encodeSubscripts({index, range})}});
  bad(OpId::SetItem, {t(Shape{4, 5}), t(Shape{3})}, {{"subs", ops::encodeSubscripts({index, range})}});
  bad(OpId::SetItem, {t(Shape{4, 5}), t(Shape{2}, DType::F64)}, {{"subs", ops::encodeSubscripts({index, range})}});
  ok(OpId::Take, {t(Shape{4, 5}), t(Shape{2, 2}, DType::I64)}, {{"axis", int64_t(1)}});
  ok(OpId::Take, {t(Shape{4, 5}), t(Shape{2, 2}, DType::I64)}, {{"axis", int64_t(0)}, {"ids", true}});
  bad(OpId::Take, {t(Shape{4, 5}), t(Shape{2})}, {{"axis", int64_t(1)}});
  const Tensor two = Tensor::scalar<int64_t>(2), three = Tensor::scalar<int32_t>(3);
  ok(OpId::BroadcastRows, {t(Shape{2, 3}), three});
  ok(OpId::BroadcastRows, {t(Shape{}, DType::I32), Tensor::scalar<int64_t>(0)});
  bad(OpId::BroadcastRows, {t(Shape{2}), t(Shape{1}, DType::I64)});
  ok(OpId::UpdateRow, {t(Shape{4, 3}), t(Shape{3}), two});
  ok(OpId::UpdateRow, {t(Shape{2}, DType::I32), t(Shape{}, DType::I32), Tensor::scalar<int64_t>(1)});
  bad(OpId::UpdateRow, {t(Shape{4, 3}), t(Shape{2}), two});
  bad(OpId::UpdateRow, {t(Shape{4, 3}), t(Shape{3}, DType::F64), two});
  ok(OpId::Full, {}, {{"shape", std::vector<int64_t>{2, 3}}, {"value", 1.5}, {"dtype", DType::F64}});
  bad(OpId::Full, {}, {{"shape", std::vector<int64_t>{2, -3}}, {"value", 1.5}, {"dtype", DType::F64}});
  ok(OpId::Eye, {}, {{"n", int64_t(3)}, {"m", int64_t(4)}, {"dtype", DType::I32}});
  bad(OpId::Eye, {}, {{"n", int64_t(-3)}, {"m", int64_t(4)}, {"dtype", DType::I32}});
  ok(OpId::Arange, {}, {{"start", 0.0}, {"stop", 5.0}, {"step", 0.5}, {"dtype", DType::F32}});
  bad(OpId::Arange, {}, {{"start", 0.0}, {"stop", 5.0}, {"step", 0.0}, {"dtype", DType::F32}});
  ok(OpId::Linspace, {}, {{"start", 0.0}, {"stop", 1.0}, {"num", int64_t(7)}, {"dtype", DType::F64}});
  bad(OpId::Linspace, {}, {{"start", 0.0}, {"stop", 1.0}, {"num", int64_t(-7)}, {"dtype", DType::F64}});
  ok(OpId::RandomNormal, {}, {{"shape", std::vector<int64_t>{3, 2}}, {"mean", 0.0}, {"stddev", 1.0}, {"dtype", DType::F32}});
  bad(OpId::RandomNormal, {}, {{"shape", std::vector<int64_t>{3}}, {"mean", 0.0}, {"stddev", 1.0}, {"dtype", DType::I32}});
  ok(OpId::RandomUniform, {}, {{"shape", std::vector<int64_t>{4}}, {"minval", 0.0}, {"maxval", 9.0}, {"dtype", DType::I64}});
  bad(OpId::RandomUniform, {}, {{"shape", std::vector<int64_t>{4}}, {"minval", 2.0}, {"maxval", 1.0}, {"dtype", DType::F32}});
  ok(OpId::RandomNormal, {}, {{"shape", std::vector<int64_t>{5}}, {"mean", 1.0}, {"stddev", 2.0}, {"dtype", DType::F64}, {"seed", int64_t(7)}});
  ok(OpId::RandomTruncatedNormal, {}, {{"shape", std::vector<int64_t>{64, 3}}, {"mean", 0.0}, {"stddev", 0.5}, {"dtype", DType::F32}});
  ok(OpId::RandomTruncatedNormal, {}, {{"shape", std::vector<int64_t>{9}}, {"mean", 1.0}, {"stddev", 1.0}, {"dtype", DType::F64}, {"seed", int64_t(3)}});
  bad(OpId::RandomTruncatedNormal, {}, {{"shape", std::vector<int64_t>{2}}, {"mean", 0.0}, {"stddev", -1.0}, {"dtype", DType::F32}});
  bad(OpId::RandomTruncatedNormal, {}, {{"shape", std::vector<int64_t>{2}}, {"mean", 0.0}, {"stddev", 1.0}, {"dtype", DType::I32}});

  auto pair = [](int64_t a, int64_t b) { return std::vector<int64_t>{a, b}; };
  auto convAttrs = [&](int64_t s, const char* pad) -> Attrs {
    return {{"strides", pair(s, s)}, {"padding", std::string(pad)}, {"dilation", pair(1, 1)}};
  };
  ok(OpId::Conv2D, {t(Shape{2, 9, 9, 8}), t(Shape{3, 3, 8, 16})}, convAttrs(1, "same"));  // Winograd
  ok(OpId::Conv2D, {t(Shape{2, 9, 9, 8}), t(Shape{3, 3, 8, 16})}, convAttrs(2, "valid"));
  ok(OpId::Conv2D, {t(Shape{1, 7, 7, 3}), t(Shape{5, 5, 3, 4})}, convAttrs(1, "same"));
  bad(OpId::Conv2D, {t(Shape{2, 9, 9, 8}), t(Shape{3, 3, 4, 16})}, convAttrs(1, "same"));
  bad(OpId::Conv2D, {t(Shape{2, 9, 9, 8}), t(Shape{3, 3, 8, 16})}, convAttrs(1, "full"));
  bad(OpId::Conv2D, {t(Shape{2, 2, 2, 8}), t(Shape{3, 3, 8, 16})}, convAttrs(1, "valid"));
  for (OpId op : {OpId::MaxPool2D, OpId::AvgPool2D}) {
    ok(op, {t(Shape{2, 7, 7, 3})}, {{"pool", pair(2, 2)}, {"strides", pair(2, 2)}, {"padding", std::string("same")}});
    bad(op, {t(Shape{7, 7, 3})}, {{"pool", pair(2, 2)}, {"strides", pair(2, 2)}, {"padding", std::string("same")}});
    bad(op, {t(Shape{2, 7, 7, 3})}, {{"pool", std::vector<int64_t>{2}}, {"strides", pair(2, 2)}, {"padding", std::string("same")}});
  }
  auto grad = [&](const char* key, std::vector<int64_t> size, int64_t s, const char* pad) {
    Attrs a = convAttrs(s, pad);
    a.set(key, size);
    return a;
  };
  ok(OpId::Conv2DBackpropInput, {t(Shape{2, 5, 5, 16}), t(Shape{3, 3, 8, 16})}, grad("input_size", pair(9, 9), 2, "same"));
  ok(OpId::Conv2DBackpropInput, {t(Shape{2, 9, 9, 16}), t(Shape{3, 3, 8, 16})}, grad("input_size", pair(9, 9), 1, "same"));
  bad(OpId::Conv2DBackpropInput, {t(Shape{2, 5, 5, 16}), t(Shape{3, 3, 8, 16})}, grad("input_size", pair(9, 9), 1, "same"));
  ok(OpId::Conv2DBackpropFilter, {t(Shape{2, 9, 9, 8}), t(Shape{2, 5, 5, 16})}, grad("kernel_size", pair(3, 3), 2, "same"));
  ok(OpId::Conv2DBackpropFilter, {t(Shape{2, 9, 9, 8}), t(Shape{2, 7, 7, 16})}, grad("kernel_size", pair(3, 3), 1, "valid"));
  bad(OpId::Conv2DBackpropFilter, {t(Shape{2, 9, 9, 8}), t(Shape{2, 7, 7, 16})}, grad("kernel_size", pair(3, 3), 1, "same"));
  const Attrs pool{{"pool", pair(2, 2)}, {"strides", pair(2, 2)}, {"padding", std::string("valid")}};
  ok(OpId::MaxPool2DGrad, {t(Shape{2, 6, 6, 3}), t(Shape{2, 3, 3, 3})}, pool);
  bad(OpId::MaxPool2DGrad, {t(Shape{2, 6, 6, 3}), t(Shape{2, 2, 3, 3})}, pool);
  ok(OpId::MaxPool2DGradGrad, {t(Shape{2, 6, 6, 3}), t(Shape{2, 6, 6, 3})}, pool);
  bad(OpId::MaxPool2DGradGrad, {t(Shape{2, 6, 6, 3}), t(Shape{2, 3, 3, 3})}, pool);
  Attrs avg = pool;
  avg.set("input_size", pair(6, 6));
  ok(OpId::AvgPool2DGrad, {t(Shape{2, 3, 3, 3})}, avg);
  bad(OpId::AvgPool2DGrad, {t(Shape{2, 3, 3, 3}, DType::I32)}, avg);
  // Attention (q, k, v[, mask]) and its gradient (q, k, v, out, dout[, mask]).
  const Attrs plain{{"causal", false}}, causal{{"causal", true}, {"scale", 0.5}};
  const Tensor q = t(Shape{2, 3, 5, 4}), k = t(Shape{2, 3, 7, 4}), v = t(Shape{2, 3, 7, 6}), o = t(Shape{2, 3, 5, 6});
  const Tensor keep = ops::binary(ops::BinaryOp::Gt, t(Shape{2, 1, 5, 7}), t(Shape{7}));
  ok(OpId::Attention, {q, k, v}, plain);
  ok(OpId::Attention, {q, k, v, keep}, causal);
  ok(OpId::Attention, {q, k, v, t(Shape{5, 7})}, plain);
  bad(OpId::Attention, {q, k, v, t(Shape{5, 6})}, plain);            // the mask does not broadcast
  bad(OpId::Attention, {q, t(Shape{2, 3, 7, 5}), v}, plain);         // depths differ
  bad(OpId::Attention, {q, k}, plain);                               // too few inputs
  bad(OpId::Attention, {t(Shape{5, 4}, DType::I32), t(Shape{7, 4}, DType::I32), t(Shape{7, 6}, DType::I32)}, plain);
  ok(OpId::AttentionGrad, {q, k, v, o, o}, plain);
  ok(OpId::AttentionGrad, {q, k, v, o, o, keep}, causal);
  bad(OpId::AttentionGrad, {q, k, v, o, q}, plain);                  // dout is not the output's shape
  // layer_norm (x, gamma, beta) and its gradient (x, gamma, dy), over x's last axis.
  const Attrs eps{{"epsilon", 0.001}};
  const Tensor x = t(Shape{2, 3, 4}), p = t(Shape{4});
  ok(OpId::LayerNorm, {x, p, p}, eps);
  ok(OpId::LayerNorm, {p, p, p}, eps);
  bad(OpId::LayerNorm, {x, t(Shape{3}), p}, eps);                     // gamma is not x's last axis
  bad(OpId::LayerNorm, {x, p}, eps);                                  // too few inputs
  bad(OpId::LayerNorm, {t(Shape{4}, DType::I32), t(Shape{4}, DType::I32), t(Shape{4}, DType::I32)}, eps);
  ok(OpId::LayerNormGrad, {x, p, x}, eps);
  bad(OpId::LayerNormGrad, {x, p, t(Shape{2, 4})}, eps);             // dy is not x's shape
  // adam_update (w, g, m, s, alpha, 1 - beta_1, 1 - beta_2, epsilon): s, under a square root, positive.
  const Tensor w = t(Shape{2, 3, 4}), sq = positive(Shape{2, 3, 4});
  const Tensor alpha = ops::full(Shape{}, 0.01, DType::F32), b1c = ops::full(Shape{}, 0.1, DType::F32),
               b2c = ops::full(Shape{}, 0.001, DType::F32), adamEps = ops::full(Shape{}, 1e-7, DType::F32);
  ok(OpId::AdamUpdate, {w, w, w, sq, alpha, b1c, b2c, adamEps});
  ok(OpId::AdamUpdate, {p, p, p, positive(Shape{4}), alpha, b1c, b2c, adamEps});
  bad(OpId::AdamUpdate, {w, t(Shape{3, 4}), w, sq, alpha, b1c, b2c, adamEps});     // g is not w's shape
  bad(OpId::AdamUpdate, {w, w, w, sq, p, b1c, b2c, adamEps});                      // alpha is not a scalar
  bad(OpId::AdamUpdate, {w, w, w, sq, alpha, b1c, b2c});                           // too few inputs
  bad(OpId::AdamUpdate, {t(s23, DType::I32), t(s23, DType::I32), t(s23, DType::I32), t(s23, DType::I32),
                         t(Shape{}, DType::I32), t(Shape{}, DType::I32), t(Shape{}, DType::I32), t(Shape{}, DType::I32)});
  ok(OpId::ShapeOf, {t(Shape{2, 0, 3})});
  ok(OpId::ShapeOf, {t(Shape{4, 6})});
  ok(OpId::ShapeOf, {t(Shape{4, 6})}, {{"blocks", std::vector<int64_t>{2}}});  // a device's block of 2
  bad(OpId::ShapeOf, {t(Shape{4})}, {{"blocks", std::vector<int64_t>{2, 1}}});
  ok(OpId::Relayout, {t(Shape{4, 6})}, {{"mesh", std::string("batch=2")}, {"to", std::vector<int64_t>{0}}});
  return c;
}

std::vector<TensorType> typesOf(const std::vector<Tensor>& in) {
  std::vector<TensorType> types;
  for (const Tensor& x : in) types.push_back(ops::typeOf(x));
  return types;
}

std::string label(const ops::OpDef& d, const OpCase& c) {
  std::string s = d.name;
  for (const Tensor& x : c.in) s += " " + std::string(rt::dtypeName(x.dtype())) + x.shape().str();
  return s;
}

}  // namespace weft::testutil
