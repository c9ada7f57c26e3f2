// A check node's failure (interpreter/graph/executor.h): eager code's error at the check's place.
#include <doctest/doctest.h>

#include "grammar/diagnostics.h"
#include "interpreter/graph/executor.h"

using namespace weft;

TEST_CASE("graph check: a failing check is eager code's error, with the line when its file is kept") {
  const ops::Attrs attrs{{"message", std::string("assertion failed: x \"is\"\nbad")},
                         {"file", std::string("kept_check.model")},
                         {"span", std::vector<int64_t>{2, 8, 2, 12}}};
  const std::string line = "kept_check.model:2:8: error: assertion failed: x \"is\"\nbad";
  CHECK(graph::checkFailureLine(attrs) == line);
  // Not traced in this process (a graph read from text): the place is text in the message.
  WeftError unkept = graph::checkFailure(attrs);
  CHECK_FALSE(unkept.at.valid());
  CHECK(unkept.message == "assertion failed: x \"is\"\nbad (in the graph, at kept_check.model:2:8)");
  keepSource(std::make_shared<SourceFile>("kept_check.model", "x = 1\nassert x > 5, \"...\"\n"));
  WeftError kept = graph::checkFailure(attrs);
  REQUIRE(kept.at.valid());
  CHECK(kept.format() == "kept_check.model:2:8: error: assertion failed: x \"is\"\nbad\n"
                         "  assert x > 5, \"...\"\n         ^~~~~\n");
}
