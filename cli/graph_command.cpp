// `weft graph FILE.model FN [-o OUT]` (SPEC §9, docs/graphs.md): runs the program, then prints
// or draws the static graph of its function FN.
#include <iostream>

#include "commands.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/graph/dot.h"
#include "interpreter/graph/text.h"
#include "limit_options.h"

namespace weft::cli {

int graphCommand(const std::vector<std::string>& given) {
  const char* usage =
      "usage: weft graph [LIMITS] FILE.model FN [-o OUT]\n"
      "  FN: a function, a method (demo.addprint) or an export's name\n"
      "  OUT: .txt (the graph text), .dot, .svg or .png (through Graphviz); without -o the text is printed\n";
  std::vector<std::string> args;
  std::string out;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] != "-o") {
      args.push_back(given[i]);
    } else if (i + 1 < given.size() && out.empty()) {
      out = given[++i];
    } else {
      std::cerr << "weft graph: -o needs one file name\n" << usage;
      return 2;
    }
  }
  // The program's own output is not the graph's: it is discarded.
  std::ostream discard(nullptr);
  Interpreter interp(discard, std::cerr);
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (args.size() != size_t(file) + 2) {
    std::cerr << (args.size() == size_t(file) + 1 ? "weft graph: which function? name FN after the file\n" : "")
              << usage;
    return 2;
  }
  try {
    if (!out.empty()) graph::checkGraphFile(out);
  } catch (const WeftError& e) {
    std::cerr << e.format();
    return 2;
  }
  if (int status = interp.runFile(args[file]); status != 0) return status;
  try {
    std::shared_ptr<const graph::Graph> g = interp.graphOf(args[file + 1]);
    if (out.empty())
      std::cout << graph::printText(*g);
    else
      graph::writeGraphFile(*g, out);
  } catch (const WeftError& e) {
    std::cerr << e.format();
    return 1;
  }
  return 0;
}

}  // namespace weft::cli
