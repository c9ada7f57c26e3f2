// The rows of the ops that exist only in graphs: a constant, reading and writing a variable,
// print, check (an `assert` on a graph value: the call fails with its message when its bool
// scalar is false), and the control flow nodes whose bodies are blocks of nodes
// (interpreter/graph/). They have neither inference nor kernel: the tracer, verifier and executor
// handle them themselves. Each has an effect but the constant.
#include "row.h"

namespace weft::ops {

using namespace rows;

void defineGraphOnlyRows() {
  defineRow(OpId::Constant, Family::State).attrs = {{"value", K::Tensor}};
  for (OpId id : {OpId::ReadVariable, OpId::AssignVariable}) {
    OpDef& d = defineRow(id, Family::State);
    d.attrs = {{"var", K::Int}};
    d.effect = true;
  }
  {
    OpDef& d = defineRow(OpId::Print, Family::Output);
    d.attrs = {{"format", K::Str}};
    d.effect = true;
  }
  {
    // Where the failing statement is: its file and [line, column, end line, end column].
    OpDef& d = defineRow(OpId::Check, Family::Output);
    d.attrs = {{"message", K::Str}, {"file", K::Str}, {"span", K::Ints}};
    d.effect = true;
  }
  for (OpId id : {OpId::Cond, OpId::While}) defineRow(id, Family::Control).effect = true;
}

}  // namespace weft::ops
