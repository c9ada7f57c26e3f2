// Weft's MPI collectives (stdlib/runtime/comm_mpi.h) beside the bare MPI calls of the same bytes,
// in one run: all-reduce, all-gather and reduce-scatter of f32 at 4 KiB, 256 KiB and 4 MiB, the
// median of N calls each (default 200, after 20 unmeasured), and the ratio. The target: each
// within 1.2x the bare call. The rs/allreduce row races Weft's reduce-scatter against the bare
// all-reduce of its whole input (no target: it says which of the two is faster). Run it under
// MPI, on one machine as:
//   mpirun -np 2 --bind-to none --mca btl self,vader build/bench/bench_mpi_collective [N]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/figures.h"
#include "stdlib/runtime/comm_mpi.h"

namespace {

using weft::bench::cpuModel;
using weft::bench::median;

// Rank 0's median time of `call` in microseconds; every call starts after a barrier. The two
// contenders alternate call by call, so that a noisy moment hits both.
std::pair<double, double> race(int calls, const std::function<void()>& weft, const std::function<void()>& bare) {
  std::vector<double> a, b;
  for (int i = 0; i < calls + 20; ++i)
    for (int which = 0; which < 2; ++which) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      (which ? bare : weft)();
      const double us = (MPI_Wtime() - start) * 1e6;
      if (i >= 20) (which ? b : a).push_back(us);
    }
  return {median(a), median(b)};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  {
    weft::rt::MpiComm comm({ranks}, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("%s, %d ranks, Open MPI, median of %d calls (us)\n%-15s %10s %10s %8s\n", cpuModel().c_str(), ranks,
                  calls, "collective", "weft", "bare MPI", "ratio");
    for (int64_t bytes : {int64_t(4) << 10, int64_t(256) << 10, int64_t(4) << 20}) {
      const int64_t n = bytes / 4;
      std::vector<float> in(size_t(n * ranks), 1.0f), out(size_t(n * ranks));
      std::vector<int> counts(static_cast<size_t>(ranks), static_cast<int>(n));
      struct Row {
        const char* name;
        std::function<void()> weft, bare;
      };
      const Row rows[] = {
          {"all_reduce", [&] { comm.allReduce(0, weft::rt::DType::F32, in.data(), out.data(), n); },
           [&] { MPI_Allreduce(in.data(), out.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }},
          {"all_gather", [&] { comm.allGather(0, in.data(), out.data(), bytes); },
           [&] { MPI_Allgather(in.data(), int(bytes), MPI_BYTE, out.data(), int(bytes), MPI_BYTE, MPI_COMM_WORLD); }},
          {"reduce_scatter", [&] { comm.reduceScatter(0, weft::rt::DType::F32, in.data(), out.data(), n); },
           [&] { MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }},
          // What a reduce-scatter could be instead: the all-reduce of its whole input.
          {"rs/allreduce", [&] { comm.reduceScatter(0, weft::rt::DType::F32, in.data(), out.data(), n); },
           [&] { MPI_Allreduce(in.data(), out.data(), int(n * ranks), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }},
      };
      for (const Row& r : rows) {
        const auto [w, b] = race(calls, r.weft, r.bare);
        if (rank == 0)
          std::printf("%-15s %10.1f %10.1f %7.2fx  %lld KiB%s\n", r.name, w, b, w / b, static_cast<long long>(bytes >> 10),
                      w / b <= 1.2 ? "" : "  (target <= 1.2x: missed)");
      }
    }
  }
  MPI_Finalize();
}
