// Binds a builtin's arguments to named parameters, as a Weft function would, and converts them.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "../values/objects.h"

namespace weft {

class ArgReader {
 public:
  // `params` in order; a name ending in '?' is optional. Extra or unknown arguments are errors.
  ArgReader(Args& args, std::string fn, std::initializer_list<const char*> params);

  bool has(int i) const { return present_[size_t(i)] && !values_[size_t(i)].isNone(); }
  const Value& get(int i) const { return values_[size_t(i)]; }
  Value& take(int i) { return values_[size_t(i)]; }

  Tensor tensor(int i) const;
  Value tensorValue(int i) const;  // keeps the literal flag
  int64_t integer(int i, int64_t dflt = 0) const;
  double number(int i, double dflt = 0) const;
  bool flag(int i, bool dflt = false) const;  // any value, by its truth (keepdims=1 as in NumPy)
  // A bool scalar known now, else an error naming the value ("must be true (`trueIs`) or false,
  // not 2 (i32[])"): for flags where a truthy misspelling (causal=2) is a mistake, not a choice.
  bool boolean(int i, bool dflt = false, const std::string& trueIs = "") const;
  std::string str(int i) const;
  DType dtype(int i, DType dflt) const;
  Shape shape(int i) const;
  std::vector<int64_t> ints(int i) const;   // an int or a list/tuple of ints
  std::vector<int> axes(int i) const;       // none -> empty
  std::vector<Value> items(int i) const;    // a list or tuple
  // A dict with string keys, as keyword arguments (a saved or get_config() configuration).
  std::vector<std::pair<Symbol, Value>> keywords(int i) const;
  [[noreturn]] void fail(int i, const std::string& what) const;

  const std::string& name() const { return fn_; }

 private:
  std::string fn_;
  std::vector<std::string> names_;
  std::vector<Value> values_;
  std::vector<bool> present_;
};

// Conversions shared by builtins.
// A dtype by Weft's name ("f32") or Keras' ("float32"): SPEC §6 accepts both wherever a dtype is.
std::optional<DType> dtypeFromString(const std::string& s);
Shape shapeFromValue(const Value& v, const std::string& what);
// A tensor value at dtype `dt`: a literal adopts it from its exact value, other tensors are cast.
Tensor leafAs(const Value& v, DType dt);
Tensor tensorFromValue(const Value& v, std::optional<DType> dtype, const std::string& what);

}  // namespace weft
