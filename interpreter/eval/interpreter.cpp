#include "interpreter.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>

#include "../../grammar/parser.h"
#include "../../grammar/shown_text.h"
#include "../graph/spmd_eager.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "embedded.h"
#include "checker.h"
#include "cycle_collector.h"
#include "hooks.h"
#include "operators.h"

namespace weft {

EvalHooks& evalHooks() {
  static EvalHooks hooks;
  return hooks;
}

Interpreter::Interpreter(std::ostream& out, std::ostream& err)
    : out_(out), err_(err), native_(std::make_shared<Env>()) {
  const EvalHooks& hooks = evalHooks();
  if (!hooks.complete()) throw std::logic_error("no builtins: the program must call weft::installBuiltins() first");
  hooks.registerNatives(*native_);
  if (const char* n = std::getenv("WEFT_CYCLE_INTERVAL"); n && std::atoll(n) > 0)
    nextCycleCollection_ = minCycleInterval_ = std::atoll(n), fixedCycleInterval_ = true;
  prelude_ = std::make_shared<Env>(native_);
  globals_ = std::make_shared<Env>(prelude_);
  setProgramArgs({});
  context_.poll = &Interpreter::pollFromBelow;
  context_.pollOwner = this;
}

Value Interpreter::native(const std::string& name) const {
  Value* v = native_->findLocal(intern(name));
  return v ? *v : Value();
}

Value Interpreter::preludeValue(const std::string& name, const SourceRange& at) {
  if (!preludeLoaded_) loadPrelude(at);
  Value* v = prelude_->findLocal(intern(name));
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
    if (o.kind == Kind::Dict) static_cast<DictObj&>(o).clear();
  });
  for (auto& [k, v] : importCache_)
    if (v.is(Kind::Namespace)) v.as<NamespaceObj>()->env->clear();
  globals_->clear();
  prelude_->clear();
  native_->clear();
  // The runners of eager ops on sharded tensors hold the last operands they were given.
  graph::releaseEagerSpmd();
}

void Interpreter::collectCyclesNow() {
  // While a graph function is traced, its trace holds values the walk cannot see: wait.
  if (!tracing_.empty()) return;
  CycleCollection c = collectCycles(capturedEnvs_, containers_);
  ++cycleStats_.runs;
  cycleStats_.freed += c.freed;
  nextCycleCollection_ =
      cycleCandidates_ + (fixedCycleInterval_ ? minCycleInterval_ : std::max(minCycleInterval_, c.liveWork));
}

std::vector<std::string> Interpreter::visibleNames() const {
  std::vector<std::string> names;
  for (Env* e = globals_.get(); e; e = e->parent().get())
    for (const auto& [k, v] : e->entries()) names.push_back(symbolName(k));
  return names;
}

bool inStdlib(const SourceRange& r) { return r.valid() && r.file->path.rfind("<stdlib>", 0) == 0; }

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
  if (!diags.hasErrors()) {
    checkNames(*program, KnownNames(*scope), diags);
    // The prelude is loaded lazily: only when a name is not found without it.
    if (diags.hasErrors() && !preludeLoaded_) {
      loadPrelude(diags.all().front().at);
      diags.clear();
      checkNames(*program, KnownNames(*scope), diags);
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
  if (!file) err << "error: cannot read '" << shownText(path) << "': " << why << "\n";  // a name from the terminal
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
      evalHooks().finishProgram(*this);  // layouts of variables built last, keys that never matched
    } catch (WeftError& e) {
      reportError(e);
      return 1;
    }
  }
  return status;
}

int Interpreter::checkFile(const std::string& path, const ast::Program** parsed) {
  auto file = readSource(path, err_);
  if (!file) return 1;
  try {
    const ast::Program* program = parseOrReport(file, globals_);
    if (!program) return 1;
    if (parsed) *parsed = program;
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
    if (!e.at.valid() && current) e.at = current->range;  // a limit hit by a literal (`print(1)`)
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
  auto next = iterate(iterable);
  // Each item is a step, so that Ctrl-C and the limits also stop list(range(10**12)).
  for (Value v; next(v);) {
    checkInterrupt();
    if (fn(std::move(v))) return;
  }
}

std::function<bool(Value&)> Interpreter::iterate(const Value& iterable) {
  switch (iterable.kind()) {
    case Kind::List:
      // Index each time: the body may append to the list it walks, as Python allows.
      return [list = iterable.as<ListObj>(), i = size_t(0)](Value& v) mutable {
        if (i >= list->items.size()) return false;
        v = list->items[i++];
        return true;
      };
    case Kind::Tuple:
      return [tuple = iterable.as<TupleObj>(), i = size_t(0)](Value& v) mutable {
        if (i >= tuple->items.size()) return false;
        v = tuple->items[i++];
        return true;
      };
    case Kind::Dict:
    case Kind::Set: {  // in insertion order, over a copy: the body may change it
      auto keys = std::make_shared<std::vector<Value>>();
      for (const auto& [k, v] : iterable.as<DictObj>()->entries) keys->push_back(k);
      return [keys, i = size_t(0)](Value& v) mutable {
        if (i >= keys->size()) return false;
        v = (*keys)[i++];
        return true;
      };
    }
    case Kind::Str:
      return [text = iterable.as<StrObj>()->text, i = size_t(0)](Value& v) mutable {
        if (i >= text.size()) return false;
        v = makeStr(std::string(1, text[i++]));
        return true;
      };
    case Kind::Tensor:
    case Kind::Variable: {
      Tensor t = tensorOf(iterable, "iterated value");
      if (t.rank() == 0) throw WeftError("cannot iterate over a scalar tensor");
      Shape rowShape;
      for (int i = 1; i < t.rank(); ++i) rowShape.push_back(t.shape()[i]);
      if (t.isSymbolic() && t.shape()[0] == rt::kUnknownDim)
        throw WeftError("cannot iterate over a graph value of unknown length " + t.shape().str() +
                        " (a None dimension); use a while loop over len(x)");
      return [t, rowShape, i = int64_t(0)](Value& v) mutable {
        if (i >= t.shape()[0]) return false;
        if (t.isSymbolic()) {  // rows of a graph value are graph values: one getitem node each
          v = Value(ops::getItem(t, {ops::Subscript{ops::Subscript::Index, i}}));
        } else if (t.isAbstract()) {  // a plan: rows of the same type
          v = Value(Tensor::abstract(t.dtype(), rowShape));
        } else {
          Tensor row = Tensor::empty(t.dtype(), rowShape);
          std::memcpy(row.raw(), static_cast<char*>(t.raw()) + i * row.bytes(), size_t(row.bytes()));
          v = Value(row);
        }
        ++i;
        return true;
      };
    }
    case Kind::Opaque:
      if (auto* r = dynamic_cast<RangeObj*>(iterable.object())) {
        // The last item may be near the end of int64: stop rather than wrap past it.
        return [r = *r, i = r->start, done = false](Value& v) mutable {
          if (done || (r.step > 0 ? i >= r.stop : i <= r.stop)) return false;
          v = makeInt(i);
          done = __builtin_add_overflow(i, r.step, &i);
          return true;
        };
      }
      if (auto* e = dynamic_cast<EnumerateObj*>(iterable.object())) {
        return [inner = iterate(e->items), i = e->start](Value& v) mutable {
          Value item;
          if (!inner(item)) return false;
          v = makeTuple({makeInt(i), std::move(item)});
          if (__builtin_add_overflow(i, 1, &i)) throw WeftError("enumerate() counted past 2**63 - 1");
          return true;
        };
      }
      if (auto* z = dynamic_cast<ZipObj*>(iterable.object())) {
        std::vector<std::function<bool(Value&)>> inners;
        for (const Value& x : z->items) inners.push_back(iterate(x));
        return [inners = std::move(inners)](Value& v) mutable {
          if (inners.empty()) return false;
          std::vector<Value> row(inners.size());
          for (size_t k = 0; k < inners.size(); ++k)
            if (!inners[k](row[k])) return false;
          v = makeTuple(std::move(row));
          return true;
        };
      }
      if (auto next = iterable.as<OpaqueObj>()->iterator()) return next;
      [[fallthrough]];
    default: throw WeftError(aTypeName(iterable) + " is not iterable");
  }
}

Interpreter::Flow Interpreter::execWith(const ast::With& s, const std::shared_ptr<Env>& env, Frame& frame) {
  Value ctx = eval(*s.context, env);
  auto* obj = ctx.is(Kind::Opaque) ? ctx.as<OpaqueObj>() : nullptr;
  if (!obj || !obj->isContext())
    throw WeftError(s.context->range, aTypeName(ctx) + " cannot be used with 'with'");
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
