#include "commands.h"

#include <iostream>

#include "interpreter/eval/interpreter.h"

namespace weft::cli {
namespace {

const char* kUsage =
    "usage: weft COMMAND [ARGS]\n"
    "  weft run FILE.model [ARGS...]   run a program eagerly\n"
    "  weft check FILE.model           parse and check a program without running it\n"
    "  weft repl                       interactive session (also: weft with no arguments)\n"
    "  weft help                       this text\n";

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    std::cerr << "usage: weft run FILE.model [ARGS...]\n";
    return 2;
  }
  Interpreter interp(std::cout, std::cerr);
  return interp.runFile(args[1]);
}

int checkCommand(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    std::cerr << "usage: weft check FILE.model\n";
    return 2;
  }
  Interpreter interp(std::cout, std::cerr);
  return interp.checkFile(args[1]);
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "repl") return replCommand(args);
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (args[0] == "run") return runCommand(args);
  if (args[0] == "check") return checkCommand(args);
  std::cerr << "weft: unknown command '" << args[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace weft::cli
