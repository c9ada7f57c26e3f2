#include "context.h"

namespace weft {
namespace {

ExecutionContext* current() {
  thread_local ExecutionContext own;
  return &own;
}
thread_local ExecutionContext* tCurrent = nullptr;

}  // namespace

ExecutionContext& context() { return tCurrent ? *tCurrent : *current(); }

ContextScope::ContextScope(ExecutionContext& c) : outer_(tCurrent) { tCurrent = &c; }
ContextScope::~ContextScope() { tCurrent = outer_; }

}  // namespace weft
