// One REPL session: an Interpreter whose globals persist from input to input, fed complete
// inputs (statements spanning lines while a bracket is open, or `:commands`).
#pragma once
#include <ostream>
#include <string>

#include "../eval/interpreter.h"
#include "line_reader.h"

namespace weft::repl {

class Session {
 public:
  Session(std::ostream& out, std::ostream& err);

  // Reads and runs inputs until end of input or `:quit`. Returns the exit status: 0, since a
  // failed input is reported and the session goes on.
  int run(LineReader& reader);
  // Runs one complete input: statements, whose bare expressions echo, or a `:command`.
  void handle(const std::string& input);
  // Tab completion against this session's names.
  Completion complete(std::string_view line, size_t cursor);

  Interpreter& interpreter() { return interp_; }
  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }
  void quit() { quit_ = true; }
  bool quitting() const { return quit_; }
  // Source text typed in the session, named as errors show it.
  std::shared_ptr<const SourceFile> source(std::string text) const;
  // Drops an interrupt that arrived after the last computation checked for one, so that it does
  // not stop the next input.
  void clearInterrupt();

 private:
  std::ostream& out_;
  std::ostream& err_;
  Interpreter interp_;
  bool quit_ = false;
};

}  // namespace weft::repl
