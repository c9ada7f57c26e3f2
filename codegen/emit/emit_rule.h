// The op table's emit column (ops::OpDef::emit): how each primitive becomes C++, written once per
// op family, whose file registers its ops' rules; the driver (function_body.cpp) calls a rule's
// steps for each node, in three walks over the graph: sizes, memory, code.
#pragma once
#include <string>

#include "interpreter/graph/graph.h"

namespace weft::codegen {
class Emitter;
}

namespace weft::ops {

struct EmitRule {
  const char* header;  // the weft_runtime/ header its code calls, or "" for none
  // The results' sizes (Emitter::setSizes) for the ops without an inference function (state and
  // control flow) and those sized by an input's value (OpDef::sizedByValue); null for every other
  // op, whose sizes and run-time checks are its inference's on symbolic sizes (Emitter::sizes).
  void (*sizes)(codegen::Emitter& e, const graph::Node& n);
  // Which results own arena bytes and which alias others, and the workspace; null for the
  // default, Emitter::ownResults.
  void (*memory)(codegen::Emitter& e, const graph::Node& n);
  // The statements, each line starting with `pad`.
  void (*code)(codegen::Emitter& e, const graph::Node& n, const std::string& pad);
};

}  // namespace weft::ops

namespace weft::codegen {

// Fills the op table's emit column (once; weft compile and the tests call it).
void registerEmitRules();

// Each family's file registers its ops' rules (ops::setEmit).
void registerElementwiseEmitRules();   // elementwise.cpp
void registerReduceEmitRules();        // reduce.cpp
void registerMatMulEmitRules();        // matmul.cpp
void registerConvEmitRules();          // conv.cpp
void registerShapeEmitRules();         // shape.cpp
void registerIndexingEmitRules();      // indexing.cpp
void registerCreationEmitRules();      // creation.cpp
void registerStateEmitRules();         // state.cpp
void registerControlEmitRules();       // control.cpp
void registerAttentionEmitRules();     // attention.cpp
void registerLayerNormEmitRules();     // layer_norm.cpp
void registerAdamEmitRules();          // adam.cpp
void registerRowsEmitRules();          // rows.cpp
void registerCollectiveEmitRules();    // collective.cpp

}  // namespace weft::codegen
