#include "commands.h"

#include <iostream>

#include "interpreter/eval/interpreter.h"
#include "limit_options.h"

namespace weft::cli {
namespace {

const char* kUsage =
    "usage: weft COMMAND [ARGS]\n"
    "  weft run [LIMITS] FILE.model [ARGS...]\n"
    "                                  run a program eagerly (LIMITS: see below)\n"
    "  weft check FILE.model           parse and check a program without running it\n"
    "  weft repl                       interactive session (also: weft with no arguments)\n"
    "  weft help                       this text\n";

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  Interpreter interp(std::cout, std::cerr);
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (size_t(file) >= args.size()) {
    std::cerr << "usage: weft run [LIMITS] FILE.model [ARGS...]\n" << kLimitOptionsHelp;
    return 2;
  }
  return interp.runFile(args[file]);
}

int checkCommand(const std::vector<std::string>& args) {
  Interpreter interp(std::cout, std::cerr);
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (size_t(file) >= args.size()) {
    std::cerr << "usage: weft check FILE.model\n";
    return 2;
  }
  return interp.checkFile(args[file]);
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "repl") return replCommand(args);
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage << kLimitOptionsHelp;
    return 0;
  }
  if (args[0] == "run") return runCommand(args);
  if (args[0] == "check") return checkCommand(args);
  std::cerr << "weft: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace weft::cli
