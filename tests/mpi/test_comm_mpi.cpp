// The MPI collectives (stdlib/runtime/comm_mpi.h), run by ctest under `mpirun -np 2` and
// `-np 4` (tests/CMakeLists.txt, label mpi): on a 1-D mesh of every rank and, on 4 ranks, a 2x2
// mesh, each collective's result on every member against what comm.h promises, computed here
// from every member's input — values that differ by member and element, so that a block in the
// wrong place or a wrong group fails. A failed check prints on its rank and ends the job with
// status 1; rank 0 says "ok" with the number of checks when all passed.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stdlib/runtime/comm_mpi.h"

namespace {

using weft::rt::CommError;
using weft::rt::DType;
using weft::rt::MpiComm;

int rank = 0, checks = 0;

void expect(bool ok, const char* what, long long at) {
  ++checks;
  if (ok) return;
  std::fprintf(stderr, "rank %d: %s wrong at %lld\n", rank, what, at);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Member m's input element i along mesh dimension k: distinct per member and element.
float value(int64_t device, int64_t i) { return float(device * 1000 + i) * 0.5f; }

// The devices of this device's group along k, in coordinate order.
std::vector<int64_t> group(const MpiComm& c, const std::vector<int64_t>& sizes, int k) {
  int64_t stride = 1;
  for (int d = int(sizes.size()) - 1; d > k; --d) stride *= sizes[size_t(d)];
  const int64_t first = c.device() - c.coordinate(k) * stride;
  std::vector<int64_t> members;
  for (int64_t j = 0; j < sizes[size_t(k)]; ++j) members.push_back(first + j * stride);
  return members;
}

void collectives(const std::vector<int64_t>& sizes) {
  MpiComm c(sizes, MPI_COMM_WORLD);
  const int64_t me = c.device(), n = 6;
  for (int k = 0; k < c.meshRank(); ++k) {
    const std::vector<int64_t> members = group(c, sizes, k);
    const int64_t p = int64_t(members.size());
    expect(members[size_t(c.coordinate(k))] == me, "the group's order", k);
    std::vector<float> in(size_t(p * n)), out(size_t(p * n));
    for (int64_t i = 0; i < p * n; ++i) in[size_t(i)] = value(me, i);

    c.allGather(k, in.data(), out.data(), n * 4);
    for (int64_t j = 0; j < p; ++j)
      for (int64_t i = 0; i < n; ++i) expect(out[size_t(j * n + i)] == value(members[size_t(j)], i), "all_gather", i);

    c.allReduce(k, DType::F32, in.data(), out.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      float sum = 0;
      for (int64_t m : members) sum += value(m, i);
      expect(out[size_t(i)] == sum, "all_reduce", i);
    }

    c.reduceScatter(k, DType::F32, in.data(), out.data(), n);  // block j: elements j*n .. j*n+n-1
    for (int64_t i = 0; i < n; ++i) {
      float sum = 0;
      for (int64_t m : members) sum += value(m, c.coordinate(k) * n + i);
      expect(out[size_t(i)] == sum, "reduce_scatter", i);
    }

    c.allToAll(k, in.data(), out.data(), n * 4);  // block j of member m goes to member j
    for (int64_t j = 0; j < p; ++j)
      for (int64_t i = 0; i < n; ++i)
        expect(out[size_t(j * n + i)] == value(members[size_t(j)], c.coordinate(k) * n + i), "all_to_all", i);

    // Integers sum exactly; bools or.
    std::vector<int64_t> ints(size_t(n), me + 1);
    std::vector<int64_t> intOut(size_t(n), 0);
    c.allReduce(k, DType::I64, ints.data(), intOut.data(), n);
    int64_t total = 0;
    for (int64_t m : members) total += m + 1;
    expect(intOut[0] == total, "all_reduce of i64", 0);
    bool flag = me == members[0], any = false;
    c.allReduce(k, DType::Bool, &flag, &any, 1);
    expect(any, "all_reduce of bool", 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  collectives({ranks});
  if (ranks == 4) collectives({2, 2});
  try {  // a mesh whose devices are not the ranks is refused, on every rank alike
    MpiComm wrong({int64_t(ranks) + 1}, MPI_COMM_WORLD);
    expect(false, "a mesh of more devices than ranks", 0);
  } catch (const CommError& e) {
    expect(std::string(e.what()).find("one device per rank") != std::string::npos, "the error", 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("ok: %d checks on each of %d ranks\n", checks, ranks);
  MPI_Finalize();
  return 0;
}
