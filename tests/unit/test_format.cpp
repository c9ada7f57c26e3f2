// Printing values exactly as SPEC §2 says.
#include <doctest/doctest.h>

#include "interpreter/values/format.h"
#include "interpreter/values/objects.h"

using namespace weft;

TEST_CASE("floats print as Python's repr at their dtype's precision") {
  CHECK(formatFloat(6.0, DType::F32) == "6.0");
  CHECK(formatFloat(0.1f, DType::F32) == "0.1");
  CHECK(formatFloat(1e-7f, DType::F32) == "1e-07");
  CHECK(formatFloat(0.0001, DType::F64) == "0.0001");
  CHECK(formatFloat(0.00001, DType::F64) == "1e-05");
  CHECK(formatFloat(1e16, DType::F64) == "1e+16");
  CHECK(formatFloat(1234567890123456.0, DType::F64) == "1234567890123456.0");
  CHECK(formatFloat(1.0 / 3.0, DType::F64) == "0.3333333333333333");
  CHECK(formatFloat(1.0f / 3.0f, DType::F32) == "0.33333334");
  CHECK(formatFloat(-2.5, DType::F32) == "-2.5");
  CHECK(formatFloat(123456789.0f, DType::F32) == "123456790.0");
  CHECK(formatFloat(1.5e-10, DType::F64) == "1.5e-10");
  CHECK(formatFloat(-0.0, DType::F64) == "-0.0");
}

TEST_CASE("tensors print as nested lists, summarised past 1000 elements") {
  Tensor t = Tensor::empty(DType::F32, Shape{2, 2});
  for (int i = 0; i < 4; ++i) t.data<float>()[i] = float(i + 1);
  CHECK(formatTensor(t) == "[[1.0, 2.0], [3.0, 4.0]]");
  Tensor b = Tensor::empty(DType::Bool, Shape{2});
  b.data<bool>()[0] = true;
  b.data<bool>()[1] = false;
  CHECK(formatTensor(b) == "[true, false]");
  Tensor big = Tensor::zeros(DType::I32, Shape{1001});
  CHECK(formatTensor(big) == "[0, 0, 0, ..., 0, 0, 0]");
  Tensor small = Tensor::zeros(DType::I32, Shape{1000});
  CHECK(formatTensor(small).size() == 2 + 1000 + 999 * 2);  // brackets, digits, separators
}

TEST_CASE("containers print as Python prints them") {
  Value list = makeList({Value(Tensor::scalar<int32_t>(1)), makeStr("a")});
  CHECK(toRepr(list) == "[1, 'a']");
  CHECK(toRepr(makeTuple({Value(Tensor::scalar<int32_t>(5))})) == "(5,)");
  CHECK(toRepr(makeStr("it's")) == "\"it's\"");
  CHECK(toStr(makeStr("plain")) == "plain");
  CHECK(toRepr(Value()) == "none");
}
