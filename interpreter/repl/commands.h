// The REPL's `:commands`. Adding one is adding a row to the table in commands.cpp; `:help`,
// completion and the "did you mean" of an unknown command all come from the table.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace weft::repl {

class Session;

struct Command {
  std::string name;  // without the colon
  std::string args;  // how its argument is written in `:help` ("EXPR"), empty for none
  std::string help;  // one line
  std::function<void(Session&, const std::string& arg)> run;  // arg: the rest of the line, trimmed
};

const std::vector<Command>& commands();
// Runs `:name arg`; an unknown name is an error that lists the close matches.
void runCommand(Session& session, const std::string& line);

// Handlers that live in their own files.
void timeCommand(Session& session, const std::string& expr);

}  // namespace weft::repl
