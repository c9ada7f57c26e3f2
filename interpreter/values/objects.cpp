#include "objects.h"

#include <stdexcept>

#include "../../grammar/diagnostics.h"
#include "env.h"
#include "format.h"

namespace weft {
namespace {

// Dict keys are strings or integer/bool scalars, compared by value.
bool keyEquals(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is(Kind::Str)) return a.as<StrObj>()->text == b.as<StrObj>()->text;
  // i64(5) and 5 are one key, as they print alike; true stays apart from 1.
  if (a.isTensor())
    return a.tensor().asInt() == b.tensor().asInt() &&
           (a.tensor().dtype() == b.tensor().dtype() || (rt::isInt(a.tensor().dtype()) && rt::isInt(b.tensor().dtype())));
  if (a.isNone()) return true;
  return a.sameObject(b);
}

// Equal keys (keyEquals) hash alike: integers of any width by value, bools apart from them.
size_t keyHash(const Value& k) {
  if (k.is(Kind::Str)) return std::hash<std::string>()(k.as<StrObj>()->text);
  if (k.isNone()) return 0;
  if (k.isTensor()) {
    DType d = k.tensor().dtype();
    size_t kind = rt::isInt(d) ? 1 : 2 + size_t(d);
    return std::hash<int64_t>()(k.tensor().asInt()) * 31 + kind;
  }
  return std::hash<const void*>()(k.object());
}

constexpr size_t kLinearDict = 8;

}  // namespace

void checkHashable(const Value& key, Kind container) {
  if (key.isTensor() && key.tensor().isAbstract())  // compared by value, which a graph value has not yet
    throw WeftError(std::string(container == Kind::Dict ? "a dict key" : "a set element") +
                    " cannot be a graph value (" + typeNameOf(key) + "): its value is not known while tracing");
  if (key.is(Kind::Str) || key.isNone() || key.is(Kind::Module) || key.is(Kind::Variable)) return;
  if (key.isTensor() && key.tensor().rank() == 0 && !rt::isFloat(key.tensor().dtype())) return;
  if (container == Kind::Dict)
    throw WeftError("a dict key must be a string or an integer scalar, not " + std::string(kindName(key.kind())));
  throw WeftError("unhashable element: a set holds strings, integer scalars, none, modules and Variables, not " +
                  aTypeName(key));
}

const char* kindName(Kind k) {
  switch (k) {
    case Kind::None: return "none";
    case Kind::Tensor: return "tensor";
    case Kind::Str: return "str";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Set: return "set";
    case Kind::Function: return "function";
    case Kind::Builtin: return "builtin function";
    case Kind::ModuleType: return "module type";
    case Kind::Module: return "module";
    case Kind::Variable: return "Variable";
    case Kind::Namespace: return "namespace";
    case Kind::DType: return "dtype";
    case Kind::Opaque: return "object";
  }
  return "value";
}

Value* DictObj::find(const Value& key) {
  if (index_) {
    auto [lo, hi] = index_->equal_range(keyHash(key));
    for (auto it = lo; it != hi; ++it)
      if (keyEquals(entries[it->second].first, key)) return &entries[it->second].second;
    return nullptr;
  }
  for (auto& [k, v] : entries)
    if (keyEquals(k, key)) return &v;
  return nullptr;
}

void DictObj::set(const Value& key, Value v) {
  if (Value* slot = find(key)) {
    *slot = std::move(v);
    return;
  }
  checkHashable(key, kind);
  entries.emplace_back(key, std::move(v));
  if (index_) index_->emplace(keyHash(key), entries.size() - 1);
  else if (entries.size() > kLinearDict) reindex();
}

void DictObj::reindex() {
  index_ = std::make_unique<std::unordered_multimap<size_t, size_t>>();
  for (size_t i = 0; i < entries.size(); ++i) index_->emplace(keyHash(entries[i].first), i);
}

bool DictObj::erase(const Value& key) {
  // Linear, as erasing from the vector is: the later entries move down a place, so the index is
  // rebuilt.
  for (size_t i = 0; i < entries.size(); ++i)
    if (keyEquals(entries[i].first, key)) {
      entries.erase(entries.begin() + std::ptrdiff_t(i));
      if (index_) reindex();
      return true;
    }
  return false;
}

void DictObj::clear() {
  entries.clear();
  index_.reset();
}

std::string VariableObj::path() const {
  const ModuleObj* m = ownerModule();
  if (!m) return name;
  std::string p = keyInOwner;
  for (; const ModuleObj* up = m->parentModule(); m = up) p = m->keyInParent + "." + p;
  return p;
}

int64_t RangeObj::size() const {
  // In unsigned arithmetic: stop - start may not fit in int64 (range(-2**63 + 1, 2**63 - 1)).
  if (step > 0 ? stop <= start : start <= stop) return 0;
  uint64_t span = step > 0 ? uint64_t(stop) - uint64_t(start) : uint64_t(start) - uint64_t(stop);
  uint64_t by = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
  uint64_t n = span / by + (span % by != 0);
  if (n > uint64_t(INT64_MAX)) throw WeftError("range has more than 2**63 - 1 items: " + repr());
  return int64_t(n);
}

std::string RangeObj::repr() const {
  std::string s = "range(" + std::to_string(start) + ", " + std::to_string(stop);
  if (step != 1) s += ", " + std::to_string(step);
  return s + ")";
}

bool RangeObj::equals(const OpaqueObj& o) const {
  auto* r = dynamic_cast<const RangeObj*>(&o);
  return r && r->start == start && r->stop == stop && r->step == step;
}

std::string SymbolicTensor::shapeText() const {
  std::string s = "(";
  for (int i = 0; i < spec.rank(); ++i) {
    if (i) s += ", ";
    s += (i == 0 && batchIsNone) ? "None" : std::to_string(spec.shape()[i]);
  }
  return s + (spec.rank() == 1 ? ",)" : ")");
}

std::vector<std::string> NamespaceObj::memberNames() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : env->entries()) names.push_back(symbolName(k));
  return names;
}

std::string SymbolicTensor::repr() const {
  return std::string("<KerasTensor shape=") + shapeText() + " dtype=" + rt::dtypeName(spec.dtype()) + ">";
}

namespace {

// The containers waiting to be freed by the outermost container destructor running on this
// thread, or null when none runs.
thread_local std::vector<std::shared_ptr<Object>>* tToFree = nullptr;

// Hands a container that `v` holds to the outermost destructor, which drops the references one
// by one in a loop: the last one frees it there, not recursively from here. (Handing over only
// the containers `v` alone holds would not do: one shared with a sibling is freed with it.)
void release(Value& v) {
  if (!(v.is(Kind::List) || v.is(Kind::Tuple) || v.is(Kind::Dict))) return;
  tToFree->push_back(v.objectPtr());
  v = Value();
}

template <class F>
void releaseAll(F releaseItems) {
  if (tToFree) return releaseItems();
  std::vector<std::shared_ptr<Object>> pending;
  tToFree = &pending;
  releaseItems();
  while (!pending.empty()) {
    std::shared_ptr<Object> next = std::move(pending.back());
    pending.pop_back();
    next.reset();  // if that was the last reference, its destructor adds what it held to `pending`
  }
  tToFree = nullptr;
}

}  // namespace

ListObj::~ListObj() {
  releaseAll([&] { for (Value& v : items) release(v); });
}

TupleObj::~TupleObj() {
  releaseAll([&] { for (Value& v : items) release(v); });
}

DictObj::~DictObj() {
  releaseAll([&] {
    for (auto& [k, v] : entries) release(v);
  });
}

Value makeInt(int64_t v) {
  if (v >= INT32_MIN && v <= INT32_MAX) return Value(Tensor::scalar<int32_t>(int32_t(v)));
  return Value(Tensor::scalar<int64_t>(v));
}
Value makeStr(std::string s) { return Value(std::make_shared<StrObj>(std::move(s))); }
Value makeList(std::vector<Value> items) { return Value(std::make_shared<ListObj>(std::move(items))); }
Value makeTuple(std::vector<Value> items) { return Value(std::make_shared<TupleObj>(std::move(items))); }
Value makeSet(const std::vector<Value>& items) {
  auto set = std::make_shared<SetObj>();
  for (const Value& v : items) set->add(v);
  return Value(std::move(set));
}
Value makeBuiltin(std::string name, NativeFn fn, Value self) {
  return Value(std::make_shared<BuiltinObj>(std::move(name), std::move(fn), std::move(self)));
}

uint32_t currentTraceEpoch() { return context().traceEpoch; }
void setCurrentTraceEpoch(uint32_t epoch) { context().traceEpoch = epoch; }

void checkMutable(const Value& c) {
  const uint32_t epoch = context().traceEpoch;
  if (!epoch) return;
  uint32_t born = c.is(Kind::List)                          ? c.as<ListObj>()->traceEpoch
                  : c.is(Kind::Dict) || c.is(Kind::Set) ? c.as<DictObj>()->traceEpoch
                                                        : epoch;
  if (born != epoch)
    throw WeftError(std::string("a graph function cannot change a ") + kindName(c.kind()) +
                    " made outside it: the change would happen once, while tracing, not on later calls; "
                    "return the new values instead");
}

VariableAccess* variableAccess() { return context().variableAccess; }
void setVariableAccess(VariableAccess* a) { context().variableAccess = a; }
VariableReadHook* variableReadHook() { return context().variableReadHook; }
void setVariableReadHook(VariableReadHook* h) { context().variableReadHook = h; }
Tensor readVariable(VariableObj& v) {
  const ExecutionContext& c = context();
  Tensor t = c.variableAccess ? c.variableAccess->read(v) : v.value;
  if (c.variableReadHook) c.variableReadHook->onRead(v, t);
  return t;
}

namespace {
PlacementHook* gPlacementHook = nullptr;
}
PlacementHook* placementHook() { return gPlacementHook; }
void setPlacementHook(PlacementHook* h) { gPlacementHook = h; }
void writeVariable(VariableObj& v, Tensor value) {
  if (VariableAccess* access = context().variableAccess) return access->write(v, value);  // a graph being traced
  if (v.placement) {
    if (!gPlacementHook) throw std::logic_error("a placed variable without interpreter/mesh's placement hook");
    return gPlacementHook->write(v, std::move(value));
  }
  v.value = std::move(value);
}

bool isTensorLike(const Value& v) { return v.isTensor() || v.is(Kind::Variable); }

Tensor tensorOf(const Value& v, const char* what) {
  if (v.isTensor()) {
    requireLiveTrace(v.tensor());
    return v.tensor();
  }
  if (v.is(Kind::Variable)) return readVariable(*v.as<VariableObj>());
  throw WeftError(std::string(what) + " must be a tensor, not " + typeNameOf(v));
}

}  // namespace weft
