#include "shown_text.h"

#include <cstdio>

namespace weft {
namespace {

// The length of the UTF-8 character at s[i], or 0 for a byte that starts none.
size_t utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

// The escape of the character of `n` bytes at s[i], or "" when it is shown as it is.
std::string escapeOf(std::string_view s, size_t i, size_t n, bool keepLines) {
  char buf[8];
  const auto c = static_cast<unsigned char>(s[i]);
  if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
    if (keepLines && (c == '\n' || c == '\t')) return "";
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    return buf;
  }
  const auto c1 = static_cast<unsigned char>(n == 2 ? s[i + 1] : 0);
  if (c == 0xC2 && c1 >= 0x80 && c1 < 0xA0) {
    std::snprintf(buf, sizeof buf, "\\u%04x", c1);
    return buf;
  }
  return "";
}

}  // namespace

std::string shownText(std::string_view text, bool keepLines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8Length(text, i);
    std::string e = escapeOf(text, i, n, keepLines);
    if (e.empty()) out.append(text.substr(i, n));
    else out += e;
    i += n ? n : 1;
  }
  return out;
}

std::optional<size_t> firstControl(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8Length(text, i);
    if (!escapeOf(text, i, n, false).empty()) return i;
    i += n ? n : 1;
  }
  return std::nullopt;
}

std::string controlCharacterReason(std::string_view text, size_t at) {
  size_t n = utf8Length(text, at);
  return std::string(n ? "contains a control character (" : "contains a byte of no UTF-8 character (") +
         shownText(text.substr(at, n ? n : 1)) + " at byte " + std::to_string(at) + ")";
}

}  // namespace weft
