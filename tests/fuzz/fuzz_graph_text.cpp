// The graph text form (interpreter/graph/text.h) on arbitrary bytes: parsing, and for what
// parses, the exact round trip (print, parse again, compare), the verifier and the DOT writer.
#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/graph/dot.h"
#include "interpreter/graph/text.h"
#include "interpreter/graph/verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace weft;
  auto file = std::make_shared<SourceFile>("fuzz.txt", fuzz::text(data, size));
  fuzz::withLargeStack([&] {
    std::vector<SourceRange> nodeAt;
    graph::Graph g;
    try {
      g = graph::parseText(file, &nodeAt);
    } catch (const WeftError& e) {
      (void)e.format();
      return;
    }
    std::string text = graph::printText(g);
    graph::Graph back = graph::parseText(std::make_shared<SourceFile>("printed.txt", text));
    if (!graph::identical(back, g) || graph::printText(back) != text) __builtin_trap();
    try {
      graph::verify(g, &nodeAt);
    } catch (const WeftError& e) {
      (void)e.format();
    }
    (void)graph::dotText(g);
  });
  return 0;
}
