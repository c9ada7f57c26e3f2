// The stack bound of evaluation and of the walks that precede it (limits.cpp, docs/robustness.md).
#pragma once
#include <cstddef>

namespace weft {

// The error of an expression that would overflow the stack.
extern const char* const kExpressionTooDeep;

// Whether this thread's stack is nearly full, `below` bytes further down: calls stop there
// whatever --max-call-depth allows, and so do walks over nested expressions.
bool stackNearlyFull(size_t below = 0);

}  // namespace weft
