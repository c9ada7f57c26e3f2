// The op table's inference on symbolic sizes (ops::SymbolicSizes), as the C++ emitter runs it:
// the results' sizes as expressions of the inputs' sizes, and the requirements that generated
// code checks when it runs.
#include <doctest/doctest.h>

#include "interpreter/ops/impl.h"

namespace weft {
namespace {

using ops::Dim;
using ops::SizeRequirement;

const Dim b = Dim::symbol("b"), c = Dim::symbol("c");

// The inference of `op` on inputs of sizes `in` (dtype f32), in a table of its own.
struct Inferred {
  std::vector<std::vector<Dim>> out;
  std::vector<SizeRequirement> required;
};
Inferred infer(ops::OpId op, const std::vector<std::vector<Dim>>& in, const ops::Attrs& attrs) {
  ops::SymbolicSizes sym;
  std::vector<ops::TensorType> types;
  for (const auto& s : in) types.push_back({DType::F32, sym.encode(s)});
  Inferred r;
  for (const auto& t : ops::opDef(op).infer(types, attrs)) r.out.push_back(sym.decode(t.shape));
  r.required = sym.takeRequirements();
  return r;
}

ops::Attrs axisAttrs(int64_t axis) {
  ops::Attrs a;
  a.set("axis", axis);
  return a;
}

TEST_CASE("symbolic inference: stack, concat and split of an open batch") {
  Inferred s = infer(ops::OpId::Stack, {{b, 4}, {b, 4}}, axisAttrs(1));
  CHECK(s.out[0] == std::vector<Dim>{b, 2, 4});
  CHECK(s.required.empty());
  Inferred rows = infer(ops::OpId::Concat, {{b, 4}, {c, 4}}, axisAttrs(0));
  CHECK(rows.out[0] == std::vector<Dim>{b + c, 4});
  // Off the axis, two open sizes must agree when the code runs.
  Inferred cols = infer(ops::OpId::Concat, {{b, 4}, {c, 2}}, axisAttrs(1));
  CHECK(cols.out[0] == std::vector<Dim>{b, 6});
  REQUIRE(cols.required.size() == 1);
  CHECK(cols.required[0].kind == SizeRequirement::Equal);
  CHECK(cols.required[0].a == c);
  CHECK(cols.required[0].b == b);
  ops::Attrs split = axisAttrs(1);
  split.set("sizes", std::vector<int64_t>{1, 3});
  Inferred parts = infer(ops::OpId::Split, {{b, 4}}, split);
  CHECK(parts.out == std::vector<std::vector<Dim>>{{b, 1}, {b, 3}});
}

TEST_CASE("symbolic inference: reshape with -1, reductions, broadcasting and matmul") {
  ops::Attrs shape;
  shape.set("shape", std::vector<int64_t>{-1, 2});
  CHECK(infer(ops::OpId::Reshape, {{b, 4}}, shape).out[0] == std::vector<Dim>{b * 2, 2});
  ops::Attrs sum;
  sum.set("axes", std::vector<int64_t>{0});
  sum.set("keepdims", false);
  CHECK(infer(ops::OpId::ReduceSum, {{b, 4}}, sum).out[0] == std::vector<Dim>{4});
  Inferred add = infer(ops::OpId::BinaryAdd, {{b, 4}, {c, 1}}, {});
  CHECK(add.out[0] == std::vector<Dim>{max(b, c), 4});
  REQUIRE(add.required.size() == 1);
  CHECK(add.required[0].kind == SizeRequirement::Broadcast);
  Inferred mm = infer(ops::OpId::MatMul, {{b, c}, {4, 3}}, {});
  CHECK(mm.out[0] == std::vector<Dim>{b, 3});
  REQUIRE(mm.required.size() == 1);
  CHECK(mm.required[0].kind == SizeRequirement::Equal);
}

TEST_CASE("symbolic inference: indexing and slicing an open size") {
  auto getItem = [](const std::vector<ops::Subscript>& subs) {
    ops::Attrs a;
    a.set("subs", ops::encodeSubscripts(subs));
    return infer(ops::OpId::GetItem, {{b, 4}}, a);
  };
  ops::Subscript all{ops::Subscript::Range};
  ops::Subscript first{ops::Subscript::Index};
  CHECK(getItem({all, first}).out[0] == std::vector<Dim>{b});
  ops::Subscript last{ops::Subscript::Index, -1};
  Inferred l = getItem({last});
  CHECK(l.out[0] == std::vector<Dim>{4});
  REQUIRE(l.required.size() == 1);
  CHECK(l.required[0].kind == SizeRequirement::InRange);
  CHECK(l.required[0].a == b - 1);
  ops::Subscript tail{ops::Subscript::Range};
  tail.start = 1;
  CHECK(getItem({tail}).out[0][0].str() == "weft::rt::sliceCount(b, 1, 1, 0, 0, 1)");
}

TEST_CASE("symbolic sizes leave eager and graph inference as they were") {
  ops::SymbolicSizes sym;  // active, but no input holds one of its handles
  const ops::TensorType x{DType::F32, Shape{rt::kUnknownDim, 4}};
  CHECK(ops::impl::concatType(std::vector<ops::TensorType>{x, x}, 0).shape == Shape{rt::kUnknownDim, 4});
  CHECK(ops::impl::reshapeType({DType::F32, Shape{3, 4}}, {-1, 2}).shape == Shape{6, 2});
  CHECK(sym.takeRequirements().empty());
}

}  // namespace
}  // namespace weft
