// The code of a unit on a mesh (SPEC §7.1, docs/compiled_code.md "Sharded exports"): its state
// holds each device's blocks of the variables, and each export's call() cuts the global inputs
// into the devices' blocks, runs the device program (the partitioned graph, emitted as
// runDevice) on every device's thread, their collectives meeting through comm_threads.h, and
// assembles the global outputs.
#pragma once
#include <string>

#include "../unit.h"
#include "op_emit.h"

namespace weft::codegen {

// The private members of a sharded export's class.
std::string shardedMembers(const ExportGraph& e, const std::string& deviceParams);
// Its call(): `params` are the global inputs and outputs, `code` the device program's.
std::string shardedCall(const CompileUnit& unit, const ExportGraph& e, const FunctionCode& code, const std::string& cls,
                        const std::string& params);

// PROGRAM_state.h and .cpp of a unit on a mesh.
std::string shardedStateHeader(const CompileUnit& u);
std::string shardedStateSource(const CompileUnit& u);

}  // namespace weft::codegen
