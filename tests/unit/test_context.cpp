// Execution contexts: two interpreters on two threads share no mutable state. Each runs a program
// that draws random numbers, traces graph functions and takes gradients, and each prints what a
// lone interpreter prints. (tests/sanitize.sh runs this under ThreadSanitizer too.)
#include <doctest/doctest.h>

#include <sstream>
#include <thread>

#include "interpreter/eval/interpreter.h"
#include "interpreter/ops/ops.h"

namespace weft {
namespace {

const char* kProgram = R"(
seed(7)
w = Variable(random.normal([4, 3]))
@function
fn loss(x: f32[None, 4]) { return mean(square(x @ w)) }
x = random.uniform([5, 4])
total = 0.0
for i in range(20) {
  l, g = value_and_grad(fn() => loss(x), [w])
  w.assign(w - 0.1 * g[0])
  total = total + l
}
print(total, loss.trace_count, random.normal([2]))
)";

std::string run(int repeats) {
  std::ostringstream out, err;
  Interpreter interp(out, err);
  for (int k = 0; k < repeats; ++k)
    if (interp.runSource(std::make_shared<SourceFile>("context.model", kProgram)) != 0) return "error: " + err.str();
  return out.str();
}

TEST_CASE("execution context: two interpreters on two threads run independently") {
  const std::string alone = run(3);
  REQUIRE(alone.rfind("error", 0) != 0);
  std::string a, b;
  std::thread ta([&] { a = run(3); }), tb([&] { b = run(3); });
  ta.join();
  tb.join();
  CHECK(a == alone);
  CHECK(b == alone);
}

TEST_CASE("execution context: an interpreter's random stream and plan mode are its own") {
  ops::seed(99);
  const ops::RandomState before = ops::randomState();
  {
    std::ostringstream out, err;
    Interpreter interp(out, err);
    REQUIRE(interp.runSource(std::make_shared<SourceFile>("r.model", "seed(1)\nx = random.normal([8])\n")) == 0);
    CHECK(ops::randomState().key == 1);  // the interpreter's context is current while it lives
  }
  CHECK(ops::randomState().key == before.key);  // the outer one is untouched
  CHECK(ops::randomState().counter == before.counter);
  CHECK_FALSE(ops::shapesOnly());
}

TEST_CASE("execution context: a new interpreter takes the limits of the context it is made in") {
  const int64_t saved = memoryLimits().maxTensorBytes;
  memoryLimits().maxTensorBytes = 1000;
  {
    std::ostringstream out, err;
    Interpreter interp(out, err);
    CHECK(interp.runSource(std::make_shared<SourceFile>("big.model", "x = zeros([1000])\n")) != 0);
    CHECK(err.str().find("larger than the limit") != std::string::npos);
  }
  memoryLimits().maxTensorBytes = saved;
}

}  // namespace
}  // namespace weft
