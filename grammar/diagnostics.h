// User-facing errors and warnings: "FILE:LINE:COL: error: MESSAGE", the source line and a caret.
// Static errors are collected (checking goes on); runtime errors are thrown as WeftError.
#pragma once
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "source.h"

namespace weft {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  SourceRange at;
  std::string message;
};

// Formats one diagnostic with its source line and caret underline.
std::string formatDiagnostic(const Diagnostic& d);

class Diagnostics {
 public:
  void error(const SourceRange& at, std::string message);
  void warning(const SourceRange& at, std::string message);
  bool hasErrors() const { return errorCount_ > 0; }
  const std::vector<Diagnostic>& all() const { return list_; }
  void print(std::ostream& out) const;
  void clear() { list_.clear(); errorCount_ = 0; }

 private:
  std::vector<Diagnostic> list_;
  int errorCount_ = 0;
};

// One frame of a Weft-level traceback: a function and the place in it that was executing.
struct TraceFrame {
  std::string function;
  SourceRange at;
};

// A user error raised at run time. The evaluator appends frames as it unwinds calls.
class WeftError : public std::runtime_error {
 public:
  WeftError(SourceRange at, std::string message)
      : std::runtime_error(message), at(std::move(at)), message(std::move(message)) {}
  explicit WeftError(std::string message) : WeftError(SourceRange{}, std::move(message)) {}
  SourceRange at;
  std::string message;
  std::vector<TraceFrame> traceback;  // innermost first, appended while unwinding calls
  SourceRange unwindAt;  // where the frame being unwound was executing (evaluator use)
  std::string format() const;
};

}  // namespace weft
