// `:time EXPR`, as IPython's %timeit: runs the expression until about half a second has passed
// (at most 10,000 runs) and reports the median, which a stray slow run does not move.
#include <algorithm>
#include <chrono>

#include "commands.h"
#include "describe.h"
#include "session.h"

namespace weft::repl {
namespace {

constexpr double kBudgetSeconds = 0.5;
constexpr size_t kMaxRuns = 10000;

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void timeCommand(Session& s, const std::string& arg) {
  if (arg.empty()) {
    s.err() << "error: :time needs an expression\n";
    return;
  }
  Interpreter& in = s.interpreter();
  const ast::Expr* e = in.parseExpression(s.source(arg));
  if (!e) return;
  std::vector<double> runs;
  bool ok = in.reportingErrors([&] {
    // The first run is not counted: it pays one-time costs (a graph function's tracing, a
    // module's lazy build). When it alone used the budget, it is the only sample there is.
    auto t0 = std::chrono::steady_clock::now();
    in.evalInGlobals(*e);
    double first = secondsSince(t0);
    if (first >= kBudgetSeconds) {
      runs.push_back(first);
      return;
    }
    auto begin = std::chrono::steady_clock::now();
    while (runs.size() < kMaxRuns && secondsSince(begin) < kBudgetSeconds) {
      in.checkInterrupt();  // a cheap expression makes no call that would check for Ctrl-C
      auto r0 = std::chrono::steady_clock::now();
      in.evalInGlobals(*e);
      runs.push_back(secondsSince(r0));
    }
  });
  if (!ok) return;
  auto mid = runs.begin() + runs.size() / 2;
  std::nth_element(runs.begin(), mid, runs.end());
  s.out() << formatDuration(*mid) << " per run (median of " << runs.size() << (runs.size() == 1 ? " run)\n" : " runs)\n");
}

}  // namespace weft::repl
