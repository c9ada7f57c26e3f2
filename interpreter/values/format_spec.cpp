// f-string format specs: Python's mini-language
// [[fill]align][sign][0][width][,|_][.precision][type], for numbers and strings.
#include <cmath>
#include <cstdio>

#include "../../grammar/diagnostics.h"
#include "../eval/operators.h"
#include "format.h"
#include "objects.h"

namespace weft {
namespace {

struct Spec {
  char fill = ' ', align = 0, sign = '-', grouping = 0, type = 0;
  bool zero = false;
  int width = 0, precision = -1;
};

bool isAlign(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

Spec parseSpec(const std::string& s) {
  Spec p;
  size_t i = 0;
  auto bad = [&]() -> WeftError { return WeftError("invalid format spec '" + s + "'"); };
  auto number = [&] {
    int n = 0;
    for (; i < s.size() && isDigit(s[i]); ++i) {
      n = n * 10 + (s[i] - '0');
      if (n > 10000) throw bad();  // no field is that wide: refuse rather than allocate
    }
    return n;
  };
  if (s.size() >= 2 && isAlign(s[1])) p.fill = s[0], p.align = s[1], i = 2;
  else if (!s.empty() && isAlign(s[0])) p.align = s[0], i = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p.sign = s[i++];
  if (i < s.size() && s[i] == '0') p.zero = true, ++i;
  p.width = number();
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) p.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i == s.size() || !isDigit(s[i])) throw bad();
    p.precision = number();
  }
  if (i < s.size()) p.type = s[i++];
  if (i != s.size() || (p.type && std::string("sdfFeEgG%").find(p.type) == std::string::npos)) throw bad();
  if (p.zero && !p.align) p.fill = '0', p.align = '=';
  return p;
}

// Commas (or underscores) between thousands of the integer digits at the start of `digits`.
std::string grouped(const std::string& digits, char sep) {
  size_t end = 0;
  while (end < digits.size() && isDigit(digits[end])) ++end;
  std::string out = digits.substr(0, end);
  for (int i = int(end) - 3; i > 0; i -= 3) out.insert(size_t(i), 1, sep);
  return out + digits.substr(end);
}

std::string printed(const char* fmt, int precision, double v) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, precision, v);
  if (n < 0 || size_t(n) >= sizeof buf) throw WeftError("a formatted number is too long");
  return buf;
}

// The digits of |v| (no sign) as the spec's type asks.
std::string numberDigits(const Tensor& t, const Spec& p) {
  bool isInt = rt::isInt(t.dtype()) || t.dtype() == DType::Bool;
  if (p.type == 's') throw WeftError("format spec type 's' needs a string, not a number");
  if (isInt && (p.type == 0 || p.type == 'd')) {
    if (p.precision >= 0) throw WeftError("an integer takes no precision in a format spec");
    int64_t v = t.asInt();
    return v < 0 ? std::to_string(v).substr(1) : std::to_string(v);
  }
  if (p.type == 'd') throw WeftError(std::string("format spec type 'd' needs an integer, not ") + rt::dtypeName(t.dtype()));
  double v = std::fabs(t.asDouble());
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return "inf";
  int prec = p.precision < 0 ? 6 : p.precision;
  switch (p.type) {
    case 'f': case 'F': return printed("%.*f", prec, v);
    case 'e': return printed("%.*e", prec, v);
    case 'E': return printed("%.*E", prec, v);
    case 'g': return printed("%.*g", std::max(prec, 1), v);
    case 'G': return printed("%.*G", std::max(prec, 1), v);
    case '%': return printed("%.*f", prec, v * 100) + "%";
    default: break;
  }
  if (p.precision < 0) return formatFloat(v, t.dtype());  // as print shows it
  std::string s = printed("%.*g", std::max(prec, 1), v);  // Python: 'g' keeping a ".0"
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string pad(const std::string& sign, const std::string& body, const Spec& p, char defaultAlign) {
  int fill = std::max(0, p.width - int(sign.size() + body.size()));
  std::string f(size_t(fill), p.fill);
  switch (p.align ? p.align : defaultAlign) {
    case '<': return sign + body + f;
    case '^': return f.substr(0, f.size() / 2) + sign + body + f.substr(f.size() / 2);
    case '=': return sign + f + body;
    default: return f + sign + body;
  }
}

}  // namespace

std::string escapeBraces(const std::string& text) {
  std::string e;
  for (char c : text) e += (c == '{' || c == '}') ? std::string(2, c) : std::string(1, c);
  return e;
}

std::string formatWithSpec(const Value& v, const std::string& spec) {
  if (spec.empty()) return toStr(v);
  Spec p = parseSpec(spec);
  if (isTensorLike(v) && tensorOf(v, "value").rank() == 0 && p.type != 's') {
    const Tensor& t = tensorOf(v, "value");
    if (t.isAbstract()) return "?";  // a plan: shapes alone, no values
    bool negative = rt::isFloat(t.dtype()) ? std::signbit(t.asDouble()) && !std::isnan(t.asDouble()) : t.asInt() < 0;
    std::string digits = numberDigits(t, p);
    if (p.grouping) digits = grouped(digits, p.grouping);
    std::string sign = negative ? "-" : p.sign == '+' ? "+" : p.sign == ' ' ? " " : "";
    return pad(sign, digits, p, '>');
  }
  if (p.type && p.type != 's') throw WeftError("format spec '" + spec + "' needs a number, not a " + typeNameOf(v));
  if (p.sign != '-' || p.grouping || p.align == '=') throw WeftError("format spec '" + spec + "' is for numbers, not strings");
  std::string text = toStr(v);
  if (p.precision >= 0 && size_t(p.precision) < text.size()) text.resize(size_t(p.precision));
  return pad("", text, p, '<');
}

}  // namespace weft
