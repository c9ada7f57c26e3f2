// Base of every AST node: a kind tag for switch dispatch and the source range it came from.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../source.h"
#include "symbol.h"

namespace weft::ast {

template <class T>
using Ptr = std::unique_ptr<T>;

struct Node {
  SourceRange range;
  virtual ~Node() = default;
};

}  // namespace weft::ast
