// Layout ops: reshape, transpose, concat, stack, split, squeeze, expand_dims, broadcast_to,
// one_hot, take.
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

TEST_CASE("reshape infers -1, shares storage, and names sizes on error") {
  Tensor x = iota({2, 3});
  Tensor r = ops::reshape(x, {3, -1});
  CHECK(r.shape() == Shape{3, 2});
  CHECK(r.sharesStorage(x));
  CHECK(ops::reshape(x, {-1}).shape() == Shape{6});
  CHECK(ops::reshape(Tensor::scalar(1.0f), {1, 1}).shape() == Shape{1, 1});
  CHECK(errorOf([&] { ops::reshape(x, {4}); }) == "cannot reshape [2, 3] (6 elements) to [4]");
  CHECK(errorOf([&] { ops::reshape(x, {4, -1}); }) == "cannot reshape [2, 3] (6 elements) to [4, -1]");
  CHECK(errorOf([&] { ops::reshape(x, {-1, -1}); }) == "reshape: only one dimension can be -1");
  CHECK(errorOf([&] { ops::reshape(x, {-2, -3}); }) == "reshape: invalid dimension -2");
  CHECK(errorOf([&] { ops::reshape(x, {int64_t(1) << 40, int64_t(1) << 40, 8}); }).rfind("cannot reshape [2, 3]", 0) == 0);
}

TEST_CASE("transpose: reverse, explicit permutations, large tiled case") {
  Tensor x = iota({2, 3});
  Tensor t = ops::transpose(x, {});
  CHECK(t.shape() == Shape{3, 2});
  CHECK(values<float>(t) == std::vector<float>{0, 3, 1, 4, 2, 5});
  Tensor y = iota({2, 3, 4});
  Tensor p = ops::transpose(y, {1, 2, 0});
  CHECK(p.shape() == Shape{3, 4, 2});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k) CHECK(p.data<float>()[(i * 4 + j) * 2 + k] == float((k * 3 + i) * 4 + j));
  Tensor big = iota({3, 70, 50});
  Tensor bt = ops::transpose(big, {0, 2, 1});
  bool ok = true;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 50; ++i)
      for (int j = 0; j < 70; ++j)
        ok = ok && bt.data<float>()[(b * 50 + i) * 70 + j] == float((b * 70 + j) * 50 + i);
  CHECK(ok);
  CHECK(errorOf([&] { ops::transpose(y, {0, 1}); }) == "transpose: the permutation has 2 axes but the shape [2, 3, 4] has 3");
  CHECK(errorOf([&] { ops::transpose(y, {0, 1, 1}); }) == "transpose: axis 1 is repeated in the permutation");
  CHECK(errorOf([&] { ops::transpose(y, {0, 1, 3}); }) == "transpose: axis 3 is out of range for shape [2, 3, 4]");
}

TEST_CASE("concat, stack and split") {
  Tensor a = iota({2, 2});
  Tensor b = f32({2, 1}, {10, 11});
  Tensor c = ops::concat({a, b}, 1);
  CHECK(c.shape() == Shape{2, 3});
  CHECK(values<float>(c) == std::vector<float>{0, 1, 10, 2, 3, 11});
  Tensor r = ops::concat({a, a}, -2);
  CHECK(r.shape() == Shape{4, 2});
  CHECK(errorOf([&] { ops::concat({a, b}, 0); }) == "concat: shapes [2, 2] and [2, 1] differ outside axis 0");
  CHECK(errorOf([&] { ops::concat({a, i32({2, 2}, {0, 0, 0, 0})}, 0); }).find("dtype mismatch: f32 and i32") == 0);
  Tensor s = ops::stack({f32({2}, {1, 2}), f32({2}, {3, 4})}, 1);
  CHECK(s.shape() == Shape{2, 2});
  CHECK(values<float>(s) == std::vector<float>{1, 3, 2, 4});
  CHECK(ops::stack({Tensor::scalar(1.0f), Tensor::scalar(2.0f)}, 0).shape() == Shape{2});
  CHECK(errorOf([&] { ops::stack({a, b}, 0); }) == "stack: all tensors must have the same shape, got [2, 2] and [2, 1]");
  auto parts = ops::split(iota({2, 5}), {2, 3}, 1);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].shape() == Shape{2, 2});
  CHECK(values<float>(parts[0]) == std::vector<float>{0, 1, 5, 6});
  CHECK(values<float>(parts[1]) == std::vector<float>{2, 3, 4, 7, 8, 9});
  CHECK(errorOf([] { ops::split(iota({2, 5}), {2, 2}, 1); }) == "split: sizes [2, 2] do not add up to 5, the size of axis 1 of shape [2, 5]");
}

TEST_CASE("squeeze, expand_dims, broadcast_to") {
  Tensor x = iota({1, 3, 1});
  CHECK(ops::squeeze(x, {}).shape() == Shape{3});
  CHECK(ops::squeeze(x, {-1}).shape() == Shape{1, 3});
  CHECK(errorOf([&] { ops::squeeze(x, {1}); }) == "squeeze: axis 1 of shape [1, 3, 1] has size 3, not 1");
  CHECK(ops::expandDims(x, 0).shape() == Shape{1, 1, 3, 1});
  CHECK(ops::expandDims(x, -1).shape() == Shape{1, 3, 1, 1});
  CHECK(errorOf([&] { ops::expandDims(x, 5); }) == "expand_dims: axis 5 is out of range for shape [1, 3, 1]");
  Tensor b = ops::broadcastTo(f32({3}, {1, 2, 3}), Shape{2, 3});
  CHECK(values<float>(b) == std::vector<float>{1, 2, 3, 1, 2, 3});
  CHECK(errorOf([] { ops::broadcastTo(f32({3}, {1, 2, 3}), Shape{3, 2}); }) == "cannot broadcast shape [3] to [3, 2]");
}

TEST_CASE("one_hot: zero rows for out-of-range indices") {
  Tensor h = ops::oneHot(i32({4}, {0, 2, -1, 3}), 3, DType::F32);
  CHECK(h.shape() == Shape{4, 3});
  CHECK(values<float>(h) == std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  CHECK(ops::oneHot(i32({2, 2}, {0, 1, 1, 0}), 2, DType::I32).shape() == Shape{2, 2, 2});
  CHECK(errorOf([] { ops::oneHot(iota({2}), 3, DType::F32); }) == "one_hot: indices must be i32 or i64, got f32");
}

TEST_CASE("take gathers along an axis (embedding lookup)") {
  Tensor table = iota({4, 3});
  Tensor e = ops::take(table, i32({2, 2}, {3, 0, 1, -1}), 0);
  CHECK(e.shape() == Shape{2, 2, 3});
  CHECK(values<float>(e) == std::vector<float>{9, 10, 11, 0, 1, 2, 3, 4, 5, 9, 10, 11});
  Tensor c = ops::take(table, make<int64_t>({2}, {2, 0}), 1);
  CHECK(c.shape() == Shape{4, 2});
  CHECK(values<float>(c) == std::vector<float>{2, 0, 5, 3, 8, 6, 11, 9});
  CHECK(errorOf([&] { ops::take(table, i32({2}, {1, 4}), 0); }) == "index 4 is out of range for axis 0 of shape [4, 3]");
  CHECK(errorOf([&] { ops::take(table, i32({1}, {-5}), 0); }) == "index -5 is out of range for axis 0 of shape [4, 3]");
  // Ids (Embedding's lookup): the same rows for ids in range, and a negative one is an error.
  CHECK(values<float>(ops::takeIds(table, i32({2}, {3, 0}))) == std::vector<float>{9, 10, 11, 0, 1, 2});
  CHECK(errorOf([&] { ops::takeIds(table, i32({2}, {1, -1})); }) == "index -1 is out of range for axis 0 of shape [4, 3]");
}
