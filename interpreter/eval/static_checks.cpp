// The checks `weft check` makes beyond names, without running anything (checker.h).
#include <filesystem>
#include <map>

#include "../../grammar/parser.h"
#include "../values/objects.h"
#include "checker.h"
#include "embedded.h"
#include "library_namespaces.h"
#include "suggest.h"
#include "types.h"

namespace weft {
namespace {

// ---- imports ---------------------------------------------------------------------------------

const char* stdlibText(const std::string& name) {
  for (const EmbeddedFile* f = kStdlibFiles; f->name; ++f)
    if (name == f->name) return f->text;
  return nullptr;
}

// The names an imported module defines, or nullopt after reporting why it cannot be imported.
// Resolved as importModule resolves them: the stdlib by name, else a file beside the program.
std::optional<std::set<Symbol>> importedNames(const std::string& spec, bool isPath, const std::string& dir,
                                              const SourceRange& at, Diagnostics& diags) {
  try {
    if (auto members = isPath ? std::nullopt : libraryNamespaceMembers(spec)) {  // tensorflow.keras
      std::set<Symbol> names;
      for (const std::string& m : *members) names.insert(intern(m));
      return names;
    }
  } catch (const WeftError& e) {
    diags.error(at, e.message);
    return std::nullopt;
  }
  std::shared_ptr<const SourceFile> file;
  if (const char* text = isPath ? nullptr : stdlibText(spec)) {
    file = std::make_shared<SourceFile>("<stdlib>/" + spec + ".model", text);
  } else {
    std::filesystem::path p = std::filesystem::path(dir) / (isPath ? spec : spec + ".model");
    std::string display = p.lexically_normal().string(), why;
    file = readSourceFile(p.string(), parseLimits().maxSourceBytes, why);
    if (!file) {
      diags.error(at, why == "no such file" ? noModuleMessage(spec, display) : "cannot import '" + spec + "': " + why);
      return std::nullopt;
    }
  }
  Diagnostics inner;
  auto program = parseProgram(file, inner);
  if (inner.hasErrors()) {
    diags.error(at, "cannot import '" + spec + "': it has syntax errors (weft check " + file->path + ")");
    return std::nullopt;
  }
  std::set<Symbol> names;
  for (const auto& st : program->body) bindNames(*st, names);
  return names;
}

void checkImport(const ast::Stmt& s, const std::string& dir, Diagnostics& diags) {
  if (s.kind == ast::StmtKind::Import) {
    auto& im = static_cast<const ast::Import&>(s);
    importedNames(im.module, im.isPath, dir, im.range, diags);
    return;
  }
  auto& from = static_cast<const ast::FromImport&>(s);
  auto names = importedNames(from.module, from.isPath, dir, from.range, diags);
  if (!names) return;
  std::vector<std::string> candidates;
  for (Symbol n : *names) candidates.push_back(symbolName(n));
  for (const auto& item : from.items) {
    if (names->count(item.name)) continue;
    diags.error(item.range, noMemberMessage(from.module, symbolName(item.name), candidates));
  }
}

void checkImports(const ast::Block& block, const std::string& dir, Diagnostics& diags) {
  for (const auto& s : block) {
    using K = ast::StmtKind;
    switch (s->kind) {
      case K::Import: case K::FromImport: checkImport(*s, dir, diags); break;
      case K::If: {
        auto& i = static_cast<const ast::If&>(*s);
        for (const auto& br : i.branches) checkImports(br.body, dir, diags);
        checkImports(i.elseBody, dir, diags);
        break;
      }
      case K::Fn: checkImports(static_cast<const ast::FnDecl&>(*s).body, dir, diags); break;
      default: break;
    }
  }
}

// ---- calls -----------------------------------------------------------------------------------

struct Signature {
  std::string name;
  const std::vector<ast::Param>* params;
  bool module;  // a module also takes Keras' name=, input_shape= and trainable=
};

// The program's own functions and modules that are declared once at top level and bound by
// nothing else, so that a call of the name is a call of the declaration.
std::map<Symbol, Signature> topLevelSignatures(const ast::Program& p) {
  std::map<Symbol, Signature> sigs;
  std::set<Symbol> other;  // bound by anything else too (an assignment, a loop, an import)
  for (const auto& s : p.body) {
    if (s->kind == ast::StmtKind::Fn) {
      auto& f = static_cast<const ast::FnDecl&>(*s);
      bool plain = true;  // `@function` keeps the signature; another decorator may not
      for (const auto& d : f.decorators) plain &= ast::isGraphFunction(d) && d.expr->kind != ast::ExprKind::Call;
      if (!plain || !sigs.emplace(f.name, Signature{symbolName(f.name), &f.params, false}).second) other.insert(f.name);
    } else if (s->kind == ast::StmtKind::Module) {
      auto& m = static_cast<const ast::ModuleDecl&>(*s);
      if (!sigs.emplace(m.name, Signature{symbolName(m.name), &m.params, true}).second) other.insert(m.name);
    } else {
      bindNames(*s, other);
    }
  }
  for (Symbol n : other) sigs.erase(n);
  return sigs;
}

// A literal argument's value, to check against an annotation; nullopt for anything else.
std::optional<Value> literalValue(const ast::Expr& e) {
  using K = ast::ExprKind;
  const ast::Expr* x = &e;
  bool negate = false;
  if (x->kind == K::Unary && static_cast<const ast::Unary&>(*x).op == ast::UnaryOp::Neg)
    x = static_cast<const ast::Unary&>(*x).operand.get(), negate = true;
  switch (x->kind) {
    case K::Int: {
      int64_t v = static_cast<const ast::IntLit&>(*x).value;
      if (v >= INT32_MIN && v <= INT32_MAX) return Value(Tensor::scalar<int32_t>(int32_t(negate ? -v : v)));
      return Value(Tensor::scalar<int64_t>(negate ? -v : v));
    }
    case K::Float: return Value(Tensor::scalar<float>(float(static_cast<const ast::FloatLit&>(*x).value)));
    case K::Bool: return negate ? std::nullopt : std::optional<Value>(Value(Tensor::scalar<bool>(static_cast<const ast::BoolLit&>(*x).value)));
    case K::String: return negate ? std::nullopt : std::optional<Value>(makeStr(static_cast<const ast::StringLit&>(*x).value));
    default: return std::nullopt;
  }
}

// The checks bindParams makes when the call runs, with the same messages.
void checkCall(const ast::Call& c, const Signature& sig, Diagnostics& diags) {
  const auto& params = *sig.params;
  size_t n = params.size(), positional = 0;
  for (const auto& a : c.args) positional += !a.keyword;
  if (positional > n) {
    diags.error(c.range, sig.name + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
                             std::to_string(positional) + " were given");
    return;
  }
  std::vector<const ast::Expr*> bound(n, nullptr);
  for (size_t i = 0; i < positional; ++i) bound[i] = c.args[i].value.get();  // positional ones come first
  for (const auto& a : c.args) {
    if (!a.keyword) continue;
    size_t i = 0;
    while (i < n && params[i].name != *a.keyword) ++i;
    std::string key = symbolName(*a.keyword);
    if (i == n) {
      if (sig.module && (key == "name" || key == "input_shape" || key == "trainable")) continue;
      std::vector<std::string> names;
      for (const auto& p : params) names.push_back(symbolName(p.name));
      diags.error(a.range, unexpectedKeywordMessage(sig.name, key, names));
      continue;
    }
    if (bound[i]) diags.error(a.range, sig.name + "() got multiple values for argument '" + key + "'");
    bound[i] = a.value.get();
  }
  for (size_t i = 0; i < n; ++i) {
    const ast::Param& p = params[i];
    if (!bound[i]) {
      if (!p.defaultValue) diags.error(c.range, sig.name + "() missing argument '" + symbolName(p.name) + "'");
      continue;
    }
    if (!p.type) continue;
    if (auto v = literalValue(*bound[i]))
      if (auto actual = typeMismatch(*p.type, *v))
        diags.error(bound[i]->range, sig.name + "() argument '" + symbolName(p.name) + "' expects " +
                                         typeText(*p.type) + ", got " + *actual);
  }
}

}  // namespace

void checkProgramStatically(const ast::Program& program, const std::set<Symbol>& known, const std::string& dir,
                            Diagnostics& diags) {
  checkImports(program.body, dir, diags);
  std::map<Symbol, Signature> sigs = topLevelSignatures(program);
  Diagnostics names;  // already reported by the run before this one
  checkNames(program, KnownNames(known), names, [&](const ast::Call& c, Symbol callee) {
    if (auto it = sigs.find(callee); it != sigs.end()) checkCall(c, it->second, diags);
  });
}

}  // namespace weft
