#include "session.h"

#include "../../grammar/parser.h"
#include "commands.h"
#include "completion.h"
#include "describe.h"

namespace weft::repl {

Session::Session(std::ostream& out, std::ostream& err) : out_(out), err_(err), interp_(out, err) {}

std::shared_ptr<const SourceFile> Session::source(std::string text) const {
  return std::make_shared<SourceFile>("<repl>", std::move(text));
}

void Session::clearInterrupt() {
  try {
    interp_.checkInterrupt();
  } catch (WeftError&) {
  }
}

void Session::handle(const std::string& input) {
  clearInterrupt();
  size_t lead = input.find_first_not_of(" \t\r\n");
  if (lead == std::string::npos) return;
  if (input[lead] == ':') {
    runCommand(*this, input.substr(lead));
  } else {
    interp_.runSource(source(input), [this](const Value& v) { out_ << echoText(v) << '\n'; });
  }
  out_.flush();
  err_.flush();
}

Completion Session::complete(std::string_view line, size_t cursor) {
  std::vector<std::string> names;
  for (const Command& c : commands()) names.push_back(":" + c.name);
  return completeLine(interp_, names, line, cursor);
}

int Session::run(LineReader& reader) {
  std::string pending;  // the lines of an input still open
  PendingInput scanner;  // the same lines, scanned once each
  while (!quit_) {
    out_.flush();
    ReadResult r = reader.read(pending.empty() ? ">>> " : "... ");
    if (r.status == ReadStatus::Interrupted) {
      pending.clear();  // Ctrl-C drops what was typed so far, as in Python
      scanner = {};
      continue;
    }
    if (r.status == ReadStatus::Eof) {
      // A file that ends inside a bracket is reported as the parser sees it.
      if (!pending.empty()) handle(pending);
      break;
    }
    reader.remember(r.text);
    pending += pending.empty() ? r.text : "\n" + r.text;
    // A command is one line; statements go on while a bracket, brace or string is open.
    bool command = pending.find_first_not_of(" \t") != std::string::npos &&
                   pending[pending.find_first_not_of(" \t")] == ':';
    if (!command && scanner.addLine(r.text)) continue;
    std::string input = std::move(pending);
    pending.clear();
    scanner = {};
    handle(input);
  }
  out_.flush();
  return 0;
}

}  // namespace weft::repl
