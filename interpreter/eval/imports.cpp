// `import` and `from ... import`: the embedded stdlib and relative .model files.
#include <fstream>
#include <sstream>

#include "../../grammar/parser.h"
#include "embedded.h"
#include "interpreter.h"
#include "library_namespaces.h"
#include "suggest.h"

namespace weft {
namespace {

const EmbeddedFile* findStdlib(const std::string& name) {
  for (const EmbeddedFile* f = kStdlibFiles; f->name; ++f)
    if (name == f->name) return f;
  return nullptr;
}

}  // namespace

Value Interpreter::runModuleFile(std::shared_ptr<const SourceFile> file, const std::string& name) {
  auto env = std::make_shared<Env>(prelude_);
  const ast::Program* program = parseOrReport(file, env);
  if (!program) throw WeftError("'" + file->path + "' has errors (reported above)");
  fileDirs_.push_back(std::filesystem::path(file->path).parent_path());
  struct Pop {
    std::vector<std::filesystem::path>& v;
    ~Pop() { v.pop_back(); }
  } pop{fileDirs_};
  Frame frame;
  for (const auto& s : program->body)
    if (exec(*s, env, frame) != Flow::Normal) throw WeftError(s->range, "'return', 'break' or 'continue' at top level");
  return Value(std::make_shared<NamespaceObj>(name, env));
}

void Interpreter::loadPrelude(const SourceRange& at) {
  preludeLoaded_ = true;
  const EmbeddedFile* f = findStdlib("prelude");
  if (!f) return;
  const ast::Program* program =
      parseOrReport(std::make_shared<SourceFile>("<stdlib>/prelude.model", f->text), prelude_);
  if (!program) throw WeftError("internal error: the embedded prelude does not parse");
  Frame frame;
  try {
    for (const auto& s : program->body) exec(*s, prelude_, frame);
    defineLibraryNamespaces(*prelude_);
  } catch (WeftError& e) {
    // Only a limit set very low (--max-tensor-bytes=1) stops the prelude: say so where it was needed.
    throw WeftError(at, "the standard library could not load (" + e.message +
                            "); the limits given on the command line are too small for it");
  }
}

Value Interpreter::importModule(const std::string& spec, bool isPath, const SourceRange& at) {
  // The stdlib modules import one another through the prelude: load it first, so that `import nn`
  // finds nn already loaded by it instead of loading nn again from inside nn.
  if (!preludeLoaded_) loadPrelude(at);
  if (!isPath) {
    try {
      if (Value ns = libraryNamespace(*prelude_, spec); !ns.isNone()) return ns;
    } catch (WeftError& e) {
      throw WeftError(at, e.message);
    }
  }
  std::string key;      // the canonical path: one cache entry per file
  std::string display;  // the path as the user would write it, for messages
  std::shared_ptr<const SourceFile> file;
  const EmbeddedFile* builtin = isPath ? nullptr : findStdlib(spec);
  if (builtin) {
    key = display = "<stdlib>/" + spec;
  } else {
    std::filesystem::path base = fileDirs_.empty() ? mainDir_ : fileDirs_.back();
    std::filesystem::path p = base / (isPath ? spec : spec + ".model");
    std::error_code ec;
    auto canon = std::filesystem::weakly_canonical(p, ec);
    key = ec ? p.string() : canon.string();
    display = p.lexically_normal().string();
  }
  if (auto it = importCache_.find(key); it != importCache_.end()) return it->second;
  for (size_t i = 0; i < importStack_.size(); ++i) {
    if (importStack_[i] != key) continue;
    std::string chain;
    for (size_t j = i; j < importStack_.size(); ++j) chain += importDisplay_[j] + " -> ";
    throw WeftError(at, "import cycle: " + chain + display);
  }
  if (builtin) {
    file = std::make_shared<SourceFile>(display + ".model", builtin->text);
  } else {
    std::string why;
    auto read = readSourceFile(key, parseLimits().maxSourceBytes, why);
    if (!read && why == "no such file")
      throw WeftError(at, noModuleMessage(spec, display));
    if (!read) throw WeftError(at, "cannot import '" + spec + "': " + why);
    // Any other file (`import "/etc/passwd"`) would be parsed and its lines quoted in errors.
    if (std::filesystem::path(display).extension() != ".model")
      throw WeftError(at, "cannot import '" + spec + "': not a Weft source (its name does not end in .model)");
    read->path = display;
    file = std::move(read);
  }
  importStack_.push_back(key);
  importDisplay_.push_back(display);
  struct Pop {
    Interpreter& in;
    ~Pop() { in.importStack_.pop_back(), in.importDisplay_.pop_back(); }
  } pop{*this};
  Value ns;
  try {
    ns = runModuleFile(file, spec);
  } catch (WeftError& e) {
    // A runtime error in the imported file: its place there, then the importing line (an error
    // inside the stdlib is shown at that line, as any error inside the stdlib is).
    if (!e.at.valid()) {
      e.at = at;
      throw;
    }
    e.traceback.push_back({"<module>", e.unwindAt.valid() ? e.unwindAt : e.at});
    e.unwindAt = at;
    throw;
  }
  importCache_[key] = ns;
  return ns;
}

void Interpreter::execImport(const ast::Stmt& s, const std::shared_ptr<Env>& env) {
  if (s.kind == ast::StmtKind::Import) {
    auto& im = static_cast<const ast::Import&>(s);
    Value ns = importModule(im.module, im.isPath, im.range);
    if (im.as) {
      env->set(*im.as, ns);
    } else if (im.isPath) {
      throw WeftError(im.range, "importing a file needs a name: import \"" + im.module + "\" as NAME");
    } else {
      env->set(intern(im.module), ns);
    }
    return;
  }
  auto& from = static_cast<const ast::FromImport&>(s);
  Value ns = importModule(from.module, from.isPath, from.range);
  auto* obj = ns.as<NamespaceObj>();
  for (const auto& item : from.items) {
    Value* v = obj->env->findLocal(item.name);
    if (!v) throw WeftError(item.range, noMemberMessage(from.module, symbolName(item.name), obj->memberNames()));
    env->set(item.as.value_or(item.name), *v);
  }
}

}  // namespace weft
