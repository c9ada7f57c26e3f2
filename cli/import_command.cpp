// `weft import MODEL.onnx -o DIR` (docs/onnx.md): an ONNX model as a Weft program to read, edit,
// run, graph and compile: DIR/NAME.model and its tensors in DIR/tensors/.
#include <iostream>
#include <sstream>

#include "commands.h"
#include "grammar/diagnostics.h"
#include "grammar/shown_text.h"
#include "interpreter/onnx/load.h"

namespace weft::cli {

int importCommand(const std::vector<std::string>& args) {
  const char* usage = "usage: weft import MODEL.onnx -o DIR\n";
  if (args.size() != 4 || args[2] != "-o") {
    std::cerr << usage;
    return 2;
  }
  std::ostringstream out, err;
  Interpreter in(out, err);
  try {
    const std::string file = onnx::importOnnx(in, args[1], args[3]);
    std::cout << "wrote " << shownText(file) << " (run it from " << shownText(args[3]) << ")\n";
  } catch (const WeftError& e) {
    std::cerr << "weft import: error: " << shownText(e.message) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace weft::cli
