// f-string format specs (Python's mini-language) for any value; the rules for numbers and
// tensors are stdlib/runtime/format.h's, shared with generated code.
#include <cmath>
#include <cstdio>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/format.h"
#include "format.h"
#include "objects.h"

namespace weft {

std::string escapeBraces(const std::string& text) {
  std::string e;
  for (char c : text) e += (c == '{' || c == '}') ? std::string(2, c) : std::string(1, c);
  return e;
}

std::string formatWithSpec(const Value& v, const std::string& spec) {
  if (spec.empty()) return toStr(v);
  rt::FormatSpec p;
  if (std::string why = rt::parseFormatSpec(spec, p); !why.empty()) throw WeftError(why);
  if (isTensorLike(v) && tensorOf(v, "value").rank() == 0 && p.type != 's') {
    const Tensor& t = tensorOf(v, "value");
    if (t.isAbstract()) return "?";  // a plan: shapes alone, no values
    std::string out;
    if (std::string why = rt::formatScalarWithSpec(t.raw(), t.dtype(), p, out); !why.empty()) throw WeftError(why);
    return out;
  }
  if (p.type && p.type != 's') throw WeftError("format spec '" + spec + "' needs a number, not " + aTypeName(v));
  if (p.sign != '-' || p.grouping || p.align == '=') throw WeftError("format spec '" + spec + "' is for numbers, not strings");
  std::string text = toStr(v);
  if (p.precision >= 0 && size_t(p.precision) < text.size()) text.resize(size_t(p.precision));
  return rt::padFormatted("", text, p, '<');
}

}  // namespace weft
