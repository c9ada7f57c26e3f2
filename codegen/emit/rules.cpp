// The emit column: every family's rules, registered by their files.
#include <mutex>

#include "emit_rule.h"

namespace weft::codegen {

void registerEmitRules() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerElementwiseEmitRules();
    registerReduceEmitRules();
    registerMatMulEmitRules();
    registerConvEmitRules();
    registerShapeEmitRules();
    registerIndexingEmitRules();
    registerCreationEmitRules();
    registerStateEmitRules();
    registerControlEmitRules();
    registerAttentionEmitRules();
    registerLayerNormEmitRules();
    registerAdamEmitRules();
    registerRowsEmitRules();
    registerCollectiveEmitRules();
  });
}

}  // namespace weft::codegen
