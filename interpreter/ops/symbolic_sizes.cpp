#include "symbolic_sizes.h"

#include <algorithm>
#include <utility>

namespace weft::ops {
namespace {

thread_local SymbolicSizes* tActive = nullptr;

SymbolicSizes& table() { return *SymbolicSizes::active(); }

}  // namespace

SymbolicSizes::SymbolicSizes() : outer_(tActive) { tActive = this; }
SymbolicSizes::~SymbolicSizes() { tActive = outer_; }
SymbolicSizes* SymbolicSizes::active() { return tActive; }

int64_t SymbolicSizes::encode(const Dim& d) {
  if (d.isConstant()) return d.constant();
  auto [it, added] = handles_.try_emplace(d.str(), kFirst + int64_t(dims_.size()));
  if (added) dims_.push_back(d);
  return it->second;
}

Dim SymbolicSizes::decode(int64_t v) const { return isHandle(v) ? dims_[size_t(v - kFirst)] : Dim(v); }

Shape SymbolicSizes::encode(const std::vector<Dim>& dims) {
  Shape s;
  for (const Dim& d : dims) s.push_back(encode(d));
  return s;
}

std::vector<Dim> SymbolicSizes::decode(const Shape& s) const {
  std::vector<Dim> dims;
  for (int64_t d : s) dims.push_back(decode(d));
  return dims;
}

void SymbolicSizes::require(SizeRequirement::Kind kind, const Dim& a, const Dim& b) {
  for (const auto& r : required_)
    if (r.kind == kind && r.a == a && r.b == b) return;
  required_.push_back({kind, a, b});
}

std::vector<SizeRequirement> SymbolicSizes::takeRequirements() { return std::exchange(required_, {}); }

namespace sizes {

bool symbolic(int64_t d) { return d < rt::kUnknownDim && tActive && tActive->isHandle(d); }

namespace {

Dim dim(int64_t v) { return table().decode(v); }

}  // namespace

std::optional<int64_t> add(int64_t a, int64_t b) {
  if (symbolic(a) || symbolic(b)) return table().encode(dim(a) + dim(b));
  if (a == rt::kUnknownDim || b == rt::kUnknownDim) return rt::kUnknownDim;
  return rt::sizeAdd(a, b);
}

std::optional<int64_t> mul(int64_t a, int64_t b) {
  if (symbolic(a) || symbolic(b)) return table().encode(dim(a) * dim(b));
  if (a == 0 || b == 0) return 0;
  if (a == rt::kUnknownDim || b == rt::kUnknownDim) return rt::kUnknownDim;
  return rt::sizeMul(a, b);
}

int64_t offset(int64_t d, int64_t k) { return symbolic(d) ? table().encode(dim(d) + Dim(k)) : d + k; }

int64_t times(int64_t k, int64_t d) { return symbolic(d) ? table().encode(Dim(k) * dim(d)) : k * d; }

int64_t floorDiv(int64_t a, int64_t b) {
  if (symbolic(a) || symbolic(b)) return table().encode(ops::floorDiv(dim(a), dim(b)));
  return a / b;
}

bool same(int64_t a, int64_t b) {
  if (a == b) return true;
  if (!symbolic(a) && !symbolic(b)) return false;
  table().require(SizeRequirement::Equal, dim(a), dim(b));
  return true;
}

bool inRange(int64_t i, int64_t n) {
  if (!symbolic(i) && !symbolic(n)) return 0 <= i && i < n;
  table().require(SizeRequirement::InRange, dim(i), dim(n));
  return true;
}

bool broadcast(int64_t a, int64_t b, int64_t& out) {
  if (symbolic(a) || symbolic(b)) {
    if (a == b || b == 1) out = a;
    else if (a == 1) out = b;
    else {
      table().require(SizeRequirement::Broadcast, dim(a), dim(b));
      // The larger, unless one is 1 when the code runs: a known size other than 1 is the result.
      out = !symbolic(a) ? a : !symbolic(b) ? b : table().encode(max(dim(a), dim(b)));
    }
    return true;
  }
  if (a == rt::kUnknownDim || b == rt::kUnknownDim) {  // decided when the graph runs
    out = a == rt::kUnknownDim ? (b == 1 ? a : b) : (a == 1 ? b : a);
    return true;
  }
  if (a != b && a != 1 && b != 1) return false;
  out = a == 1 ? b : a;
  return true;
}

std::optional<int64_t> numel(const Shape& s) {
  bool symbols = false;
  for (int64_t d : s) symbols = symbols || symbolic(d);
  if (!symbols) {
    for (int64_t d : s)
      if (d == rt::kUnknownDim) return rt::kUnknownDim;
    return s.checkedNumel();
  }
  Dim n = 1;
  for (int64_t d : s) n = n * dim(d);
  return table().encode(n);
}

std::array<int64_t, rt::kMaxRank> strides(const Shape& s) {
  std::array<int64_t, rt::kMaxRank> st{};
  int64_t acc = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    st[size_t(i)] = acc;
    acc = mul(acc, s[i]).value_or(rt::kUnknownDim);  // a tensor's strides fit int64 (checkShape)
  }
  return st;
}

std::optional<int64_t> call(const char* fn, const std::vector<int64_t>& args) {
  if (std::none_of(args.begin(), args.end(), symbolic)) return std::nullopt;
  std::vector<Dim> ds;
  for (int64_t a : args) ds.push_back(dim(a));
  return table().encode(Dim::call(fn, ds));
}

}  // namespace sizes

bool broadcastShapes(const Shape& a, const Shape& b, Shape& out) {
  const int r = std::max(a.rank(), b.rank());
  Shape s;
  for (int i = 0; i < r; ++i) {
    const int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    int64_t d;
    if (!sizes::broadcast(ia >= 0 ? a[ia] : 1, ib >= 0 ? b[ib] : 1, d)) return false;
    s.push_back(d);
  }
  out = s;
  return true;
}

bool broadcastsTo(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) return false;
  for (int i = 0; i < from.rank(); ++i) {
    const int64_t f = from[i], t = to[i + to.rank() - from.rank()];
    if (sizes::symbolic(f) || sizes::symbolic(t)) {
      if (f != t && f != 1) table().require(SizeRequirement::BroadcastTo, table().decode(f), table().decode(t));
      continue;
    }
    int64_t out;
    if (!sizes::broadcast(f, t, out) || out != t) return false;
  }
  return true;
}

}  // namespace weft::ops
