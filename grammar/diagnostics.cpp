#include "diagnostics.h"

#include <sstream>

#include "shown_text.h"

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

// A code point of a source line as an error shows it: control characters, which could drive the
// terminal (an imported binary with `\x1b[2J`), and stray bytes as escapes; a tab as a space, so
// that the caret lines up.
std::string shownCodePoint(std::string_view cp) { return cp == "\t" ? " " : shownText(cp); }

}  // namespace

std::string formatDiagnostic(const Diagnostic& d) {
  std::ostringstream out;
  if (d.at.valid())
    out << shownText(d.at.file->path) << ':' << d.at.begin.line << ':' << d.at.begin.col << ": ";
  out << severityName(d.severity) << ": " << shownText(d.message, true) << '\n';
  if (!d.at.valid()) return out.str();
  std::string_view line = d.at.file->line(d.at.begin.line);
  constexpr uint32_t kMaxShown = 200;  // long lines are cut so the caret stays readable
  const uint32_t first = d.at.begin.col > kMaxShown / 2 ? d.at.begin.col - kMaxShown / 2 : 1;
  const uint32_t last = d.at.end.line == d.at.begin.line ? std::max(d.at.end.col, d.at.begin.col) : d.at.begin.col;
  // Shown one code point at a time, noting where the caret's first and last columns land.
  std::string shown;
  size_t width = 0, from = std::string::npos, to = std::string::npos;  // in columns
  size_t i = byteOfColumn(line, first);
  uint32_t col = first;
  for (; col < first + kMaxShown && i < line.size(); ++col) {
    size_t next = i + byteOfColumn(line.substr(i), 2);
    if (col == d.at.begin.col) from = width;
    if (col == last) to = width;
    std::string_view cp = line.substr(i, next - i);
    std::string text = shownCodePoint(cp);
    width += text == cp ? 1 : text.size();  // an escape is ASCII, one column a character
    shown += text;
    i = next;
  }
  if (from == std::string::npos) from = width + (d.at.begin.col - col);  // past the line's end
  if (to == std::string::npos) to = from + (last - d.at.begin.col);
  const std::string lead = first > 1 ? "..." : "";
  out << "  " << lead << shown << '\n';
  out << "  " << std::string(lead.size() + from, ' ') << '^' << std::string(std::min<size_t>(to - from, 80), '~');
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
        l += shownText(f.at.file->path) + ":" + std::to_string(f.at.begin.line) + ":" + std::to_string(f.at.begin.col) +
             ": ";
      return l + "in " + shownText(f.function) + '\n';
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
