// The eager evaluator: walks the AST, binding names in Envs and calling ops on tensors.
// The same evaluator will trace graphs by running on symbolic tensors.
#pragma once
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../../grammar/ast/stmt.h"
#include "../../grammar/diagnostics.h"
#include "../values/env.h"
#include "../values/objects.h"
#include "cycle_roots.h"
#include "exports.h"
#include "graph_call.h"
#include "stack_bound.h"

namespace weft {

namespace graph {
struct Graph;  // interpreter/graph/graph.h
}

// docs/robustness.md. A step is a while-loop iteration, an item taken from an iterable (a
// `for` iteration, list(range(n)), ...) or a call of a Weft function: the points where Ctrl-C
// is checked, so that no loop runs past a limit.
struct InterpreterLimits {
  int maxCallDepth = 1000;  // Weft-level recursion, as Python's default
  int64_t maxSteps = 0;     // 0: no limit
  double timeoutSeconds = 0;  // wall clock since the interpreter was created; 0: no limit
};

// True for a place in the standard library's own Weft code.
bool inStdlib(const SourceRange& r);

// Keras symbolic tensors, also inside a list or tuple argument (`Add()([a, b])`).
bool holdsSymbolic(const Value& v);
Value mapSymbolic(const Value& v, const std::function<Value(const Value&)>& f);

// The names a block binds (assignments, loop targets), in nested blocks too, each once.
void assignedNames(const ast::Block& block, std::vector<Symbol>& names);

// The attributes and methods of a tensor (attributes.cpp).
std::vector<std::string> tensorAttributeNames();
std::vector<std::string> setMethodNames();


class Interpreter {
  // The interpreter's execution context (values/context.h), current on its thread while it
  // lives; declared first, so that everything below is made and freed under it. A new
  // interpreter takes the memory limits of the context it is made in.
  ExecutionContext context_{weft::context().limits};
  ContextScope contextScope_{context_};

 public:
  explicit Interpreter(std::ostream& out, std::ostream& err);
  ~Interpreter();

  // Parses and runs a file as the main program; prints errors; returns the exit status.
  int runFile(const std::string& path);
  // Parses and runs source text in the main program's globals (the REPL and tests use this).
  // `echo` receives the value of each bare expression statement that is not none.
  int runSource(std::shared_ptr<const SourceFile> file, std::function<void(const Value&)> echo = {});
  // Parses and statically checks a file without running it; prints errors; returns the exit status.
  // `parsed`, when given, receives the program once it parses (the interpreter keeps it).
  int checkFile(const std::string& path, const ast::Program** parsed = nullptr);
  // The command-line arguments a program sees as `args` (SPEC §9); an empty list by default.
  void setProgramArgs(const std::vector<std::string>& args);

  // The static graph of a graph function of the program run so far: a global function's name, a
  // method path (`demo.addprint`) or an export's name (`weft graph`, SPEC §9). Throws WeftError
  // when fn is unknown or cannot be traced.
  // `variables`, when given, receives the current values of the variables behind its slots.
  std::shared_ptr<const graph::Graph> graphOf(const std::string& fn, std::vector<Tensor>* variables = nullptr);
  // The same of a function value (`path` names it in messages).
  std::shared_ptr<const graph::Graph> graphOf(FunctionObj& fn, const std::string& path, std::vector<Tensor>* variables);
  // Called after each call of a graph function's traced graph with the graph's entry, its inputs,
  // the values its variables had before the call and its outputs (the compiled-code tests record
  // programs' calls with it).
  using GraphCallRecorder = std::function<void(const FunctionObj&, const GraphTraces::Entry&, const std::vector<Tensor>&,
                                               const std::vector<Tensor>&, const std::vector<Tensor>&)>;
  void setGraphCallRecorder(GraphCallRecorder r) { recorder_ = std::move(r); }
  // The entry points the program registered with export() (SPEC §9), in order.
  const std::vector<Export>& exports() const { return exports_; }
  void addExport(Export e) { exports_.push_back(std::move(e)); }
  // Traces an export from its signature: its graph and the variables behind the graph's slots.
  std::unique_ptr<GraphTraces::Entry> traceExport(const Export& e);

  // A stdlib module by name or a file by path, as `import` finds it (imports.cpp); and a source
  // file run as a module of its own (the ONNX importer's generated source).
  Value importModule(const std::string& spec, bool isPath, const SourceRange& at);
  Value runModuleFile(std::shared_ptr<const SourceFile> file, const std::string& name);

  // Evaluation entry points used by builtins.
  Value call(const Value& callee, Args& args);
  Value getAttr(const Value& obj, Symbol name);
  // Calls body with each item of a list, tuple, dict (keys), string, range or tensor (rows);
  // body returns true to stop early.
  void forEach(const Value& iterable, const std::function<bool(Value)>& body);
  // The items of an iterable one at a time (forEach and zip pull from it): each call stores the
  // next item and returns true, or returns false at the end.
  std::function<bool(Value&)> iterate(const Value& iterable);
  void setAttr(const Value& obj, Symbol name, Value v);

  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }
  InterpreterLimits& limits() {
    nextLimitCheck_ = 0;  // the caller may change them: recompute at the next step
    return limits_;
  }
  // Set from a signal handler (Ctrl-C): the running statement stops with an "interrupted" error
  // at the next loop iteration or call.
  static void requestInterrupt() { interruptRequested_ = true; }
  // Also counts a step against the step and time limits. `at` locates the error.
  void checkInterrupt(const SourceRange& at = {}) {
    if (interruptRequested_) [[unlikely]] {
      interruptRequested_ = false;
      throw WeftError(at, "interrupted");
    }
    if (++steps_ >= nextLimitCheck_) [[unlikely]] checkLimits(at);
  }
  const std::shared_ptr<Env>& globals() { return globals_; }
  // A function written in C++ by its name, whatever the program binds to that name.
  Value native(const std::string& name) const;
  // A name the Weft prelude defines (loading the prelude first if it is not yet), or none.
  Value preludeValue(const std::string& name, const SourceRange& at);
  // Names known in a scope chain, for completion and suggestions.
  std::vector<std::string> visibleNames() const;

  // REPL support (introspect.cpp).
  // Parses `file` as one expression, name-checked against the globals; prints errors, null on any.
  const ast::Expr* parseExpression(std::shared_ptr<const SourceFile> file);
  // Evaluates a parsed expression in the globals; throws WeftError.
  Value evalInGlobals(const ast::Expr& e);
  // Runs fn; a WeftError it throws is printed as any runtime error is. False when one was thrown.
  bool reportingErrors(const std::function<void()>& fn);
  // visibleNames() with the prelude loaded first, so completion offers the standard library.
  std::vector<std::string> completionNames();
  // The attribute names getAttr accepts on v that can be listed without running user code.
  // Names starting with '_' are private by convention (the stdlib layers' internals) and left out.
  static std::vector<std::string> attributeNames(const Value& v);

  // Module machinery (modules.cpp), used by builtins.
  std::string uniqueModuleName(const std::string& typeName);
  // Keras' clear_session(): the automatic names start again (`dense`, `dense_1`, ...).
  void clearModuleNames();
  // Name scopes (name_scope.cpp): TF's `with name_scope("block")` and a module's own
  // `with self.name_scope` (explicit), and the module whose code runs, pushed by each call of
  // a module or one of its methods. Variables made inside explicit scopes take their path in
  // their name; graph nodes take the whole path, which `weft graph` pictures group by.
  struct NameScope {
    std::string name;
    const ModuleObj* module = nullptr;  // a module's own scope
    bool explicitScope = false;
  };
  class ScopeGuard {
   public:
    ScopeGuard(Interpreter& in, NameScope s);
    ~ScopeGuard();
    ScopeGuard(ScopeGuard&& o) noexcept : in_(o.in_) { o.in_ = nullptr; }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

   private:
    Interpreter* in_;
  };
  // The scope of fn's module when fn is a method (or defined inside one), pushed until the
  // guard ends; none when that module's scope is already the innermost.
  std::optional<ScopeGuard> methodScope(const FunctionObj& fn);
  void pushScope(NameScope s);
  void popScope();
  std::string variableScope() const;  // the explicit scopes: "block/inner"
  std::string graphScope() const;     // all of them, a module's twice once: "mlp/hidden/block"
  void adopt(ModuleObj* owner, const std::string& key, const Value& v);
  std::vector<Value> collectVariables(ModuleObj* root);
  std::vector<Value> collectSubmodules(ModuleObj* root);
  // The layers a module holds directly (Keras' `model.layers` of a subclassed model).
  std::vector<Value> childModules(ModuleObj* m);
  void setTrainable(ModuleObj* root, bool trainable);
  // Runs the module's build (on an input, or an input shape given as a list) and marks it built:
  // at its first call, or when the program calls `layer.build(shape)` as Keras 3 lets it.
  void buildModule(ModuleObj& m, const Value& input, const SourceRange& site);
  // tf.config.run_functions_eagerly: @function bodies run as plain functions (for debugging, and
  // for the tests that compare graph and eager results).
  void setRunFunctionsEagerly(bool on) { functionsEagerly_ = on; }
  // While a graph function's body is being traced (not while a layer builds its weights).
  static bool insideGraphFunction();
  // Envs captured by closures and modules form reference cycles: the cycle collector
  // (cycle_collector.h) frees those nothing else holds, and the rest are cleared at exit.
  void trackEnv(const std::shared_ptr<Env>& env) { cycleCandidates_ += capturedEnvs_.add(env); }
  // A list or dict that a value was stored into (it may now hold itself).
  void trackContainer(const Value& c) { cycleCandidates_ += containers_.add(c.objectPtr()); }
  // Runs the cycle collector when enough new candidates have been tracked since the last run:
  // at least minCycleInterval_, and as many as the values and links that survived the last run
  // (which the next looks at again), so that its cost stays proportional to the work of the program. Called between statements.
  void maybeCollectCycles() {
    if (cycleCandidates_ >= nextCycleCollection_) [[unlikely]] collectCyclesNow();
  }
  void collectCyclesNow();
  struct CycleStats {
    int64_t runs = 0, freed = 0;
  };
  const CycleStats& cycleStats() const { return cycleStats_; }
  // Keras' learning phase: true while training, so that Dropout is active only then.
  bool& learningPhase() { return learningPhase_; }
  // Layout map scopes and the variables they placed: interpreter/mesh's state (mesh::stateOf,
  // scope.h), which it makes on first use.
  std::shared_ptr<void>& layoutState() { return layoutState_; }

 private:
  enum class Flow { Normal, Break, Continue, Return };
  struct Frame {
    Value returnValue;
    const std::string* function = nullptr;  // the function whose body runs; none at top level or in a module body
  };

  // Statements (exec.cpp)
  Flow execBlock(const ast::Block& block, const std::shared_ptr<Env>& env, Frame& frame);
  Flow exec(const ast::Stmt& s, const std::shared_ptr<Env>& env, Frame& frame);
  void assignTo(const ast::Expr& target, Value v, const std::shared_ptr<Env>& env);
  void execAugAssign(const ast::AugAssign& s, const std::shared_ptr<Env>& env, const Frame& frame);
  Flow execIf(const ast::If& s, size_t branch, const std::shared_ptr<Env>& env, Frame& frame);
  // Control flow on graph values while tracing (graph_control.cpp): cond and while nodes.
  Flow traceCond(const ast::Node& at, const Tensor& cond, const std::function<Flow()>& thenPart,
                 const std::function<Flow()>& elsePart, const std::vector<Symbol>& names,
                 const std::shared_ptr<Env>& env, Frame& frame);
  // `x and y`, `x or y` on a graph value x: logical_and / logical_or of both truth values.
  Tensor traceLogical(const ast::Logical& l, const Tensor& x, const Value& y);
  // A check node that fails the call with `message` at `at` when the bool scalar `cond` is false.
  void traceCheck(const ast::Node& at, const Tensor& cond, const std::string& message);
  Flow traceWhile(const ast::While& w, const std::shared_ptr<Env>& env, const Frame& frame);
  Flow traceForRange(const ast::For& f, const RangeObj& range, const std::shared_ptr<Env>& env, const Frame& frame);
  void execImport(const ast::Stmt& s, const std::shared_ptr<Env>& env);
  Flow execWith(const ast::With& s, const std::shared_ptr<Env>& env, Frame& frame);

  // Expressions (eval.cpp)
  Value eval(const ast::Expr& e, const std::shared_ptr<Env>& env);
  Value evalName(const ast::Name& n, const std::shared_ptr<Env>& env);
  Value evalCall(const ast::Call& c, const std::shared_ptr<Env>& env);
  Value evalIndex(const ast::Index& ix, const std::shared_ptr<Env>& env);
  Value evalCompare(const ast::Compare& c, const std::shared_ptr<Env>& env);
  Value evalListComp(const ast::ListComp& c, const std::shared_ptr<Env>& env);
  Value evalFString(const ast::FString& f, const std::shared_ptr<Env>& env);

  // Declarations and calls (call.cpp)
  // @function(input_signature=[TensorSpec(...), ...]): the specs become fn's annotations.
  void applyInputSignature(FunctionObj& fn, const ast::Call& decorator, const std::shared_ptr<Env>& env);
  Value makeFunction(const std::string& name, const std::vector<ast::Param>& params, const ast::Block* body,
                     const ast::Expr* lambdaBody, const ast::TypeExpr* ret, bool graph, SourceRange range,
                     const std::shared_ptr<Env>& env);
  Value callFunction(FunctionObj& fn, Args& args);
  // Graph functions (graph_call.cpp): runs the graph traced for the arguments' signature,
  // tracing it first when there is none; inside a trace, the body is traced inline.
  Value callGraphFunction(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site);
  Value traceInto(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site);
  // On shapes alone (weft check) a graph function's body runs eagerly; one without full
  // annotations is also traced once per signature, and kept in plannedCalls_ when it is on a mesh.
  void planGraphCall(FunctionObj& fn, const std::shared_ptr<Env>& local, const SourceRange& site);
  // Traces fn's body with the parameters given types bound to graph inputs (the others as bound
  // in `local`).
  std::unique_ptr<GraphTraces::Entry> traceGraph(FunctionObj& fn, const std::shared_ptr<Env>& local,
                                                 const std::vector<ParamInputs>& inputs, const SourceRange& site);

 public:
  // The graph of a graph function traced from its annotations alone (weft check, weft graph);
  // throws WeftError when a parameter has no tensor annotation or tracing fails.
  std::unique_ptr<GraphTraces::Entry> traceAnnotated(FunctionObj& fn);
  // Traces fn with every parameter a graph input of the given type.
  std::unique_ptr<GraphTraces::Entry> traceSignature(FunctionObj& fn, const std::vector<graph::TensorType>& types,
                                                     const SourceRange& site);
  // weft check: traces every graph function reachable from the globals whose parameters are all
  // annotated; reports each failure and returns how many there were.
  int checkGraphFunctions();
  // weft check --comm-plan: the same traces; for each whose variables lie on a mesh, the
  // collectives its sharded run needs (SPEC §7.1). Returns how many traces failed.
  int printCommPlans(std::ostream& out);
  // Traces what weft check traces and hands each trace to `use`; returns how many failed.
  int traceForCheck(
      const std::function<void(const std::string& name, const SourceRange& at, GraphTraces::Entry& e)>& use);

 private:
  std::vector<const FunctionObj*> tracing_;
  std::vector<Export> exports_;
  GraphCallRecorder recorder_;
  // The graphs on a mesh that graph functions without full annotations traced when called during
  // a run on shapes alone (fit's train step): weft check --comm-plan prints their plans too.
  struct PlannedCall {
    std::string name;
    SourceRange site;
    graph::Graph graph;  // placed on its mesh
  };
  std::vector<PlannedCall> plannedCalls_;
  std::set<std::pair<const FunctionObj*, std::string>> plannedSignatures_;
  bool functionsEagerly_ = false;  // graph functions whose bodies are being traced
  std::shared_ptr<Env> bindParams(const std::string& fnName, const std::vector<ast::Param>& params,
                                  const std::vector<Value>& defaults, const std::vector<bool>& hasDefault,
                                  Args& args, std::shared_ptr<Env> parent);
  Value constructModule(ModuleTypeObj& type, Args& args);
  Value callModule(ModuleObj& m, Args& args);
  // A module called on Keras symbolic tensors: runs on shapes alone and records the call.
  Value callModuleSymbolic(ModuleObj& m, Args& args);

  // Imports and the prelude (imports.cpp)
  // `at`: the first use of a name that only the prelude defines, where a failure is reported.
  void loadPrelude(const SourceRange& at);
  // Parses and checks names against what `scope` can see; prints errors and returns null on any.
  const ast::Program* parseOrReport(std::shared_ptr<const SourceFile> file, const std::shared_ptr<Env>& scope);
  void reportError(const WeftError& e);

  std::ostream& out_;
  std::ostream& err_;
  InterpreterLimits limits_;
  std::shared_ptr<Env> native_;   // builtins written in C++
  std::shared_ptr<Env> prelude_;  // the stdlib prelude written in Weft (loaded on first miss)
  std::shared_ptr<Env> globals_;  // the main program
  bool preludeLoaded_ = false;
  std::vector<std::unique_ptr<ast::Program>> programs_;  // kept alive: functions point into them
  std::map<std::string, Value> importCache_;
  std::vector<std::string> importStack_;  // canonical paths of the files being imported
  std::vector<std::string> importDisplay_;  // the same, as shown in messages
  std::filesystem::path mainDir_;
  std::vector<std::filesystem::path> fileDirs_;  // directory of the file being executed
  std::map<std::string, int> nameCounters_;
  std::vector<NameScope> scopes_;
  CycleRoots<Env> capturedEnvs_;
  CycleRoots<Object> containers_;
  // 10,000. The environment variable WEFT_CYCLE_INTERVAL=N (N >= 1) makes it a fixed N, so that
  // the tests can run with a collection every few candidates (docs/robustness.md).
  int64_t minCycleInterval_ = 10000;
  bool fixedCycleInterval_ = false;
  int64_t cycleCandidates_ = 0, nextCycleCollection_ = 10000;
  CycleStats cycleStats_;
  static inline volatile std::sig_atomic_t interruptRequested_ = false;
  bool learningPhase_ = false;
  std::shared_ptr<void> layoutState_;
  int callDepth_ = 0;
  // Step and time limits (limits.cpp): checkLimits runs when steps_ reaches nextLimitCheck_.
  void checkLimits(const SourceRange& at);
  void checkTime(const SourceRange& at);
  // The context's poll (values/context.h): the time limit and Ctrl-C, for work below eval.
  static void pollFromBelow(void* self);
  [[noreturn]] void recursionTooDeep(const SourceRange& at, const std::string& function);
  int64_t steps_ = 0;
  int64_t nextLimitCheck_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace weft
