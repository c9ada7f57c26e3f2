// The op table: one OpDef per primitive (op_list.h), the row everything dispatches on — the
// evaluator through ops::apply, the tracer, the graph text parser and verifier, the graph
// executor, autodiff, SPMD partitioning and the C++ emitter. Each family's file under ops/
// defines its rows (row.h); the layers above register their columns (setVjp, setShard, setEmit).
#pragma once
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "attrs.h"
#include "ops.h"

namespace weft::ops {

// What inference knows of a tensor before it runs: its dtype and shape, which may hold
// rt::kUnknownDim (a `None` dimension of a graph input).
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};
inline TensorType typeOf(const Tensor& t) { return {t.dtype(), t.shape()}; }

struct AttrSpec {
  const char* key;
  AttrKind kind;
  bool optional = false;  // may be absent (matmul's transposes: graphs written before them stay valid)
};

// A mean's `shards` (optional, 1 when absent): it divides its sum by its elements times this, so
// that on a device holding one of `shards` blocks of the reduced axes it is that device's share
// of the global mean (the partitioner sets it; spmd/rules_reduce.cpp).
inline int64_t meanShards(const Attrs& a) { return a.has("shards") ? a.i("shards") : 1; }

// Checks the input types and attributes (a WeftError names the op and the shapes) and gives the
// result types: the op's shape and dtype inference, run while tracing, on shapes alone (plans,
// `weft check`) and by the graph verifier.
using InferFn = std::vector<TensorType> (*)(std::span<const TensorType> in, const Attrs& attrs);
// Runs the kernel on inputs with data (it checks them as InferFn does).
using RunFn = std::vector<Tensor> (*)(std::span<const Tensor> in, const Attrs& attrs);
// The scratch the kernel needs for inputs of these types, in bytes (impl::scratch in eager code,
// the arena's workspace in compiled code).
using WorkspaceFn = int64_t (*)(std::span<const TensorType> in, const Attrs& attrs);
// Writes the one result into `out` (a graph executor reusing its buffers); the inputs have the
// types the graph was checked with.
using IntoFn = void (*)(std::span<const Tensor* const> in, const Attrs& attrs, Tensor& out);
// The same for an op of several results, each into its buffer (allocated by the caller).
using IntoAllFn = void (*)(std::span<const Tensor* const> in, const Attrs& attrs, std::span<Tensor* const> out);

// A vector-Jacobian product (interpreter/autodiff/): given an op's inputs, outputs, attributes
// and the gradients of its outputs (`gout`, one per output, of each output's type), the gradient
// of each input for which `need` is true, built from ops (ops::apply), so that gradients trace
// and compile like any code. No value means no gradient (an integer input, a mask).
struct VjpArgs {
  std::span<const Tensor> in;
  std::span<const Tensor> out;
  const Attrs& attrs;
  std::span<const Tensor> gout;
  const std::vector<bool>& need;
};
using VjpResult = std::vector<std::optional<Tensor>>;
using VjpFn = VjpResult (*)(const VjpArgs& a);

// An op's C++ emission: defined by the code generator (codegen/emit/emit_rule.h), which the
// interpreter never includes; the table only holds it.
struct EmitRule;
// An op's sharding rule: which placements of its inputs it computes on locally, and what those
// give (interpreter/spmd/shard_rule.h, a layer above); the table only holds it.
struct ShardRule;

// What kind of op a row is: the passes, memory plans and tests decide by these, never by an
// op's position in the enum.
enum class Family {
  Unary,      // elementwise, one input (op_list.h's unary list, and gelu)
  Binary,     // elementwise, two broadcast inputs
  Ternary,    // elementwise, three broadcast inputs (where, clip)
  Reduce,     // over axes (sum, mean, ...)
  ArgReduce,  // along one axis: the index of the largest or smallest; the last axis's k-th largest
  MatMul,
  Shape,      // moves elements without computing (reshape, transpose, concat, cast ...)
  Indexing,   // getitem, setitem, take, one_hot
  Creation,   // no inputs, no effect (full, eye, arange, linspace)
  Random,     // no inputs, advances the random stream
  Conv,       // conv2d, the pools and their gradients (NHWC windows)
  Attention,  // scaled_dot_product_attention and its gradient (fused, blocked)
  Norm,       // layer_norm and its gradient (fused, a row at a time)
  Update,     // an optimizer's update of a variable and its slots, elementwise (adam_update)
  Collective, // all_reduce, all_gather, reduce_scatter, all_to_all, local_slice: one device's part
  State,      // constants and variables
  Output,     // print, check
  Control,    // cond, while: nodes whose bodies are blocks
};

struct OpDef {
  OpId id;
  const char* name;
  int arity;  // -1: variadic
  Family family;
  std::vector<AttrSpec> attrs;
  // Properties (tinygrad's GroupOp sets), set by each op's row:
  // the result may be its input's bytes (reshape, expand_dims, squeeze always; getitem of a whole
  // tensor and a cast to the same dtype when so): a memory plan keeps the input alive with it.
  bool view = false;
  // Elementwise, and its result at i reads only its inputs at i while it is computed: the result
  // may be written over a same-sized input that dies there; not exp and sigmoid, whose memory
  // plans the goldens hold without it (their kernels would allow it: unaryChunk reads a chunk's
  // arguments before it writes). Of the ops with several results, adam_update: each result at i
  // reads its inputs at i only.
  bool inPlace = false;
  // A step of a fused elementwise loop (fuse-elementwise): one output, unary or binary, or a
  // cast between bool and a float (the mask of a maximum's or a max's gradient).
  bool fusible = false;
  // Applied in place over a matmul's result as its epilogue (fuse-epilogues).
  bool epilogue = false;
  // The result is its first input with some elements replaced (update_row): it may take that
  // input's bytes when the input dies there, and then writes only the replaced elements — a loop
  // filling a stack row by row writes each row once, never copying the stack.
  bool overwrites = false;
  // A result's first size is an input's value (broadcast_rows' row count): inference leaves it
  // unknown (rt::kUnknownDim) and the C++ emitter sizes it when the call runs.
  bool sizedByValue = false;
  // Reads or changes state outside its inputs and outputs (variables, the random stream, the
  // output stream): never folded, merged or removed, and run in program order.
  bool effect = false;
  // Inference and kernel. Null for the graph-only ops (constant, variables, print, check, cond, while),
  // which the tracer, verifier and executor handle themselves.
  InferFn infer = nullptr;
  RunFn run = nullptr;
  WorkspaceFn workspace = nullptr;  // null: the kernel needs none
  IntoFn into = nullptr;  // elementwise ops, matmul
  IntoAllFn intoAll = nullptr;  // adam_update: the variable and its slots, each into its own
  // `into` checks its inputs itself and replaces `out` when it does not fit (empty, a new shape);
  // without this, the caller allocates `out` with the result's shape first. Either way `out` is
  // a buffer the op may overwrite.
  bool intoChecks = false;
  // Reverse-mode autodiff: the op's VJP rule. autodiff::noGradient for ops whose results do not
  // depend smoothly on their inputs (comparisons, argmax, creation); null only for the graph-only
  // ops, which a tape handles itself (interpreter/autodiff/tape.h). Filled by setVjp.
  VjpFn vjp = nullptr;
  // C++ emission: the op's rule (codegen/emit/). Filled by setEmit.
  const EmitRule* emit = nullptr;
  // SPMD: the op's sharding rule (interpreter/spmd/). Null only for the graph-only ops, which the
  // partitioner handles itself. Filled by setShard.
  const ShardRule* shard = nullptr;
};

const OpDef& opDef(OpId op);
// The columns of the layers above the op table, which it only holds: each family's file there
// registers its ops' rules at startup (autodiff::registerVjpRules, codegen::registerEmitRules,
// spmd::registerShardRules call them family by family). tests/unit/test_op_table.cpp fails for a
// row left without one.
void setVjp(std::initializer_list<OpId> ops, VjpFn rule);
void setEmit(std::initializer_list<OpId> ops, const EmitRule* rule);
void setShard(std::initializer_list<OpId> ops, const ShardRule* rule);
// The op named `name` ("add", "reduce_sum" is "sum"), or false.
bool findOp(const std::string& name, OpId& out);

// Receives every op applied to a symbolic input while a graph is traced (interpreter/graph/).
class TraceHook {
 public:
  virtual ~TraceHook() = default;
  // `inferred` are the abstract results; returns the symbolic results to hand to the program.
  virtual std::vector<Tensor> record(OpId op, std::span<const Tensor> in, const Attrs& attrs,
                                     std::vector<Tensor> inferred) = 0;
};
TraceHook* traceHook();
void setTraceHook(TraceHook* hook);

// Sees every op applied while a gradient tape records (interpreter/autodiff/tape.h), eager or
// traced, after it ran; it may tag the results.
class TapeHook {
 public:
  virtual ~TapeHook() = default;
  virtual void recorded(OpId op, std::span<const Tensor> in, const Attrs& attrs, std::vector<Tensor>& out) = 0;
};
TapeHook* tapeHook();
void setTapeHook(TapeHook* hook);
// Runs an op with a sharded input (a tensor stored as its devices' blocks) SPMD on its mesh
// (interpreter/graph/spmd_eager.cpp), returning sharded results.
using ShardedApply = std::vector<Tensor> (*)(OpId op, std::span<const Tensor> in, const Attrs& attrs);
void setShardedApply(ShardedApply run);
// A trace or a tape is active: every op must go through apply().
bool hooked();

// The one funnel: checks, then runs the kernel, infers on abstract inputs, or records a graph
// node when an input is symbolic (or the op has an effect) while a trace is active, or runs it
// SPMD when an input is sharded.
std::vector<Tensor> apply(OpId op, std::span<const Tensor> in, const Attrs& attrs = {});
Tensor apply1(OpId op, std::span<const Tensor> in, const Attrs& attrs = {});

// Subscripts as an `ints` attribute, and back.
std::vector<int64_t> encodeSubscripts(const std::vector<Subscript>& subs);
std::vector<Subscript> decodeSubscripts(const std::vector<int64_t>& code);

}  // namespace weft::ops
