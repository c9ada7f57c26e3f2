#include "interpreter.h"

#include <fstream>
#include <iostream>
#include <new>
#include <sstream>

#include "../../grammar/parser.h"
#include "../builtins/builtins.h"
#include "../mesh/scope.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "embedded.h"
#include "checker.h"
#include "operators.h"

namespace weft {

Interpreter::Interpreter(std::ostream& out, std::ostream& err)
    : out_(out), err_(err), native_(std::make_shared<Env>()) {
  registerBuiltins(*native_);
  prelude_ = std::make_shared<Env>(native_);
  globals_ = std::make_shared<Env>(prelude_);
  setProgramArgs({});
}

Value Interpreter::native(const std::string& name) const {
  Value* v = native_->findLocal(intern(name));
  return v ? *v : Value();
}

void Interpreter::setProgramArgs(const std::vector<std::string>& args) {
  std::vector<Value> items;
  for (const auto& a : args) items.push_back(makeStr(a));
  prelude_->set(intern("args"), makeList(std::move(items)));
}

Interpreter::~Interpreter() {
  // Closures and modules hold the scopes that hold them, and containers may hold themselves:
  // clear them all to free the cycles.
  capturedEnvs_.forEachAlive([](Env& e) { e.clear(); });
  containers_.forEachAlive([](Object& o) {
    if (o.kind == Kind::List) static_cast<ListObj&>(o).items.clear();
    if (o.kind == Kind::Dict) static_cast<DictObj&>(o).entries.clear();
  });
  for (auto& [k, v] : importCache_)
    if (v.is(Kind::Namespace)) v.as<NamespaceObj>()->env->clear();
  globals_->clear();
  prelude_->clear();
  native_->clear();
}

std::vector<std::string> Interpreter::visibleNames() const {
  std::vector<std::string> names;
  for (Env* e = globals_.get(); e; e = e->parent().get())
    for (const auto& [k, v] : e->entries()) names.push_back(symbolName(k));
  return names;
}

namespace {

bool inStdlib(const SourceRange& r) { return r.valid() && r.file->path.rfind("<stdlib>", 0) == 0; }

}  // namespace

void Interpreter::reportError(const WeftError& e) {
  out_.flush();
  WeftError shown = e;
  if (!shown.traceback.empty()) shown.traceback.push_back({"<main>", e.unwindAt});
  // An error inside the standard library is the caller's: point at the innermost user code.
  if (inStdlib(shown.at)) {
    size_t i = 0;
    while (i < shown.traceback.size() && (inStdlib(shown.traceback[i].at) || !shown.traceback[i].at.valid())) ++i;
    if (i < shown.traceback.size()) {
      shown.at = shown.traceback[i].at;
      shown.traceback.erase(shown.traceback.begin(), shown.traceback.begin() + long(i));
    }
  }
  if (shown.traceback.size() == 1) shown.traceback.clear();
  err_ << shown.format();
  err_.flush();
}

const ast::Program* Interpreter::parseOrReport(std::shared_ptr<const SourceFile> file,
                                               const std::shared_ptr<Env>& scope) {
  Diagnostics diags;
  auto program = parseProgram(std::move(file), diags);
  auto known = [&] {
    std::set<Symbol> names;
    for (Env* e = scope.get(); e; e = e->parent().get())
      for (const auto& [k, v] : e->entries()) names.insert(k);
    return names;
  };
  if (!diags.hasErrors()) {
    checkNames(*program, known(), diags);
    // The prelude is loaded lazily: only when a name is not found without it.
    if (diags.hasErrors() && !preludeLoaded_) {
      loadPrelude();
      diags.clear();
      checkNames(*program, known(), diags);
    }
  }
  if (diags.hasErrors()) {
    out_.flush();
    diags.print(err_);
    err_.flush();
    return nullptr;
  }
  programs_.push_back(std::move(program));
  return programs_.back().get();
}

namespace {

std::shared_ptr<const SourceFile> readSource(const std::string& path, std::ostream& err) {
  std::string why;
  auto file = readSourceFile(path, parseLimits().maxSourceBytes, why);
  if (!file) err << "error: cannot read '" << path << "': " << why << "\n";
  return file;
}

}  // namespace

int Interpreter::runFile(const std::string& path) {
  auto file = readSource(path, err_);
  if (!file) return 1;
  mainDir_ = std::filesystem::path(path).parent_path();
  int status = runSource(file);
  if (status == 0) {
    try {
      mesh::finishProgram(*this);  // layouts of variables built last, keys that never matched
    } catch (WeftError& e) {
      reportError(e);
      return 1;
    }
  }
  return status;
}

int Interpreter::checkFile(const std::string& path) {
  auto file = readSource(path, err_);
  if (!file) return 1;
  try {
    const ast::Program* program = parseOrReport(file, globals_);
    if (!program) return 1;
    std::set<Symbol> known;
    for (Env* e = globals_->parent().get(); e; e = e->parent().get())
      for (const auto& [k, v] : e->entries()) known.insert(k);
    Diagnostics diags;
    checkProgramStatically(*program, known, std::filesystem::path(path).parent_path().string(), diags);
    out_.flush();
    diags.print(err_);
    return diags.hasErrors() ? 1 : 0;
  } catch (WeftError& e) {
    reportError(e);
    return 1;
  }
}

int Interpreter::runSource(std::shared_ptr<const SourceFile> file, std::function<void(const Value&)> echo) {
  fileDirs_.push_back(std::filesystem::path(file->path).parent_path());
  struct Pop {
    std::vector<std::filesystem::path>& v;
    ~Pop() { v.pop_back(); }
  } pop{fileDirs_};
  const ast::Stmt* current = nullptr;  // locates an error that knows no place (out of memory)
  try {
    const ast::Program* program = parseOrReport(file, globals_);
    if (!program) return 1;
    Frame frame;
    for (const auto& s : program->body) {
      current = s.get();
      if (echo && s->kind == ast::StmtKind::Expr) {
        Value v = eval(*static_cast<const ast::ExprStmt&>(*s).expr, globals_);
        if (!v.isNone()) echo(v);
        continue;
      }
      Flow f = exec(*s, globals_, frame);
      if (f == Flow::Return) break;
      if (f != Flow::Normal) throw WeftError(s->range, "'break' or 'continue' outside a loop");
    }
  } catch (WeftError& e) {
    callDepth_ = 0;
    reportError(e);
    return 1;
  } catch (const std::bad_alloc&) {  // the limits bound tensors and single values, not every allocation
    callDepth_ = 0;
    reportError(WeftError(current ? current->range : SourceRange{}, "out of memory"));
    return 1;
  }
  out_.flush();
  return 0;
}

void Interpreter::forEach(const Value& iterable, const std::function<bool(Value)>& fn) {
  // Each item is a step, so that Ctrl-C and the limits also stop list(range(10**12)).
  auto body = [&](Value v) {
    checkInterrupt();
    return fn(std::move(v));
  };
  switch (iterable.kind()) {
    case Kind::List: {
      // Index each time: the body may append to the list it walks, as Python allows.
      auto list = iterable.as<ListObj>();
      for (size_t i = 0; i < list->items.size(); ++i)
        if (body(list->items[i])) return;
      return;
    }
    case Kind::Tuple:
      for (const auto& v : iterable.as<TupleObj>()->items)
        if (body(v)) return;
      return;
    case Kind::Dict: {
      std::vector<Value> keys;
      for (const auto& [k, v] : iterable.as<DictObj>()->entries) keys.push_back(k);
      for (auto& k : keys)
        if (body(k)) return;
      return;
    }
    case Kind::Str:
      for (char c : std::string(iterable.as<StrObj>()->text))
        if (body(makeStr(std::string(1, c)))) return;
      return;
    case Kind::Tensor:
    case Kind::Variable: {
      Tensor t = tensorOf(iterable, "iterated value");
      if (t.rank() == 0) throw WeftError("cannot iterate over a scalar tensor");
      Shape rowShape;
      for (int i = 1; i < t.rank(); ++i) rowShape.push_back(t.shape()[i]);
      int64_t rowBytes = rowShape.numel() * int64_t(rt::dtypeSize(t.dtype()));
      if (t.isSymbolic()) {  // rows of a graph value are graph values: one getitem node each
        if (t.shape()[0] == rt::kUnknownDim)
          throw WeftError("cannot iterate over a graph value of unknown length " + t.shape().str() +
                          " (a None dimension); use a while loop over len(x)");
        for (int64_t i = 0; i < t.shape()[0]; ++i)
          if (body(Value(ops::getItem(t, {ops::Subscript{ops::Subscript::Index, i}})))) return;
        return;
      }
      for (int64_t i = 0; i < t.shape()[0]; ++i) {
        if (t.isAbstract()) {  // a plan: rows of the same type
          if (body(Value(Tensor::abstract(t.dtype(), rowShape)))) return;
          continue;
        }
        Tensor row = Tensor::empty(t.dtype(), rowShape);
        std::memcpy(row.raw(), static_cast<char*>(t.raw()) + i * rowBytes, size_t(rowBytes));
        if (body(Value(row))) return;
      }
      return;
    }
    case Kind::Opaque:
      if (auto* r = dynamic_cast<RangeObj*>(iterable.object())) {
        for (int64_t i = r->start; r->step > 0 ? i < r->stop : i > r->stop; i += r->step) {
          Value v = (i >= INT32_MIN && i <= INT32_MAX) ? Value(Tensor::scalar<int32_t>(int32_t(i)))
                                                       : Value(Tensor::scalar<int64_t>(i));
          if (body(std::move(v))) return;
        }
        return;
      }
      [[fallthrough]];
    default: throw WeftError("a " + typeNameOf(iterable) + " is not iterable");
  }
}

Interpreter::Flow Interpreter::execWith(const ast::With& s, const std::shared_ptr<Env>& env, Frame& frame) {
  Value ctx = eval(*s.context, env);
  auto* obj = ctx.is(Kind::Opaque) ? ctx.as<OpaqueObj>() : nullptr;
  if (!obj || !obj->isContext())
    throw WeftError(s.context->range, "a " + typeNameOf(ctx) + " cannot be used with 'with'");
  obj->enter(*this);
  if (s.as) env->set(*s.as, ctx);
  Flow f;
  try {
    f = execBlock(s.body, env, frame);
  } catch (...) {
    obj->exit(*this);
    throw;
  }
  try {
    obj->exit(*this);  // a layout map scope resolves its variables here
  } catch (WeftError& e) {
    if (!e.at.valid()) e.at = s.context->range;
    throw;
  }
  return f;
}

}  // namespace weft
