// A main of its own calling compiled SPMD code (tests/mpi/grid.model's train step on a 2x2 mesh),
// alone or under mpirun (a device or two per rank), as a user's would: every rank takes the same
// calls, in turn call() (only rank 0's inputs are read: the others pass none) and
// call_on_every_rank() (every rank passes them and gets the loss, the same on each),
// steady-state calls allocate nothing on any rank, and the state saved after them (rank 0 writes
// it whole) is the same either way; tests/run_mpi_compiled.cmake compares the two. What Open MPI allocates inside its own calls is its own (4.1's MPI_Allreduce
// allocates a scratch buffer at each call): the MPI calls Weft makes are wrapped (MPI's
// profiling interface) so that they count nothing. Usage: compiled_ranks OUT_DIR (it must exist).
#include <cstdio>
#include <cstring>
#include <vector>

#include "grid_step.h"
#include "weft_runtime/ranks.h"

#include "../compile/counting_malloc.h"

#ifdef WEFT_RT_MPI
namespace {
template <class Call>
int uncounted(Call&& call) {
  const bool was = counting;
  counting = false;
  const int status = call();
  counting = was;
  return status;
}
}  // namespace

extern "C" {
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  return uncounted([&] { return PMPI_Bcast(b, n, t, root, c); });
}
int MPI_Allreduce(const void* in, void* out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return uncounted([&] { return PMPI_Allreduce(in, out, n, t, op, c); });
}
int MPI_Reduce_scatter(const void* in, void* out, const int counts[], MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return uncounted([&] { return PMPI_Reduce_scatter(in, out, counts, t, op, c); });
}
int MPI_Allgather(const void* in, int n, MPI_Datatype t, void* out, int m, MPI_Datatype u, MPI_Comm c) {
  return uncounted([&] { return PMPI_Allgather(in, n, t, out, m, u, c); });
}
int MPI_Alltoall(const void* in, int n, MPI_Datatype t, void* out, int m, MPI_Datatype u, MPI_Comm c) {
  return uncounted([&] { return PMPI_Alltoall(in, n, t, out, m, u, c); });
}
int MPI_Scatter(const void* in, int n, MPI_Datatype t, void* out, int m, MPI_Datatype u, int root, MPI_Comm c) {
  return uncounted([&] { return PMPI_Scatter(in, n, t, out, m, u, root, c); });
}
int MPI_Gather(const void* in, int n, MPI_Datatype t, void* out, int m, MPI_Datatype u, int root, MPI_Comm c) {
  return uncounted([&] { return PMPI_Gather(in, n, t, out, m, u, root, c); });
}
}
#endif

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: compiled_ranks OUT_DIR\n");
    return 2;
  }
  const bool root = weft::rt::ranks().index == 0;
  std::shared_ptr<grid::State> state;
  weft::rt::Status s = grid::State::load(grid::kDefaultWeightsDir, state);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  grid::GridStep step(state);
  std::vector<float> x(8 * 4), y(8 * 4, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) / 10.0f - 1.0f;
  const int64_t shape[2] = {8, 4};
  float loss = 0;
  int64_t none[1];
  auto call = [&](bool everyRank) {
    if (everyRank) return step.call_on_every_rank(x.data(), shape, y.data(), shape, &loss, 1, none);
    return step.call(root ? x.data() : nullptr, root ? shape : nullptr, root ? y.data() : nullptr,
                     root ? shape : nullptr, &loss, 1, none);
  };
  s = call(false);  // sizes the blocks and arenas, for both forms
  if (s) s = call(true);
  counting = true;
  for (int i = 0; i < 4 && s; ++i) s = call(i % 2 == 1);
  counting = false;
  uint32_t bits = 0;
  std::memcpy(&bits, &loss, sizeof bits);
  if (s && !weft::rt::sameOnEveryRank(bits)) {
    std::fprintf(stderr, "rank %d: call_on_every_rank gave another loss than rank 0's\n", weft::rt::ranks().index);
    return 1;
  }
  if (s) s = state->save(argv[1]);
  if (!s) {
    if (root) std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  if (allocations != 0) {
    std::fprintf(stderr, "rank %d: 4 steady-state calls allocated %ld times\n", weft::rt::ranks().index, allocations);
    return 1;
  }
  if (root) std::printf("loss %.6f\n", double(loss));
  return 0;
}
