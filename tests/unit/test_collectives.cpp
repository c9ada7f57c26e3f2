// The collective primitives on devices that are threads of this process (SPEC §7.1): each
// device thread has its own execution context holding its communicator of one rendezvous.
// Their results against the unsharded value, their VJPs against the unsharded gradient, and
// the failures that must be messages rather than hangs.
#include <doctest/doctest.h>

#include <functional>
#include <thread>

#include "interpreter/autodiff/rules.h"
#include "interpreter/values/context.h"
#include "op_cases.h"
#include "stdlib/runtime/comm_threads.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::Attrs;
using ops::OpId;

// Runs fn(device) on one thread per device of a mesh of these sizes; returns each device's
// error ("" when it finished). A device that fails aborts the rendezvous, as the SPMD executor
// does, so that no other waits for it.
std::vector<std::string> onMesh(const std::vector<int64_t>& sizes, const std::function<void(int64_t)>& fn) {
  rt::Rendezvous rendezvous(sizes);
  std::vector<std::string> errors(size_t(rendezvous.devices()));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < rendezvous.devices(); ++d)
    threads.emplace_back([&, d] {
      ExecutionContext context;
      ContextScope scope(context);
      rt::ThreadComm comm(rendezvous, d);
      context.comm = &comm;
      errors[size_t(d)] = testutil::errorOf([&] {
        try {
          fn(d);
        } catch (const WeftError& e) {
          rendezvous.abort("device " + std::to_string(d) + " stopped: " + e.message);
          throw;
        }
      });
    });
  for (auto& t : threads) t.join();
  return errors;
}

Tensor block(const Tensor& x, int axis, int64_t parts, int64_t j) {
  return ops::split(x, std::vector<int64_t>(size_t(parts), x.shape()[axis] / parts), axis)[size_t(j)];
}

// Device j's addend of x as a partial sum over `parts` devices: uneven, with signs.
Tensor addend(const Tensor& x, int64_t parts, int64_t j) {
  const Tensor w = ops::full(Shape{}, j == parts - 1 ? 1.0 - 0.75 * double(parts - 1) : 0.75, x.dtype());
  return ops::binary(ops::BinaryOp::Mul, x, w);
}

bool same(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const Tensor d = ops::binary(ops::BinaryOp::Sub, ops::cast(a, DType::F64), ops::cast(b, DType::F64));
  for (int64_t i = 0; i < d.numel(); ++i)
    if (std::abs(d.data<double>()[i]) > 1e-9) return false;
  return true;
}

Attrs attrs(int64_t meshDim, int64_t group, std::initializer_list<ops::Attr> own = {}) {
  Attrs a{{"mesh_dim", meshDim}, {"group", group}};
  for (const ops::Attr& x : own) a.set(x.key, x.value);
  return a;
}

const Tensor X = testutil::iota(Shape{4, 6});

// One collective on a 1-D mesh of n: device j's input and the result it must give.
struct Scenario {
  OpId op;
  Attrs attrs;
  std::function<Tensor(int64_t n, int64_t j)> input, expected;
};

std::vector<Scenario> scenarios(int64_t n) {
  return {
      {OpId::AllReduce, attrs(0, n), [](int64_t n, int64_t j) { return addend(X, n, j); },
       [](int64_t, int64_t) { return X; }},
      {OpId::AllGather, attrs(0, n, {{"axis", int64_t(1)}}), [](int64_t n, int64_t j) { return block(X, 1, n, j); },
       [](int64_t, int64_t) { return X; }},
      {OpId::ReduceScatter, attrs(0, n, {{"axis", int64_t(1)}}), [](int64_t n, int64_t j) { return addend(X, n, j); },
       [](int64_t n, int64_t j) { return block(X, 1, n, j); }},
      {OpId::AllToAll, attrs(0, n, {{"split_axis", int64_t(0)}, {"concat_axis", int64_t(1)}}),
       [](int64_t n, int64_t j) { return block(X, 1, n, j); }, [](int64_t n, int64_t j) { return block(X, 0, n, j); }},
      // The other way: each block sent is apart in the input (rows of its columns).
      {OpId::AllToAll, attrs(0, n, {{"split_axis", int64_t(1)}, {"concat_axis", int64_t(0)}}),
       [](int64_t n, int64_t j) { return block(X, 0, n, j); }, [](int64_t n, int64_t j) { return block(X, 1, n, j); }},
      {OpId::LocalSlice, attrs(0, n, {{"axis", int64_t(0)}}), [](int64_t, int64_t) { return X; },
       [](int64_t n, int64_t j) { return block(X, 0, n, j); }},
  };
}

TEST_CASE("collectives on device threads: each device's result is its part of the unsharded value, as inference says") {
  for (int64_t n : {1, 2}) {
    for (const Scenario& s : scenarios(n)) {
      INFO(ops::opName(s.op), " on ", n, " devices");
      std::vector<char> ok(size_t(n), 0);
      const auto errors = onMesh({n}, [&](int64_t j) {
        const Tensor in = s.input(n, j);
        const Tensor out = ops::apply1(s.op, {&in, 1}, s.attrs);
        const ops::TensorType inferred = ops::opDef(s.op).infer(std::vector{ops::typeOf(in)}, s.attrs)[0];
        ok[size_t(j)] = same(out, s.expected(n, j)) && inferred == ops::typeOf(out);
      });
      for (int64_t j = 0; j < n; ++j) {
        CHECK(errors[size_t(j)] == "");
        CHECK(ok[size_t(j)]);
      }
    }
  }
}

TEST_CASE("collectives on device threads: a group is the devices along one mesh dimension") {
  // A 2x2 mesh, X split on both (rows along dimension 0, columns along 1): gathering along mesh
  // dimension 1 gives each device the rows of its row block, whole.
  std::vector<char> ok(4, 0);
  const auto errors = onMesh({2, 2}, [&](int64_t d) {
    const int64_t r = d / 2, c = d % 2;
    const Tensor in = block(block(X, 0, 2, r), 1, 2, c);
    const Tensor out = ops::apply1(OpId::AllGather, {&in, 1}, attrs(1, 2, {{"axis", int64_t(1)}}));
    const Tensor sum = ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 2));
    ok[size_t(d)] = same(out, block(X, 0, 2, r)) &&
                    same(sum, ops::binary(ops::BinaryOp::Add, block(block(X, 0, 2, 0), 1, 2, c),
                                          block(block(X, 0, 2, 1), 1, 2, c)));
  });
  for (int d = 0; d < 4; ++d) {
    CHECK(errors[size_t(d)] == "");
    CHECK(ok[size_t(d)]);
  }
}

TEST_CASE("collectives on device threads: an all-reduce sums in device order, the same on every device and every run") {
  // Addends whose f32 sum depends on the order: ((a0 + a1) + a2) + a3 is what every device gets.
  const float parts[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  const float expected = ((parts[0] + parts[1]) + parts[2]) + parts[3];
  for (int run = 0; run < 20; ++run) {
    std::vector<float> got(4);
    onMesh({4}, [&](int64_t d) {
      const Tensor in = testutil::f32(Shape{1}, {parts[d]});
      got[size_t(d)] = ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 4)).data<float>()[0];
    });
    for (float g : got) CHECK(g == expected);
  }
}

TEST_CASE("collectives on device threads: their VJPs give each device its part of the unsharded gradient") {
  autodiff::registerVjpRules();
  // Loss = sum(C * collective(x)), whose gradient with respect to the global value is C. A
  // replicated or partial input's gradient is whole on every device, a sharded one's is its block.
  const Tensor C = ops::binary(ops::BinaryOp::Sub, testutil::iota(Shape{4, 6}), ops::full(Shape{}, 7, DType::F32));
  const int64_t n = 2;
  struct Held {
    OpId op;
    int inAxis, outAxis;  // the sharded axis of input and output, -1: whole
  };
  const std::vector<Held> held{{OpId::AllReduce, -1, -1}, {OpId::AllGather, 1, -1}, {OpId::ReduceScatter, -1, 1},
                               {OpId::AllToAll, 1, 0},     {OpId::AllToAll, 0, 1},   {OpId::LocalSlice, -1, 0}};
  const std::vector<Scenario> all = scenarios(n);
  for (size_t i = 0; i < all.size(); ++i) {
    const Scenario& s = all[i];
    INFO(ops::opName(s.op));
    std::vector<char> ok(size_t(n), 0);
    const auto errors = onMesh({n}, [&](int64_t j) {
      const Tensor in = s.input(n, j);
      const Tensor out = ops::apply1(s.op, {&in, 1}, s.attrs);
      const Tensor gout = held[i].outAxis < 0 ? C : block(C, held[i].outAxis, n, j);
      const std::vector<bool> need{true};
      const ops::VjpResult g = ops::opDef(s.op).vjp({{&in, 1}, {&out, 1}, s.attrs, {&gout, 1}, need});
      ok[size_t(j)] = g[0] && same(*g[0], held[i].inAxis < 0 ? C : block(C, held[i].inAxis, n, j));
    });
    for (int64_t j = 0; j < n; ++j) {
      CHECK(errors[size_t(j)] == "");
      CHECK(ok[size_t(j)]);
    }
  }
}

TEST_CASE("collectives on device threads: devices that disagree on sizes, a device that stops, no mesh: messages, never a hang") {
  auto sizesDiffer = onMesh({2}, [&](int64_t d) {
    const Tensor in = testutil::iota(Shape{d + 1});
    ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 2));
  });
  for (const std::string& e : sizesDiffer)
    CHECK(e.find("all_reduce: the devices of a group gave different sizes (4, 8 bytes)") != std::string::npos);

  auto stopped = onMesh({2}, [&](int64_t d) {
    if (d == 1) throw WeftError("matmul: inner dimensions differ");
    const Tensor in = testutil::iota(Shape{3});
    ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 2));
  });
  CHECK(stopped[0].find("device 1 stopped: matmul: inner dimensions differ") != std::string::npos);

  const Tensor in = testutil::iota(Shape{2});
  CHECK(testutil::errorOf([&] { ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 2)); }) ==
        "all_reduce runs only on the devices of a mesh, in a sharded program");
  for (const std::string& e : onMesh({2}, [&](int64_t) { ops::apply1(OpId::AllReduce, {&in, 1}, attrs(0, 4)); }))
    CHECK(e == "all_reduce: mesh dimension 0 of 4 devices is not one of this mesh's");
  CHECK(testutil::errorOf([&] {
          ops::opDef(OpId::ReduceScatter).infer(std::vector{ops::TensorType{DType::F32, Shape{3, 5}}},
                                                attrs(0, 2, {{"axis", int64_t(1)}}));
        }) == "reduce_scatter: axis 1 of shape [3, 5] does not split into 2 equal blocks");
}

}  // namespace
}  // namespace weft
