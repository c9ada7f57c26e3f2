// Interpreter::graphOf: until graph functions are traced, no function has a graph.
#include "../graph/graph.h"
#include "interpreter.h"

namespace weft {

std::shared_ptr<const graph::Graph> Interpreter::graphOf(const std::string&) {
  throw WeftError("weft graph: not available yet");
}

}  // namespace weft
