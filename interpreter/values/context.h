// The execution context: the state one running program owns — the active tracer and gradient
// tapes, the random stream, plan mode, the live-bytes count and limits, the variable-access hooks.
// Each thread has a current context; an Interpreter makes its own current on its thread while it
// lives (interpreters on one thread nest), so two interpreters on two threads share nothing
// mutable. ops::apply and every layer above read their state from here, never from globals.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace weft {

namespace rt {
class Comm;
}
namespace ops {
class TraceHook;
class TapeHook;
}  // namespace ops
namespace graph {
class Tracer;
class CommCounts;
}  // namespace graph
namespace autodiff {
class Tape;
}
class VariableAccess;
class VariableReadHook;
struct SourceRange;

// Limits on tensor memory; exceeding one is a user error, not a crash (docs/robustness.md).
struct MemoryLimits {
  int64_t maxTensorBytes = int64_t(8) << 30;  // one tensor
  int64_t maxLiveBytes = int64_t(16) << 30;   // all live tensors together
};

// The bytes of the tensors allocated under one context. Each storage keeps a pointer to it, and
// may outlive the context: a counter is reused by a later context only once it is back at zero,
// so that pointer stays valid. Atomic: a mesh's devices free blocks counted in the caller's
// context (and the caller theirs) on their own threads.
struct LiveBytes {
  std::atomic<int64_t> bytes{0};
};

struct ExecutionContext {
  explicit ExecutionContext(const MemoryLimits& limits = {});
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext&) = delete;
  ExecutionContext& operator=(const ExecutionContext&) = delete;

  // values/: the live bytes, the limits, the hooks that route variable reads and writes.
  LiveBytes* liveBytes;
  MemoryLimits limits;
  // How many cores kernels and a mesh's devices use at once (--threads, WEFT_NUM_THREADS); 0: all.
  int64_t threads = 0;
  VariableAccess* variableAccess = nullptr;      // the graph being traced
  VariableReadHook* variableReadHook = nullptr;  // the innermost gradient tape
  uint32_t traceEpoch = 0;                       // which trace made a list or dict
  // ops/: the trace and tape an op reports to, the random stream (Philox key and counter), plan
  // mode (creation and random ops give shapes only).
  ops::TraceHook* traceHook = nullptr;
  ops::TapeHook* tapeHook = nullptr;
  uint64_t randomKey = 0, randomCounter = 0;
  bool shapesOnly = false;
  // Whether a program's file writes (save, save_npy, model.save, logs) happen: not under weft
  // graph, whose run only shows a graph; nor on shapes alone (writesFiles()).
  bool writesFiles = true;
  // The collectives' communicator when this context is one device of a mesh running SPMD
  // (stdlib/runtime/comm.h); null elsewhere.
  rt::Comm* comm = nullptr;
  // Where the collectives a graph runs are counted (weft run --comm-report; one device of each
  // mesh counts), and whether an implicit re-layout is an error (--no-implicit-comm); SPEC §7.1.
  graph::CommCounts* commCounts = nullptr;
  bool noImplicitComm = false;
  // Whether small collectives stay one call each (--no-comm-buckets; graph/passes/bucket_collectives.cpp).
  bool noCommBuckets = false;
  // The statement being evaluated, innermost (eval/): where an eager op on sharded tensors counts
  // its collectives. Null outside a program.
  const SourceRange* statement = nullptr;
  // graph/ and autodiff/: the innermost tracer, how many traces began, the innermost tape and the
  // next id it gives a recorded tensor.
  graph::Tracer* tracer = nullptr;
  uint32_t traces = 0;
  std::vector<uint32_t> liveTraces;     // the traces begun and not finished, innermost last
  std::vector<std::string> traceNames;  // the function each trace began for, by trace - 1
  autodiff::Tape* tape = nullptr;
  int64_t nextTapeId = 0;
  // Long work below the interpreter (the graph passes) calls pollLimits() between its steps: the
  // owner's time limit and Ctrl-C stop it there, by throwing.
  void (*poll)(void* owner) = nullptr;
  void* pollOwner = nullptr;
};

// The calling thread's current context (a thread starts with one of its own).
ExecutionContext& context();

// Whether the program's file writes happen now: not when the context says not, nor in a plan
// (weft check, `with plan()`), which has no side effects.
inline bool writesFiles() { return context().writesFiles && !context().shapesOnly; }

// The cores the current context may use at once: its `threads`, else the machine's (shared
// evenly by the ranks mpirun started on it).
int64_t threadsToUse();

// Makes the calling thread's kernels split their work on the process's pool of threadsToUse()
// threads (stdlib/runtime/thread_pool.h), made on the first call.
void enterKernelThreads();

// Stops the work in progress, by throwing, when the current context's owner says so.
inline void pollLimits() {
  ExecutionContext& c = context();
  if (c.poll) c.poll(c.pollOwner);
}

// Makes `c` the thread's current context until destroyed.
class ContextScope {
 public:
  explicit ContextScope(ExecutionContext& c);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  ExecutionContext* outer_;
};

}  // namespace weft
