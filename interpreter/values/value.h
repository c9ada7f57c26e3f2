// A Weft value: none, a tensor (held inline), or a reference to a heap object.
#pragma once
#include <memory>
#include <string>

#include "literal.h"
#include "tensor.h"

namespace weft {

enum class Kind : uint8_t {
  None, Tensor, Str, List, Tuple, Dict, Set, Function, Builtin, ModuleType, Module, Variable,
  Namespace, DType, Opaque,
};
const char* kindName(Kind k);

// Heap objects. Each concrete kind is in objects.h.
struct Object : std::enable_shared_from_this<Object> {
  explicit Object(Kind k) : kind(k) {}
  virtual ~Object() = default;
  const Kind kind;
};

class Value {
 public:
  Value() = default;  // none
  Value(Tensor t, bool weak = false) : kind_(Kind::Tensor), weak_(weak), tensor_(std::move(t)) {}
  // A literal: its tensor has the literal's own dtype; the exact value stays for adoption.
  Value(const Literal& l) : kind_(Kind::Tensor), weak_(true), exact_(true), literal_(l), tensor_(l.as(l.naturalDType())) {}
  Value(std::shared_ptr<Object> o) : kind_(o ? o->kind : Kind::None), obj_(std::move(o)) {}
  static Value dtype(DType d) {
    Value v;
    v.kind_ = Kind::DType;
    v.dtype_ = d;
    return v;
  }

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  bool is(Kind k) const { return kind_ == k; }
  // A tensor made from a literal (or only from literals): it adopts the other operand's dtype.
  bool weak() const { return weak_; }
  // The exact value of a literal (or of arithmetic on literals alone), else null.
  const Literal* literal() const { return exact_ ? &literal_ : nullptr; }

  const Tensor& tensor() const { return tensor_; }
  DType dtypeValue() const { return dtype_; }
  Object* object() const { return obj_.get(); }
  const std::shared_ptr<Object>& objectPtr() const { return obj_; }
  template <class T>
  T* as() const { return static_cast<T*>(obj_.get()); }

  bool sameObject(const Value& o) const { return obj_ && obj_ == o.obj_; }

 private:
  Kind kind_ = Kind::None;
  bool weak_ = false;
  bool exact_ = false;
  Literal literal_;
  DType dtype_ = DType::F32;
  Tensor tensor_;
  std::shared_ptr<Object> obj_;
};

}  // namespace weft
