// What the C++ benchmarks print beside their figures: the median of a run's samples, and the CPU
// model (figures from different CPUs do not compare).
#ifndef WEFT_BENCH_FIGURES_H
#define WEFT_BENCH_FIGURES_H
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace weft::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline std::string cpuModel() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace weft::bench

#endif
