// The SPMD executor (interpreter/graph/spmd_executor.h): a graph on a mesh runs partitioned, each
// device on a thread of its own, and gives what the same graph gives unsharded; a device that
// fails ends the call with its error, never a hang. The names say "threads" so that the
// ThreadSanitizer stage (tests/sanitize.sh) runs them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "interpreter/eval/interpreter.h"
#include "interpreter/graph/spmd_executor.h"
#include "interpreter/graph/text.h"
#include "interpreter/values/context.h"
#include "test_ops_util.h"

namespace weft {
namespace {

graph::Graph parse(const std::string& text) { return graph::parseText(std::make_shared<SourceFile>("g.txt", text)); }

std::shared_ptr<VariableObj> variable(const Tensor& value) {
  auto v = std::make_shared<VariableObj>();
  v->value = value;
  return v;
}

bool close(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (std::abs(a.data<float>()[i] - b.data<float>()[i]) > 1e-5f * (1 + std::abs(b.data<float>()[i]))) {
      MESSAGE("element " << i << ": " << a.data<float>()[i] << " against " << b.data<float>()[i]);
      return false;
    }
  return true;
}

// The same graph on one device: no mesh, no placements.
graph::Graph unsharded(graph::Graph g) {
  g.mesh = {};
  g.placements.clear();
  for (auto& v : g.variables) v.placements.clear();
  return g;
}

Tensor ramp(const Shape& shape, double scale) {
  Tensor t = Tensor::empty(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(((i * 7) % 13 - 6) * scale);
  return t;
}

// A Megatron MLP block on mesh(model=2) and its train step's update of fc2: the kernels' blocks
// live on two device threads, the activations stay split, one collective finishes fc2's partial
// sums; the assignment writes the variable back whole.
const char* kBlock = R"(graph block(%0: f32[6, 4]) on mesh(model=2) {
  var 0 "fc1.kernel": f32[4, 8]{model: S1}
  var 1 "fc2.kernel": f32[8, 4]{model: S0}
  %1 = read_variable() {var = 0} : f32[4, 8] @ "m.model":3
  %2 = matmul(%0, %1) : f32[6, 8] @ "m.model":3
  %3 = relu(%2) : f32[6, 8] @ "m.model":4
  %4 = read_variable() {var = 1} : f32[8, 4] @ "m.model":5
  %5 = matmul(%3, %4) : f32[6, 4] @ "m.model":5
  %6 = matmul(%3, %5) {transpose_a = true} : f32[8, 4] @ "m.model":6
  %7 = sub(%4, %6) : f32[8, 4] @ "m.model":6
  assign_variable(%7) {var = 1} @ "m.model":6
  return %5
}
)";

TEST_CASE("SPMD executor on device threads: a Megatron block and its update equal the unsharded graph") {
  const graph::Graph sharded = parse(kBlock);
  const graph::Graph plain = unsharded(sharded);
  const Tensor k1 = ramp({4, 8}, 0.25), k2 = ramp({8, 4}, 0.125), x = ramp({6, 4}, 0.5);
  std::vector<std::shared_ptr<VariableObj>> a{variable(k1), variable(k2)}, b{variable(k1), variable(k2)};
  std::ostringstream out;
  graph::SpmdExecutor spmd(sharded, a, out, {});
  graph::Executor one(plain, b, out, {});
  for (int call = 0; call < 3; ++call) {
    const std::vector<Tensor> y1 = spmd.run(std::vector<Tensor>{x}), y2 = one.run(std::vector<Tensor>{x});
    REQUIRE(y1.size() == 1);
    CHECK(close(y1[0], y2[0]));
    CHECK(close(a[1]->value, b[1]->value));
    CHECK(a[0]->value.raw() == k1.raw());  // not assigned: untouched
  }
}

// A data-parallel Adam step: the weight's gradient is cut by a reduce_scatter, each device
// updates its rows, and the all_gather assigned to the replicated weight writes the rows into
// the one buffer the two devices share: the weight keeps its storage from call to call.
const char* kDataParallelAdam = R"(graph step(%0: f32[8, 16]{batch: S0}, %1: f32[8, 4]{batch: S0}) on mesh(batch=2) {
  var 0 "w": f32[16, 4]{batch: R}
  var 1 "m": f32[16, 4]{batch: S0}
  var 2 "v": f32[16, 4]{batch: S0}
  %2 = matmul(%0, %1) {transpose_a = true} : f32[16, 4] @ "t.model":2
  %3 = read_variable() {var = 0} : f32[16, 4] @ "t.model":3
  %4 = read_variable() {var = 1} : f32[16, 4] @ "t.model":3
  %5 = read_variable() {var = 2} : f32[16, 4] @ "t.model":3
  %6 = constant() {value = f32[] [0.01]} : f32[]
  %7 = constant() {value = f32[] [0.1]} : f32[]
  %8 = constant() {value = f32[] [0.001]} : f32[]
  %9 = constant() {value = f32[] [1e-07]} : f32[]
  %10, %11, %12 = adam_update(%3, %2, %4, %5, %6, %7, %8, %9) : f32[16, 4], f32[16, 4], f32[16, 4] @ "t.model":3
  assign_variable(%10) {var = 0} @ "t.model":4
  assign_variable(%11) {var = 1} @ "t.model":4
  assign_variable(%12) {var = 2} @ "t.model":4
  return
}
)";

TEST_CASE("SPMD executor on device threads: a replicated weight is gathered into its own storage") {
  // On mesh(batch=2, model=2) the all_gather meets two of the four devices that share the
  // weight: the other pair, which no collective holds back, may still read the old value, so it
  // gathers into a buffer of its own.
  std::string grid = kDataParallelAdam;
  grid.replace(grid.find("mesh(batch=2)"), 13, "mesh(batch=2, model=2)");
  for (const char* p : {"{batch: R}", "{batch: S0}"})
    for (size_t at; (at = grid.find(p)) != std::string::npos;) grid.replace(at, std::strlen(p) - 1, std::string(p, std::strlen(p) - 1) + ", model: R");
  for (const std::string& text : {std::string(kDataParallelAdam), grid}) {
    const bool oneGroup = text == kDataParallelAdam;
    INFO(text);
    const graph::Graph sharded = parse(text);
    const graph::Graph plain = unsharded(sharded);
    auto vars = [] {  // the variables alone hold their values
      return std::vector<std::shared_ptr<VariableObj>>{variable(ramp({16, 4}, 0.25)), variable(ramp({16, 4}, 0.0)),
                                                       variable(ramp({16, 4}, 0.0))};
    };
    std::vector<std::shared_ptr<VariableObj>> a = vars(), b = vars();
    const Tensor x = ramp({8, 16}, 0.5), y = ramp({8, 4}, 0.125);
    std::ostringstream out;
    graph::SpmdExecutor spmd(sharded, a, out, {});
    graph::Executor one(plain, b, out, {});
    const void* storage = a[0]->value.raw();
    bool moved = false;
    for (int call = 0; call < 8; ++call) {
      spmd.run(std::vector<Tensor>{x, y});
      one.run(std::vector<Tensor>{x, y});
      CHECK(close(a[0]->value, b[0]->value));
      moved = moved || a[0]->value.raw() != storage;
    }
    CHECK(moved == !oneGroup);
  }
}

TEST_CASE("SPMD executor on device threads: four devices on one, two and every core give the same bits") {
  // mesh(batch=2, model=2): more devices than cores under --threads 1 and 2; a device waiting at a
  // collective gives its core to another, so the call ends, and the bits do not depend on it.
  std::string text = kBlock;
  text.replace(text.find("mesh(model=2)"), 13, "mesh(batch=2, model=2)");
  for (size_t at; (at = text.find("{model: S")) != std::string::npos;) text.replace(at, 1, "{batch: R, ");
  const graph::Graph g = parse(text);
  const Tensor k1 = ramp({4, 8}, 0.25), k2 = ramp({8, 4}, 0.125), x = ramp({6, 4}, 0.5);
  std::vector<Tensor> firsts;
  for (int64_t threads : {1, 2, 0}) {
    context().threads = threads;
    std::vector<std::shared_ptr<VariableObj>> vars{variable(k1), variable(k2)};
    std::ostringstream out;
    graph::SpmdExecutor spmd(g, vars, out, {});
    std::vector<Tensor> y;
    for (int call = 0; call < 3; ++call) y.push_back(spmd.run(std::vector<Tensor>{x})[0]);
    if (firsts.empty()) firsts = y;
    for (size_t c = 0; c < y.size(); ++c)
      CHECK(std::memcmp(y[c].raw(), firsts[c].raw(), size_t(y[c].bytes())) == 0);
  }
  context().threads = 0;
}

TEST_CASE("SPMD executor on device threads: a device that fails ends the call with one error, never a hang") {
  // take's indices are checked on each device: out of range everywhere, so every device fails
  // at once and the first error is the call's.
  const graph::Graph g = parse(R"(graph f(%0: i32[3]) on mesh(model=2) {
  var 0 "table": f32[4, 8]{model: S1}
  %1 = read_variable() {var = 0} : f32[4, 8] @ "m.model":2
  %2 = take(%1, %0) {axis = 0} : f32[3, 8] @ "m.model":3
  return %2
}
)");
  std::vector<std::shared_ptr<VariableObj>> vars{variable(ramp({4, 8}, 1.0))};
  std::ostringstream out;
  graph::SpmdExecutor spmd(g, vars, out, {});
  Tensor ids = Tensor::empty(DType::I32, Shape{3});
  ids.data<int32_t>()[0] = 0, ids.data<int32_t>()[1] = 9, ids.data<int32_t>()[2] = 1;
  CHECK(testutil::errorOf([&] { spmd.run(std::vector<Tensor>{ids}); }).find("out of range") != std::string::npos);
  ids.data<int32_t>()[1] = 3;  // the executor runs again after a failure
  CHECK(spmd.run(std::vector<Tensor>{ids})[0].shape() == Shape{3, 8});
}

// Eager ops on sharded tensors (interpreter/graph/spmd_eager.cpp) run on the devices' threads
// too, one op at a time, with runners cached and device threads shared between them; sharded
// results read on the interpreter's thread while the devices' buffers are alive.
TEST_CASE("SPMD executor on device threads: eager ops on sharded tensors, a gradient and data-parallel fit") {
  std::ostringstream out, err;
  Interpreter in(out, err);
  const int status = in.runSource(std::make_shared<SourceFile>("t.model", R"(
mesh m(batch=2, model=2)
x = reshape(arange(0.0, 32.0), [8, 4]) * 0.25
w = reshape(arange(0.0, 12.0), [4, 3]) * 0.1
xs = distribute(x, Layout(["batch", UNSHARDED], m))
ws = distribute(w, Layout(["model", UNSHARDED], m))
y = relu(xs @ ws - 1.0)
r = relayout(y, Layout(["model", UNSHARDED], Mesh(batch=2, model=2)))
v = Variable(w)
loss, grads = value_and_grad(fn() => mean(square(xs @ v)), [v])
print(bool(max(abs(r - relu(x @ w - 1.0))) < 1e-5), r.layout.mesh == m, grads[0].shape)
model = Sequential([Dense(3, input_shape=[4])])
model.compile(optimizer="sgd", loss="mse")
h = model.fit(xs, distribute(zeros([8, 3]), Layout.batch_sharded(m, "batch", 2)), batch_size=4, epochs=2, verbose=0)
print(len(h.history["loss"]))
)"));
  CHECK(err.str() == "");
  CHECK(status == 0);
  CHECK(out.str() == "true true [4, 3]\n2\n");
}

}  // namespace
}  // namespace weft
