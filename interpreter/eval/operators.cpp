#include "operators.h"

#include <unordered_set>

#include "../../grammar/diagnostics.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "strings.h"

namespace weft {
namespace {

ops::BinaryOp toOp(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::Add: return ops::BinaryOp::Add;
    case ast::BinaryOp::Sub: return ops::BinaryOp::Sub;
    case ast::BinaryOp::Mul: return ops::BinaryOp::Mul;
    case ast::BinaryOp::Div: return ops::BinaryOp::Div;
    case ast::BinaryOp::FloorDiv: return ops::BinaryOp::FloorDiv;
    case ast::BinaryOp::Mod: return ops::BinaryOp::Mod;
    case ast::BinaryOp::Pow: return ops::BinaryOp::Pow;
    case ast::BinaryOp::BitAnd: return ops::BinaryOp::And;
    case ast::BinaryOp::BitOr: return ops::BinaryOp::Or;
    case ast::BinaryOp::MatMul: break;
  }
  return ops::BinaryOp::Add;
}

ops::BinaryOp toOp(ast::CompareOp op) {
  switch (op) {
    case ast::CompareOp::Eq: return ops::BinaryOp::Eq;
    case ast::CompareOp::Ne: return ops::BinaryOp::Ne;
    case ast::CompareOp::Lt: return ops::BinaryOp::Lt;
    case ast::CompareOp::Le: return ops::BinaryOp::Le;
    case ast::CompareOp::Gt: return ops::BinaryOp::Gt;
    case ast::CompareOp::Ge: return ops::BinaryOp::Ge;
    default: break;
  }
  return ops::BinaryOp::Eq;
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
  throw WeftError(std::string("unsupported operand types for ") + op + ": " + typeNameOf(a) + " and " +
                  typeNameOf(b));
}

Value readValue(const Value& v) {
  return v.is(Kind::Variable) ? Value(readVariable(*v.as<VariableObj>())) : v;
}

bool containerContains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Kind::List:
      for (const auto& x : container.as<ListObj>()->items)
        if (valuesEqual(x, item)) return true;
      return false;
    case Kind::Tuple:
      for (const auto& x : container.as<TupleObj>()->items)
        if (valuesEqual(x, item)) return true;
      return false;
    case Kind::Dict: return container.as<DictObj>()->find(item) != nullptr;
    case Kind::Set:
      checkHashable(item, Kind::Set);  // an unhashable item is an error, as in Python, not merely absent
      return container.as<SetObj>()->has(item);
    case Kind::Str:
      if (!item.is(Kind::Str)) throw WeftError("'in <str>' needs a string on the left, not " + typeNameOf(item));
      return container.as<StrObj>()->text.find(item.as<StrObj>()->text) != std::string::npos;
    default: throw WeftError("'in' needs a list, tuple, dict, set or string on the right, not " + typeNameOf(container));
  }
}

// a ** b on int64 by squaring; false when the result leaves int64's range.
bool checkedPow(int64_t base, int64_t exp, int64_t& r) {
  r = 1;
  while (exp > 0) {
    if ((exp & 1) && __builtin_mul_overflow(r, base, &r)) return false;
    exp >>= 1;
    if (exp && __builtin_mul_overflow(base, base, &base)) return false;
  }
  return true;
}

// Arithmetic on two literals stays exact: int64 for integers, double once a float is involved,
// through the tensor kernels (so `//`, `%`, `**` and their errors are the same as on tensors).
// An integer result outside int64 is an error rather than a wrapped value.
Literal literalArith(ops::BinaryOp op, const char* text, const Literal& a, const Literal& b) {
  bool isFloat = a.isFloat || b.isFloat;
  if (!isFloat) {
    int64_t r = 0;
    bool ok = true;
    switch (op) {
      case ops::BinaryOp::Add: ok = !__builtin_add_overflow(a.i, b.i, &r); break;
      case ops::BinaryOp::Sub: ok = !__builtin_sub_overflow(a.i, b.i, &r); break;
      case ops::BinaryOp::Mul: ok = !__builtin_mul_overflow(a.i, b.i, &r); break;
      case ops::BinaryOp::Pow: ok = b.i < 0 || checkedPow(a.i, b.i, r); break;
      default: break;
    }
    if (!ok)
      throw WeftError("integer literal arithmetic overflows i64: " + a.str() + " " + text + " " + b.str() +
                      " (use float literals)");
  }
  DType dt = isFloat ? DType::F64 : DType::I64;
  Tensor r = ops::binary(op, a.as(dt), b.as(dt));
  return r.dtype() == DType::F64 ? Literal::real(r.asDouble()) : Literal::integer(r.asInt());
}

}  // namespace

void unifyDTypes(Value& a, Value& b, const char* opText) {
  DType da = a.tensor().dtype(), db = b.tensor().dtype();
  if (da == db) return;
  auto adopt = [&](Value& weak, DType to) {
    DType from = weak.tensor().dtype();
    if (rt::isFloat(from) && !rt::isFloat(to))
      throw WeftError("the float literal " + formatTensor(weak.tensor()) + " cannot join an operand of dtype " +
                      rt::dtypeName(to) + " in '" + opText + "'; cast one of them");
    const Literal* l = weak.literal();
    if (l && !l->fits(to))
      throw WeftError("the integer literal " + l->str() + " is out of range for " + rt::dtypeName(to) + " in '" +
                      opText + "' (use an i64 tensor or cast)");
    weak = Value(l ? l->as(to) : ops::cast(weak.tensor(), to));
  };
  if (a.weak() && !b.weak()) return adopt(a, db);
  if (b.weak() && !a.weak()) return adopt(b, da);
  if (a.weak() && b.weak()) {  // literals only: int joins float, as in Python; i32 joins i64
    DType to = rt::isFloat(da) ? da : rt::isFloat(db) ? db : da == DType::I64 ? da : db;
    if (da != to) a = Value(ops::cast(a.tensor(), to), true);
    if (db != to) b = Value(ops::cast(b.tensor(), to), true);
    return;
  }
  throw WeftError(std::string("dtype mismatch in '") + opText + "': " + typeNameOf(a) + " and " + typeNameOf(b) +
                  " (use cast)");
}

// `a | b`, `a & b`, `a - b` on sets: a new set, in a's order then b's.
Value setOp(ast::BinaryOp op, const SetObj& a, SetObj& b) {
  auto out = std::make_shared<SetObj>();
  for (const auto& [x, none] : a.entries)
    if (op == ast::BinaryOp::BitOr || (b.has(x) == (op == ast::BinaryOp::BitAnd))) out->add(x);
  if (op == ast::BinaryOp::BitOr)
    for (const auto& [x, none] : b.entries) out->add(x);
  return Value(std::move(out));
}

Value binaryOp(ast::BinaryOp op, const Value& a, const Value& b) {
  const char* text = ast::binaryOpText(op);
  const bool logical = op == ast::BinaryOp::BitAnd || op == ast::BinaryOp::BitOr;
  if (isTensorLike(a) && isTensorLike(b)) {
    Value x = readValue(a), y = readValue(b);
    if (logical && (x.tensor().dtype() != DType::Bool || y.tensor().dtype() != DType::Bool))
      throw WeftError(std::string("'") + text + "' takes sets or bool tensors, not " + typeNameOf(a) + " and " +
                      typeNameOf(b) + (op == ast::BinaryOp::BitAnd ? "; logical and is written 'and'" : "; logical or is written 'or'"));
    if (x.literal() && y.literal() && op != ast::BinaryOp::MatMul && !logical)
      return Value(literalArith(toOp(op), text, *x.literal(), *y.literal()));
    bool weak = x.weak() && y.weak();
    if (x.tensor().dtype() != y.tensor().dtype()) unifyDTypes(x, y, text);
    if (op == ast::BinaryOp::MatMul) return Value(ops::matmul(x.tensor(), y.tensor()), weak);
    return Value(ops::binary(toOp(op), x.tensor(), y.tensor()), weak);
  }
  if (a.is(Kind::Set) && b.is(Kind::Set) && (logical || op == ast::BinaryOp::Sub))
    return setOp(op, *a.as<SetObj>(), *b.as<SetObj>());
  if (op == ast::BinaryOp::Mod && a.is(Kind::Str)) return percentFormat(a.as<StrObj>()->text, b);
  if (op == ast::BinaryOp::Add) {
    if (a.is(Kind::Str) && b.is(Kind::Str)) {
      checkValueBytes(int64_t(a.as<StrObj>()->text.size() + b.as<StrObj>()->text.size()), "a string");
      return makeStr(a.as<StrObj>()->text + b.as<StrObj>()->text);
    }
    if (a.is(Kind::List) && b.is(Kind::List)) {
      checkValueBytes(int64_t((a.as<ListObj>()->items.size() + b.as<ListObj>()->items.size()) * sizeof(Value)),
                      "a list");
      std::vector<Value> items = a.as<ListObj>()->items;
      const auto& more = b.as<ListObj>()->items;
      items.insert(items.end(), more.begin(), more.end());
      return makeList(std::move(items));
    }
    if (a.is(Kind::Tuple) && b.is(Kind::Tuple)) {
      checkValueBytes(int64_t((a.as<TupleObj>()->items.size() + b.as<TupleObj>()->items.size()) * sizeof(Value)),
                      "a tuple");
      std::vector<Value> items = a.as<TupleObj>()->items;
      const auto& more = b.as<TupleObj>()->items;
      items.insert(items.end(), more.begin(), more.end());
      return makeTuple(std::move(items));
    }
  }
  unsupported(text, a, b);
}

Value unaryOp(ast::UnaryOp op, const Value& a) {
  if (op == ast::UnaryOp::Not) return Value(Tensor::scalar<bool>(!truthy(a)));
  if (!isTensorLike(a))
    throw WeftError(std::string("bad operand type for unary ") + (op == ast::UnaryOp::Neg ? "-" : "+") + ": " +
                    typeNameOf(a));
  Value x = readValue(a);
  if (op == ast::UnaryOp::Pos) return x;
  if (const Literal* l = x.literal()) {
    if (l->isFloat) return Value(Literal::real(-l->f));
    if (l->i == INT64_MIN) throw WeftError("integer literal arithmetic overflows i64: -(" + l->str() + ")");
    return Value(Literal::integer(-l->i));
  }
  return Value(ops::unary(ops::UnaryOp::Neg, x.tensor()), x.weak());
}

// Python's `is`: none is none; objects (lists, modules, Variables, ...) are themselves; a tensor is
// the same tensor (storage, dtype and shape), and booleans are one true and one false, as Python's.
bool identical(const Value& a, const Value& b) {
  if (a.isNone() || b.isNone()) return a.isNone() && b.isNone();
  if (a.isTensor() && b.isTensor()) {
    const Tensor &x = a.tensor(), &y = b.tensor();
    if (x.dtype() != y.dtype() || x.shape() != y.shape()) return false;
    if (x.isAbstract() || y.isAbstract()) return x.isSymbolic() && x.symbol() == y.symbol() && x.trace() == y.trace();
    if (x.dtype() == DType::Bool && x.rank() == 0) return x.asDouble() == y.asDouble();
    return x.raw() == y.raw();
  }
  return a.kind() == b.kind() && a.object() && a.object() == b.object();
}

Value compareOp(ast::CompareOp op, const Value& a, const Value& b) {
  if (op == ast::CompareOp::Is || op == ast::CompareOp::IsNot)
    return Value(Tensor::scalar<bool>(identical(a, b) == (op == ast::CompareOp::Is)));
  if (op == ast::CompareOp::In) return Value(Tensor::scalar<bool>(containerContains(b, a)));
  if (op == ast::CompareOp::NotIn) return Value(Tensor::scalar<bool>(!containerContains(b, a)));
  if (isTensorLike(a) && isTensorLike(b)) {
    Value x = readValue(a), y = readValue(b);
    if (const Literal *l = x.literal(), *m = y.literal(); l && m) {  // by exact value
      DType dt = l->isFloat || m->isFloat ? DType::F64 : DType::I64;
      return Value(ops::binary(toOp(op), l->as(dt), m->as(dt)));
    }
    if (x.tensor().dtype() != y.tensor().dtype()) unifyDTypes(x, y, ast::compareOpText(op));
    return Value(ops::binary(toOp(op), x.tensor(), y.tensor()));
  }
  if (op == ast::CompareOp::Eq) return Value(Tensor::scalar<bool>(valuesEqual(a, b)));
  if (op == ast::CompareOp::Ne) return Value(Tensor::scalar<bool>(!valuesEqual(a, b)));
  if (a.is(Kind::Str) && b.is(Kind::Str)) {
    int c = a.as<StrObj>()->text.compare(b.as<StrObj>()->text);
    bool r = op == ast::CompareOp::Lt ? c < 0 : op == ast::CompareOp::Le ? c <= 0 : op == ast::CompareOp::Gt ? c > 0 : c >= 0;
    return Value(Tensor::scalar<bool>(r));
  }
  unsupported(ast::compareOpText(op), a, b);
}

namespace {

// Structural equality, linear in the values' size: containers found equal are remembered as
// pairs, so that lists sharing their items (`l = [l, l]` forty times) compare once per pair, not
// once per path.
class Equality {
 public:
  bool operator()(const Value& a, const Value& b) {
    // A list that holds itself would recurse forever: identical objects are equal (as in
    // Python), and nesting past the limit is an error rather than a stack overflow.
    if (a.sameObject(b) && !a.is(Kind::Variable)) return true;
    if (depth_ >= 1000) throw WeftError("comparison nested too deeply (more than 1000 levels)");
    ++depth_;
    struct Nest {
      int& depth;
      ~Nest() { --depth; }
    } nest{depth_};
    if (isTensorLike(a) && isTensorLike(b)) {
      const Tensor& x = tensorOf(a, "operand");
      const Tensor& y = tensorOf(b, "operand");
      if (x.shape() != y.shape()) return false;
      for (int64_t i = 0; i < x.numel(); ++i)
        if (x.asDouble(i) != y.asDouble(i)) return false;
      return true;
    }
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
      case Kind::None: return true;
      case Kind::Str: return a.as<StrObj>()->text == b.as<StrObj>()->text;
      case Kind::DType: return a.dtypeValue() == b.dtypeValue();
      case Kind::List:
      case Kind::Tuple:
      case Kind::Dict:
      case Kind::Set: {
        std::pair<const void*, const void*> pair{a.object(), b.object()};
        if (equal_.count(pair)) return true;
        if (!containersEqual(a, b)) return false;
        equal_.insert(pair);
        return true;
      }
      case Kind::Opaque: return a.as<OpaqueObj>()->equals(*b.as<OpaqueObj>());
      default: return a.sameObject(b);
    }
  }

 private:
  bool containersEqual(const Value& a, const Value& b) {
    if (a.is(Kind::Dict) || a.is(Kind::Set)) {  // a set's values are all none: its elements compare
      auto* x = a.as<DictObj>();
      auto* y = b.as<DictObj>();
      if (x->entries.size() != y->entries.size()) return false;
      for (auto& [k, v] : x->entries) {
        Value* other = y->find(k);
        if (!other || !(*this)(v, *other)) return false;
      }
      return true;
    }
    const auto& x = a.is(Kind::List) ? a.as<ListObj>()->items : a.as<TupleObj>()->items;
    const auto& y = b.is(Kind::List) ? b.as<ListObj>()->items : b.as<TupleObj>()->items;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if ((i & 4095) == 4095) pollLimits();  // a long list: the time limit still applies
      if (!(*this)(x[i], y[i])) return false;
    }
    return true;
  }

  struct PairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_set<std::pair<const void*, const void*>, PairHash> equal_;
  int depth_ = 0;
};

}  // namespace

bool valuesEqual(const Value& a, const Value& b) { return Equality()(a, b); }

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Kind::None: return false;
    case Kind::Tensor:
    case Kind::Variable: {
      const Tensor& t = tensorOf(v, "condition");
      if (t.numel() != 1)
        throw WeftError("the truth value of a tensor of shape " + t.shape().str() +
                        " is ambiguous; use any() or all()");
      if (t.isAbstract()) throw WeftError("the truth value of a symbolic tensor is not known while planning");
      return t.asDouble() != 0;
    }
    case Kind::Str: return !v.as<StrObj>()->text.empty();
    case Kind::List: return !v.as<ListObj>()->items.empty();
    case Kind::Tuple: return !v.as<TupleObj>()->items.empty();
    case Kind::Dict:
    case Kind::Set: return !v.as<DictObj>()->entries.empty();
    default: return true;
  }
}

}  // namespace weft
