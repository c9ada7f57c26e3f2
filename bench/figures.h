// What the C++ benchmarks print beside their figures: the median of a run's samples, and the CPU
// model (figures from different CPUs do not compare).
#ifndef WEFT_BENCH_FIGURES_H
#define WEFT_BENCH_FIGURES_H
#include <algorithm>
#include <string>
#include <vector>

#include "stdlib/runtime/cpu_name.h"

namespace weft::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline std::string cpuModel() { return rt::cpuName(); }

}  // namespace weft::bench

#endif
