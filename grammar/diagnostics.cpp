#include "diagnostics.h"

#include <sstream>

namespace weft {
namespace {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

// Byte offset of the col-th code point (1-based) of a line.
size_t byteOfColumn(std::string_view line, uint32_t col) {
  size_t i = 0;
  for (uint32_t c = 1; c < col && i < line.size(); ++c) {
    ++i;
    while (i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

}  // namespace

std::string formatDiagnostic(const Diagnostic& d) {
  std::ostringstream out;
  if (d.at.valid())
    out << d.at.file->path << ':' << d.at.begin.line << ':' << d.at.begin.col << ": ";
  out << severityName(d.severity) << ": " << d.message << '\n';
  if (!d.at.valid()) return out.str();
  std::string_view line = d.at.file->line(d.at.begin.line);
  constexpr size_t kMaxShown = 200;  // long lines are cut so the caret stays readable
  size_t from = byteOfColumn(line, d.at.begin.col);
  size_t start = from > kMaxShown / 2 ? byteOfColumn(line, d.at.begin.col - kMaxShown / 2) : 0;
  std::string_view shown = line.substr(start, kMaxShown);
  out << "  " << (start ? "..." : "") << shown << '\n';
  uint32_t caretCol = d.at.begin.col - (start ? (d.at.begin.col - kMaxShown / 2) : 0);
  out << "  " << (start ? "   " : "") << std::string(caretCol - 1, ' ') << '^';
  if (d.at.end.line == d.at.begin.line && d.at.end.col > d.at.begin.col) {
    uint32_t n = std::min<uint32_t>(d.at.end.col - d.at.begin.col, 80);
    out << std::string(n, '~');
  }
  out << '\n';
  return out.str();
}

void Diagnostics::error(const SourceRange& at, std::string message) {
  list_.push_back({Severity::Error, at, std::move(message)});
  ++errorCount_;
}

void Diagnostics::warning(const SourceRange& at, std::string message) {
  list_.push_back({Severity::Warning, at, std::move(message)});
}

void Diagnostics::print(std::ostream& out) const {
  for (const auto& d : list_) out << formatDiagnostic(d);
}

std::string WeftError::format() const {
  std::string s = formatDiagnostic({Severity::Error, at, message});
  if (!traceback.empty()) {
    s += "traceback (most recent call last):\n";
    auto line = [](const TraceFrame& f) {
      std::string l = "  ";
      if (f.at.valid())
        l += f.at.file->path + ":" + std::to_string(f.at.begin.line) + ":" + std::to_string(f.at.begin.col) + ": ";
      return l + "in " + f.function + '\n';
    };
    // Runaway recursion repeats one frame many times: print it once with a count, as Python does.
    std::string previous;
    int repeats = 0;
    for (auto it = traceback.rbegin(); it != traceback.rend(); ++it) {
      std::string l = line(*it);
      if (l == previous) {
        ++repeats;
        continue;
      }
      if (repeats) s += "  [previous line repeated " + std::to_string(repeats) + " more times]\n";
      repeats = 0;
      s += l;
      previous = l;
    }
    if (repeats) s += "  [previous line repeated " + std::to_string(repeats) + " more times]\n";
  }
  return s;
}

}  // namespace weft
