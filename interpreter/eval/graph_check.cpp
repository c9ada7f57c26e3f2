// `weft check` and `weft graph`: graph functions traced from their annotations, without calling them.
#include <map>
#include <cstdio>
#include <functional>
#include <set>

#include "../../grammar/shown_text.h"
#include "../graph/comm_counts.h"
#include "../graph/passes.h"
#include "../graph/pipeline.h"
#include "../graph/tracer.h"
#include "../spmd/blocks.h"
#include "../values/format.h"
#include "hooks.h"
#include "interpreter.h"
#include "suggest.h"

namespace weft {
namespace {

// Every graph function a program's globals reach: global functions and module methods.
void collect(const Value& v, std::vector<FunctionObj*>& out, std::set<const Object*>& seen, int depth) {
  if (!v.object() || depth > 64 || !seen.insert(v.object()).second) return;
  if (v.is(Kind::Function)) {
    auto* fn = v.as<FunctionObj>();
    if (fullyAnnotated(*fn)) out.push_back(fn);
    return;
  }
  if (v.is(Kind::Module))
    for (const auto& [k, x] : v.as<ModuleObj>()->attrs->entries()) collect(x, out, seen, depth + 1);
  if (v.is(Kind::List))
    for (const auto& x : v.as<ListObj>()->items) collect(x, out, seen, depth + 1);
}

// SPEC §7.1: per collective its source line, op, mesh dimension, group, bytes per device, and
// whether it finishes a partial sum (inherent) or changes a layout (implicit).
// One line per kind of collective, in the order each first comes: the same collective at the
// same line (a loop of layers, a gradient's many partial sums) is counted, "x48", not repeated.
// Collectives that travel in one bucket (bucket_collectives.cpp) say which, and a line per
// bucket says where its one call is counted and its bytes (those of the members' blocks
// together: what a run's --comm-report counts).
std::string commPlanText(const graph::Graph& g, const graph::CommPlan& plan, const std::string& name,
                         const std::string& mesh) {
  std::vector<std::pair<std::string, int>> lines;
  std::map<std::string, size_t> index;
  struct Bucket {
    const graph::PlannedCollective* first = nullptr;
    int members = 0;
    int64_t block = 0;
  };
  std::map<int, Bucket> buckets;
  int64_t total = 0;
  auto where = [](const graph::Loc& loc) {
    return shownText(loc.file.substr(loc.file.find_last_of('/') + 1)) + ":" + std::to_string(loc.line);
  };
  auto over = [&](const graph::PlannedCollective& c) {
    return g.mesh.names[size_t(c.meshDim)] + " (" + std::to_string(c.group) + " devices)";
  };
  for (const graph::PlannedCollective& c : plan.collectives) {
    const std::string line = where(c.loc) + "  " + ops::opName(c.op) + " over " + over(c) + "  " +
                             graph::bytesText(c.bytes) + " per device  " +
                             (c.requested ? "explicit (" : c.inherent ? "inherent (a partial sum, " : "implicit (") + c.why +
                             ")" + (c.bucket ? "  bucket " + std::to_string(c.bucket) : "");
    auto [at, fresh] = index.emplace(line, lines.size());
    if (fresh) lines.push_back({line, 0});
    ++lines[at->second].second;
    if (!c.bucket) {
      total += c.bytes;
      continue;
    }
    Bucket& b = buckets[c.bucket];
    if (!b.first) b.first = &c;
    ++b.members;
    b.block += c.block;
  }
  std::string s = "comm plan of " + name + " on " + mesh + ":\n";
  for (const auto& [line, count] : lines) s += "  " + line + (count > 1 ? "  x" + std::to_string(count) : "") + "\n";
  if (plan.collectives.empty()) return s + "  no collectives\n";
  for (const auto& [k, b] : buckets) {
    const int64_t bytes = spmd::collectiveBytes(b.first->op, b.block, b.first->group);
    s += "  bucket " + std::to_string(k) + ": " + std::to_string(b.members) + " " + ops::opName(b.first->op) + "s over " +
         over(*b.first) + " in one call at " + where(b.first->loc) + ", " + graph::bytesText(bytes) + " per device\n";
    total += bytes;
  }
  size_t calls = plan.collectives.size();
  for (const auto& [k, b] : buckets) calls -= size_t(b.members - 1);
  s += "  " + std::to_string(plan.collectives.size()) + " collective" + (plan.collectives.size() == 1 ? "" : "s");
  if (calls != plan.collectives.size()) s += " in " + std::to_string(calls) + (calls == 1 ? " call" : " calls");
  return s + ", " + graph::bytesText(total) + " per device\n";
}

// "'NAME' is not defined in the program" (a name weft graph was given), with the closest of the
// program's names and, for a function, where it is declared.
std::string notInProgram(Env& globals, const std::vector<Export>& exports, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [k, v] : globals.entries()) names.push_back(symbolName(k));
  for (const Export& e : exports) names.push_back(e.name);
  std::string msg = "'" + name + "' is not defined in the program";
  auto near = closestName(name, names);
  if (!near) return msg;
  msg += "; did you mean '" + *near + "'";
  SourceRange at;
  if (Value* v = globals.find(intern(*near)); v && v->is(Kind::Function)) at = v->as<FunctionObj>()->range;
  if (at.valid())
    msg += " (" + shownText(at.file->path) + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.col) + ")";
  return msg + "?";
}

// The graph of a trace, on its variables' mesh when they have layouts (as the runner places it).
std::shared_ptr<const graph::Graph> placed(GraphTraces::Entry& e, const std::string& name) {
  auto g = std::make_shared<graph::Graph>(e.graph);
  placeOnMesh(*g, e, name, {});
  return g;
}

}  // namespace

std::shared_ptr<const graph::Graph> Interpreter::graphOf(const std::string& path, std::vector<Tensor>* variables) {
  auto result = [&](GraphTraces::Entry& e) {
    if (variables)
      for (const auto& v : e.variables) variables->push_back(v->value);
    return placed(e, path);
  };
  for (const Export& e : exports_)
    if (e.name == path && !globals_->find(intern(path)))
      return result(*traceExport(e));
  Value v;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (start == 0) {
      Value* found = globals_->find(intern(part));
      if (!found) throw WeftError(notInProgram(*globals_, exports_, part));
      v = *found;
    } else {
      v = getAttr(v, intern(part));
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!v.is(Kind::Function)) throw WeftError("'" + path + "' is " + aTypeName(v) + ", not a function");
  return graphOf(*v.as<FunctionObj>(), path, variables);
}

std::shared_ptr<const graph::Graph> Interpreter::graphOf(FunctionObj& fn, const std::string& path,
                                                         std::vector<Tensor>* variables) {
  auto result = [&](GraphTraces::Entry& e) {
    if (variables)
      for (const auto& v : e.variables) variables->push_back(v->value);
    return placed(e, path);
  };
  if (fullyAnnotated(fn)) return result(*traceAnnotated(fn));
  // Otherwise the graph its last call traced.
  if (fn.traces && !fn.traces->entries.empty()) return result(*fn.traces->entries.back());
  throw WeftError("'" + path + "' has a parameter without a tensor annotation (such as f32[None, 784]) and the "
                  "program never called it: there is no signature to trace it with");
}

int Interpreter::checkGraphFunctions() {
  return traceForCheck([](const std::string&, const SourceRange&, GraphTraces::Entry&) {});
}

int Interpreter::traceForCheck(
    const std::function<void(const std::string& name, const SourceRange& at, GraphTraces::Entry& e)>& use) {
  std::vector<FunctionObj*> fns;
  std::set<const Object*> seen;
  for (const auto& [k, v] : globals_->entries()) collect(v, fns, seen, 0);
  int errors = 0;
  bool was = ops::shapesOnly();
  ops::setShapesOnly(true);  // the program ran on shapes alone: its tensors have no data
  for (FunctionObj* fn : fns)
    if (!reportingErrors([&] { use(fn->name, fn->range, *traceAnnotated(*fn)); })) ++errors;
  for (const Export& e : exports_)  // what weft compile would trace
    if (!reportingErrors([&] { use("export " + e.name, e.site, *traceExport(e)); })) ++errors;
  ops::setShapesOnly(was);
  return errors;
}

int Interpreter::printCommPlans(std::ostream& out) {
  // The pipeline the executor runs, up to the placements: the plan is what a run does.
  // Under --no-implicit-comm an implicit collective is an error at the function (or the call)
  // whose graph needs it.
  auto print = [&](const graph::Graph& g, const std::string& name, const std::string& mesh, const SourceRange& at) {
    const graph::Graph placed = graph::runPipelineUntil(g, graph::Target::Executor, "propagate-placements");
    out << commPlanText(placed, graph::commPlanOf(placed), name, mesh);
    if (context().noImplicitComm)
      if (std::string why = graph::implicitCommError(placed, name); !why.empty()) throw WeftError(at, why);
  };
  int errors = traceForCheck([&](const std::string& name, const SourceRange& at, GraphTraces::Entry& e) {
    graph::Graph g = e.graph;
    const std::string mesh = placeOnMesh(g, e, name, at);
    if (!mesh.empty()) print(g, name, mesh, at);
  });
  // Then the graph functions the run called on a mesh without annotations, as traced there.
  const bool was = ops::shapesOnly();
  ops::setShapesOnly(true);  // their constants have no data either
  for (const PlannedCall& c : plannedCalls_)
    if (!reportingErrors([&] { print(c.graph, c.name + " (called at " + shownText(c.site.file->path) + ":" + std::to_string(c.site.begin.line) + ")",
                                  "mesh(" + spmd::meshText(c.graph.mesh) + ")", c.site); }))
      ++errors;
  ops::setShapesOnly(was);
  return errors;
}

}  // namespace weft
