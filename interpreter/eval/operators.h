// Operators on values: arithmetic with the literal dtype rule, comparisons, truth, indexing.
#pragma once
#include "../../grammar/ast/expr.h"
#include "../values/objects.h"

namespace weft {

Value binaryOp(ast::BinaryOp op, const Value& a, const Value& b);
Value unaryOp(ast::UnaryOp op, const Value& a);
Value compareOp(ast::CompareOp op, const Value& a, const Value& b);
bool truthy(const Value& v);
// i, or i + n when negative, when that is in [0, n); else "list index 5 is out of range for length 3".
int64_t normalizeIndex(int64_t i, int64_t n, const char* what);
// `xs[i] = v` on lists, dicts and opaque objects that take it (tensors are immutable). `keyAt`
// is the key's source, for objects that report errors there later (a layout map).
void setItem(const Value& obj, const Value& key, Value v, const SourceRange& keyAt = {});
// Structural equality for non-tensors (lists, strings, none, objects by identity).
bool valuesEqual(const Value& a, const Value& b);

// Makes a weak operand take the dtype of a strong one (SPEC §2); both weak: int joins float.
void unifyDTypes(Value& a, Value& b, const char* opText);

}  // namespace weft
