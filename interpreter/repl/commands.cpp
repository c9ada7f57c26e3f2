#include "commands.h"

#include <algorithm>
#include <optional>

#include "../eval/suggest.h"
#include "../values/format.h"
#include "describe.h"
#include "session.h"

namespace weft::repl {
namespace {

// Evaluates a command's expression argument in the session; errors are printed, then nullopt.
std::optional<Value> evaluate(Session& s, const std::string& cmd, const std::string& expr) {
  if (expr.empty()) {
    s.err() << "error: :" << cmd << " needs an expression\n";
    return std::nullopt;
  }
  Interpreter& in = s.interpreter();
  const ast::Expr* e = in.parseExpression(s.source(expr));
  if (!e) return std::nullopt;
  Value v;
  if (!in.reportingErrors([&] { v = in.evalInGlobals(*e); })) return std::nullopt;
  return v;
}

void help(Session& s, const std::string&) {
  size_t width = 0;
  for (const Command& c : commands()) width = std::max(width, c.name.size() + (c.args.empty() ? 0 : c.args.size() + 1));
  s.out() << "Commands:\n";
  for (const Command& c : commands()) {
    std::string head = c.name + (c.args.empty() ? "" : " " + c.args);
    s.out() << "  :" << head << std::string(width - head.size() + 2, ' ') << c.help << '\n';
  }
  s.out() << "Anything else runs as Weft code; a bare expression echoes its value with its type.\n"
             "Keys: Tab completes names, attributes and commands; Up/Down recall history;\n"
             "Ctrl-C interrupts a computation or clears the line; Ctrl-D quits.\n";
}

void load(Session& s, const std::string& arg) {
  std::string path = arg;
  if (path.size() >= 2 && (path.front() == '"' || path.front() == '\'') && path.back() == path.front())
    path = path.substr(1, path.size() - 2);
  if (path.empty()) {
    s.err() << "error: :load needs a file name\n";
    return;
  }
  s.interpreter().runFile(path);  // errors are printed; whatever ran before one stays defined
}

void type(Session& s, const std::string& arg) {
  auto v = evaluate(s, "type", arg);
  if (!v) return;
  std::string text = typeNameOf(*v);
  if (v->is(Kind::Variable)) text += " " + typeNameOf(Value(v->as<VariableObj>()->value));
  s.out() << text << '\n';
}

void vars(Session& s, const std::string&) {
  std::vector<std::pair<Symbol, Value>> entries;  // names starting with '_' are private by convention
  for (const auto& [k, v] : s.interpreter().globals()->entries())
    if (symbolName(k)[0] != '_') entries.emplace_back(k, v);
  if (entries.empty()) {
    s.out() << "(no variables yet)\n";
    return;
  }
  size_t width = 0;
  for (const auto& [k, v] : entries) width = std::max(width, symbolName(k).size());
  width = std::min<size_t>(width, 24);
  for (const auto& [k, v] : entries) {
    const std::string& name = symbolName(k);
    s.out() << name << std::string(name.size() < width ? width - name.size() : 0, ' ') << "  " << briefText(v)
            << '\n';
  }
}

void summary(Session& s, const std::string& arg) {
  auto v = evaluate(s, "summary", arg);
  if (!v) return;
  if (!v->is(Kind::Module)) {
    s.err() << "error: :summary needs a module, not a " << typeNameOf(*v) << '\n';
    return;
  }
  // Every module has the Keras table as `summary`; a module may define its own.
  Interpreter& in = s.interpreter();
  in.reportingErrors([&] {
    Args args;
    Value r = in.call(in.getAttr(*v, intern("summary")), args);
    if (!r.isNone()) s.out() << toStr(r) << '\n';
  });
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"help", "", "list the commands", help},
      {"quit", "", "leave the session (also Ctrl-D)", [](Session& s, const std::string&) { s.quit(); }},
      {"load", "FILE", "run a file into the session", load},
      {"type", "EXPR", "show the type of an expression (f32[2, 3], list, Dense)", type},
      {"vars", "", "list the names defined in the session", vars},
      {"summary", "MODEL", "print a module's summary", summary},
      {"time", "EXPR", "time an expression: median time per run", timeCommand},
  };
  return table;
}

void runCommand(Session& s, const std::string& line) {
  size_t end = line.find_first_of(" \t");
  std::string name = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
  std::string arg;
  if (end != std::string::npos) {
    size_t a = line.find_first_not_of(" \t", end);
    size_t b = line.find_last_not_of(" \t\r\n");
    if (a != std::string::npos) arg = line.substr(a, b - a + 1);
  }
  for (const Command& c : commands())
    if (c.name == name) return c.run(s, arg);

  std::vector<std::string> close;
  for (const Command& c : commands())
    if ((!name.empty() && c.name.compare(0, name.size(), name) == 0) || editDistance(name, c.name) <= 2)
      close.push_back(":" + c.name);
  s.err() << "error: unknown command ':" << name << "'";
  for (size_t i = 0; i < close.size(); ++i)
    s.err() << (i == 0 ? "; did you mean " : i + 1 == close.size() ? " or " : ", ") << close[i];
  s.err() << (close.empty() ? "; :help lists the commands\n" : "?\n");
}

}  // namespace weft::repl
