// The robustness guards (docs/robustness.md): nesting of every kind is an error past the parser's
// limit and runs just below it; deep and cyclic values neither overflow the stack nor leak; the
// step, time and stack limits; files that are not regular are refused.
#include <doctest/doctest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "grammar/parser.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/values/objects.h"

namespace {

using namespace weft;

std::string firstError(const std::string& text) {
  Diagnostics diags;
  parseProgram(std::make_shared<SourceFile>("t.model", text), diags);
  return diags.all().empty() ? "" : diags.all()[0].message;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Runs fn on a thread with the given stack size: `weft` itself runs on 1 GiB (cli/main.cpp).
void onStack(size_t bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto entry = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  REQUIRE(pthread_create(&t, &attr, entry, const_cast<std::function<void()>*>(&fn)) == 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

struct Run {
  std::string out, err;
  int status;
};

Run run(const std::string& source, const std::function<void(Interpreter&)>& setup = {},
        size_t stack = size_t(1) << 30) {
  Run r;
  onStack(stack, [&] {
    std::ostringstream out, err;
    Interpreter interp(out, err);
    if (setup) setup(interp);
    r.status = interp.runSource(std::make_shared<SourceFile>("t.model", source));
    r.out = out.str(), r.err = err.str();
  });
  return r;
}

}  // namespace

TEST_CASE("nesting: every kind of bracket and block is an error past the limit, not a stack overflow") {
  const int n = 100000;
  const std::string deep = "nested too deeply (more than 200 levels)";
  CHECK(firstError("x = " + repeat("{1: ", n) + "1" + repeat("}", n)).find(deep) != std::string::npos);
  CHECK(firstError("x = " + repeat("f(", n) + "1" + repeat(")", n)).find(deep) != std::string::npos);
  CHECK(firstError("x = " + repeat("a[", n) + "1" + repeat("]", n)).find(deep) != std::string::npos);
  CHECK(firstError("x = " + repeat("([{1: ", n)).find(deep) != std::string::npos);
  CHECK(firstError("x = " + repeat("+ ", n) + "1").find(deep) != std::string::npos);
  CHECK(firstError(repeat("fn f() {\n", 1000)).find(deep) != std::string::npos);
  CHECK(firstError(repeat("module M() {\n", 1000)).find(deep) != std::string::npos);
  CHECK(firstError(repeat("while x {\n", 1000)).find(deep) != std::string::npos);
  CHECK(firstError("f = " + repeat("fn() => ", n) + "1").find(deep) != std::string::npos);
}

TEST_CASE("nesting: just below the limit, programs parse, check and run in the real stack") {
  const int n = 190;
  std::string source = "x = true\ny = " + repeat("(", n) + "1" + repeat(")", n) + "\n" +
                       repeat("if x {\n", n) + "y += 1\n" + repeat("}\n", n) + "print(" + repeat("-", n) + "y)\n" +
                       "d = " + repeat("{\"k\": ", n) + "2" + repeat("}", n) + "\n" +
                       "f = " + repeat("fn() => ", n) + "3\n" + repeat("fn g() {\n", n) + repeat("}\n", n) +
                       // Deep expressions inside deep recursion: the evaluator's worst case.
                       "fn down(k) {\n  if k == 0 { return 0 }\n  return down(k - 1) + " + repeat("(", n) + "0" +
                       repeat(")", n) + "\n}\nprint(down(990))\n";
  Run r = run(source);
  CHECK(r.err == "");
  CHECK(r.out == "2\n0\n");
}

TEST_CASE("values: deep nesting is freed without recursion, cycles are freed at exit") {
  // A million nested lists would need far more than 1 MiB of stack to free recursively.
  onStack(size_t(1) << 20, [] {
    Value v = makeList({});
    for (int i = 0; i < 1000000; ++i) v = makeList({v, makeTuple({v})});
  });
  int64_t before = liveTensorBytes();
  Run r = run(R"(a = [zeros([1000])]
a.append(a)
d = {"a": a}
d["d"] = d
m = [d, a]
m[0] = m
)");
  CHECK(r.err == "");
  CHECK(liveTensorBytes() == before);  // every tensor was freed with the interpreter
}

TEST_CASE("values: a module declared inside a function is freed at exit") {
  // The module type holds the function's scope, which holds the type (issue 14, item 12).
  int64_t before = liveTensorBytes();
  Run r = run(R"(fn mk() {
  w = zeros([1000])
  module Inner() {
    v = w
  }
  return Inner
}
mk()
t = mk()
x = t()
)");
  CHECK(r.err == "");
  CHECK(liveTensorBytes() == before);
}

TEST_CASE("limits: steps and time stop loops with a located error") {
  Run steps = run("n = 0\nwhile true {\n  n += 1\n}\n", [](Interpreter& in) { in.limits().maxSteps = 500; });
  CHECK(steps.status == 1);
  CHECK(steps.err.rfind("t.model:2:1: error: step limit of 500 exceeded (--max-steps)\n", 0) == 0);
  Run calls = run("fn f(n) {\n  return n\n}\nfor i in range(10) {\n  f(i)\n}\n",
                  [](Interpreter& in) { in.limits().maxSteps = 12; });
  CHECK(calls.status == 1);  // 10 items and 10 calls
  Run time = run("while true {\n}\n", [](Interpreter& in) { in.limits().timeoutSeconds = 0.05; });
  CHECK(time.err.rfind("t.model:1:1: error: time limit of 0.05 s exceeded (--timeout)\n", 0) == 0);
  Run fine = run("for i in range(100) {\n}\n", [](Interpreter& in) { in.limits().maxSteps = 100; });
  CHECK(fine.status == 0);
}

TEST_CASE("limits: a call depth larger than the stack allows is an error, not a crash") {
  Run r = run("fn down(n) {\n  return down(n + 1)\n}\ndown(0)\n",
              [](Interpreter& in) { in.limits().maxCallDepth = 1000000; }, size_t(64) << 20);
  CHECK(r.status == 1);
  CHECK(r.err.find("error: recursion too deep for the stack (") != std::string::npos);
}

TEST_CASE("limits: chains of calls and indexes, alone or nested in calls, stop at the stack with an error") {
  // Chains hold no bracket open, so the parser's nesting limit does not see them, and its 20,000
  // operations in a row are 20,000 levels of evaluation: on a small stack (8 MiB, a main thread's),
  // or nested in calls, that is more than the stack holds. Links wrap lines inside parentheses.
  auto chain = [](const std::string& link, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += link + (i % 100 == 99 ? "\n" : "");
    return s;
  };
  const size_t small = size_t(8) << 20, stack = size_t(64) << 20;
  Run calls = run("fn f(x) {\n  return f\n}\ny = (f" + chain("(1)", 19990) + ")\n", {}, small);
  CHECK(calls.status == 1);
  CHECK(calls.err.find("t.model:4:") == 0);
  CHECK(calls.err.find("error: expression nested too deeply for the stack") != std::string::npos);
  Run indexes = run("x = [[1]]\nx[0] = x\ny = (x" + chain("[0]", 19990) + ")\n", {}, small);
  CHECK(indexes.status == 1);
  CHECK(indexes.err.find("error: expression nested too deeply for the stack") != std::string::npos);
  // Nested in calls: each level a chain that alone would fit.
  std::string nested = "f" + chain("(1)", 5000);
  for (int i = 0; i < 40; ++i) nested = "f(" + nested + ")" + chain("(1)", 5000);  // 205,000 levels
  Run deep = run("fn f(x) {\n  return f\n}\ny = (" + nested + ")\n", {}, stack);
  CHECK(deep.status == 1);
  CHECK(deep.err.find("error: expression nested too deeply for the stack") != std::string::npos);
  Run fine = run("fn f(x) {\n  return f\n}\ny = (f" + chain("(1)", 2000) + ")\nprint(1)\n", {}, stack);
  CHECK(fine.status == 0);
  CHECK(fine.out == "1\n");
}

TEST_CASE("source files: only regular files of a bounded size are read") {
  std::string why;
  CHECK(readSourceFile("/dev/zero", 1000, why) == nullptr);
  CHECK(why == "not a regular file");
  std::string dir = std::filesystem::temp_directory_path() / ("weft_robust_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  CHECK(readSourceFile(dir, 1000, why) == nullptr);
  CHECK(why == "not a regular file");
  std::string fifo = dir + "/fifo.model";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);  // opening it would block until a writer came
  CHECK(readSourceFile(fifo, 1000, why) == nullptr);
  CHECK(why == "not a regular file");
  std::string big = dir + "/big.model";
  { std::ofstream(big) << std::string(2000, '#'); }
  CHECK(readSourceFile(big, 1000, why) == nullptr);
  CHECK(why == "file too large (2000 bytes; the limit is 1000)");
  CHECK(readSourceFile(dir + "/missing.model", 1000, why) == nullptr);
  CHECK(why == "no such file");
  auto ok = readSourceFile(big, 5000, why);
  REQUIRE(ok != nullptr);
  CHECK(ok->text.size() == 2000);
  std::filesystem::remove_all(dir);
}

TEST_CASE("graph values: a placeholder kept past its trace is an error where it is used, never a number") {
  auto placeholder = [](const Run& r, const std::string& line) {
    CHECK(r.status == 1);
    CHECK(r.err.find("t.model:" + line + ":") == 0);
    CHECK(r.err.find("a placeholder of the graph traced for f()") != std::string::npos);
  };
  // Through a closure: each use of the value, eager or in another graph function.
  const std::string closure = "@function\nfn f(x: f32[]) {\n  return fn() => x\n}\nr = f(1.0)()\n";
  for (const char* use : {"print(r + 1.0)", "print(r)", "assert r > 5.0", "v = Variable(r)", "print(f\"{r}\")",
                          "print(sum([r, r]))"}) {
    INFO(use);
    placeholder(run(closure + use + "\n"), "6");
  }
  Run other = run(closure + "@function\nfn g(y: f32[]) {\n  return y + r\n}\nprint(g(1.0))\n");
  placeholder(other, "8");
  // Through a default argument, and a module made while tracing.
  placeholder(run("@function\nfn f(x: f32[]) {\n  fn g(y=x) {\n    return y\n  }\n  return g\n}\n"
                  "print(f(1.0)() * 3.0)\n"),
              "8");
  placeholder(run("module Box(v) {\n  w = v\n}\n@function\nfn f(x: f32[]) {\n  return Box(x)\n}\n"
                  "print(f(2.0).w + 1.0)\n"),
              "8");
  // What stays inside its trace works as before.
  Run fine = run("@function\nfn f(x: f32[]) {\n  g = fn() => x * 2.0\n  return g()\n}\nprint(f(1.5))\n");
  CHECK(fine.err == "");
  CHECK(fine.out == "3.0\n");
}

TEST_CASE("limits: work that was quadratic or exponential is linear, so the limits hold") {
  // Work that never ends when it is not linear (2^40 paths) gets a limit that a linear run on a
  // loaded, sanitized build stays far below.
  auto withTimeout = [](Interpreter& in) { in.limits().timeoutSeconds = 120; };
  // A graph of 50,000 chained adds through the pass pipeline, one fused loop (common
  // subexpressions and the fused loop's set-up were quadratic; docs/robustness.md has the times).
  std::string chain = "@function\nfn f(x: f32[]) {\n  y = x\n";
  for (int i = 0; i < 50000; ++i) chain += "  y = y + 1.0\n";
  chain += "  return y\n}\nprint(f(0.5))\n";
  Run graph = run(chain);
  CHECK(graph.err == "");
  CHECK(graph.out == "50000.5\n");
  // Lists that share their items compare once per pair of lists, not once per path (2^40).
  Run dag = run("l = [1, 2]\nm = [1, 2]\nfor i in range(40) {\n  l = [l, l]\n  m = [m, m]\n}\nprint(l == m)\n"
                "m[1] = 3\nprint(l == m)\n",
                withTimeout);
  CHECK(dag.err == "");
  CHECK(dag.out == "true\nfalse\n");
  // A dict of 40,000 keys: hashed, not scanned.
  Run dict = run("d = {}\nfor i in range(40000) {\n  d[i] = i\n}\nd['k'] = 1\nprint(len(d), d[39999], d['k'], 5 in d)\n",
                 withTimeout);
  CHECK(dict.err == "");
  CHECK(dict.out == "40001 39999 1 true\n");
}

TEST_CASE("limits: one op's window work is bounded like its bytes") {
  auto small = [](Interpreter& in) {  // the fuzzers' limits
    in.limits().timeoutSeconds = 120;
    memoryLimits().maxTensorBytes = int64_t(1) << 20;  // the interpreter's context is current
  };
  for (const char* op : {"max_pool2d(ones([1, 512, 512, 1]), 256, strides=1, padding='same')",
                         "avg_pool2d(ones([1, 512, 512, 1]), 256, strides=1, padding='same')",
                         "conv2d(ones([1, 512, 512, 1]), ones([256, 256, 1, 1]), padding='same')"}) {
    INFO(op);
    Run r = run(std::string("y = ") + op + "\n", small);
    CHECK(r.status == 1);
    CHECK(r.err.find("t.model:1:5: error: ") == 0);
    CHECK(r.err.find("steps, more than one op may") != std::string::npos);
  }
  Run fine = run("print(max_pool2d(ones([1, 64, 64, 1]), 2).shape)\n", small);
  CHECK(fine.out == "[1, 32, 32, 1]\n");
}

TEST_CASE("graph values: window ops traced with open height and width run at each call's sizes") {
  // Not compiled yet (the emitter takes an open batch only): graph functions and eager code.
  const std::string program = "# Graph functions traced with open height and width: the window ops give open output sizes,\n"
              "# and their checks wait for the sizes each call runs with.\n"
              "@function\n"
              "fn pool(x: f32[None, None, None, 1]) {\n"
              "  return max_pool2d(x, 2), avg_pool2d(x, 2, strides=1, padding=\"same\")\n"
              "}\n"
              "a, b = pool(reshape(arange(16.0), [1, 4, 4, 1]))\n"
              "print(a.shape, b.shape)\n"
              "print(reshape(a, [4]))\n"
              "c, d = pool(ones([2, 6, 2, 1]))\n"
              "print(c.shape, d.shape)\n"
              "\n"
              "k = Variable(ones([3, 3, 1, 2]) * 0.5)\n"
              "@function\n"
              "fn conv_loss(x: f32[None, None, None, 1]) {\n"
              "  return value_and_grad(fn() => sum(relu(conv2d(x, k, padding=\"same\"))), [k])\n"
              "}\n"
              "loss, grads = conv_loss(ones([1, 5, 7, 1]))\n"
              "print(loss, grads[0].shape)\n"
              "loss, grads = conv_loss(ones([1, 3, 3, 1]))\n"
              "print(loss, grads[0].shape)\n"
              "";
  for (bool eager : {false, true}) {
    Run r = run(program, [eager](Interpreter& in) { in.setRunFunctionsEagerly(eager); });
    CHECK(r.err == "");
    CHECK(r.out == "[1, 2, 2, 1] [1, 4, 4, 1]\n"
              "[5.0, 7.0, 13.0, 15.0]\n"
              "[2, 3, 1, 1] [2, 6, 2, 1]\n"
              "247.0 [3, 3, 1, 2]\n"
              "49.0 [3, 3, 1, 2]\n"
              "");
  }
}
