#include "args.h"

#include <cmath>

#include "operators.h"
#include "suggest.h"
#include "../ops/ops.h"
#include "../values/format.h"

namespace weft {

std::optional<DType> dtypeFromString(const std::string& s) {
  if (auto d = rt::dtypeFromName(s)) return d;
  if (s == "float32") return DType::F32;
  if (s == "float64") return DType::F64;
  if (s == "int32") return DType::I32;
  if (s == "int64") return DType::I64;
  return std::nullopt;
}

ArgReader::ArgReader(Args& args, std::string fn, std::initializer_list<const char*> params) : fn_(std::move(fn)) {
  std::vector<bool> optional;
  for (const char* p : params) {
    std::string n = p;
    bool opt = !n.empty() && n.back() == '?';
    if (opt) n.pop_back();
    names_.push_back(n);
    optional.push_back(opt);
  }
  values_.resize(names_.size());
  present_.assign(names_.size(), false);
  if (args.pos.size() > names_.size())
    throw WeftError(args.site, fn_ + "() takes at most " + std::to_string(names_.size()) + " arguments, got " +
                                   std::to_string(args.pos.size()));
  for (size_t i = 0; i < args.pos.size(); ++i) values_[i] = std::move(args.pos[i]), present_[i] = true;
  for (auto& [k, v] : args.kw) {
    const std::string& key = symbolName(k);
    size_t i = 0;
    while (i < names_.size() && names_[i] != key) ++i;
    if (i == names_.size()) throw WeftError(args.site, unexpectedKeywordMessage(fn_, key, names_));
    if (present_[i]) throw WeftError(args.site, fn_ + "() got multiple values for argument '" + key + "'");
    values_[i] = std::move(v);
    present_[i] = true;
  }
  for (size_t i = 0; i < names_.size(); ++i)
    if (!present_[i] && !optional[i]) throw WeftError(args.site, fn_ + "() missing argument '" + names_[i] + "'");
}

void ArgReader::fail(int i, const std::string& what) const {
  throw WeftError(fn_ + "() argument '" + names_[size_t(i)] + "' " + what);
}

Tensor ArgReader::tensor(int i) const {
  const Value& v = get(i);
  if (!isTensorLike(v)) fail(i, "must be a tensor, not " + typeNameOf(v));
  return tensorOf(v, "argument");
}

Value ArgReader::tensorValue(int i) const {
  const Value& v = get(i);
  if (v.isTensor()) return v;
  return Value(tensor(i));
}

int64_t ArgReader::integer(int i, int64_t dflt) const {
  if (!has(i)) return dflt;
  const Value& v = get(i);
  if (!isTensorLike(v)) fail(i, "must be an integer, not " + typeNameOf(v));
  const Tensor& t = tensorOf(v, "argument");
  if (t.rank() != 0 || !rt::isInt(t.dtype())) fail(i, "must be an integer scalar, not " + typeNameOf(v));
  if (const Literal* l = v.literal()) return l->i;
  return t.asInt();
}

double ArgReader::number(int i, double dflt) const {
  if (!has(i)) return dflt;
  const Value& v = get(i);
  if (!isTensorLike(v) || tensorOf(v, "argument").rank() != 0) fail(i, "must be a number, not " + typeNameOf(v));
  if (const Literal* l = v.literal()) return l->toDouble();  // 0.1 as a double, not f32's 0.1
  return tensorOf(v, "argument").asDouble();
}

bool ArgReader::flag(int i, bool dflt) const {
  if (!has(i)) return dflt;
  return truthy(get(i));
}

bool ArgReader::boolean(int i, bool dflt, const std::string& trueIs) const {
  if (!has(i)) return dflt;
  const Value& v = get(i);
  const Tensor* t = v.isTensor() ? &v.tensor() : nullptr;
  if (!t || t->dtype() != DType::Bool || t->rank() != 0 || t->isAbstract() || t->isSymbolic()) {
    std::string actual = typeNameOf(v);
    if (t && t->rank() == 0 && !t->isAbstract()) actual = toRepr(v) + " (" + actual + ")";
    fail(i, "must be true" + (trueIs.empty() ? "" : " (" + trueIs + ")") + " or false, not " + actual);
  }
  return t->asDouble() != 0;
}

std::string ArgReader::str(int i) const {
  const Value& v = get(i);
  if (!v.is(Kind::Str)) fail(i, "must be a string, not " + typeNameOf(v));
  return v.as<StrObj>()->text;
}

DType ArgReader::dtype(int i, DType dflt) const {
  if (!has(i)) return dflt;
  const Value& v = get(i);
  if (v.is(Kind::DType)) return v.dtypeValue();
  if (v.is(Kind::Str))
    if (auto d = dtypeFromString(v.as<StrObj>()->text)) return *d;
  fail(i, std::string("must be a dtype: ") + kDTypeList + ", not " + toRepr(v));
}

Shape ArgReader::shape(int i) const {
  try {
    return shapeFromValue(get(i), "shape");
  } catch (WeftError& e) {
    fail(i, e.message);
  }
}

std::vector<int64_t> ArgReader::ints(int i) const {
  const Value& v = get(i);
  std::vector<int64_t> out;
  if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    const auto& items = v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items;
    for (const auto& item : items) {
      if (!isTensorLike(item) || tensorOf(item, "x").rank() != 0 || !rt::isInt(tensorOf(item, "x").dtype()))
        fail(i, "must hold integers, not " + typeNameOf(item));
      out.push_back(tensorOf(item, "x").asInt());
    }
    return out;
  }
  out.push_back(integer(i));
  return out;
}

std::vector<int> ArgReader::axes(int i) const {
  std::vector<int> out;
  if (!has(i)) return out;
  for (int64_t a : ints(i)) {
    if (a < INT32_MIN || a > INT32_MAX) fail(i, "axis " + std::to_string(a) + " is out of range");
    out.push_back(int(a));
  }
  return out;
}

std::vector<Value> ArgReader::items(int i) const {
  const Value& v = get(i);
  if (v.is(Kind::List)) return v.as<ListObj>()->items;
  if (v.is(Kind::Tuple)) return v.as<TupleObj>()->items;
  fail(i, "must be a list or tuple, not " + typeNameOf(v));
}

std::vector<std::pair<Symbol, Value>> ArgReader::keywords(int i) const {
  const Value& v = get(i);
  if (!v.is(Kind::Dict)) fail(i, "must be a dict, not " + typeNameOf(v));
  std::vector<std::pair<Symbol, Value>> kw;
  for (const auto& [k, x] : v.as<DictObj>()->entries) {
    if (!k.is(Kind::Str)) fail(i, "must be a dict with string keys, not one with the key " + toRepr(k));
    kw.emplace_back(intern(k.as<StrObj>()->text), x);
  }
  return kw;
}

Shape shapeFromValue(const Value& v, const std::string& what) {
  Shape s;
  auto add = [&](const Value& d) {
    if (!isTensorLike(d) || tensorOf(d, "x").rank() != 0 || !rt::isInt(tensorOf(d, "x").dtype()))
      throw WeftError(what + " must hold integers, not " + typeNameOf(d));
    int64_t n = tensorOf(d, "x").asInt();
    if (n < 0) throw WeftError(what + " cannot have a negative dimension (" + std::to_string(n) + ")");
    if (s.rank() == rt::kMaxRank) throw WeftError(what + " has more than " + std::to_string(rt::kMaxRank) + " dimensions");
    s.push_back(n);
  };
  if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    for (const auto& d : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items) add(d);
  } else if (isTensorLike(v) && tensorOf(v, "x").rank() == 1 && rt::isInt(tensorOf(v, "x").dtype())) {
    const Tensor& t = tensorOf(v, "x");
    for (int64_t i = 0; i < t.numel(); ++i) add(Value(Tensor::scalar<int64_t>(t.asInt(i))));
  } else {
    add(v);
  }
  return s;
}

namespace {

// Walks nested lists of scalars, collecting the shape and the leaves.
void flatten(const Value& v, int depth, Shape& shape, std::vector<Value>& leaves, const std::string& what) {
  if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    const auto& items = v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items;
    if (depth == shape.rank()) {
      if (!leaves.empty()) throw WeftError(what + ": nested lists are ragged");
      if (depth == rt::kMaxRank) throw WeftError(what + ": too many dimensions");
      shape.push_back(int64_t(items.size()));
    } else if (shape[depth] != int64_t(items.size())) {
      throw WeftError(what + ": nested lists are ragged (lengths " + std::to_string(shape[depth]) + " and " +
                      std::to_string(items.size()) + ")");
    }
    for (const auto& item : items) flatten(item, depth + 1, shape, leaves, what);
    return;
  }
  if (depth != shape.rank()) throw WeftError(what + ": nested lists are ragged");
  if (!isTensorLike(v)) throw WeftError(what + ": cannot make a tensor from " + aTypeName(v));
  leaves.push_back(v);
}

// `dtype=` converts the items of a list exactly: a float that is not a whole number in the integer
// dtype's range is an error (cast() is the way to truncate), so tensor([1.5], dtype=i32) is not [1].
void checkExactInt(const Tensor& t, DType to, const std::string& what) {
  if (!rt::isFloat(t.dtype()) || !rt::isInt(to) || t.isAbstract()) return;
  const double lo = to == DType::I32 ? -2147483648.0 : -9223372036854775808.0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double x = t.asDouble(i);
    if (!(x >= lo && x < -lo) || x != std::trunc(x))
      throw WeftError(what + ": " + formatFloat(x, t.dtype()) + " is not a whole number that " + rt::dtypeName(to) +
                      " holds; use cast() to truncate");
  }
}

}  // namespace

Tensor leafAs(const Value& v, DType dt) {
  if (const Literal* l = v.literal()) return l->as(dt);
  const Tensor& t = tensorOf(v, "x");
  return t.dtype() == dt ? t : ops::cast(t, dt);
}

Tensor tensorFromValue(const Value& v, std::optional<DType> dtype, const std::string& what) {
  // One tensor given whole converts as cast() does (`i32(2.9)` calls a dtype); the items of a
  // list convert exactly.
  if (isTensorLike(v)) return leafAs(v, dtype ? *dtype : tensorOf(v, what.c_str()).dtype());
  Shape shape;
  std::vector<Value> leaves;
  flatten(v, 0, shape, leaves, what);
  // Leaves are scalars or tensors of one shape (stacked). Their dtype: the given one, else f32 if
  // any is a float, else the common dtype.
  Shape leafShape = leaves.empty() ? Shape{} : tensorOf(leaves[0], "x").shape();
  if (shape.rank() + leafShape.rank() > rt::kMaxRank)  // Shape's storage is fixed: check first
    throw WeftError(what + ": the result would have rank " + std::to_string(shape.rank() + leafShape.rank()) +
                    ", more than the maximum of " + std::to_string(rt::kMaxRank));
  for (int64_t d : leafShape) shape.push_back(d);
  // dtype: the given one; else the first non-literal leaf's; else f32 if any literal is a float,
  // bool if all are bools, i64 if an integer literal needs it, i32 otherwise.
  bool anyFloat = false, allBool = !leaves.empty(), anyI64 = false;
  std::optional<DType> strong;
  for (const auto& l : leaves) {
    const Tensor& t = tensorOf(l, "x");
    if (t.shape() != leafShape)
      throw WeftError(what + ": items have different shapes " + leafShape.str() + " and " + t.shape().str());
    if (!l.weak() && !strong) strong = t.dtype();
    anyFloat |= rt::isFloat(t.dtype());
    allBool &= t.dtype() == DType::Bool;
    anyI64 |= t.dtype() == DType::I64;
  }
  DType dt = strong                           ? *strong
             : anyFloat || leaves.empty()     ? DType::F32
             : allBool                        ? DType::Bool
             : anyI64                         ? DType::I64
                                              : DType::I32;
  if (dtype) dt = *dtype;
  // Graph values among the items (a trace): the result is a stack of them, a graph node too.
  for (const auto& l : leaves)
    if (tensorOf(l, "x").isSymbolic()) {
      std::vector<Tensor> parts;
      for (const auto& x : leaves) parts.push_back(leafAs(x, dt));
      Tensor stacked = ops::stack(parts, 0);
      if (shape.rank() == leafShape.rank() + 1) return stacked;
      return ops::reshape(stacked, std::vector<int64_t>(shape.begin(), shape.end()));
    }
  // A shape-only item (a plan) makes the whole result shape-only.
  for (const auto& l : leaves)
    if (tensorOf(l, "x").isAbstract()) return Tensor::abstract(dt, shape);
  Tensor out = Tensor::empty(dt, shape);
  int64_t per = leafShape.numel();
  size_t esz = rt::dtypeSize(dt);
  for (size_t i = 0; i < leaves.size(); ++i) {
    checkExactInt(tensorOf(leaves[i], "x"), dt, what);
    Tensor t = leafAs(leaves[i], dt);
    std::memcpy(static_cast<char*>(out.raw()) + int64_t(i) * per * int64_t(esz), t.raw(), size_t(per) * esz);
  }
  return out;
}

}  // namespace weft
