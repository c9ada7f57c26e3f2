// SPMD propagation over graph texts on a mesh: the placements every value gets from its
// inputs' and variables', and the collectives that needs, against the textbook volumes of data
// and tensor (Megatron) parallelism.
#include <doctest/doctest.h>

#include "interpreter/graph/passes.h"
#include "interpreter/graph/text.h"
#include "interpreter/graph/verify.h"

namespace weft {
namespace {

graph::Graph parse(const std::string& text) { return graph::parseText(std::make_shared<SourceFile>("g.txt", text)); }

std::string planText(const graph::Graph& g, const graph::CommPlan& plan) {
  std::string s;
  for (const auto& c : plan.collectives)
    s += std::to_string(c.loc.line) + " " + ops::opName(c.op) + " " + g.mesh.names[size_t(c.meshDim)] + " " +
         std::to_string(c.group) + " " + std::to_string(c.bytes) + " " + (c.inherent ? "inherent" : "implicit") + "\n";
  return s;
}

TEST_CASE("propagation: a Megatron MLP block needs one all-reduce of its activations") {
  // fc1's kernel split by columns, fc2's by rows: the hidden activations stay split, fc2's
  // product is a partial sum, and the one collective finishes it: [8, 16] f32 is 512 bytes,
  // of which a ring all-reduce on 2 devices sends 2(2-1)/2 = 1 times.
  graph::Graph g = parse(R"(graph mlp(%0: f32[8, 16]) on mesh(model=2) {
  var 0 "fc1.kernel": f32[16, 32]{model: S1}
  var 1 "fc2.kernel": f32[32, 16]{model: S0}
  %1 = read_variable() {var = 0} : f32[16, 32] @ "m.model":3
  %2 = matmul(%0, %1) : f32[8, 32] @ "m.model":3
  %3 = relu(%2) : f32[8, 32] @ "m.model":4
  %4 = read_variable() {var = 1} : f32[32, 16] @ "m.model":5
  %5 = matmul(%3, %4) : f32[8, 16] @ "m.model":5
  return %5
}
)");
  g = graph::propagatePlacements(g);
  graph::verify(g);
  const graph::CommPlan plan = graph::commPlanOf(g);
  CHECK(planText(g, plan) == "5 all_reduce model 2 512 inherent\n");
  CHECK(graph::printText(g) == R"(graph mlp(%0: f32[8, 16]{model: R}) on mesh(model=2) {
  var 0 "fc1.kernel": f32[16, 32]{model: S1}
  var 1 "fc2.kernel": f32[32, 16]{model: S0}
  %1 = read_variable() {var = 0} : f32[16, 32]{model: S1} @ "m.model":3
  %2 = matmul(%0, %1) : f32[8, 32]{model: S1} @ "m.model":3
  %3 = relu(%2) : f32[8, 32]{model: S1} @ "m.model":4
  %4 = read_variable() {var = 1} : f32[32, 16]{model: S0} @ "m.model":5
  %5 = matmul(%3, %4) : f32[8, 16]{model: P} @ "m.model":5
  %6 = all_reduce(%5) {mesh_dim = 0, group = 2} : f32[8, 16]{model: R} @ "m.model":5
  return %6
}
)");
  // Each device's program: the blocks' types, the same collective.
  const graph::Graph local = graph::partition(g);
  graph::verify(local);
  CHECK(graph::printText(local) == R"(graph mlp(%0: f32[8, 16]) {
  var 0 "fc1.kernel": f32[16, 16]
  var 1 "fc2.kernel": f32[16, 16]
  %1 = read_variable() {var = 0} : f32[16, 16] @ "m.model":3
  %2 = matmul(%0, %1) : f32[8, 16] @ "m.model":3
  %3 = relu(%2) : f32[8, 16] @ "m.model":4
  %4 = read_variable() {var = 1} : f32[16, 16] @ "m.model":5
  %5 = matmul(%3, %4) : f32[8, 16] @ "m.model":5
  %6 = all_reduce(%5) {mesh_dim = 0, group = 2} : f32[8, 16] @ "m.model":5
  return %6
}
)");
}

TEST_CASE("propagation: data parallelism all-reduces the weight gradient, 2(p-1)/p of its bytes") {
  // The batch split, the weight replicated: the weight's gradient x^T g contracts the batch,
  // so each device holds a partial sum, which the assignment to the replicated variable
  // finishes. [16, 4] f32 is 256 bytes; on 4 devices each sends 2(4-1)/4 of them.
  graph::Graph g = parse(R"(graph step(%0: f32[8, 16]{batch: S0}, %1: f32[8, 4]{batch: S0}) on mesh(batch=4) {
  var 0 "dense.kernel": f32[16, 4]{batch: R}
  %2 = matmul(%0, %1) {transpose_a = true} : f32[16, 4] @ "t.model":7
  %3 = read_variable() {var = 0} : f32[16, 4] @ "t.model":8
  %4 = sub(%3, %2) : f32[16, 4] @ "t.model":8
  assign_variable(%4) {var = 0} @ "t.model":8
  return
}
)");
  g = graph::propagatePlacements(g);
  graph::verify(g);
  const graph::CommPlan plan = graph::commPlanOf(g);
  CHECK(planText(g, plan) == "8 all_reduce batch 4 384 inherent\n");
  CHECK(g.placementsOf(2) == spmd::Placements{spmd::Placement::p()});
}

TEST_CASE("propagation: a layout the op cannot use is an implicit collective; a 2-D mesh looks up each dimension") {
  // A max over the split dimension has no row: the input is gathered first (implicit).
  graph::Graph g = parse(R"(graph f(%0: f32[8, 6]{data: S0, model: S1}) on mesh(data=2, model=3) {
  %1 = max(%0) {axes = [1], keepdims = false} : f32[8] @ "f.model":2
  %2 = exp(%0) : f32[8, 6] @ "f.model":3
  return %1, %2
}
)");
  g = graph::propagatePlacements(g);
  graph::verify(g);
  const graph::CommPlan plan = graph::commPlanOf(g);
  // %0's block is [4, 2] f32, 32 bytes; gathering it on 3 devices receives 2 blocks.
  CHECK(planText(g, plan) == "2 all_gather model 3 64 implicit\n");
  CHECK(g.placementsOf(1) == spmd::Placements{spmd::Placement::s(0), spmd::Placement::r()});
  CHECK(g.placementsOf(2) == spmd::Placements{spmd::Placement::s(0), spmd::Placement::s(1)});
}

TEST_CASE("propagation: a while loop's values keep their placements through every turn") {
  // The batch split, the weight replicated: each turn's product and tanh keep the rows split,
  // so the loop runs on each device's rows with no collective, and its result leaves split.
  graph::Graph g = parse(R"(graph f(%0: f32[8, 4]{batch: S0}) on mesh(batch=2) {
  var 0 "w": f32[4, 4]
  %1 = read_variable() {var = 0} : f32[4, 4] @ "f.model":2
  %2 = constant() {value = i32[] [0]} : i32[]
  %3, %4 = while(%0, %2) : f32[8, 4], i32[] {
    (%5: f32[8, 4], %6: i32[]) {
      %7 = constant() {value = i32[] [3]} : i32[]
      %8 = lt(%6, %7) : bool[] @ "f.model":4
      yield %8
    }
    (%9: f32[8, 4], %10: i32[]) {
      %11 = matmul(%9, %1) : f32[8, 4] @ "f.model":5
      %12 = tanh(%11) : f32[8, 4] @ "f.model":5
      %13 = constant() {value = i32[] [1]} : i32[]
      %14 = add(%10, %13) : i32[] @ "f.model":6
      yield %12, %14
    }
  } @ "f.model":4
  return %3
}
)");
  g = graph::propagatePlacements(g);
  graph::verify(g);
  CHECK(planText(g, graph::commPlanOf(g)) == "");
  const spmd::Placements split{spmd::Placement::s(0)};
  CHECK(g.placementsOf(3) == split);
  CHECK(g.placementsOf(5) == split);
  CHECK(g.placementsOf(9) == split);
  CHECK(g.placementsOf(12) == split);
  const graph::Graph local = graph::partition(g);
  graph::verify(local);
  CHECK(local.values[9].shape == Shape{4, 4});

  // A body that gives a value back split otherwise than it came in (a transpose): the loop
  // value is replicated — the fixed point — so the initial value is gathered once, before the
  // loop, and the body needs no collective.
  graph::Graph h = parse(R"(graph f(%0: f32[4, 4]{model: S0}) on mesh(model=2) {
  %1 = while(%0) : f32[4, 4] {
    (%2: f32[4, 4]) {
      %3 = constant() {value = bool[] [true]} : bool[]
      yield %3
    }
    (%4: f32[4, 4]) {
      %5 = transpose(%4) {perm = [1, 0]} : f32[4, 4] @ "f.model":5
      yield %5
    }
  } @ "f.model":4
  return %1
}
)");
  h = graph::propagatePlacements(h);
  graph::verify(h);
  const spmd::Placements whole{spmd::Placement::r()};
  CHECK(h.placementsOf(1) == whole);
  CHECK(h.placementsOf(4) == whole);
  CHECK(h.placementsOf(5) == whole);
  CHECK(planText(h, graph::commPlanOf(h)) == "4 all_gather model 2 32 implicit\n");
}

}  // namespace
}  // namespace weft
