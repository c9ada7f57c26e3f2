// The rule through which no gradient flows, and the families whose every op has it: the creation
// and random ops (no inputs) and adam_update (a variable's update, never differentiated). The
// graph-only ops have no rule: a tape handles control flow itself (tape.cpp), and constants,
// variables, print and check carry no gradient through an op.
#include "rules.h"

namespace weft::autodiff {

ops::VjpResult noGradient(const ops::VjpArgs& a) { return ops::VjpResult(a.in.size()); }

void registerNoGradientVjps() {
  using ops::OpId;
  ops::setVjp({OpId::Full, OpId::Eye, OpId::Arange, OpId::Linspace}, noGradient);
  ops::setVjp({OpId::RandomNormal, OpId::RandomUniform, OpId::RandomTruncatedNormal}, noGradient);
  ops::setVjp({OpId::AdamUpdate}, noGradient);
}

}  // namespace weft::autodiff
