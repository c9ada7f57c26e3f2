// getItem / setItem: NumPy basic indexing with negative indices, steps, ellipsis and new axes;
// the stack of rows (broadcast_rows, update_row), whose counts and indices are values.
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
using Sub = ops::Subscript;

namespace {

Sub idx(int64_t i) { return Sub{Sub::Index, i, {}, {}, {}}; }
Sub rng(std::optional<int64_t> a = {}, std::optional<int64_t> b = {}, std::optional<int64_t> s = {}) {
  return Sub{Sub::Range, 0, a, b, s};
}
Sub newaxis() { return Sub{Sub::NewAxis, 0, {}, {}, {}}; }
Sub ellipsis() { return Sub{Sub::Ellipsis, 0, {}, {}, {}}; }

}  // namespace

TEST_CASE("integer indices, negative from the end") {
  Tensor x = iota({3, 4});
  Tensor r = ops::getItem(x, {idx(1)});
  CHECK(r.shape() == Shape{4});
  CHECK(values<float>(r) == std::vector<float>{4, 5, 6, 7});
  CHECK(ops::getItem(x, {idx(-1), idx(-2)}).asDouble() == 10);
  CHECK(ops::getItem(x, {idx(2), idx(3)}).shape() == Shape{});
  CHECK(errorOf([&] { ops::getItem(x, {idx(5)}); }) == "index 5 is out of range for axis 0 of shape [3, 4]");
  CHECK(errorOf([&] { ops::getItem(x, {idx(0), idx(-5)}); }) == "index -5 is out of range for axis 1 of shape [3, 4]");
  CHECK(errorOf([&] { ops::getItem(x, {idx(0), idx(0), idx(0)}); }) == "too many indices for shape [3, 4]: 3 given");
}

TEST_CASE("slices clamp, step and go backwards") {
  Tensor v = iota({6});
  CHECK(values<float>(ops::getItem(v, {rng(1, 4)})) == std::vector<float>{1, 2, 3});
  CHECK(values<float>(ops::getItem(v, {rng(-2)})) == std::vector<float>{4, 5});
  CHECK(values<float>(ops::getItem(v, {rng({}, {}, 2)})) == std::vector<float>{0, 2, 4});
  CHECK(values<float>(ops::getItem(v, {rng({}, {}, -1)})) == std::vector<float>{5, 4, 3, 2, 1, 0});
  CHECK(values<float>(ops::getItem(v, {rng(4, 0, -2)})) == std::vector<float>{4, 2});
  CHECK(values<float>(ops::getItem(v, {rng(-100, 100)})).size() == 6);
  CHECK(ops::getItem(v, {rng(4, 2)}).shape() == Shape{0});
  CHECK(values<float>(ops::getItem(v, {rng(100, -100, -3)})) == std::vector<float>{5, 2});
  CHECK(values<float>(ops::getItem(v, {rng({}, {}, INT64_MIN)})) == std::vector<float>{5});
  CHECK(errorOf([&] { ops::getItem(v, {rng({}, {}, 0)}); }) == "slice step cannot be zero");
  Tensor x = iota({3, 4});
  Tensor c = ops::getItem(x, {rng(), rng(1, 3)});
  CHECK(c.shape() == Shape{3, 2});
  CHECK(values<float>(c) == std::vector<float>{1, 2, 5, 6, 9, 10});
  Tensor d = ops::getItem(x, {rng({}, {}, -1), idx(0)});
  CHECK(values<float>(d) == std::vector<float>{8, 4, 0});
  // A full selection shares storage instead of copying.
  CHECK(ops::getItem(x, {rng()}).sharesStorage(x));
}

TEST_CASE("ellipsis and new axes") {
  Tensor x = iota({2, 3, 4});
  Tensor last = ops::getItem(x, {ellipsis(), idx(-1)});
  CHECK(last.shape() == Shape{2, 3});
  CHECK(values<float>(last) == std::vector<float>{3, 7, 11, 15, 19, 23});
  CHECK(ops::getItem(x, {idx(0), ellipsis()}).shape() == Shape{3, 4});
  CHECK(ops::getItem(x, {ellipsis()}).shape() == Shape{2, 3, 4});
  CHECK(ops::getItem(x, {newaxis(), ellipsis(), newaxis()}).shape() == Shape{1, 2, 3, 4, 1});
  Tensor m = ops::getItem(x, {idx(1), newaxis(), rng(0, 2), idx(3)});
  CHECK(m.shape() == Shape{1, 2});
  CHECK(values<float>(m) == std::vector<float>{15, 19});
  CHECK(errorOf([&] { ops::getItem(x, {ellipsis(), ellipsis()}); }) == "an index can only have a single ellipsis ('...')");
}

TEST_CASE("setItem writes a broadcast value into a copy") {
  Tensor x = iota({3, 4});
  Tensor y = ops::setItem(x, {rng(), idx(1)}, Tensor::scalar(-1.0f));
  CHECK(values<float>(y) == std::vector<float>{0, -1, 2, 3, 4, -1, 6, 7, 8, -1, 10, 11});
  CHECK(x.data<float>()[1] == 1);  // x unchanged
  Tensor z = ops::setItem(x, {rng({}, {}, -2)}, f32({4}, {9, 9, 9, 9}));
  CHECK(values<float>(ops::getItem(z, {idx(0)})) == std::vector<float>{9, 9, 9, 9});
  CHECK(values<float>(ops::getItem(z, {idx(1)})) == std::vector<float>{4, 5, 6, 7});
  CHECK(errorOf([&] { ops::setItem(x, {idx(0)}, f32({3}, {1, 2, 3})); }) == "cannot assign a value of shape [3] to a selection of shape [4]");
}

TEST_CASE("a stack of rows: n copies, one row replaced, counts and indices checked when it runs") {
  Tensor stack = ops::broadcastRows(f32({2}, {1, 2}), Tensor::scalar<int64_t>(3));
  CHECK(stack.shape() == Shape{3, 2});
  Tensor updated = ops::updateRow(stack, f32({2}, {7, 8}), Tensor::scalar<int32_t>(1));
  CHECK(values<float>(updated) == std::vector<float>{1, 2, 7, 8, 1, 2});
  CHECK(values<float>(stack) == std::vector<float>{1, 2, 1, 2, 1, 2});  // a new tensor: the input is kept
  CHECK(ops::broadcastRows(f32({2}, {1, 2}), Tensor::scalar<int64_t>(0)).shape() == Shape{0, 2});
  CHECK(errorOf([&] { ops::broadcastRows(f32({2}, {1, 2}), Tensor::scalar<int64_t>(-1)); }) ==
        "broadcast_rows: the row count -1 is negative");
  CHECK(errorOf([&] { ops::updateRow(stack, f32({2}, {7, 8}), Tensor::scalar<int64_t>(3)); }) ==
        "update_row: row 3 is out of range for 3 rows");
  CHECK(errorOf([&] { ops::updateRow(stack, f32({2}, {7, 8}), Tensor::scalar<int64_t>(-1)); }) ==
        "update_row: row -1 is out of range for 3 rows");
}
