#include "comm_counts.h"

#include <cstdio>

#include "../../grammar/shown_text.h"

namespace weft::graph {

void CommCounts::add(const Loc& at, ops::OpId op, int64_t bytes) {
  Count& c = counted_[{at.file, at.line, int(op)}];
  ++c.calls;
  c.bytes += bytes;
}

std::string bytesText(int64_t b) {
  char buf[32];
  if (b < 1024) return std::to_string(b) + " B";
  if (b < (int64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(int64_t(1) << 20));
  return buf;
}

std::string CommCounts::report() const {
  std::string s = "comm report:\n";
  int64_t calls = 0, bytes = 0;
  for (const auto& [key, c] : counted_) {
    const std::string& file = std::get<0>(key);
    s += "  " + shownText(file.substr(file.find_last_of('/') + 1)) + ":" + std::to_string(std::get<1>(key)) + "  " +
         ops::opName(ops::OpId(std::get<2>(key))) + "  " + std::to_string(c.calls) + (c.calls == 1 ? " call  " : " calls  ") +
         bytesText(c.bytes) + " per device\n";
    calls += c.calls;
    bytes += c.bytes;
  }
  if (counted_.empty()) return s + "  no collectives\n";
  return s + "  " + std::to_string(calls) + " collective" + (calls == 1 ? "" : "s") + ", " + bytesText(bytes) + " per device\n";
}

}  // namespace weft::graph
