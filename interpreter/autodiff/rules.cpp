// The op table's VJP column: every family's rules, registered by their files.
#include "rules.h"

namespace weft::autodiff {

void registerVjpRules() {
  registerElementwiseVjps();
  registerReductionVjps();
  registerMatMulVjps();
  registerShapeVjps();
  registerIndexingVjps();
  registerConvVjps();
  registerAttentionVjps();
  registerLayerNormVjps();
  registerCollectiveVjps();
  registerNoGradientVjps();
}

}  // namespace weft::autodiff
