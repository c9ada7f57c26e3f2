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

  size_t start = cursor;
  while (start > 0 && (isNameChar(before[start - 1]) || before[start - 1] == '.')) --start;
  std::string_view word = before.substr(start);
  // A number such as `1.5` is not a name.
  if (!word.empty() && word[0] >= '0' && word[0] <= '9') return c;
  size_t dot = word.rfind('.');
  if (dot == std::string_view::npos) {
    if (word.empty()) return c;  // Tab on nothing would list every name in scope
    c.start = start;
    c.candidates = withPrefix(interp.completionNames(), word, true);
    return c;
  }

  // `a.b.pre`: resolve `a`, then `b`, and offer the attributes of that value starting with `pre`.
  std::string_view path = word.substr(0, dot);
  std::optional<Value> v;
  size_t from = 0;
  while (true) {
    size_t next = path.find('.', from);
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
    from = next + 1;
  }
  c.start = start + dot + 1;
  c.candidates = withPrefix(Interpreter::attributeNames(*v), word.substr(dot + 1), true);
  return c;
}

}  // namespace weft::repl
