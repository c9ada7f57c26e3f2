#include "dim.h"

#include <algorithm>

#include "check.h"

namespace weft::ops {
namespace {

int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail("a size expression overflows int64");
  return r;
}
int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail("a size expression overflows int64");
  return r;
}

}  // namespace

Dim::Dim(int64_t value) {
  if (value) terms_[{}] = value;
  print();
}

Dim::Dim(std::map<Monomial, int64_t> terms) : terms_(std::move(terms)) {
  std::erase_if(terms_, [](const auto& t) { return t.second == 0; });
  print();
}

Dim Dim::atom(const std::string& text) { return Dim(std::map<Monomial, int64_t>{{{text}, 1}}); }

Dim Dim::symbol(const std::string& name) { return atom(name); }

Dim Dim::call(const std::string& fn, const std::vector<Dim>& args) {
  std::string text = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i].str();
  return atom(text + ")");
}

int64_t Dim::constant() const { return terms_.empty() ? 0 : terms_.begin()->second; }

void Dim::print() {
  if (isConstant()) {
    text_ = std::to_string(constant());
    return;
  }
  std::string s;
  for (const auto& [mono, coef] : terms_) {  // the constant term (empty monomial) sorts first
    std::string term;
    const int64_t c = coef < 0 ? -coef : coef;
    if (mono.empty() || c != 1) term = std::to_string(c);
    for (const auto& a : mono) term += (term.empty() ? "" : " * ") + a;
    s += s.empty() ? (coef < 0 ? "-" + term : term) : (coef < 0 ? " - " : " + ") + term;
  }
  const bool oneAtom = terms_.size() == 1 && terms_.begin()->second == 1 && terms_.begin()->first.size() == 1;
  text_ = oneAtom ? s : "(" + s + ")";
}

Dim operator+(const Dim& a, const Dim& b) {
  auto terms = a.terms_;
  for (const auto& [mono, coef] : b.terms_) terms[mono] = add(terms[mono], coef);
  return Dim(std::move(terms));
}

Dim operator-(const Dim& a, const Dim& b) { return a + b * Dim(-1); }

Dim operator*(const Dim& a, const Dim& b) {
  std::map<Dim::Monomial, int64_t> terms;
  for (const auto& [ma, ca] : a.terms_)
    for (const auto& [mb, cb] : b.terms_) {
      Dim::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      terms[m] = add(terms[m], mul(ca, cb));
    }
  return Dim(std::move(terms));
}

Dim floorDiv(const Dim& a, const Dim& b) {
  if (b.isConstant() && b.constant() > 0) {
    const int64_t d = b.constant();
    if (a.isConstant()) return Dim(a.constant() / d);  // sizes: never negative
    bool exact = true;
    for (const auto& t : a.terms_) exact = exact && t.second % d == 0;
    if (exact) {
      auto terms = a.terms_;
      for (auto& t : terms) t.second /= d;
      return Dim(std::move(terms));
    }
  }
  return Dim::atom("(" + a.str() + " / " + b.str() + ")");
}

// Broadcasting takes the maximum of every operand's size: one flat, sorted list of arguments
// keeps max(max(a, b), b) the same size as max(a, b).
Dim max(const Dim& a, const Dim& b) {
  if (a == b) return a;
  if (a.isConstant() && b.isConstant()) return Dim(std::max(a.constant(), b.constant()));
  std::map<std::string, Dim> args;  // by text: sorted, each once
  for (const Dim* d : {&a, &b})
    for (const Dim& x : d->maxOf_.empty() ? std::vector<Dim>{*d} : d->maxOf_) args.emplace(x.str(), x);
  if (args.size() == 1) return args.begin()->second;
  std::string list;
  for (const auto& [text, x] : args) list += (list.empty() ? "" : ", ") + text;
  Dim r = Dim::atom(args.size() == 2 ? "std::max<int64_t>(" + list + ")" : "std::max<int64_t>({" + list + "})");
  for (const auto& [text, x] : args) r.maxOf_.push_back(x);
  return r;
}

}  // namespace weft::ops
