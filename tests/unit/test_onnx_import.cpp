// The ONNX importer (interpreter/onnx/) on hostile and broken models (tests/onnx/models): each is a
// clear error naming the file or the node, never a crash; and a model's names reach the generated
// source only escaped.
#include <sstream>

#include "doctest/doctest.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/onnx/load.h"
#include "interpreter/onnx/reader.h"
#include "interpreter/onnx/source.h"

using namespace weft;

namespace {

const std::string kModels = std::string(WEFT_SOURCE_DIR) + "/tests/onnx/models/";

// The error load_onnx gives for a model, "" when it loads.
std::string loadError(const std::string& name) {
  std::ostringstream out, err;
  Interpreter in(out, err);
  try {
    onnx::loadOnnx(in, kModels + name + ".onnx");
  } catch (const WeftError& e) {
    return e.message;
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("onnx import: broken files are errors naming the file and the fault") {
  const std::string path = kModels;
  CHECK(loadError("truncated") == "'" + path + "truncated.onnx': not a valid ONNX protobuf (truncated, corrupt, or nested deeper than 64)");
  CHECK(contains(loadError("deep_subgraphs"), "nested deeper than 64"));
  CHECK(loadError("raw_data_short") == "'" + path + "raw_data_short.onnx': tensor 'w': holds 8 bytes of data, its shape needs 16");
  CHECK(loadError("dims_overflow") == "'" + path + "dims_overflow.onnx': tensor 'w': more than 2^40 elements");
  CHECK(loadError("external_escape") == "'" + path + "external_escape.onnx': tensor 'w': external data '../../../../../../etc/passwd' is outside the model's folder");
  CHECK(contains(loadError("no_such_model"), "cannot open the file"));
}

TEST_CASE("onnx import: graphs Weft cannot run are errors naming the node") {
  CHECK(loadError("unknown_op") == "node 'mystery' (FooBar): Weft does not support the ONNX op FooBar (opset 13) yet");
  CHECK(loadError("unknown_domain") == "the model uses the operator set 'com.example', which Weft does not know (only ai.onnx)");
  CHECK(loadError("opset18") == "the model's opset 18 is outside the opsets 1-17 that Weft reads (ONNX 1.12)");
  CHECK(loadError("undefined_input") == "node 'add' (Add) reads 'missing', which no node, input or initializer defines before it");
  CHECK(loadError("cycle") == "node 'first' (Add) reads 'b', which no node, input or initializer defines before it");
}

TEST_CASE("onnx import: hostile names stay names") {
  CHECK(loadError("hostile_names") == "");
  onnx::ModelFile m = onnx::readModel(kModels + "hostile_names.onnx");
  onnx::SourceOptions o;
  o.moduleName = "Hostile";
  o.origin = "hostile_names.onnx";
  o.hasFunction = [](const std::string& name) { return name == "Add"; };
  const std::string text = onnx::writeSource(m, o).text;
  // No line of the source is a name's own text: every newline in a name is escaped.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK_MESSAGE(line.rfind("print(", 0) != 0, line);
  CHECK(contains(text, "fn call(v_class: f32[2])"));  // a keyword is prefixed
  CHECK(contains(text, "w___print__owned_____2"));    // two names that clean to one stay two
  CHECK(contains(text, "v_1st_value = onnx.Add("));   // a leading digit is prefixed
  // The result is the two additions: x + [1, 2] + [10, 20].
  std::ostringstream out, err;
  Interpreter in(out, err);
  Value module = onnx::loadOnnx(in, kModels + "hostile_names.onnx");
  Args args;
  Tensor x = Tensor::empty(DType::F32, Shape{2});
  x.data<float>()[0] = 0.5f;
  x.data<float>()[1] = -1.0f;
  args.pos = {Value(x)};
  Tensor y = in.call(module, args).tensor();
  CHECK(y.data<float>()[0] == 11.5f);
  CHECK(y.data<float>()[1] == 21.0f);
}

TEST_CASE("onnx import: tensor elements widen exactly") {
  onnx::TensorData t;
  t.type = onnx::ElemType::Float16;
  t.dims = {3};
  t.bytes = std::string("\x00\x3c\x00\xc0\x01\x00", 6);  // 1.0, -2.0, the smallest subnormal
  Tensor f = onnx::toTensor(t);
  CHECK(f.dtype() == DType::F32);
  CHECK(f.data<float>()[0] == 1.0f);
  CHECK(f.data<float>()[1] == -2.0f);
  CHECK(f.data<float>()[2] == 5.9604645e-08f);
  t.type = onnx::ElemType::Uint8;
  t.bytes = std::string("\xff\x00\x07", 3);
  Tensor u = onnx::toTensor(t);
  CHECK(u.dtype() == DType::I32);
  CHECK(u.data<int32_t>()[0] == 255);
  t.type = onnx::ElemType::String;
  CHECK_THROWS_WITH(onnx::toTensor(t), "a tensor has element type string, which Weft has no dtype for");
}
