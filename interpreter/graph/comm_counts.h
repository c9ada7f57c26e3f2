// The collectives a run performed (weft run --comm-report, SPEC §7.1): per source line and op,
// how many ran and the bytes one device sent for them, by the same textbook volumes as the plan
// (spmd::collectiveBytes), so that a report equals the plan times the calls.
#pragma once
#include <map>
#include <string>
#include <tuple>

#include "graph.h"

namespace weft::graph {

class CommCounts {
 public:
  void add(const Loc& at, ops::OpId op, int64_t bytes);
  // "comm report:" and a line per source line and op, then the totals.
  std::string report() const;

 private:
  struct Count {
    int64_t calls = 0, bytes = 0;
  };
  std::map<std::tuple<std::string, int, int>, Count> counted_;  // (file, line, op)
};

// Bytes as the plan and the report print them: "512 B", "8.0 KiB", "2.7 MiB".
std::string bytesText(int64_t bytes);

}  // namespace weft::graph
