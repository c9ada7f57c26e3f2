// The op table's test cases: for every op with a kernel, inputs and attributes it accepts, and
// some it refuses. The table's columns are each checked on these (test_op_table.cpp: inference
// and workspace; test_shard_rules.cpp: the sharding rules).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "interpreter/ops/op_table.h"

namespace weft::testutil {

struct OpCase {
  std::vector<Tensor> in;
  ops::Attrs attrs;
  bool valid = true;  // false: the types or attributes are wrong, and every column must say so
};

std::multimap<ops::OpId, OpCase> opCases();
std::vector<ops::TensorType> typesOf(const std::vector<Tensor>& in);
// "matmul f32[64, 128] f32[128, 96]", for messages.
std::string label(const ops::OpDef& d, const OpCase& c);

}  // namespace weft::testutil
