// A literal's exact value and its adoption of a dtype (interpreter/values/literal.h).
#include <cmath>

#include "interpreter/values/literal.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;

TEST_CASE("a literal's own dtype: f32, i32, i64 outside i32") {
  CHECK(Literal::real(0.1).naturalDType() == DType::F32);
  CHECK(Literal::integer(2147483647).naturalDType() == DType::I32);
  CHECK(Literal::integer(2147483648).naturalDType() == DType::I64);
  CHECK(Literal::integer(-2147483648LL).naturalDType() == DType::I32);
  CHECK(Literal::integer(-2147483649LL).naturalDType() == DType::I64);
}

TEST_CASE("adoption rounds once, from the exact value") {
  CHECK(Literal::real(0.1).as(DType::F64).data<double>()[0] == 0.1);
  CHECK(Literal::real(0.1).as(DType::F32).data<float>()[0] == 0.1f);
  CHECK(std::isinf(Literal::real(1e39).as(DType::F32).data<float>()[0]));
  CHECK(Literal::real(1e39).as(DType::F64).data<double>()[0] == 1e39);
  // 2^53 + 1 is not a double; through long double it rounds once to f32's 2^53.
  CHECK(Literal::integer((int64_t(1) << 53) + 1).as(DType::F32).data<float>()[0] == 0x1p53f);
  CHECK(Literal::integer(3000000000).as(DType::I64).data<int64_t>()[0] == 3000000000);
  CHECK(Literal::real(-2.7).as(DType::I32).data<int32_t>()[0] == -2);  // a cast truncates
  CHECK(Literal::real(1e30).as(DType::I64).data<int64_t>()[0] == INT64_MAX);  // and saturates
  CHECK(Literal::integer(2).as(DType::Bool).data<bool>()[0]);
}

TEST_CASE("an integer literal outside i32 does not fit it") {
  CHECK(!Literal::integer(2147483648).fits(DType::I32));
  CHECK(Literal::integer(2147483648).fits(DType::I64));
  CHECK(Literal::integer(2147483648).fits(DType::F32));
  CHECK(errorOf([] { Literal::integer(-2147483649LL).as(DType::I32); }) ==
        "the integer literal -2147483649 is out of range for i32");
}
