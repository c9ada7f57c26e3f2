// Python's string methods and printf-style `%` formatting (strings.h), on byte strings.
#include "strings.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../values/format.h"
#include "../values/literal.h"
#include "args.h"
#include "interpreter.h"

namespace weft {
namespace {

const std::string& textOf(const Value& v) { return v.as<StrObj>()->text; }

const char* const kWhitespace = " \t\n\r\f\v";

// str.split: on runs of whitespace without a separator (no empty items), else on each `sep`;
// at most `maxsplit` splits when it is not negative, the rest as the last item.
std::vector<Value> split(const std::string& s, const std::optional<std::string>& sep, int64_t maxsplit) {
  std::vector<Value> out;
  auto more = [&] { return maxsplit < 0 || int64_t(out.size()) < maxsplit; };
  size_t i = 0;
  if (!sep) {
    for (;;) {
      i = s.find_first_not_of(kWhitespace, i);
      if (i == std::string::npos) return out;
      size_t j = more() ? s.find_first_of(kWhitespace, i) : std::string::npos;
      out.push_back(makeStr(s.substr(i, j == std::string::npos ? std::string::npos : j - i)));
      if (j == std::string::npos) return out;
      i = j;
    }
  }
  for (;;) {
    size_t j = more() ? s.find(*sep, i) : std::string::npos;
    out.push_back(makeStr(s.substr(i, j == std::string::npos ? std::string::npos : j - i)));
    if (j == std::string::npos) return out;
    i = j + sep->size();
  }
}

std::string replaced(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  std::vector<size_t> at;  // where each replaced occurrence starts; an empty `from` matches between characters
  for (size_t i = 0; i <= s.size() && (count < 0 || int64_t(at.size()) < count);) {
    size_t j = s.find(from, i);
    if (j == std::string::npos) break;
    at.push_back(j);
    i = j + std::max<size_t>(from.size(), 1);
  }
  checkValueBytes(int64_t(s.size() + at.size() * to.size()), "a string");
  std::string out;
  size_t done = 0;
  for (size_t j : at) {
    out.append(s, done, j - done).append(to);
    done = j + from.size();
  }
  return out.append(s, std::min(done, s.size()), std::string::npos);
}

// str.format's fields: {} and {0} take positional arguments, {name} keywords; each may have !r or
// !s and a format spec after ':'. {{ and }} are braces.
std::string formatFields(const std::string& format, const Args& a) {
  std::string out;
  size_t automatic = 0;
  bool numbered = false, counted = false;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '}') {
      if (i + 1 >= format.size() || format[i + 1] != '}') throw WeftError(a.site, "format(): single '}' in the format string");
      out += '}', ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      out += '{', ++i;
      continue;
    }
    size_t close = format.find('}', i);
    if (close == std::string::npos) throw WeftError(a.site, "format(): '{' without a closing '}'");
    std::string field = format.substr(i + 1, close - i - 1), spec;
    i = close;
    if (size_t colon = field.find(':'); colon != std::string::npos) spec = field.substr(colon + 1), field.resize(colon);
    char conversion = 0;
    if (size_t bang = field.find('!'); bang != std::string::npos) {
      if (field.size() != bang + 2 || (field[bang + 1] != 'r' && field[bang + 1] != 's'))
        throw WeftError(a.site, "format(): a conversion is !r or !s, not '" + field.substr(bang) + "'");
      conversion = field[bang + 1];
      field.resize(bang);
    }
    Value v;
    if (field.empty() || field.find_first_not_of("0123456789") == std::string::npos) {
      bool given = !field.empty();
      if (given ? counted : numbered)
        throw WeftError(a.site, "format(): fields are either all numbered ({0}) or all automatic ({})");
      (given ? numbered : counted) = true;
      size_t n = given ? (field.size() > 9 ? SIZE_MAX : std::stoul(field)) : automatic++;
      if (n >= a.pos.size())
        throw WeftError(a.site, "format(): field {" + field + "} needs " + (given ? "argument " + field : "one more argument") +
                                    ", and it was given " + std::to_string(a.pos.size()));
      v = a.pos[n];
    } else {
      bool found = false;
      for (const auto& [k, x] : a.kw)
        if (symbolName(k) == field) v = x, found = true;
      if (!found) throw WeftError(a.site, "format(): no keyword argument '" + field + "' for field {" + field + "}");
    }
    if (conversion) v = makeStr(conversion == 'r' ? toRepr(v) : toStr(v));
    try {
      out += formatWithSpec(v, spec);
    } catch (WeftError& e) {
      if (!e.at.valid()) e.at = a.site;
      throw;
    }
    checkValueBytes(int64_t(out.size()), "a string");
  }
  return out;
}

}  // namespace

std::vector<std::string> stringMethodNames() {
  return {"split", "join", "strip", "lstrip", "rstrip", "upper", "lower", "replace", "startswith", "endswith", "format"};
}

std::optional<Value> stringMethod(Interpreter&, const Value& self, const std::string& n) {
  auto method = [&](NativeFn fn) { return std::optional<Value>(makeBuiltin(n, std::move(fn), self)); };
  if (n == "split")
    return method([](Interpreter&, Args& a) {
      ArgReader r(a, "split", {"sep?", "maxsplit?"});
      std::optional<std::string> sep;
      if (r.has(0) && (sep = r.str(0))->empty()) r.fail(0, "must not be empty");
      return makeList(split(textOf(a.self), sep, r.integer(1, -1)));
    });
  if (n == "join")
    return method([](Interpreter& in, Args& a) {
      ArgReader r(a, "join", {"items"});
      const std::string& sep = textOf(a.self);
      std::string out;
      size_t count = 0;
      in.forEach(r.get(0), [&](Value v) {
        if (!v.is(Kind::Str)) throw WeftError(a.site, "join() joins strings, and item " + std::to_string(count) + " is " + aTypeName(v));
        checkValueBytes(int64_t(out.size() + sep.size() + textOf(v).size()), "a string");
        out += (count++ ? sep : "") + textOf(v);
        return false;
      });
      return makeStr(std::move(out));
    });
  if (n == "strip" || n == "lstrip" || n == "rstrip") {
    bool left = n != "rstrip", right = n != "lstrip";
    return method([n, left, right](Interpreter&, Args& a) {
      ArgReader r(a, n, {"chars?"});
      std::string chars = r.has(0) ? r.str(0) : kWhitespace;
      const std::string& s = textOf(a.self);
      size_t begin = left ? s.find_first_not_of(chars) : 0;
      if (begin == std::string::npos) return makeStr("");
      size_t end = right ? s.find_last_not_of(chars) + 1 : s.size();
      return makeStr(s.substr(begin, end - begin));
    });
  }
  if (n == "upper" || n == "lower") {
    bool upper = n == "upper";
    return method([n, upper](Interpreter&, Args& a) {
      ArgReader r(a, n, {});
      std::string s = textOf(a.self);
      for (char& c : s)  // ASCII letters only: the bytes of other characters stay as they are
        if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z')) c = char(c ^ 0x20);
      return makeStr(std::move(s));
    });
  }
  if (n == "replace")
    return method([](Interpreter&, Args& a) {
      ArgReader r(a, "replace", {"old", "new", "count?"});
      return makeStr(replaced(textOf(a.self), r.str(0), r.str(1), r.integer(2, -1)));
    });
  if (n == "startswith" || n == "endswith") {
    bool start = n == "startswith";
    return method([n, start](Interpreter&, Args& a) {
      ArgReader r(a, n, {"prefix"});
      const std::string& s = textOf(a.self);
      std::vector<Value> options = r.get(0).is(Kind::Tuple) ? r.items(0) : std::vector<Value>{r.get(0)};
      bool match = false;
      for (const Value& o : options) {
        if (!o.is(Kind::Str)) r.fail(0, "must be a string or a tuple of strings, not " + aTypeName(o));
        const std::string& p = textOf(o);
        match |= p.size() <= s.size() && s.compare(start ? 0 : s.size() - p.size(), p.size(), p) == 0;
      }
      return Value(Tensor::scalar<bool>(match));
    });
  }
  if (n == "format")
    return method([](Interpreter&, Args& a) { return makeStr(formatFields(textOf(a.self), a)); });
  return std::nullopt;
}

Value percentFormat(const std::string& format, const Value& args) {
  std::vector<Value> values = args.is(Kind::Tuple) ? args.as<TupleObj>()->items : std::vector<Value>{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i < format.size() && format[i] == '%') {
      out += '%';
      continue;
    }
    // %[flags][width][.precision]type, as a format spec: "%-8s" is "<8s", "%05.1f" is "05.1f".
    std::string flags, width, precision;
    while (i < format.size() && format[i] && std::strchr("-+ 0", format[i])) flags += format[i++];
    while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) width += format[i++];
    if (i < format.size() && format[i] == '.') {
      precision = ".";
      while (++i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) precision += format[i];
      if (precision == ".") precision += '0';
    }
    if (i >= format.size()) throw WeftError("incomplete format: '" + format + "' ends inside a conversion");
    char type = format[i];
    if (!std::strchr("disrfFeEgG", type))
      throw WeftError(std::string("unsupported format character '") + type + "' (Weft's are d i s r f F e E g G and %%)");
    if (next == values.size()) throw WeftError("not enough arguments for the format string");
    Value v = values[next++];
    bool text = type == 's' || type == 'r';
    if (text) v = makeStr(type == 'r' ? toRepr(v) : toStr(v));
    if (type == 'd' || type == 'i') {  // as Python, "%d" of a float truncates it
      if (!isTensorLike(v) || tensorOf(v, "value").rank() != 0)
        throw WeftError(std::string("%") + type + " needs a number, not " + aTypeName(v));
      double d = v.literal() ? v.literal()->toDouble() : tensorOf(v, "value").asDouble();
      if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) throw WeftError(std::string("%") + type + " of " + toStr(v));
      v = Value(Literal::integer(int64_t(std::trunc(d))));
    }
    std::string spec = flags.find('-') != std::string::npos ? "<" : text ? ">" : "";
    if (flags.find('+') != std::string::npos) spec += '+';
    else if (flags.find(' ') != std::string::npos) spec += ' ';
    if (!text && flags.find('0') != std::string::npos && flags.find('-') == std::string::npos) spec += '0';
    spec += width + precision + (text ? 's' : type == 'i' ? 'd' : type);
    out += formatWithSpec(v, spec);
    checkValueBytes(int64_t(out.size()), "a string");
  }
  if (next < values.size()) throw WeftError("not all arguments converted during string formatting");
  return makeStr(std::move(out));
}

}  // namespace weft
