// What the memory tests measure: the process's peak resident set size (VmHWM), in KiB.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

namespace weft::testutil {

inline int64_t peakRssKiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

}  // namespace weft::testutil
