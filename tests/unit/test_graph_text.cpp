// The graph text form (round trips, parse errors), the verifier and the DOT writer.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "grammar/diagnostics.h"
#include "interpreter/graph/dot.h"
#include "interpreter/graph/passes.h"
#include "interpreter/graph/text.h"
#include "interpreter/graph/verify.h"

using namespace weft;
using namespace weft::graph;
using ops::OpId;

namespace {

Graph parse(const std::string& text, std::vector<SourceRange>* nodeAt = nullptr) {
  return parseText(std::make_shared<SourceFile>("g.txt", text), nodeAt);
}

// The first line of the error that f throws ("" when none).
template <class F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const WeftError& e) {
    std::string s = e.format();
    return s.substr(0, s.find('\n'));
  }
  return "";
}

// Parses and verifies, errors pointing into the text.
void check(const std::string& text) {
  std::vector<SourceRange> at;
  Graph g = parse(text, &at);
  verify(g, &at);
}

void requireRoundTrip(const Graph& g) {
  std::string text = printText(g);
  Graph back = parse(text);
  CHECK(identical(back, g));
  CHECK(printText(back) == text);
}

template <class T>
Tensor tensorOf(const Shape& shape, std::vector<T> values) {
  Tensor t = Tensor::empty(rt::DTypeOf<T>::value, shape);
  REQUIRE(int64_t(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

template <class F, class B>
F fromBits(B bits) {
  F v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Adds a node with one output of type t and returns that output's id.
int add(Graph& g, Block& b, OpId op, std::vector<int> inputs, ops::Attrs attrs, TensorType t, Loc loc = {}) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.outputs = {g.addValue(t)};
  n.loc = std::move(loc);
  b.nodes.push_back(std::move(n));
  return b.nodes.back().outputs[0];
}

const TensorType kF32{DType::F32, {}};
const TensorType kI32{DType::I32, {}};
const TensorType kBool{DType::Bool, {}};

const char* kAddPrint = R"(graph addprint(%0: f32[]) {
  var 0 "demo_module/x": f32[]
  %1 = read_variable() {var = 0} : f32[] @ "demo.model":7
  %2 = add(%1, %0) : f32[] @ "demo.model":7
  assign_variable(%2) {var = 0} @ "demo.model":7
  print(%2) {format = "{}"} @ "demo.model":8
  return %2
}
)";

// Collatz steps of %0: a while whose body holds a cond.
const char* kCollatz = R"(graph collatz(%0: i32[]) {
  %1 = constant() {value = i32[] [0]} : i32[]
  %2 = constant() {value = i32[] [1]} : i32[]
  %3, %4 = while(%0, %1) : i32[], i32[] {
    (%5: i32[], %6: i32[]) {
      %7 = ne(%5, %2) : bool[]
      yield %7
    }
    (%8: i32[], %9: i32[]) {
      %10 = constant() {value = i32[] [2]} : i32[]
      %11 = mod(%8, %10) : i32[]
      %12 = eq(%11, %1) : bool[]
      %13 = cond(%12, %8) : i32[] {
        (%14: i32[]) {
          %15 = floordiv(%14, %10) : i32[]
          yield %15
        }
        (%16: i32[]) {
          %17 = constant() {value = i32[] [3]} : i32[]
          %18 = mul(%16, %17) : i32[]
          %19 = add(%18, %2) : i32[]
          yield %19
        }
      } @ "c.model":6
      %20 = add(%9, %2) : i32[]
      yield %13, %20
    }
  } @ "c.model":4
  return %4
}
)";

}  // namespace

TEST_CASE("graph text: canonical texts print back unchanged and verify") {
  for (const char* text : {kAddPrint, kCollatz}) {
    Graph g = parse(text);
    CHECK(printText(g) == text);
    verify(g);
    requireRoundTrip(g);
  }
  Graph g = parse(kCollatz);
  CHECK(g.values.size() == 21);
  REQUIRE(g.body.nodes.size() == 3);
  CHECK(g.body.nodes[2].op == OpId::While);
  CHECK(g.body.nodes[2].blocks[1].nodes[3].blocks[1].results == std::vector<int>{19});
  CHECK(g.body.nodes[2].loc == Loc{"c.model", 4});
}

TEST_CASE("graph text: spacing and comments are free, the print is canonical") {
  Graph g = parse("# a comment\ngraph \"add\"(%0:f32[ None ,2]){%1=neg(%0):f32[None,2]\n return %1 # done\n}");
  CHECK(printText(g) == "graph add(%0: f32[None, 2]) {\n  %1 = neg(%0) : f32[None, 2]\n  return %1\n}\n");
  Graph odd;
  odd.name = "demo.add print";
  odd.body.params = {odd.addValue(kF32)};
  odd.body.results = odd.body.params;
  CHECK(printText(odd) == "graph \"demo.add print\"(%0: f32[]) {\n  return %0\n}\n");
  requireRoundTrip(odd);
}

TEST_CASE("graph text: every attribute kind round-trips exactly") {
  Graph g;
  g.name = "demo.attrs";
  int x = g.addValue({DType::F32, {rt::kUnknownDim, 3}});
  g.body.params = {x};
  Block& b = g.body;
  double nanPayload = fromBits<double>(uint64_t(0x7ff8000000000001));
  double negNan = fromBits<double>(uint64_t(0xfff8000000000000));
  add(g, b, OpId::ReduceSum, {x}, {{"axes", std::vector<int64_t>{0, -1}}, {"keepdims", true}}, {DType::F32, {1, 1}});
  add(g, b, OpId::ArgMax, {x}, {{"axis", int64_t(std::numeric_limits<int64_t>::min())}, {"keepdims", false}},
      {DType::I32, {3}});
  add(g, b, OpId::Reshape, {x},
      {{"shape", std::vector<int64_t>{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}}},
      kF32);
  add(g, b, OpId::Squeeze, {x}, {{"axes", std::vector<int64_t>{}}}, kF32);
  add(g, b, OpId::Cast, {x}, {{"dtype", DType::Bool}}, {DType::Bool, {rt::kUnknownDim, 3}});
  for (double v :
       {-0.0, 0.0, 0.1, 1.0, 1e300, 5e-324, -1.7976931348623157e308, std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), nanPayload, negNan})
    add(g, b, OpId::Full, {}, {{"shape", std::vector<int64_t>{2}}, {"value", v}, {"dtype", DType::F64}},
        {DType::F64, {2}});
  add(g, b, OpId::Conv2D, {x, x},
      {{"strides", std::vector<int64_t>{1, 1}},
       {"padding", std::string("sa\"m\\e\n\t\r\x01\x7f caf\xc3\xa9 {}")},
       {"dilation", std::vector<int64_t>{1, 1}}},
      kF32);
  requireRoundTrip(g);

  std::string text = printText(g);
  CHECK(text.find("{axes = [0, -1], keepdims = true}") != std::string::npos);
  CHECK(text.find("{axis = -9223372036854775808, keepdims = false}") != std::string::npos);
  CHECK(text.find("{axes = []}") != std::string::npos);
  CHECK(text.find("{dtype = bool} : bool[None, 3]") != std::string::npos);
  for (const char* v : {"value = -0.0,", "value = 0.0,", "value = 0.1,", "value = 1.0,", "value = 1e+300,",
                        "value = 5e-324,", "value = inf,", "value = -inf,", "value = nan,",
                        "value = nan:0x7ff8000000000001,", "value = nan:0xfff8000000000000,"})
    CHECK_MESSAGE(text.find(v) != std::string::npos, v);
  CHECK(text.find(R"(padding = "sa\"m\\e\n\t\r\x01\x7f café {}")") != std::string::npos);
  // Floats compare by their bits: -0.0 is not 0.0.
  Graph zero = g;
  zero.body.nodes[5].attrs.set("value", 0.0);
  CHECK_FALSE(identical(zero, g));
}

TEST_CASE("graph text: the gradient ops of conv2d and the pools round-trip and verify") {
  Graph g;
  g.name = "conv_grads";
  const int64_t None = rt::kUnknownDim;
  int x = g.addValue({DType::F32, {None, 8, 7, 4}}), k = g.addValue({DType::F32, {3, 2, 4, 5}}),
      dy = g.addValue({DType::F32, {None, 4, 4, 5}}), dp = g.addValue({DType::F32, {None, 4, 4, 4}});
  g.body.params = {x, k, dy, dp};
  Block& b = g.body;
  auto v = [](std::vector<int64_t> p) { return p; };
  int dx = add(g, b, OpId::Conv2DBackpropInput, {dy, k},
               {{"input_size", v({8, 7})}, {"strides", v({2, 2})}, {"padding", std::string("same")}, {"dilation", v({1, 1})}},
               {DType::F32, {None, 8, 7, 4}});
  int dk = add(g, b, OpId::Conv2DBackpropFilter, {x, dy},
               {{"kernel_size", v({3, 2})}, {"strides", v({2, 2})}, {"padding", std::string("same")}, {"dilation", v({1, 1})}},
               {DType::F32, {3, 2, 4, 5}});
  int dm = add(g, b, OpId::MaxPool2DGrad, {x, dp}, {{"pool", v({2, 2})}, {"strides", v({2, 2})}, {"padding", std::string("same")}},
               {DType::F32, {None, 8, 7, 4}});
  int da = add(g, b, OpId::AvgPool2DGrad, {dp},
               {{"input_size", v({8, 7})}, {"pool", v({3, 3})}, {"strides", v({2, 2})}, {"padding", std::string("same")}},
               {DType::F32, {None, 8, 7, 4}});
  int dmm = add(g, b, OpId::MaxPool2DGradGrad, {x, dx},
                {{"pool", v({2, 2})}, {"strides", v({2, 2})}, {"padding", std::string("same")}}, {DType::F32, {None, 4, 4, 4}});
  b.results = {dx, dk, dm, da, dmm};
  requireRoundTrip(g);
  graph::verify(g);
  std::string text = printText(g);
  CHECK(text.find("conv2d_backprop_input(%0, %1)") == std::string::npos);
  CHECK(text.find("= conv2d_backprop_input(%2, %1) {input_size = [8, 7], strides = [2, 2], padding = \"same\", "
                  "dilation = [1, 1]} : f32[None, 8, 7, 4]") != std::string::npos);
  CHECK(text.find("= avg_pool2d_grad(%3) {input_size = [8, 7], pool = [3, 3], strides = [2, 2], padding = \"same\"}") !=
        std::string::npos);
  CHECK(text.find("= max_pool2d_grad_grad(%0, %4) {pool = [2, 2], strides = [2, 2], padding = \"same\"} : "
                  "f32[None, 4, 4, 4]") != std::string::npos);
  // An input_size that gives conv2d another output size than the gradient's is refused.
  Graph bad = g;
  bad.body.nodes[0].attrs.set("input_size", v({9, 7}));
  CHECK_THROWS_WITH(graph::verify(bad), doctest::Contains("the output's gradient has shape [None, 4, 4, 5], but conv2d "
                                                          "of an input [None, 9, 7, 4] and a kernel [3, 2, 4, 5] gives "
                                                          "[None, 5, 4, 5]"));
}

TEST_CASE("graph text: constants of every dtype round-trip exactly") {
  Graph g;
  g.name = "constants";
  Block& b = g.body;
  float fnan = fromBits<float>(uint32_t(0x7fc00001));
  float fmin = fromBits<float>(uint32_t(0x00000001));
  std::vector<Tensor> values = {
      tensorOf<float>({2, 4},
                      {-0.0f, 1.5f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), fnan, fmin, 3.4028235e38f}),
      tensorOf<double>({3}, {0.1, -0.0, fromBits<double>(uint64_t(0x7ff0000000000001))}),
      tensorOf<int32_t>({2}, {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}),
      tensorOf<int64_t>({1, 2}, {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}),
      tensorOf<bool>({3}, {true, false, true}),
      tensorOf<float>({}, {2.0f}),
      Tensor::empty(DType::I64, {0, 3}),
  };
  for (const Tensor& t : values) {
    int id = add(g, b, OpId::Constant, {}, {{"value", t}}, {t.dtype(), t.shape()});
    b.results.push_back(id);
  }
  requireRoundTrip(g);
  verify(g);
  std::string text = printText(g);
  CHECK(text.find("f32[2, 4] [-0.0, 1.5, inf, -inf, nan, nan:0x7fc00001, 1e-45, 3.4028235e+38]") != std::string::npos);
  CHECK(text.find("f64[3] [0.1, -0.0, nan:0x7ff0000000000001]") != std::string::npos);
  CHECK(text.find("i32[2] [-2147483648, 2147483647]") != std::string::npos);
  CHECK(text.find("i64[1, 2] [-9223372036854775808, 9223372036854775807]") != std::string::npos);
  CHECK(text.find("bool[3] [true, false, true]") != std::string::npos);
  CHECK(text.find("f32[] [2.0]") != std::string::npos);
  CHECK(text.find("i64[0, 3] []") != std::string::npos);
  // An element written in another form reads back to the same value.
  Graph loose = parse("graph c() {\n  %0 = constant() {value = f64[2] [1, 2.50]} : f64[2]\n  return %0\n}");
  CHECK(printText(loose).find("f64[2] [1.0, 2.5]") != std::string::npos);
}

TEST_CASE("graph text: nested while and cond built by hand round-trip and verify") {
  Graph g;
  g.name = "nested";
  int x = g.addValue({DType::F32, {rt::kUnknownDim}});
  int n = g.addValue(kI32);
  g.body.params = {x, n};
  Node loop;
  loop.op = OpId::While;
  loop.inputs = {x, n};
  loop.loc = {"n.model", 3};
  for (int k = 0; k < 2; ++k) {
    Block blk;
    blk.params = {g.addValue({DType::F32, {rt::kUnknownDim}}), g.addValue(kI32)};
    loop.blocks.push_back(blk);
  }
  Block& c = loop.blocks[0];
  int zero = add(g, c, OpId::Constant, {}, {{"value", Tensor::scalar<int32_t>(0)}}, kI32);
  c.results = {add(g, c, OpId::BinaryGt, {c.params[1], zero}, {}, kBool)};
  Block& body = loop.blocks[1];
  int one = add(g, body, OpId::Constant, {}, {{"value", Tensor::scalar<int32_t>(1)}}, kI32);
  int next = add(g, body, OpId::BinarySub, {body.params[1], one}, {}, kI32);
  int positive = add(g, body, OpId::BinaryGt, {next, one}, {}, kBool);
  Node branch;
  branch.op = OpId::Cond;
  branch.inputs = {positive, body.params[0]};
  branch.loc = {"n.model", 5};
  Block then, otherwise;
  then.params = {g.addValue({DType::F32, {rt::kUnknownDim}})};
  then.results = {add(g, then, OpId::UnaryNeg, {then.params[0]}, {}, {DType::F32, {rt::kUnknownDim}})};
  otherwise.params = {g.addValue({DType::F32, {rt::kUnknownDim}})};
  otherwise.results = otherwise.params;
  branch.blocks = {then, otherwise};
  branch.outputs = {g.addValue({DType::F32, {rt::kUnknownDim}})};
  body.nodes.push_back(branch);
  body.results = {branch.outputs[0], next};
  loop.outputs = {g.addValue({DType::F32, {rt::kUnknownDim}}), g.addValue(kI32)};
  g.body.nodes.push_back(loop);
  g.body.results = {loop.outputs[0]};
  verify(g);
  requireRoundTrip(g);
}

TEST_CASE("graph text: parse errors give the line, the column and the reason") {
  struct Case {
    std::string text, error;
  };
  std::string head = "graph g(%0: f32[2]) {\n";
  std::vector<Case> cases = {
      {"grph g() {}", "g.txt:1:1: error: expected 'graph' at the start of a graph, found 'grph'"},
      {"graph (", "g.txt:1:7: error: expected the graph's name, found '('"},
      {head + "  %1 = frobnicate(%0) : f32[2]\n  return %1\n}", "g.txt:2:8: error: unknown op 'frobnicate'"},
      {head + "  %1 = neg(%0 : f32[2]\n  return %1\n}", "g.txt:2:15: error: expected ')' after the inputs, found ':'"},
      {head + "  %1 = neg(%0) : f16[2]\n  return %1\n}",
       "g.txt:2:18: error: expected a dtype (f32, f64, i32, i64, bool), found 'f16'"},
      {head + "  %1 = neg(%0) : f32[-2]\n  return %1\n}", "g.txt:2:22: error: a dimension is a size or None, not -2"},
      {head + "  %1 = neg(%0) : f32[1, 1, 1, 1, 1, 1, 1, 1, 1]\n  return %1\n}",
       "g.txt:2:46: error: a type has at most 8 dimensions"},
      {head + "  %1 = neg(%0)\n  return %1\n}",
       "g.txt:3:3: error: expected ':' before the output types, found 'return'"},
      {head + "  %0 = neg(%0) : f32[2]\n  return %0\n}", "g.txt:2:3: error: %0 is defined twice"},
      {head + "  %1 = neg(%7) : f32[2]\n  return %1\n}", "g.txt:2:12: error: %7 is not defined"},
      {head + "  %2 = neg(%0) : f32[2]\n  return %2\n}",
       "g.txt:2:3: error: values are numbered from %0 without gaps, but %2 is defined and only 2 values are"},
      {head + "  %1 = neg(%0) : f32[2]\n}",
       "g.txt:3:1: error: expected 'return' before the end of the block, found '}'"},
      {head + "  %1 = neg(%0) : f32[2]\n  return %1\n}\nextra",
       "g.txt:5:1: error: expected the end of the text after the graph, found 'extra'"},
      {head + "  print(%0) {format = \"{}\n  return\n}", "g.txt:2:23: error: unterminated string"},
      {head + "  print(%0) {format = \"\\q\"}\n  return\n}", "g.txt:2:24: error: unknown escape '\\q' in a string"},
      {head + "  print(%0) {format = \"a\", format = \"b\"}\n  return\n}",
       "g.txt:2:28: error: attribute 'format' is given twice"},
      {head + "  %1 = constant() {value = f32[2] [1.0]} : f32[2]\n  return %1\n}",
       "g.txt:2:39: error: constant of type f32[2] needs 2 elements, found 1"},
      {head + "  %1 = constant() {value = f32[1] [1.0, 2.0]} : f32[1]\n  return %1\n}",
       "g.txt:2:41: error: constant of type f32[1] needs 1 element, found more"},
      {head + "  %1 = constant() {value = i32[1] [3000000000]} : i32[1]\n  return %1\n}",
       "g.txt:2:36: error: integer 3000000000 is out of range"},
      {head + "  %1 = constant() {value = f32[None] [1.0]} : f32[1]\n  return %1\n}",
       "g.txt:2:32: error: a constant's shape has no None dimension"},
      {head + "  %1 = constant() {value = f32[1] [nan:0x3f800000]} : f32[1]\n  return %1\n}",
       "g.txt:2:36: error: 'nan:0x3f800000' is not the bit pattern of a NaN"},
      {head + "  %1 = constant() {value = f32[1000000] [1.0]} : f32[1000000]\n  return %1\n}",
       "g.txt:2:28: error: constant of type f32[1000000] needs 1000000 elements, more than the text holds"},
      {head + "  %1 = full() {shape = [2], value = 1.5x, dtype = f32} : f32[2]\n  return %1\n}",
       "g.txt:2:37: error: expected a number, found '1.5x'"},
      {head + "  print(%0) {format = \"{}\"}\n  var 0 \"a\": f32[]\n  return\n}",
       "g.txt:3:3: error: variables are declared before the first node"},
      {head + "  %1 = neg(%0) : f32[2], f32[2]\n  return %1\n}", "g.txt:2:16: error: 1 output but 2 types"},
      {head + "  print(%0) {format = \"{}\"} : f32[2]\n  return\n}",
       "g.txt:2:29: error: a node without outputs has no types"},
      {"graph g() {\n  var 1 \"a\": f32[]\n  return\n}",
       "g.txt:2:3: error: variables are numbered in order: expected var 0"},
      {head + "  %1 = neg(%0) : f32[2] @ \"a.model\"\n  return %1\n}",
       "g.txt:3:3: error: expected ':' between the file and the line, found 'return'"},
      {head + "  %1 = neg(%12345678901) : f32[2]\n  return %1\n}",
       "g.txt:2:12: error: value number 12345678901 is too large"},
      {head + "  %1 = cond(%0) : f32[2] {\n    (%2: f32[2]) {\n      yield %2\n    }\n  }\n  return %1\n}", ""},
      {head + "  %1 = cond(%0) : f32[2] {\n    (%2: f32[2]) {\n      yield %2\n  }\n  return %1\n}",
       "g.txt:6:3: error: expected '}' after the blocks, found 'return'"},
  };
  for (const auto& c : cases) CHECK_MESSAGE(errorOf([&] { parse(c.text); }) == c.error, c.text);

  std::string deep = "graph g(%0: bool[]) {\n";
  for (int i = 0; i < 101; ++i) deep += "cond(%0) {\n() {\n";
  CHECK(errorOf([&] { parse(deep); }) == "g.txt:202:10: error: blocks nest deeper than 100 levels");
}

TEST_CASE("graph verifier: each rule, pointing at the node's line") {
  struct Case {
    std::string body, error;
  };
  // Every case runs inside this graph: %0: f32[2], %1: i32[], %2: bool[], variable 0 of type f32[2].
  auto graphOf = [](const std::string& body) {
    return "graph g(%0: f32[2], %1: i32[], %2: bool[]) {\n  var 0 \"m.d/w\": f32[2]\n" + body + "}\n";
  };
  std::vector<Case> cases = {
      {"  %3 = add(%0, %0) : f32[3]\n  return %3\n",
       "g.txt:3:3: error: add: output %3 is declared f32[3], but add gives f32[2]"},
      {"  %3 = add(%0, %0) : f32[None]\n  return %3\n", ""},
      {"  %3 = add(%0, %1) : f32[2]\n  return %3\n",
       "g.txt:3:3: error: add: dtype mismatch: f32 and i32 (in add; use cast() to convert one of them)"},
      {"  %3 = add(%0) : f32[2]\n  return %3\n", "g.txt:3:3: error: add: takes 2 inputs, given 1"},
      {"  %3, %4 = neg(%0) : f32[2], f32[2]\n  return %3\n", "g.txt:3:3: error: neg: has 2 outputs, expected 1"},
      {"  %3 = sum(%0) {axes = [0]} : f32[]\n  return %3\n",
       "g.txt:3:3: error: sum: attribute 'keepdims' (bool) is missing"},
      {"  %3 = sum(%0) {axes = 0, keepdims = false} : f32[]\n  return %3\n",
       "g.txt:3:3: error: sum: attribute 'axes' is int, expected ints"},
      {"  %3 = neg(%0) {fast = true} : f32[2]\n  return %3\n", "g.txt:3:3: error: neg: has no attribute 'fast'"},
      {"  %3 = neg(%4) : f32[2]\n  %4 = neg(%0) : f32[2]\n  return %3\n",
       "g.txt:3:3: error: neg: %4 is used before it is defined"},
      {"  %3 = neg(%0) : f32[2] {\n    () {\n      yield\n    }\n  }\n  return %3\n",
       "g.txt:3:3: error: neg: has 1 block, expected 0"},
      {"  %3 = read_variable() {var = 1} : f32[2]\n  return %3\n",
       "g.txt:3:3: error: read_variable: variable 1 does not exist (the graph has 1)"},
      {"  %3 = read_variable() {var = 0} : f32[3]\n  return %3\n",
       "g.txt:3:3: error: read_variable: reads %3 (f32[3]) from variable 0 'm.d/w' of type f32[2]"},
      {"  assign_variable(%1) {var = 0}\n  return\n",
       "g.txt:3:3: error: assign_variable: assigns %1 (i32[]) to variable 0 'm.d/w' of type f32[2]"},
      {"  print(%0, %1) {format = \"{}\"}\n  return\n",
       "g.txt:3:3: error: print: the format has 1 placeholder for 2 inputs"},
      {"  print(%0) {format = \"{x}\"}\n  return\n",
       "g.txt:3:3: error: print: the format has an unpaired brace (write {{ or }} for a brace)"},
      {"  print(%0) {format = \"{{{}}}\"}\n  return\n", ""},
      {"  check(%2) {message = \"m\", file = \"a.model\", span = [3, 10, 3, 17]}\n  return\n", ""},
      {"  check(%1) {message = \"m\", file = \"a.model\", span = [3, 10, 3, 17]}\n  return\n",
       "g.txt:3:3: error: check: checks %1 (i32[]), not a bool scalar"},
      {"  check(%2) {message = \"m\", file = \"a.model\", span = [3, 10]}\n  return\n",
       "g.txt:3:3: error: check: span is not [line, column, end line, end column]"},
      {"  %3 = constant() {value = f32[1] [1.0]} : f32[2]\n  return %3\n",
       "g.txt:3:3: error: constant: output %3 is declared f32[2], but the constant is f32[1]"},
      {"  %3 = cond(%1) : i32[] {\n    () {\n      yield %1\n    }\n    () {\n      yield %1\n    }\n  }\n  return "
       "%3\n",
       "g.txt:3:3: error: cond: the condition %1 (i32[]) is not a bool scalar"},
      {"  %3 = cond(%2) : i32[] {\n    () {\n      yield %1\n    }\n  }\n  return %3\n",
       "g.txt:3:3: error: cond: has 1 block, expected 2"},
      {"  %3 = cond(%2, %1) : i32[] {\n    () {\n      yield %1\n    }\n    () {\n      yield %1\n    }\n  }\n  return "
       "%3\n",
       "g.txt:3:3: error: cond: the then block has 0 parameters, expected 1"},
      {"  %3 = cond(%2) : i32[] {\n    () {\n      yield %1\n    }\n    () {\n      yield %0\n    }\n  }\n  return "
       "%3\n",
       "g.txt:3:3: error: cond: the else block yields %0 (f32[2]) where i32[] is expected"},
      {"  %3 = cond(%2) : f32[None] {\n    () {\n      %4 = constant() {value = f32[3] [1.0, 2.0, 3.0]} : f32[3]\n"
       "      yield %4\n    }\n    () {\n      yield %0\n    }\n  }\n  return %3\n",
       ""},
      {"  %3 = cond(%2) : f32[2] {\n    () {\n      %4 = neg(%0) : f32[2]\n      yield %4\n    }\n    () {\n      "
       "yield %0\n"
       "    }\n  }\n  %5 = neg(%4) : f32[2]\n  return %5\n",
       "g.txt:12:3: error: neg: %4 is used outside the block that defines it"},
      {"  %3 = while(%1) : i32[] {\n    (%4: i32[]) {\n      yield %4\n    }\n    (%5: i32[]) {\n      yield %5\n    "
       "}\n  }\n"
       "  return %3\n",
       "g.txt:3:3: error: while: the cond block yields %4 (i32[]) where bool[] is expected"},
      {"  %3 = while(%1) : i32[] {\n    (%4: i32[]) {\n      yield %2\n    }\n    (%5: i32[]) {\n      yield %0\n    "
       "}\n  }\n"
       "  return %3\n",
       "g.txt:3:3: error: while: the body block yields %0 (f32[2]) where i32[] is expected"},
      {"  %3 = while(%1) : i32[] {\n    (%4: i32[]) {\n      yield %2\n    }\n    (%5: f32[2]) {\n      yield %1\n    "
       "}\n  }\n"
       "  return %3\n",
       "g.txt:3:3: error: while: the body block's parameter %5 (f32[2]) should be i32[]"},
      {"  %3 = while(%0) : f32[3] {\n    (%4: f32[3]) {\n      yield %2\n    }\n    (%5: f32[3]) {\n      yield %5\n   "
       " }\n  }\n"
       "  return %3\n",
       "g.txt:3:3: error: while: the initial value %0 (f32[2]) does not fit the loop value %3 (f32[3])"},
      {"  %3 = while(%0, %1) : f32[2] {\n    (%4: f32[2]) {\n      yield %2\n    }\n    (%5: f32[2]) {\n      yield "
       "%5\n    }\n"
       "  }\n  return %3\n",
       "g.txt:3:3: error: while: has 1 output, expected 2"},
      {"  %3 = while(%1) : i32[] {\n    (%4: i32[]) {\n      %5 = add(%4, %0) : i32[]\n      yield %2\n    }\n"
       "    (%6: i32[]) {\n      yield %6\n    }\n  }\n  return %3\n",
       "g.txt:5:7: error: add: dtype mismatch: i32 and f32 (in add; use cast() to convert one of them)"},
  };
  for (const auto& c : cases) CHECK_MESSAGE(errorOf([&] { check(graphOf(c.body)); }) == c.error, c.body);
  CHECK(errorOf([&] { check("graph g() {\n  var 0 \"v\": f32[None]\n  return\n}"); }) ==
        "error: graph 'g': variable 0 'v' has type f32[None]: a variable's shape is fully known");
  CHECK(errorOf([&] { check("graph g(%0: f32[4294967296, 4294967296]) {\n  return %0\n}"); }) ==
        "error: graph 'g': %0 has type f32[4294967296, 4294967296] with more than 2^53 elements");
  CHECK(errorOf([&] { check("graph g() {\n  var 0 \"v\": i64[0, 9007199254740993]\n  return\n}"); }) ==
        "error: graph 'g': variable 0 'v' has type i64[0, 9007199254740993] with more than 2^53 elements");
  CHECK(errorOf([&] { check("graph g(%0: f32[None]) {\n  %1 = add(%0, %0) : f32[2]\n  return %1\n}"); }) ==
        "g.txt:2:3: error: add: output %1 is declared f32[2], but add gives f32[None]");
}

TEST_CASE("graph verifier: graphs built by hand name the node by its number") {
  Graph g = parse(kAddPrint);
  verify(g);
  Graph twice = g;
  twice.body.nodes[1].outputs = {1};
  CHECK(errorOf([&] { verify(twice); }) ==
        "error: graph 'addprint', node 1 (add at demo.model:7): %1 is defined twice");
  Graph unknown = g;
  unknown.body.nodes[1].inputs = {1, 9};
  CHECK(errorOf([&] { verify(unknown); }) ==
        "error: graph 'addprint', node 1 (add at demo.model:7): %9 is not a value of the graph (it has 3)");
  Graph negative = g;
  negative.values[0].shape = {-2};
  CHECK(errorOf([&] { verify(negative); }) == "error: graph 'addprint': %0 has type f32[-2] with a negative dimension");
  Graph unused = g;  // a hole a pass left: nothing defines %3, nothing uses it
  unused.addValue(kF32);
  CHECK(errorOf([&] { verify(unused); }).empty());
  CHECK(printText(renumberValues(unused)) == printText(g));
  Graph result = g;
  result.body.results = {5};
  CHECK(errorOf([&] { verify(result); }) == "error: graph 'addprint': %5 is not a value of the graph (it has 3)");
  Graph noData = parse(kCollatz);
  noData.body.nodes[0].attrs.set("value", Tensor::abstract(DType::I32, {}));
  CHECK(errorOf([&] { verify(noData); }) == "error: graph 'collatz', node 0 (constant): the constant has no data");
  Graph random;
  random.name = "r";
  int r = add(random, random.body, OpId::RandomNormal, {},
              {{"shape", std::vector<int64_t>{2}}, {"mean", 0.0}, {"stddev", 1.0}, {"dtype", DType::F32}},
              {DType::F32, {2}});
  random.body.results = {r};
  ops::RandomState before = ops::randomState();
  verify(random);  // inference only: no number is drawn
  CHECK(ops::randomState().counter == before.counter);
}

TEST_CASE("graph DOT: ops, typed edges, variables by module, inputs, outputs and block clusters") {
  Graph g = parse(kAddPrint);
  std::string dot = dotText(g);
  CHECK(dot.rfind("digraph \"addprint\" {\n", 0) == 0);
  CHECK(dot.find("subgraph cluster_m0 {\n    label=\"demo_module\"") != std::string::npos);
  CHECK(dot.find("var0 [label=\"x\\nf32[]\", tooltip=\"demo_module/x\", shape=cylinder") != std::string::npos);
  CHECK(dot.find("v0 [label=\"input 0\\nf32[]\", shape=invhouse") != std::string::npos);
  CHECK(dot.find("n0 -> n1 [label=\"f32[]\"];") != std::string::npos);
  CHECK(dot.find("var0 -> n0 [style=dashed];") != std::string::npos);
  CHECK(dot.find("n2 -> var0 [style=dashed];") != std::string::npos);
  CHECK(dot.find("n3 [label=\"print\\n\\\"{}\\\"\", shape=box, tooltip=\"demo.model:8\"") != std::string::npos);
  CHECK(dot.find("out0 [label=\"output 0\", shape=house") != std::string::npos);
  CHECK(dot.find("n1 -> out0 [label=\"f32[]\"];") != std::string::npos);
  // The reads and writes of a variable are drawn in its module's cluster.
  CHECK(dot.find("n0 [label=\"read_variable\"") < dot.find("}\n  v0 "));

  std::string loop = dotText(parse(kCollatz));
  CHECK(loop.find("subgraph cluster_n2 {\n    label=\"while @ c.model:4\"") != std::string::npos);
  CHECK(loop.find("label=\"cond\"") != std::string::npos);
  CHECK(loop.find("label=\"body\"") != std::string::npos);
  CHECK(loop.find("label=\"cond @ c.model:6\"") != std::string::npos);
  CHECK(loop.find("label=\"then\"") != std::string::npos);
  CHECK(loop.find("n0 [label=\"constant\\n0\", shape=box];") != std::string::npos);
  CHECK(loop.find("n2 -> v5 [style=dotted];") != std::string::npos);
  CHECK(loop.find("n3 -> n2_b0_yield [label=\"bool[]\"];") != std::string::npos);

  // Nested module paths nest clusters; the last part names the variable.
  Graph vars;
  vars.name = "v";
  vars.variables = {{"block.d1.kernel", {DType::F32, {2, 2}}}, {"block.d1.bias", {DType::F32, {2}}}, {"step", kI32}};
  std::string nested = dotText(vars);
  CHECK(nested.find("label=\"block\"") != std::string::npos);
  CHECK(nested.find("label=\"d1\"") != std::string::npos);
  CHECK(nested.find("var0 [label=\"kernel\\nf32[2, 2]\"") != std::string::npos);
  CHECK(nested.find("  var2 [label=\"step\\ni32[]\"") != std::string::npos);
}

TEST_CASE("graph DOT: a placed graph draws collectives as hexagons and placements on its edges") {
  Graph g = parse(R"(graph mlp(%0: f32[8, 16]{model: R}) on mesh(model=2) {
  var 0 "w": f32[16, 16]{model: S0}
  %1 = read_variable() {var = 0} : f32[16, 16]{model: S0} @ "m.model":3
  %2 = local_slice(%0) {axis = 1, mesh_dim = 0, group = 2} : f32[8, 16]{model: S1} @ "m.model":3
  %3 = matmul(%2, %1) : f32[8, 16]{model: P} @ "m.model":3
  %4 = all_reduce(%3) {mesh_dim = 0, group = 2} : f32[8, 16]{model: R} @ "m.model":3
  return %4
}
)");
  std::string dot = dotText(g);
  CHECK(dot.find("[label=\"all_reduce\\nover model\", shape=hexagon, tooltip=\"m.model:3\", style=filled") !=
        std::string::npos);
  CHECK(dot.find("[label=\"matmul\", shape=box") != std::string::npos);
  CHECK(dot.find("-> n3 [label=\"f32[8, 16]{model: P}\"];") != std::string::npos);
  CHECK(dot.find("v0 [label=\"input 0\\nf32[8, 16]{model: R}\"") != std::string::npos);
}

TEST_CASE("graph DOT: each top-level node in the cluster of the module whose code made it") {
  Graph g = parse(kAddPrint);
  for (Node& n : g.body.nodes) n.scope = "mlp/hidden";
  g.body.nodes[3].scope = "mlp";  // the print, made by the outer module's own code
  g.variables[0].scope = "mlp/hidden";
  std::string dot = dotText(g);
  size_t mlp = dot.find("label=\"mlp\""), hidden = dot.find("label=\"hidden\"");
  REQUIRE(mlp != std::string::npos);
  REQUIRE(hidden != std::string::npos);
  CHECK(mlp < hidden);
  // Two clusters deep the add and the variable with its read; one deep the print.
  CHECK(dot.find("\n      n1 [label=\"add\"") != std::string::npos);
  CHECK(dot.find("\n      var0 [label=\"x\\nf32[]\"") != std::string::npos);
  CHECK(dot.find("\n      n0 [label=\"read_variable\"") != std::string::npos);
  CHECK(dot.find("\n    n3 [label=\"print") != std::string::npos);
  // Edges do not depend on the order nodes are drawn in.
  CHECK(dot.find("n0 -> n1 [label=\"f32[]\"];") != std::string::npos);
  CHECK(dot.find("n1 -> n3 [label=\"f32[]\"];") != std::string::npos);
}

TEST_CASE("graph files: the extension picks the form") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("weft_graph_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Graph g = parse(kCollatz);
  auto read = [](const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  writeGraphFile(g, (dir / "g.txt").string());
  CHECK(read(dir / "g.txt") == printText(g));
  writeGraphFile(g, (dir / "g.dot").string());
  CHECK(read(dir / "g.dot") == dotText(g));
  CHECK(errorOf([&] { writeGraphFile(g, (dir / "g.pdf").string()); }) ==
        "error: weft graph: cannot tell the form of '" + (dir / "g.pdf").string() +
            "' from its extension: use .txt (the graph text), .dot, .svg or .png");
  CHECK(errorOf([&] { writeGraphFile(g, (dir / "missing" / "g.txt").string()); }) ==
        "error: weft graph: cannot write " + (dir / "missing" / "g.txt").string());
  if (system("command -v dot > /dev/null 2>&1") == 0) {
    writeGraphFile(g, (dir / "g.svg").string());
    CHECK(read(dir / "g.svg").find("<svg") != std::string::npos);
    writeGraphFile(g, (dir / "g.png").string());
    CHECK(read(dir / "g.png").substr(1, 3) == "PNG");
  }
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", dir.c_str(), 1);
  std::string noDot = errorOf([&] { checkGraphFile("g.svg"); });
  setenv("PATH", path.c_str(), 1);
  CHECK(noDot ==
        "error: weft graph: drawing svg needs Graphviz's 'dot' program (Debian package graphviz), which is not on "
        "the PATH; write a .dot file instead");
  fs::remove_all(dir);
}

TEST_CASE("graph text: the fuzz seeds are canonical and verify") {
  for (const char* name : {"addprint", "collatz", "constants"}) {
    std::ifstream f(std::string(WEFT_SOURCE_DIR) + "/tests/fuzz/graphs/" + name + ".txt");
    std::stringstream s;
    s << f.rdbuf();
    CHECK_MESSAGE(errorOf([&] { check(s.str()); }) == "", name);
    CHECK(printText(parse(s.str())) == s.str());
  }
}

// A data-parallel layer on a 2x2 mesh: the batch split on "batch", the kernel's columns on
// "model", the product's partial sums before their reduction (SPEC §7.1).
const char* kSharded = R"(graph step(%0: f32[8, 16]{batch: S0, model: R}) on mesh(batch=2, model=2) {
  var 0 "dense.kernel": f32[16, 4]{batch: R, model: S1}
  %1 = read_variable() {var = 0} : f32[16, 4]{batch: R, model: S1}
  %2 = matmul(%0, %1) : f32[8, 4]{batch: S0, model: S1}
  %3 = sum(%2) {axes = [0], keepdims = false} : f32[4]{batch: P, model: S0}
  return %3
}
)";

TEST_CASE("graph text: placements on a mesh round-trip and verify") {
  Graph g = parse(kSharded);
  CHECK(printText(g) == kSharded);
  verify(g);
  requireRoundTrip(g);
  CHECK(g.mesh.names == std::vector<std::string>{"batch", "model"});
  CHECK(g.mesh.sizes == std::vector<int64_t>{2, 2});
  CHECK(g.placementsOf(3) == spmd::Placements{spmd::Placement::p(), spmd::Placement::s(0)});
  CHECK(g.variables[0].placements == spmd::Placements{spmd::Placement::r(), spmd::Placement::s(1)});
  // A value without written placements is replicated.
  Graph h = parse("graph f(%0: f32[4]) on mesh(x=4) {\n  %1 = neg(%0) : f32[4]{x: S0}\n  return %1\n}\n");
  CHECK(h.placementsOf(0) == spmd::Placements{spmd::Placement::r()});
  CHECK(printText(h).find("%0: f32[4]{x: R}") != std::string::npos);

  const std::string head = "graph f(%0: f32[6]) on mesh(x=4) {\n";
  CHECK(errorOf([] { parse("graph f(%0: f32[4]{x: S0}) {\n  return %0\n}\n"); }) ==
        "g.txt:1:19: error: placements need the graph's mesh: 'on mesh(...)' after the parameters");
  CHECK(errorOf([&] { parse(head + "  %1 = neg(%0) : f32[6]{x: S0}\n  return %1\n}\n"); }) ==
        "g.txt:2:24: error: x: S0 splits a dimension of 6 into 4 parts, which does not divide (f32[6] on mesh(x=4))");
  // Two mesh dimensions splitting one tensor dimension divide it by both sizes.
  CHECK(errorOf([] { parse("graph f(%0: f32[2]{x: S0, y: S0}) on mesh(x=2, y=2) {\n  return %0\n}\n"); }) ==
        "g.txt:1:19: error: y: S0 splits a dimension of 1 into 2 parts, which does not divide (f32[2] on mesh(x=2, y=2))");
  CHECK(errorOf([&] { parse(head + "  %1 = neg(%0) : f32[6]{y: R}\n  return %1\n}\n"); }) ==
        "g.txt:2:24: error: placements name the mesh's dimensions in order, as in {x: R}");
  CHECK(errorOf([&] { parse(head + "  %1 = neg(%0) : f32[6]{x: Q}\n  return %1\n}\n"); }) ==
        "g.txt:2:28: error: expected a placement (R, S<dimension> or P), found 'Q'");
  CHECK(errorOf([&] { parse(head + "  %1 = neg(%0) : f32[6]{x: S1}\n  return %1\n}\n"); }) ==
        "g.txt:2:24: error: x: S1 splits dimension 1 of a rank-1 value (f32[6] on mesh(x=4))");
  CHECK(errorOf([] { parse("graph f(%0: f32[4]) on mesh(x=0) {\n  return %0\n}\n"); }) ==
        "g.txt:1:31: error: a mesh dimension has 1 to 65536 devices, not 0");
  CHECK(errorOf([] { parse("graph f(%0: f32[4]) on mesh(x=2, x=2) {\n  return %0\n}\n"); }) ==
        "g.txt:1:34: error: mesh dimension 'x' is named twice");
  // Graphs built by hand: the verifier checks what the parser would.
  Graph bad = parse(kSharded);
  bad.placements[2] = {spmd::Placement::s(1), spmd::Placement::s(2)};
  CHECK(errorOf([&] { verify(bad); }).find("%2 f32[8, 4]: batch: S1 splits a dimension of 4 into 2") == std::string::npos);
  CHECK(errorOf([&] { verify(bad); }).find("%2 f32[8, 4]: model: S2 splits dimension 2 of a rank-2 value") != std::string::npos);
  bad.placements[2] = {spmd::Placement::s(0)};
  CHECK(errorOf([&] { verify(bad); }).find("%2 f32[8, 4]: 1 placements on a mesh of 2 dimensions") != std::string::npos);
}
