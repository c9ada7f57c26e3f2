// The heap objects behind Value: strings, containers, functions, modules, variables.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../../grammar/ast/stmt.h"
#include "../../grammar/diagnostics.h"
#include "value.h"

namespace weft {

class Env;
class Interpreter;
namespace mesh {
struct Scope;      // interpreter/mesh/scope.h: an active or ended layout_map_scope
struct Placement;  // interpreter/mesh/shards.h: a variable's layout and its shards
}  // namespace mesh

struct StrObj : Object {
  explicit StrObj(std::string s) : Object(Kind::Str), text(std::move(s)) {}
  std::string text;
};

// The trace running now (0: none), so that a graph function cannot mutate a list or dict it
// captured: the change would happen once, while tracing, not on the graph's later calls.
uint32_t currentTraceEpoch();
void setCurrentTraceEpoch(uint32_t epoch);
// Throws when the running trace may not mutate container c (a list or dict).
void checkMutable(const Value& c);

// Containers free what they hold without recursing (objects.cpp): a loop can nest `x = [x]`
// millions deep, and recursive destructors would overflow the stack.
struct ListObj : Object {
  ListObj() : Object(Kind::List) {}
  explicit ListObj(std::vector<Value> v) : Object(Kind::List), items(std::move(v)) {}
  ~ListObj() override;
  std::vector<Value> items;
  uint32_t traceEpoch = currentTraceEpoch();
};

struct TupleObj : Object {
  explicit TupleObj(std::vector<Value> v) : Object(Kind::Tuple), items(std::move(v)) {}
  ~TupleObj() override;
  std::vector<Value> items;
};

// Insertion-ordered; keys are strings, integer scalars or none, compared by value, or modules
// and Variables, compared by identity.
struct DictObj : Object {
  DictObj() : Object(Kind::Dict) {}
  ~DictObj() override;
  // In insertion order. Read freely; change only through set(), erase() and clear(), which keep
  // the index.
  std::vector<std::pair<Value, Value>> entries;
  uint32_t traceEpoch = currentTraceEpoch();
  Value* find(const Value& key);
  void set(const Value& key, Value v);
  bool erase(const Value& key);  // false: not there
  void clear();

 protected:
  explicit DictObj(Kind k) : Object(k) {}

 private:
  void reindex();
  // Key hash -> entry, once the dict outgrows a linear scan (as Env's index).
  std::unique_ptr<std::unordered_multimap<size_t, size_t>> index_;
};

// Python's set: a dict whose values are all none, so that its elements follow the rules of dict
// keys (an unhashable element is an error) and iterate in insertion order.
struct SetObj : DictObj {
  SetObj() : DictObj(Kind::Set) {}
  bool has(const Value& v) { return find(v) != nullptr; }
  void add(const Value& v) { set(v, Value()); }
};
Value makeSet(const std::vector<Value>& items);
// Throws unless v may be a key of a dict or an element of a set (container is Kind::Dict or Kind::Set).
void checkHashable(const Value& v, Kind container);

// Arguments of a call, already evaluated.
struct Args {
  std::vector<Value> pos;
  std::vector<std::pair<Symbol, Value>> kw;
  Value self;  // the receiver of a bound builtin method
  SourceRange site;
};

using NativeFn = std::function<Value(Interpreter&, Args&)>;

struct BuiltinObj : Object {
  BuiltinObj(std::string n, NativeFn f, Value self = {})
      : Object(Kind::Builtin), name(std::move(n)), fn(std::move(f)), self(std::move(self)) {}
  std::string name;
  NativeFn fn;
  Value self;
  // Attributes of the builtin itself, as static methods of a class (`Layout.replicated`).
  std::shared_ptr<Env> members;
};

struct ModuleObj;
struct GraphTraces;  // interpreter/eval/graph_call.h: the graphs traced for each signature

// A closure: a `fn` declaration or a lambda with the scope it was created in.
struct FunctionObj : Object {
  FunctionObj() : Object(Kind::Function) {}
  std::string name;  // "add", "DemoModule.addprint", "<lambda>"
  const std::vector<ast::Param>* params = nullptr;
  // The parameters with the annotations `@function(input_signature=[...])` gives, which params
  // then points at (their defaults are already in `defaults`).
  std::shared_ptr<const std::vector<ast::Param>> signedParams;
  std::vector<Value> inputSpecs;  // those TensorSpecs, one per parameter (their layouts)
  std::vector<Value> defaults;  // evaluated at definition, one per param (none where absent)
  std::vector<bool> hasDefault;
  const ast::Block* body = nullptr;        // a `fn`
  const ast::Expr* lambdaBody = nullptr;   // a lambda
  const ast::TypeExpr* returnType = nullptr;
  std::shared_ptr<Env> closure;
  bool graph = false;  // declared with @function
  std::shared_ptr<GraphTraces> traces;  // of a graph function
  SourceRange range;
};

// `module Name(...) { ... }`: calling it constructs an instance.
struct ModuleTypeObj : Object {
  ModuleTypeObj() : Object(Kind::ModuleType) {}
  std::string name;
  const ast::ModuleDecl* decl = nullptr;
  std::vector<Value> defaults;
  std::vector<bool> hasDefault;
  std::shared_ptr<Env> closure;
};

struct ModuleObj : Object {
  ModuleObj() : Object(Kind::Module) {}
  std::string typeName;  // "DemoModule"
  std::string name;      // "demo_module"
  std::shared_ptr<Env> attrs;
  bool built = false;
  bool trainable = true;
  // Where this module hangs below the module that adopted it first (for object paths). Weak, as
  // a variable's owner is: the cycle collector may free that module while this one lives on.
  std::weak_ptr<ModuleObj> parent;
  ModuleObj* parentModule() const { return parent.lock().get(); }  // null once it is freed
  std::string keyInParent;  // "d1", "blocks.0", or a layer name inside a Sequential
  // Keras' layer keywords: `input_shape=[...]` (none when not given), and the shape of the
  // last output, for summary() (its batch dimension shows as None unless an Input fixed it).
  Value inputShape;
  std::optional<Shape> outputShape;
  bool batchFixed = false;
  int symbolicCalls = 0;  // calls on Keras symbolic tensors so far
  // The innermost layout_map_scope active when it was constructed (SPEC §7), if any.
  std::shared_ptr<mesh::Scope> layoutScope;
};


struct VariableObj : Object {
  VariableObj() : Object(Kind::Variable) {}
  Tensor value;
  std::string name;  // "demo_module/x"
  bool trainable = true;     // its own flag, unless a layer holding it is frozen
  bool ownTrainable = true;  // Variable(trainable=...) or `v.trainable = ...`: unfreezing a layer keeps it
  std::weak_ptr<ModuleObj> owner;  // the module whose attribute it became first (weak: see parent)
  ModuleObj* ownerModule() const { return owner.lock().get(); }
  std::string keyInOwner;      // "x", "kernels.0"
  bool named = false;          // an explicit name= was given
  std::string scope;           // the name scope it was made in ("block"), which prefixes its name
  std::string path() const;    // object path from the outermost owner
  // Set when it was created in a layout_map_scope or adopted by a module constructed in one.
  std::shared_ptr<mesh::Placement> placement;
  // An optimizer's slot (Adam's m and v, momentum): without a layout of its own, a sharded step
  // stores it split over the mesh's data-parallel dimensions (placeOnMesh, docs/layouts.md).
  bool optimizerSlot = false;
};

// While a graph function is traced, reading a variable gives a graph value and writing one
// records an assignment (interpreter/graph/tracer.h); otherwise both use `value`.
class VariableAccess {
 public:
  virtual ~VariableAccess() = default;
  virtual Tensor read(VariableObj& v) = 0;
  virtual void write(VariableObj& v, const Tensor& value) = 0;
};
VariableAccess* variableAccess();
void setVariableAccess(VariableAccess* a);
// The value a program sees when it reads v: its tensor, or a graph value while tracing.
Tensor readVariable(VariableObj& v);
// A tensor operand: a tensor, or the current value of a Variable. Errors name `what`.
Tensor tensorOf(const Value& v, const char* what);
bool isTensorLike(const Value& v);
// Sees every variable read (a gradient tape marking its leaves, interpreter/autodiff/tape.h); it
// may tag the tensor read.
class VariableReadHook {
 public:
  virtual ~VariableReadHook() = default;
  virtual void onRead(VariableObj& v, Tensor& value) = 0;
};
VariableReadHook* variableReadHook();
void setVariableReadHook(VariableReadHook* h);
// A variable that a layout map placed keeps one block per device (interpreter/mesh/shards.h),
// which every write updates. interpreter/mesh sets the hook: values know nothing of layouts.
class PlacementHook {
 public:
  virtual ~PlacementHook() = default;
  virtual void write(VariableObj& v, Tensor value) = 0;
  // " layout=Layout([_, 'model'], grid)" when a layout map gave v its layout, else "" (its repr).
  virtual std::string layoutRepr(const VariableObj& v) = 0;
};
PlacementHook* placementHook();
void setPlacementHook(PlacementHook* h);
// Writes a new value (assign, assign_add): recorded while a graph is traced, else stored, in
// every device's block when v is placed.
void writeVariable(VariableObj& v, Tensor value);

// An imported file, or a builtin namespace such as `random`.
struct NamespaceObj : Object {
  NamespaceObj(std::string n, std::shared_ptr<Env> e) : Object(Kind::Namespace), name(std::move(n)), env(std::move(e)) {}
  std::vector<std::string> memberNames() const;
  std::string name;
  std::shared_ptr<Env> env;
};

// Native objects added by later subsystems (meshes, layouts, specs, optimizers) implement this.
struct OpaqueObj : Object {
  OpaqueObj() : Object(Kind::Opaque) {}
  virtual std::string typeName() const = 0;
  virtual std::string repr() const = 0;
  virtual std::optional<Value> getAttr(Interpreter&, Symbol) { return std::nullopt; }
  virtual bool equals(const OpaqueObj& o) const { return this == &o; }
  // `obj[key]` and `obj[key] = v` (a layout map); nullopt / false: not supported.
  virtual std::optional<Value> getItem(Interpreter&, const Value&) { return std::nullopt; }
  virtual bool setItem(const Value&, Value, const SourceRange&) { return false; }
  // `with obj { ... }`: a context such as a layout map scope.
  virtual bool isContext() const { return false; }
  virtual void enter(Interpreter&) {}
  virtual void exit(Interpreter&) {}
  // An iterable object (`batches(...)`): its items one at a time, as Interpreter::iterate gives
  // them (each call stores the next item and returns true, or returns false at the end); an
  // empty function: not iterable. `len(obj)` is length(), when it has one.
  virtual std::function<bool(Value&)> iterator() { return {}; }
  virtual std::optional<int64_t> length() const { return std::nullopt; }
};

// `range(start, stop, step)`: iterated lazily so that long loops allocate nothing up front.
struct RangeObj : OpaqueObj {
  RangeObj(int64_t a, int64_t b, int64_t s) : start(a), stop(b), step(s) {}
  int64_t start, stop, step;
  int64_t size() const;
  std::string typeName() const override { return "range"; }
  std::string repr() const override;
  bool equals(const OpaqueObj& o) const override;
};

// `enumerate(items, start)` and `zip(a, b, ...)`: lazy as range, their items made as they are
// taken, so that `enumerate(range(10**12))` costs nothing until iterated.
struct EnumerateObj : OpaqueObj {
  EnumerateObj(Value v, int64_t s) : items(std::move(v)), start(s) {}
  Value items;
  int64_t start;
  std::string typeName() const override { return "enumerate"; }
  std::string repr() const override { return "<enumerate>"; }
};
struct ZipObj : OpaqueObj {
  explicit ZipObj(std::vector<Value> v) : items(std::move(v)) {}
  std::vector<Value> items;
  std::string typeName() const override { return "zip"; }
  std::string repr() const override { return "<zip>"; }
};

// A Keras symbolic tensor: the output of `Input(...)` or of a layer called on one. It carries a
// shape-only tensor (batch dimension 1 stands for None) and the call that produced it, so that
// `Model(inputs, outputs)` can replay the graph on real data.
struct SymbolicTensor : OpaqueObj {
  Tensor spec;           // abstract
  bool batchIsNone = true;
  Value layer;           // the module that produced it (an InputLayer for inputs)
  std::vector<Value> inputs;  // the SymbolicTensors it was called on
  std::vector<std::pair<Symbol, Value>> kwargs;  // the call's other keyword arguments
  int nodeIndex = 0;  // which call of `layer` made it (Keras' node index, for "Connected to")
  std::string typeName() const override { return "KerasTensor"; }
  std::string repr() const override;
  std::string shapeText() const;  // "(None, 10)"
};

// An f-string inside a traced @function with traced tensors in its fields: print() makes it part
// of its print node, so the text is made on every call of the graph. `format` is a print node's
// format (braces doubled, `{:spec}` for each of `tensors`).
struct TracedText : OpaqueObj {
  std::string format;
  std::vector<Tensor> tensors;
  std::string typeName() const override { return "str"; }
  std::string repr() const override { return format; }
};

// A count, dimension or index the interpreter makes (len, .shape, a range item): i32 when it
// fits, else i64, as an integer literal, so that it never wraps.
Value makeInt(int64_t v);
Value makeStr(std::string s);
Value makeList(std::vector<Value> items);
Value makeTuple(std::vector<Value> items);
Value makeBuiltin(std::string name, NativeFn fn, Value self = {});

}  // namespace weft
