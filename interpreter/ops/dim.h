// A size known only when compiled code runs, as an expression over named symbols (an export's
// `None` dimensions), in the manner of Halide's bounds and JAX's symbolic shapes: a polynomial
// with integer coefficients over atoms, each atom a symbol or an opaque term (a division, a
// maximum, a slice's length) printed as a C++ call. The normal form (like terms merged, terms in
// one order, constants folded, a maximum of maxima flattened) makes equal expressions print the
// same text, so that two sizes are the same exactly when their texts are.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft::ops {

class Dim {
 public:
  Dim(int64_t value = 0);  // a constant (implicit: sizes mix constants and symbols freely)
  static Dim symbol(const std::string& name);
  // An opaque term: `fn(args...)` in C++, equal to another when its text is.
  static Dim call(const std::string& fn, const std::vector<Dim>& args);

  bool isConstant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }
  int64_t constant() const;  // its value; only for a constant
  // A C++ expression of the symbols; a parenthesised one unless it is a constant or one atom.
  const std::string& str() const { return text_; }

  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  // Floor division of sizes (non-negative): exact when b is a constant dividing every term.
  friend Dim floorDiv(const Dim& a, const Dim& b);
  friend Dim max(const Dim& a, const Dim& b);
  bool operator==(const Dim& o) const { return text_ == o.text_; }
  bool operator!=(const Dim& o) const { return text_ != o.text_; }

 private:
  using Monomial = std::vector<std::string>;  // the atoms' texts, sorted; empty for the constant term
  explicit Dim(std::map<Monomial, int64_t> terms);
  static Dim atom(const std::string& text);
  void print();

  std::map<Monomial, int64_t> terms_;  // monomial -> coefficient, none zero
  std::string text_;
  std::vector<Dim> maxOf_;  // when it is one max atom: its arguments (a max of maxes is flat)
};

Dim floorDiv(const Dim& a, const Dim& b);
Dim max(const Dim& a, const Dim& b);

}  // namespace weft::ops
