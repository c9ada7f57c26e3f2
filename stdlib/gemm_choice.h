// Which GEMM library runs each class of shapes on this machine: measured once, cached in a file
// keyed by the CPU model and the libraries' versions, so that every run of a program on the same
// machine computes the same bits (stdlib/runtime/gemm_libraries.h runs the plan).
#pragma once
#include <string>

#include "runtime/gemm_libraries.h"

namespace weft::gemm {

struct Choice {
  rt::GemmPlan plan;                     // Eigen everywhere unless measured or cached
  std::string source;                    // how the plan was made: "cached in P", "measured now, cached in P", ...
  std::string note;                      // non-empty: why the plan is Eigen's although other libraries are there
  std::string measured[rt::kGemmClasses];  // each class's GFLOP/s per library, as measured
};


// What a cached choice holds for: the CPU model, Eigen's version and instruction sets, and the
// versions of the libraries that loaded.
std::string machineKey();

// $XDG_CACHE_HOME/weft/gemm.txt, else $HOME/.cache/weft/gemm.txt; empty when neither is set.
std::string defaultCachePath();

// The choice cached at `path` for this machine, or measured now (a few seconds) and cached
// there. A cache that is garbage or made for another machine is measured again and replaced.
// When the choice cannot be cached (no path, an unwritable folder), every class runs on Eigen
// and `note` says why: a choice measured again on each run could differ between runs. With no
// library but Eigen there is nothing to measure.
Choice loadOrMeasure(const std::string& path);

// This process's choice: loadOrMeasure(defaultCachePath()), made once; its note is said on
// stderr once. installPlanner() makes it the plan of every GEMM in this process.
const Choice& processChoice();
void installPlanner();

// What `weft info` prints: the CPU, each library (its version, or why it is missing), the plan
// this process runs and where it came from.
std::string describe();

}  // namespace weft::gemm
