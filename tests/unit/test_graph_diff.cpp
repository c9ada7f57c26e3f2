// Graph functions against eager code on generated programs (tests/fuzz/graph_program.h): the
// outputs of the two runs must be identical, as both use the same kernels.
#include <doctest/doctest.h>

#include <random>
#include <sstream>

#include "../fuzz/graph_program.h"
#include "interpreter/eval/interpreter.h"

namespace {

std::string run(const std::string& src, bool eager, int& status, std::string& err) {
  std::ostringstream out, errs;
  weft::Interpreter interp(out, errs);
  interp.setRunFunctionsEagerly(eager);
  status = interp.runSource(std::make_shared<weft::SourceFile>("diff.model", src));
  err = errs.str();
  return out.str();
}

}  // namespace

TEST_CASE("graph functions print what eager code prints, on 300 generated programs") {
  std::mt19937 rng(12345);
  for (int k = 0; k < 300; ++k) {
    std::vector<uint8_t> bytes(64);
    for (auto& b : bytes) b = uint8_t(rng());
    std::string src = weft::fuzz::GraphProgram(bytes).generate();
    int sg = 0, se = 0;
    std::string eg, ee;
    std::string graph = run(src, false, sg, eg), eager = run(src, true, se, ee);
    INFO(src);
    INFO(eg);
    REQUIRE(se == 0);
    REQUIRE(sg == 0);
    CHECK(graph == eager);
  }
}
