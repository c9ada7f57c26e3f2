// Where the REPL's lines come from: a terminal through libedit (editing, history, completion,
// Ctrl-C), or any other stream read plainly so that sessions can be scripted.
#pragma once
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::repl {

enum class ReadStatus { Line, Eof, Interrupted };

struct ReadResult {
  ReadStatus status = ReadStatus::Eof;
  std::string text;  // the line without its newline
};

// Candidates replacing line[start, cursor) at a Tab press.
struct Completion {
  size_t start = 0;
  std::vector<std::string> candidates;
};
using Completer = std::function<Completion(std::string_view line, size_t cursor)>;

class LineReader {
 public:
  virtual ~LineReader() = default;
  // Shows the prompt (when interactive) and reads one line. Interrupted: Ctrl-C at the prompt.
  virtual ReadResult read(const std::string& prompt) = 0;
  // Records a line that was run, for recalling it later.
  virtual void remember(const std::string& line) { (void)line; }
};

// Reads `in` line by line without prompts.
std::unique_ptr<LineReader> makeStreamReader(std::istream& in);
// Reads the terminal on standard input with libedit, keeping history in `historyPath` (none when
// empty). While it exists, Ctrl-C during a computation interrupts the interpreter.
std::unique_ptr<LineReader> makeEditReader(Completer completer, std::string historyPath);

}  // namespace weft::repl
