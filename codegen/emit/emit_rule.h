// The op table's emit column (ops::OpDef::emit): how each primitive becomes C++, written once per
// op family. `rules.cpp` names the rule of every op; the driver (function_body.cpp) calls a rule's
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

// The rules of each family, defined in the file of that name.
extern const ops::EmitRule kUnaryRule, kBinaryRule, kTernaryRule, kCastRule, kGeluRule;        // elementwise.cpp
extern const ops::EmitRule kReduceRule, kArgReduceRule, kKthLargestRule;                      // reduce.cpp
extern const ops::EmitRule kMatMulRule;                                                       // matmul.cpp
extern const ops::EmitRule kConvRule, kPoolRule, kConvGradRule, kPoolGradRule;                // conv.cpp
extern const ops::EmitRule kReshapeRule, kExpandDimsRule, kSqueezeRule, kTransposeRule, kBroadcastToRule, kConcatRule, kStackRule,
    kSplitRule, kShapeOfRule, kRelayoutRule;                                                                 // shape.cpp
extern const ops::EmitRule kGetItemRule, kSetItemRule, kTakeRule, kOneHotRule;                // indexing.cpp
extern const ops::EmitRule kCreationRule, kRandomRule;                                        // creation.cpp
extern const ops::EmitRule kConstantRule, kReadVariableRule, kAssignVariableRule, kPrintRule, kCheckRule; // state.cpp
extern const ops::EmitRule kCondRule, kWhileRule;                                             // control.cpp
extern const ops::EmitRule kAttentionRule;                                                    // attention.cpp
extern const ops::EmitRule kLayerNormRule;                                                    // layer_norm.cpp
extern const ops::EmitRule kAdamUpdateRule;                                                   // adam.cpp
extern const ops::EmitRule kBroadcastRowsRule, kUpdateRowRule;                                // rows.cpp
extern const ops::EmitRule kCollectiveRule;                                                   // collective.cpp

}  // namespace weft::codegen
