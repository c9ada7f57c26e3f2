#include "completion.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "../eval/interpreter.h"

namespace weft::repl {
namespace {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Follows one attribute of a value that completion may look inside. getAttr is called only on
// kinds whose listed attributes are plain data (a module's attribute, its variables, a tensor's
// shape), never on objects whose attributes could run code.
std::optional<Value> safeAttr(Interpreter& interp, const Value& v, const std::string& name) {
  switch (v.kind()) {
    case Kind::Module:
    case Kind::Namespace:
    case Kind::Variable:
    case Kind::Tensor: break;
    default: return std::nullopt;
  }
  auto names = Interpreter::attributeNames(v);
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::nullopt;
  try {
    return interp.getAttr(v, intern(name));
  } catch (WeftError&) {
    return std::nullopt;
  }
}

// An item of a list, tuple or dict by a literal index or key (`layers[0]`, `d["k"]`): reading it
// runs no code. Anything else (a tensor, an expression) is not looked inside.
std::optional<Value> safeItem(const Value& v, std::string_view index) {
  if (index.size() >= 2 && (index[0] == '"' || index[0] == '\'') && index.back() == index[0]) {
    if (!v.is(Kind::Dict)) return std::nullopt;
    Value* item = v.as<DictObj>()->find(makeStr(std::string(index.substr(1, index.size() - 2))));
    return item ? std::optional<Value>(*item) : std::nullopt;
  }
  if (!v.is(Kind::List) && !v.is(Kind::Tuple)) return std::nullopt;
  const auto& items = v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items;
  int64_t i = 0;
  bool negative = !index.empty() && index[0] == '-';
  std::string_view digits = index.substr(negative ? 1 : 0);
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    i = i * 10 + (ch - '0');
  }
  if (negative) i = int64_t(items.size()) - i;
  if (i < 0 || i >= int64_t(items.size())) return std::nullopt;
  return items[size_t(i)];
}

std::vector<std::string> withPrefix(std::vector<std::string> names, std::string_view prefix, bool hidePrivate) {
  std::vector<std::string> out;
  for (auto& n : names) {
    if (n.compare(0, prefix.size(), prefix) != 0) continue;
    // Names starting with '_' are internal unless the user asked for them.
    if (hidePrivate && prefix.empty() && !n.empty() && n[0] == '_') continue;
    out.push_back(std::move(n));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Paths starting with `partial`; directories end in '/' so that Tab can go on into them.
std::vector<std::string> fileNames(std::string_view partial) {
  namespace fs = std::filesystem;
  size_t slash = partial.rfind('/');
  std::string dirPart(slash == std::string_view::npos ? "" : partial.substr(0, slash + 1));
  std::string_view prefix = slash == std::string_view::npos ? partial : partial.substr(slash + 1);
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dirPart.empty() ? "." : dirPart, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    if (name[0] == '.' && (prefix.empty() || prefix[0] != '.')) continue;  // hidden files, as a shell
    std::error_code dirEc;
    out.push_back(dirPart + name + (it->is_directory(dirEc) ? "/" : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Completion completeLine(Interpreter& interp, const std::vector<std::string>& commandNames, std::string_view line,
                        size_t cursor) {
  Completion c;
  cursor = std::min(cursor, line.size());
  std::string_view before = line.substr(0, cursor);
  size_t lead = before.find_first_not_of(" \t");

  // A command: `:na` in the first word, or the argument of one.
  if (lead != std::string_view::npos && before[lead] == ':') {
    size_t space = before.find_first_of(" \t", lead);
    if (space == std::string_view::npos) {
      c.start = lead;
      c.candidates = withPrefix(commandNames, before.substr(lead), false);
      return c;
    }
    if (before.substr(lead, space - lead) == ":load") {
      c.start = before.find_first_not_of(" \t", space);
      if (c.start == std::string_view::npos) c.start = cursor;
      c.candidates = fileNames(before.substr(c.start));
      return c;
    }
    // Other commands take an expression: complete it as one.
  }

  // The word: names, dots and literal indexes (`model.layers[0].ker`).
  size_t start = cursor;
  while (start > 0) {
    char ch = before[start - 1];
    if (isNameChar(ch) || ch == '.') {
      --start;
    } else if (ch == ']') {
      size_t open = before.rfind('[', start - 1);
      if (open == std::string_view::npos || open == 0 || (!isNameChar(before[open - 1]) && before[open - 1] != ']')) break;
      start = open;
    } else {
      break;
    }
  }
  std::string_view word = before.substr(start);
  // A number such as `1.5` is not a name.
  if (!word.empty() && word[0] >= '0' && word[0] <= '9') return c;
  size_t dot = word.rfind('.');
  if (dot == std::string_view::npos || word.find('[', dot) != std::string_view::npos) {
    if (word.empty() || word.find('[') != std::string_view::npos) return c;  // Tab on nothing would list every name
    c.start = start;
    c.candidates = withPrefix(interp.completionNames(), word, true);
    return c;
  }

  // `a.b[0].pre`: resolve `a`, then `b`, then item 0, and offer the attributes of that value
  // starting with `pre`.
  std::string_view path = word.substr(0, dot);
  std::optional<Value> v;
  size_t from = 0;
  while (from < path.size()) {
    if (path[from] == '[') {
      size_t close = path.find(']', from);
      if (!v || close == std::string_view::npos || !(v = safeItem(*v, path.substr(from + 1, close - from - 1)))) return c;
      from = close + 1;
      if (from < path.size() && path[from] == '.') ++from;
      continue;
    }
    size_t next = path.find_first_of(".[", from);
    std::string part(path.substr(from, next == std::string_view::npos ? std::string_view::npos : next - from));
    if (part.empty()) return c;
    if (!v) {
      interp.completionNames();  // the prelude, so that `nn.` or `random.` resolve
      Value* found = interp.globals()->find(intern(part));
      if (!found) return c;
      v = *found;
    } else if (!(v = safeAttr(interp, *v, part))) {
      return c;
    }
    if (next == std::string_view::npos) break;
    from = next + (path[next] == '.');
  }
  c.start = start + dot + 1;
  c.candidates = withPrefix(Interpreter::attributeNames(*v), word.substr(dot + 1), true);
  return c;
}

}  // namespace weft::repl
