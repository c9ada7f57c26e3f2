// `weft repl` (and `weft` alone): an interactive session on a terminal, or a scripted one when
// standard input is a pipe or a file.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "interpreter/repl/session.h"
#include "interpreter/values/context.h"
#include "limit_options.h"

namespace weft::cli {

int replCommand(const std::vector<std::string>& args) {
  if (args.size() > 1) {
    std::cerr << "usage: weft repl\n";
    return 2;
  }
  if (!applyThreadsVariable()) return 2;
  enterKernelThreads();
  repl::Session session(std::cout, std::cerr);
  if (!isatty(STDIN_FILENO)) {
    auto reader = repl::makeStreamReader(std::cin);
    return session.run(*reader);
  }
  std::string history;
  if (const char* home = std::getenv("HOME"); home && *home) history = std::string(home) + "/.weft_history";
  auto reader = repl::makeEditReader(
      [&session](std::string_view line, size_t cursor) { return session.complete(line, cursor); }, history);
  std::cout << "Weft REPL: :help lists the commands, Ctrl-D quits.\n";
  return session.run(*reader);
}

}  // namespace weft::cli
