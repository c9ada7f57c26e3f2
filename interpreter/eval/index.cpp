// `a[i]`, `a[1:3]`, `a[..., -1]` on tensors, lists, tuples, strings and dicts; `xs[i] = v`.
#include "../ops/ops.h"
#include "../values/format.h"
#include "interpreter.h"
#include "operators.h"

namespace weft {
namespace {

int64_t intOf(const Value& v, const char* what) {
  if (!isTensorLike(v)) throw WeftError(std::string(what) + " must be an integer, not " + typeNameOf(v));
  const Tensor& t = tensorOf(v, what);
  if (t.rank() != 0 || rt::isFloat(t.dtype()) || t.dtype() == DType::Bool)
    throw WeftError(std::string(what) + " must be an integer scalar, not " + typeNameOf(v));
  return t.asInt();
}

std::optional<int64_t> optionalInt(const Value& v, const char* what) {
  if (v.isNone()) return std::nullopt;
  return intOf(v, what);
}

// Python's slice.indices: clamps start and stop for a sequence of length n.
std::vector<int64_t> sliceIndices(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop,
                                  std::optional<int64_t> step) {
  int64_t st = step.value_or(1);
  if (st == 0) throw WeftError("slice step cannot be zero");
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + n : *v;
    if (st > 0) return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
  };
  int64_t b = clamp(start, st > 0 ? 0 : n - 1), e = clamp(stop, st > 0 ? n : -1);
  std::vector<int64_t> out;
  // A step past the end of int64 (`[1::2**63-1]`) ends the walk instead of wrapping around.
  for (int64_t i = b; st > 0 ? i < e : i > e;) {
    out.push_back(i);
    if (__builtin_add_overflow(i, st, &i)) break;
  }
  return out;
}

template <class Seq>
Value indexSequence(const Seq& items, const ast::Expr& item, const std::vector<Value>& parts, const char* what,
                    bool isList) {
  if (item.kind == ast::ExprKind::Slice) {
    std::vector<Value> out;
    for (int64_t i : sliceIndices(int64_t(items.size()), optionalInt(parts[0], "slice start"),
                                  optionalInt(parts[1], "slice stop"), optionalInt(parts[2], "slice step")))
      out.push_back(items[size_t(i)]);
    return isList ? makeList(std::move(out)) : makeTuple(std::move(out));
  }
  return items[size_t(normalizeIndex(intOf(parts[0], "index"), int64_t(items.size()), what))];
}

}  // namespace

Value Interpreter::evalIndex(const ast::Index& ix, const std::shared_ptr<Env>& env) {
  Value obj = eval(*ix.object, env);
  // Evaluate every subscript first: a slice's three parts, or the index expression.
  std::vector<std::vector<Value>> parts;
  for (const auto& item : ix.items) {
    std::vector<Value> p;
    if (item->kind == ast::ExprKind::Slice) {
      auto& s = static_cast<const ast::Slice&>(*item);
      for (const ast::Expr* part : {s.lower.get(), s.upper.get(), s.step.get()})
        p.push_back(part ? eval(*part, env) : Value());
    } else if (item->kind != ast::ExprKind::Ellipsis) {
      p.push_back(eval(*item, env));
    }
    parts.push_back(std::move(p));
  }
  try {
    if (isTensorLike(obj)) {
      const Tensor& t = tensorOf(obj, "indexed value");
      // `x[idx]` with an integer tensor of rank >= 1 gathers along axis 0 (an embedding lookup).
      if (ix.items.size() == 1 && ix.items[0]->kind != ast::ExprKind::Slice && parts[0].size() == 1 &&
          isTensorLike(parts[0][0]) && tensorOf(parts[0][0], "index").rank() > 0)
        return Value(ops::take(t, tensorOf(parts[0][0], "index"), 0));
      // Integer indices that are graph values (a loop counter): a gather along each leading axis.
      bool symbolicIndex = false;
      for (size_t i = 0; i < ix.items.size(); ++i)
        if (ix.items[i]->kind != ast::ExprKind::Slice && parts[i].size() == 1 && isTensorLike(parts[i][0]) &&
            tensorOf(parts[i][0], "index").isSymbolic())
          symbolicIndex = true;
      if (symbolicIndex) {
        Tensor r = t;
        for (size_t i = 0; i < ix.items.size(); ++i) {
          if (ix.items[i]->kind == ast::ExprKind::Slice || ix.items[i]->kind == ast::ExprKind::Ellipsis ||
              !isTensorLike(parts[i][0]))
            throw WeftError("indexing with a graph value takes integer indices only (x[i, j]), not slices or '...'");
          r = ops::take(r, tensorOf(parts[i][0], "index"), 0);
        }
        return Value(r);
      }
      std::vector<ops::Subscript> subs;
      for (size_t i = 0; i < ix.items.size(); ++i) {
        ops::Subscript s;
        if (ix.items[i]->kind == ast::ExprKind::Ellipsis) {
          s.kind = ops::Subscript::Ellipsis;
        } else if (ix.items[i]->kind == ast::ExprKind::Slice) {
          s.kind = ops::Subscript::Range;
          s.start = optionalInt(parts[i][0], "slice start");
          s.stop = optionalInt(parts[i][1], "slice stop");
          s.step = optionalInt(parts[i][2], "slice step");
        } else if (parts[i][0].isNone()) {
          s.kind = ops::Subscript::NewAxis;
        } else {
          s.kind = ops::Subscript::Index;
          s.index = intOf(parts[i][0], "index");
        }
        subs.push_back(s);
      }
      return Value(ops::getItem(t, subs));
    }
    if (ix.items.size() != 1)
      throw WeftError(aTypeName(obj) + " takes one subscript, not " + std::to_string(ix.items.size()));
    const ast::Expr& item = *ix.items[0];
    if (item.kind == ast::ExprKind::Ellipsis) throw WeftError("'...' only indexes tensors");
    switch (obj.kind()) {
      case Kind::List: return indexSequence(obj.as<ListObj>()->items, item, parts[0], "list", true);
      case Kind::Tuple: return indexSequence(obj.as<TupleObj>()->items, item, parts[0], "tuple", false);
      case Kind::Str: {
        const std::string& s = obj.as<StrObj>()->text;
        if (item.kind == ast::ExprKind::Slice) {
          std::string out;
          for (int64_t i : sliceIndices(int64_t(s.size()), optionalInt(parts[0][0], "slice start"),
                                        optionalInt(parts[0][1], "slice stop"), optionalInt(parts[0][2], "slice step")))
            out += s[size_t(i)];
          return makeStr(out);
        }
        return makeStr(std::string(1, s[size_t(normalizeIndex(intOf(parts[0][0], "index"), int64_t(s.size()), "string"))]));
      }
      case Kind::Dict: {
        if (item.kind == ast::ExprKind::Slice) throw WeftError("a dict cannot be sliced");
        if (Value* v = obj.as<DictObj>()->find(parts[0][0])) return *v;
        throw WeftError("key " + toRepr(parts[0][0]) + " is not in the dict");
      }
      case Kind::Opaque:  // a layout map: lm["d1.kernel"]
        if (item.kind != ast::ExprKind::Slice)
          if (auto v = obj.as<OpaqueObj>()->getItem(*this, parts[0][0])) return *v;
        [[fallthrough]];
      default: throw WeftError(aTypeName(obj) + " cannot be indexed");
    }
  } catch (WeftError& err) {
    if (!err.at.valid()) err.at = ix.range;
    throw;
  }
}

int64_t normalizeIndex(int64_t i, int64_t n, const char* what) {
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    throw WeftError(std::string(what) + " index " + std::to_string(i) + " is out of range for length " +
                    std::to_string(n));
  return j;
}

void setItem(const Value& obj, const Value& key, Value v, const SourceRange& keyAt) {
  checkMutable(obj);
  switch (obj.kind()) {
    case Kind::List: {
      auto& items = obj.as<ListObj>()->items;
      items[size_t(normalizeIndex(intOf(key, "index"), int64_t(items.size()), "list"))] = std::move(v);
      return;
    }
    case Kind::Dict: obj.as<DictObj>()->set(key, std::move(v)); return;
    case Kind::Tensor:
    case Kind::Variable:
      throw WeftError("tensors are immutable; build a new one (where, concat) or assign a Variable");
    case Kind::Opaque:  // lm["d1.kernel"] = layout; keyAt locates the key's later errors
      if (obj.as<OpaqueObj>()->setItem(key, std::move(v), keyAt)) return;
      [[fallthrough]];
    default: throw WeftError(aTypeName(obj) + " does not support item assignment");
  }
}

}  // namespace weft
