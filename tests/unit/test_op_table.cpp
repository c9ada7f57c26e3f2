// The op table's inference and workspace columns against its kernels, looping over the table:
// every op with a kernel needs cases in op_cases.cpp, or this test fails. On each valid case the kernel's
// results have exactly the inferred types and its scratch never exceeds the workspace column (the
// arena compiled code reserves from it); on each invalid case inference and kernel fail alike.
#include <doctest/doctest.h>

#include <thread>

#include "interpreter/ops/impl.h"
#include "op_cases.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::Attrs;
using ops::OpId;
using ops::TensorType;
using testutil::label;
using testutil::OpCase;
using testutil::typesOf;

TEST_CASE("op table: inference gives the kernel's result types, and fails as it does") {
  const auto all = testutil::opCases();
  for (int i = 0; i < ops::kOpCount; ++i) {
    const ops::OpDef& d = ops::opDef(OpId(i));
    if (!d.run) {
      CHECK_MESSAGE(!bool(d.infer), d.name);
      continue;
    }
    REQUIRE_MESSAGE(bool(d.infer), d.name, " has a kernel but no inference");
    if (d.family == ops::Family::Collective) continue;  // they run on a mesh's devices: test_collectives.cpp
    const auto [from, to] = all.equal_range(d.id);
    CHECK_MESSAGE(from != to, d.name, " has no case here");
    for (auto it = from; it != to; ++it) {
      const OpCase& c = it->second;
      INFO(label(d, c));
      const std::string inferError = testutil::errorOf([&] { d.infer(typesOf(c.in), c.attrs); });
      const std::string runError = testutil::errorOf([&] { d.run(c.in, c.attrs); });
      CHECK(inferError == runError);
      CHECK(inferError.empty() == c.valid);
      if (!inferError.empty()) continue;
      const std::vector<TensorType> inferred = d.infer(typesOf(c.in), c.attrs);
      const std::vector<TensorType> ran = typesOf(d.run(c.in, c.attrs));
      REQUIRE(inferred.size() == ran.size());
      for (size_t k = 0; k < ran.size(); ++k) {
        CHECK(inferred[k].dtype == ran[k].dtype);
        Shape want = ran[k].shape;
        if (d.sizedByValue) want[0] = rt::kUnknownDim;  // an input's value: unknown to inference
        CHECK(inferred[k].shape == want);
      }
    }
  }
}

TEST_CASE("op table: a kernel's scratch stays within the workspace column") {
  int used = 0;
  for (const auto& entry : testutil::opCases()) {  // not a structured binding: clang 14 cannot capture one
    const auto& c = entry.second;
    const ops::OpDef& d = ops::opDef(entry.first);
    if (!c.valid) continue;
    INFO(label(d, c));
    const int64_t column = d.workspace ? d.workspace(typesOf(c.in), c.attrs) : 0;
    int64_t seen = -1;
    // A new thread starts with an empty scratch buffer: what it holds afterwards is what the
    // kernel asked for.
    std::thread([&] {
      d.run(c.in, c.attrs);
      seen = ops::impl::scratchSize();
    }).join();
    CHECK(seen <= (column + 63) / 64 * 64);
    if (seen > 0) ++used;
  }
  CHECK(used >= 8);  // the products and convolutions above pack their operands in scratch
}

}  // namespace
}  // namespace weft
