// Sharded storage (interpreter/mesh/shards.cpp): each device's block is the right slice of the
// value, replicas share one block, and writing the value rewrites every block.
#include <doctest/doctest.h>

#include "interpreter/mesh/shards.h"
#include "interpreter/ops/ops.h"

using namespace weft;
using namespace weft::mesh;

namespace {

Value i32(int v) { return Value(Tensor::scalar<int32_t>(v)); }

std::shared_ptr<VariableObj> placed(const Tensor& value, std::vector<std::optional<std::string>> dims,
                                    const std::shared_ptr<MeshObj>& mesh) {
  auto v = std::make_shared<VariableObj>();
  v->value = value;
  v->placement = std::make_shared<Placement>();
  place(*v, makeLayout(std::move(dims), mesh));
  return v;
}

float at(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

}  // namespace

TEST_CASE("a rank-3 tensor split over two mesh dimensions, one replicated") {
  auto mesh = makeMesh("grid", {"a", "b", "c"}, {i32(2), i32(3), i32(2)});
  CHECK(mesh->numDevices() == 12);
  Tensor x = ops::reshape(ops::arange(0, 4 * 2 * 6, 1, DType::F32), {4, 2, 6});
  // dim 0 over "a" (2), dim 2 over "b" (3); "c" is replicated.
  auto v = placed(x, {std::string("a"), std::nullopt, std::string("b")}, mesh);
  const LayoutObj& l = *layoutOf(*v);
  CHECK(l.numBlocks() == 6);
  CHECK(l.shardShape(x.shape()) == Shape{2, 2, 2});
  for (int64_t d = 0; d < 12; ++d) {
    Tensor s = shard(*v, d);
    int64_t ca = mesh->coordinate(d, 0), cb = mesh->coordinate(d, 1);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 2; ++k)
          CHECK(at(s, (i * 2 + j) * 2 + k) == at(x, ((ca * 2 + i) * 2 + j) * 6 + cb * 2 + k));
  }
  // Devices differing only along "c" hold the same block (one buffer on this CPU).
  CHECK(shard(*v, 0).sharesStorage(shard(*v, 1)));
  CHECK(!shard(*v, 0).sharesStorage(shard(*v, 2)));
  // The global value is reassembled from the blocks, equal to the original.
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(at(v->value, i) == at(x, i));
}

TEST_CASE("store rewrites every block; replicated layouts keep the value itself") {
  auto mesh = makeMesh("", {"m"}, {i32(4)});
  Tensor x = ops::full(Shape{8}, 1.0, DType::F32);
  auto v = placed(x, {std::string("m")}, mesh);
  store(*v, ops::arange(0, 8, 1, DType::F32));
  CHECK(at(shard(*v, 3), 0) == 6.0f);
  CHECK(at(shard(*v, 3), 1) == 7.0f);
  CHECK(at(v->value, 5) == 5.0f);
  auto r = placed(x, {std::nullopt}, mesh);
  CHECK(shard(*r, 2).sharesStorage(r->value));
  CHECK(bytesPerDevice(*v) == 8);
  CHECK(bytesPerDevice(*r) == 32);
}

TEST_CASE("a shape-only value gives shape-only shards") {
  auto mesh = makeMesh("", {"data", "model"}, {i32(8), i32(8)});
  auto v = placed(Tensor::abstract(DType::F32, Shape{2048, 8192}), {std::nullopt, std::string("model")}, mesh);
  CHECK(shard(*v, 63).isAbstract());
  CHECK(shard(*v, 63).shape() == Shape{2048, 1024});
  CHECK(bytesPerDevice(*v) == 2048 * 1024 * 4);
}

TEST_CASE("layouts check their fit") {
  auto mesh = makeMesh("grid", {"batch", "model"}, {i32(2), i32(4)});
  auto l = makeLayout({std::nullopt, std::string("model")}, mesh);
  CHECK(!l->misfit(Shape{3, 8}));
  CHECK(l->misfit(Shape{8}));
  CHECK(l->misfit(Shape{3, 10}));
  CHECK_THROWS_WITH_AS(makeLayout({std::string("model"), std::string("model")}, mesh),
                       "mesh dimension 'model' appears twice in a layout; it may split one tensor dimension only",
                       WeftError);
  CHECK_THROWS_WITH_AS(makeLayout({std::string("data")}, mesh),
                       "layout dimension 'data' is not a dimension of mesh grid(batch=2, model=4)", WeftError);
  CHECK_THROWS_WITH_AS(makeMesh("", {"a"}, {i32(0)}), "mesh dimension 'a' must have a positive size, got 0",
                       WeftError);
}
