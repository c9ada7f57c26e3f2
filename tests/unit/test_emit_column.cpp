// The op table's emit column and property sets, looping over the table: every op has an emit
// rule, and the properties the passes and memory plans read agree with each other.
#include <doctest/doctest.h>

#include "codegen/emit/emit_rule.h"
#include "interpreter/ops/op_table.h"

namespace weft {
namespace {

using ops::Family;
using ops::OpId;

TEST_CASE("emit column: every op compiles to C++") {
  codegen::registerEmitRules();
  for (int i = 0; i < ops::kOpCount; ++i) {
    const ops::OpDef& d = ops::opDef(OpId(i));
    INFO(d.name);
    REQUIRE_MESSAGE(d.emit != nullptr, d.name, " has no emit rule");
    // Sizes come from the inference column; only the ops without one, or sized by an input's
    // value, size their results.
    CHECK((d.emit->sizes != nullptr) == (d.infer == nullptr || d.sizedByValue));
    CHECK(bool(d.emit->code));
    CHECK(bool(d.emit->header));
  }
}

TEST_CASE("op properties: the named sets agree with the families") {
  int fusible = 0, epilogues = 0, views = 0;
  for (int i = 0; i < ops::kOpCount; ++i) {
    const ops::OpDef& d = ops::opDef(OpId(i));
    INFO(d.name);
    const bool elementwise = d.family == Family::Unary || d.family == Family::Binary;
    CHECK(d.fusible == (elementwise || d.id == OpId::Cast));
    if (d.inPlace) CHECK((elementwise || d.family == Family::Update));
    if (d.epilogue) CHECK((d.family == Family::Unary && d.inPlace));
    if (d.view) CHECK(d.arity == 1);
    if (d.family == Family::Random || d.family == Family::Control || d.family == Family::Output) CHECK(d.effect);
    if (d.family == Family::Creation) CHECK((!d.effect && d.arity == 0));
    fusible += d.fusible;
    epilogues += d.epilogue;
    views += d.view;
  }
  CHECK(fusible == 39);  // the unary and binary lists of op_list.h, gelu and cast
  CHECK(epilogues == 6);
  CHECK(views == 6);
  // exp and sigmoid repair subnormal results from their input after writing: never in place.
  CHECK_FALSE(ops::opDef(OpId::UnaryExp).inPlace);
  CHECK_FALSE(ops::opDef(OpId::UnarySigmoid).inPlace);
  CHECK(ops::opDef(OpId::UnaryLog).inPlace);
}

}  // namespace
}  // namespace weft
