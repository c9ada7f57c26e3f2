// `weft import MODEL.onnx -o DIR` and `weft export-onnx FILE.model FN -o F.onnx` (docs/onnx.md):
// an ONNX model as a Weft program to read, edit, run, graph and compile (DIR/NAME.model and its
// tensors in DIR/tensors/), and a graph function's graph as an ONNX model.
#include <iostream>
#include <sstream>

#include "commands.h"
#include "grammar/diagnostics.h"
#include "grammar/shown_text.h"
#include "interpreter/onnx/export.h"
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

int exportOnnxCommand(const std::vector<std::string>& args) {
  const char* usage =
      "usage: weft export-onnx FILE.model FN -o F.onnx\n"
      "  FN: a graph function or method (demo.call) that is annotated or that the program calls\n";
  if (args.size() != 5 || args[3] != "-o") {
    std::cerr << usage;
    return 2;
  }
  // The program's own output is not the model's: it is discarded.
  std::ostream discard(nullptr);
  Interpreter interp(discard, std::cerr);
  if (int status = interp.runFile(args[1]); status != 0) return status;
  try {
    std::vector<Tensor> variables;
    auto g = interp.graphOf(args[2], &variables);
    onnx::writeModel(onnx::exportGraph(*g, variables), args[4]);
  } catch (const WeftError& e) {
    std::cerr << (e.at.valid() ? "" : shownText(args[1]) + ": ") << e.format();
    return 1;
  }
  std::cout << "wrote " << shownText(args[4]) << "\n";
  return 0;
}

}  // namespace weft::cli
