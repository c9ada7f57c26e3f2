// Every row of the op table has every column its op needs, once each layer has registered its
// rules: inference and kernel for an op with a kernel (none for the graph-only ops), a VJP rule
// and a sharding rule (none for the graph-only ops, which the tape and the partitioner handle
// themselves), and an emit rule for every op. A row its family's file or a layer's file left
// without a column fails here.
#include <doctest/doctest.h>

#include <set>

#include "codegen/emit/emit_rule.h"
#include "interpreter/autodiff/rules.h"
#include "interpreter/spmd/shard_rule.h"

namespace weft {
namespace {

using ops::OpId;

TEST_CASE("op table: every row has its columns") {
  autodiff::registerVjpRules();
  spmd::registerShardRules();
  codegen::registerEmitRules();
  const std::set<OpId> graphOnly = {
#define WEFT_GRAPH_ONLY_ID(F, Id, ...) OpId::F##Id,
      WEFT_FOR_EACH_GRAPH_ONLY_OP(WEFT_GRAPH_ONLY_ID)
#undef WEFT_GRAPH_ONLY_ID
  };
  for (int i = 0; i < ops::kOpCount; ++i) {
    const ops::OpDef& d = ops::opDef(OpId(i));
    INFO(d.name);
    CHECK(d.id == OpId(i));
    const bool kernel = !graphOnly.count(d.id);
    CHECK_MESSAGE(bool(d.infer) == kernel, d.name, kernel ? " has no inference" : " is graph-only but infers");
    CHECK_MESSAGE(bool(d.run) == kernel, d.name, kernel ? " has no kernel" : " is graph-only but has a kernel");
    CHECK_MESSAGE(bool(d.vjp) == kernel, d.name, kernel ? " has no VJP rule" : " is graph-only but has a VJP rule");
    CHECK_MESSAGE(bool(d.shard) == kernel, d.name,
                  kernel ? " has no sharding rule" : " is graph-only but has a sharding rule");
    CHECK_MESSAGE(d.emit != nullptr, d.name, " has no emit rule");
  }
}

}  // namespace
}  // namespace weft
