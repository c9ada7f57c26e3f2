// Text from a program, a file name or a saved model as a terminal or a generated file may carry
// it: control characters (which drive a terminal: `\x1b[2J`, or end a generated comment: `\n`)
// found, or written as visible escapes.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace weft {

// The text with each C0 control byte, DEL, C1 control (U+0080..U+009F, U+009B is a terminal's
// CSI) and byte of no UTF-8 character written as `\xNN` or `\uNNNN`; with keepLines, newlines
// and tabs stay (a message's own lines).
std::string shownText(std::string_view text, bool keepLines = false);

// The byte offset of the first control character (as shownText escapes them, newlines and tabs
// included), if any.
std::optional<size_t> firstControl(std::string_view text);

// "contains a control character (\x0a at byte 3)", for errors that refuse such a name.
std::string controlCharacterReason(std::string_view text, size_t at);

}  // namespace weft
