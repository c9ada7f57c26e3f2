// The C++ target of the graph pipeline (interpreter/graph/pipeline.h) over a compile unit.
#pragma once
#include <iosfwd>
#include <string>

#include "unit.h"

namespace weft::codegen {

// Runs the pipeline's C++ passes on every export (printing the graph after `dumpAfter` to
// `dump`), then gives each constant the lift-constants pass moved into a variable slot its place
// in the unit's state.
void lowerUnit(CompileUnit& unit, const std::string& dumpAfter, std::ostream& dump);

}  // namespace weft::codegen
