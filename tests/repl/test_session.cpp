// The session in process: completion (what Tab offers), :vars, and how values are shown.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "interpreter/repl/describe.h"
#include "interpreter/repl/session.h"

using weft::repl::Session;

namespace {

struct Fixture {
  std::ostringstream out, err;
  Session s{out, err};

  std::vector<std::string> complete(const std::string& line) { return s.complete(line, line.size()).candidates; }
  bool offers(const std::string& line, const std::string& cand) {
    auto c = complete(line);
    return std::find(c.begin(), c.end(), cand) != c.end();
  }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "completion: names in scope, builtins and the prelude") {
  s.handle("zq_learning_rate = 0.1\nzq_learner = 2");
  CHECK(complete("zq_lea") == std::vector<std::string>{"zq_learner", "zq_learning_rate"});
  CHECK(offers("y = 2 * zq_learning_r", "zq_learning_rate"));
  CHECK(offers("on", "ones"));
  CHECK(offers("softm", "softmax"));  // written in Weft, in the prelude
  CHECK(complete("").empty());        // Tab on nothing offers nothing rather than everything
  CHECK(complete("1.5").empty());
}

TEST_CASE_FIXTURE(Fixture, "completion: attributes after a dotted prefix") {
  s.handle("module Inner() {\n  kernel = Variable(ones([2, 3]))\n}\nmodule Outer() {\n  inner = Inner()\n  "
           "fn forward(x) { return x }\n}\nm = Outer()\nt = ones([2])\nxs = [1]\nd = {'a': 1}");
  REQUIRE(err.str() == "");
  CHECK(offers("m.", "inner"));
  CHECK(offers("m.", "forward"));
  CHECK(offers("m.", "trainable_variables"));
  CHECK(offers("m.inner.", "kernel"));
  CHECK(complete("m.inner.kernel.sh") == std::vector<std::string>{"shape", "shard"});
  CHECK(offers("m.inner.kernel.", "assign_add"));
  CHECK(offers("t.", "ndim"));
  CHECK(offers("xs.", "append"));
  CHECK(offers("d.", "items"));
  CHECK(complete("m.nothing.").empty());
  CHECK(complete("m.forward.").empty());  // a function has no attributes to offer
  // The replaced word starts after the dot.
  auto c = s.complete("y = m.inn", 9);
  CHECK(c.start == 6);
}

TEST_CASE_FIXTURE(Fixture, "completion: after a literal index of a list, tuple or dict") {
  s.handle("model = Sequential([Dense(4, input_shape=[3]), Dense(2)])\npair = (ones([2]), 1)\nd = {'k': model}");
  REQUIRE(err.str() == "");
  CHECK(complete("model.layers[0].ker") == std::vector<std::string>{"kernel"});
  CHECK(complete("model.layers[-1].bi") == std::vector<std::string>{"bias"});
  CHECK(offers("pair[0].", "ndim"));
  CHECK(offers("d['k'].layers[1].", "kernel"));
  CHECK(complete("model.layers[5].").empty());    // out of range
  CHECK(complete("model.layers[i].").empty());    // not a literal: could run code
  CHECK(s.complete("x = model.layers[0].ker", 23).start == 20);
}

TEST_CASE_FIXTURE(Fixture, "completion: names starting with '_' are private") {
  s.handle("layer = Dense(4, activation='relu')\n_hidden = 1");
  CHECK(offers("layer.", "call"));
  CHECK(!offers("layer.", "_act"));
  CHECK(!offers("layer.", "_kernel_init"));
  s.handle(":vars");
  CHECK(out.str().find("_hidden") == std::string::npos);
  CHECK(out.str().find("layer") != std::string::npos);
}

TEST_CASE_FIXTURE(Fixture, "completion never calls user code") {
  s.handle("module Loud() {\n  fn call(x) { print('called'); return x }\n}\nl = Loud()");
  complete("l.");
  complete("l.call.");
  complete("l.variables.");
  CHECK(out.str().find("called") == std::string::npos);
}

TEST_CASE_FIXTURE(Fixture, "completion: commands and file names for :load") {
  CHECK(complete(":ty") == std::vector<std::string>{":type"});
  CHECK(offers(":", ":help"));
  std::string dir = std::filesystem::temp_directory_path().string() + "/weft-complete-test";
  std::filesystem::create_directories(dir + "/models");
  std::ofstream(dir + "/mnist.model") << "";
  std::string line = ":load " + dir + "/m";
  auto c = s.complete(line, line.size());
  CHECK(c.start == 6);
  CHECK(c.candidates == std::vector<std::string>{dir + "/mnist.model", dir + "/models/"});
  std::filesystem::remove_all(dir);
  s.handle("zq_learner = 1");
  CHECK(offers(":type zq_lea", "zq_learner"));
}

TEST_CASE_FIXTURE(Fixture, ":vars lists the session's own names with a short description") {
  s.handle(":vars");
  CHECK(out.str() == "(no variables yet)\n");
  out.str("");
  s.handle("a = 1\nbig = zeros([100, 100])\nfn f(x) { return x }\nwords = ['x']");
  s.handle(":vars");
  CHECK(out.str() == "a      i32[] 1\nbig    f32[100, 100]\nf      function <fn f>\nwords  list ['x']\n");
}

TEST_CASE("describe: echo text and durations") {
  using namespace weft::repl;
  CHECK(echoText(weft::Value(weft::Tensor::scalar<float>(6.0f))) == "f32[] 6.0");
  CHECK(echoText(weft::makeStr("hi")) == "'hi'");
  CHECK(formatDuration(812e-9) == "812 ns");
  CHECK(formatDuration(1.234e-6) == "1.23 µs");
  CHECK(formatDuration(45.6e-3) == "45.6 ms");
  CHECK(formatDuration(2.0) == "2.00 s");
  CHECK(formatDuration(999.7e-9) == "1.00 µs");
}
