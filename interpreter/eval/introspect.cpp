// What the REPL needs beyond running source: evaluating one expression for a value (`:type`,
// `:time`, `:summary`) and listing names and attributes for completion.
#include "interpreter.h"

namespace weft {

const ast::Expr* Interpreter::parseExpression(std::shared_ptr<const SourceFile> file) {
  const ast::Program* program = parseOrReport(file, globals_);
  if (!program) return nullptr;
  if (program->body.size() != 1 || program->body[0]->kind != ast::StmtKind::Expr) {
    // Point at the statement that is not the expression: the first, or the second of two.
    SourceRange at = program->body.empty() ? SourceRange{file, {1, 1}, {1, 1}}
                     : program->body[0]->kind != ast::StmtKind::Expr ? program->body[0]->range
                                                                       : program->body[1]->range;
    out_.flush();
    err_ << formatDiagnostic({Severity::Error, at, "expected a single expression"});
    err_.flush();
    return nullptr;
  }
  return static_cast<const ast::ExprStmt&>(*program->body[0]).expr.get();
}

Value Interpreter::evalInGlobals(const ast::Expr& e) { return eval(e, globals_); }

bool Interpreter::reportingErrors(const std::function<void()>& fn) {
  try {
    fn();
    return true;
  } catch (WeftError& e) {
    // As runSource does: an error may unwind from any depth, so the counters start over.
    callDepth_ = 0;
    reportError(e);
    return false;
  }
}

std::vector<std::string> Interpreter::completionNames() {
  if (!preludeLoaded_) {
    // A broken prelude is reported when a program first needs it; completion just goes without.
    try {
      loadPrelude({});
    } catch (WeftError&) {
    }
  }
  return visibleNames();
}

std::vector<std::string> Interpreter::attributeNames(const Value& v) {
  std::vector<std::string> names;
  auto envNames = [&](const Env& env) {
    for (const auto& [k, val] : env.entries())
      if (symbolName(k)[0] != '_') names.push_back(symbolName(k));
  };
  switch (v.kind()) {
    case Kind::Module:
      envNames(*v.as<ModuleObj>()->attrs);
      for (const char* n : {"name", "variables", "trainable_variables", "non_trainable_variables", "submodules",
                            "trainable", "built", "layers", "input_shape", "summary"})
        names.push_back(n);
      break;
    case Kind::Variable:
      names = {"name", "path", "shape", "dtype", "trainable", "value", "layout", "assign", "assign_add",
               "assign_sub"};
      for (const std::string& n : tensorAttributeNames())
        if (n != "shape" && n != "dtype") names.push_back(n);
      break;
    case Kind::Tensor: names = tensorAttributeNames(); break;
    case Kind::Namespace: envNames(*v.as<NamespaceObj>()->env); break;
    case Kind::List: names = {"append", "extend", "pop"}; break;
    case Kind::Dict: names = {"keys", "values", "items", "get"}; break;
    case Kind::Set: names = setMethodNames(); break;
    default: break;
  }
  return names;
}

}  // namespace weft
