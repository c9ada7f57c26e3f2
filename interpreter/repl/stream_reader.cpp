// The scripted REPL: standard input that is not a terminal, read as plain lines.
#include "line_reader.h"

namespace weft::repl {
namespace {

class StreamReader : public LineReader {
 public:
  explicit StreamReader(std::istream& in) : in_(in) {}

  ReadResult read(const std::string&) override {
    ReadResult r;
    if (!std::getline(in_, r.text)) return r;  // Eof (a last line without '\n' still counts)
    if (!r.text.empty() && r.text.back() == '\r') r.text.pop_back();  // files written on Windows
    r.status = ReadStatus::Line;
    return r;
  }

 private:
  std::istream& in_;
};

}  // namespace

std::unique_ptr<LineReader> makeStreamReader(std::istream& in) { return std::make_unique<StreamReader>(in); }

}  // namespace weft::repl
