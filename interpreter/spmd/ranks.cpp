#include "ranks.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "../../grammar/diagnostics.h"
#include "blocks.h"

#ifdef WEFT_MPI
#include "../../stdlib/runtime/comm_mpi.h"
#endif

namespace weft::spmd {
namespace {

int ranks = 1, rank = 0;

#ifdef WEFT_MPI
// One communicator per mesh shape, freed before MPI ends.
std::map<std::vector<int64_t>, std::unique_ptr<rt::MpiComm>> comms;
#endif

}  // namespace

std::string startRanks() {
  // mpirun tells each process it starts how many there are; a process it did not start is alone.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || std::atoi(size) <= 1) return "";
#ifdef WEFT_MPI
  int provided = 0;
  // Only the interpreter's thread calls MPI: a rank's first device runs on it (device_comms.h).
  rt::yieldWhileWaiting();
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return "";
#else
  return std::string("mpirun started ") + size + " ranks, but this Weft was built without MPI (install " +
         "libopenmpi-dev and build it again)";
#endif
}

std::string rankStartedOtherwise(const std::vector<std::string>& args, const std::string& programText) {
  if (ranks == 1) return "";
  // FNV-1a over the texts, each ended by its length so that no two lists of texts run together.
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&](const std::string& text) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    for (size_t n = text.size(), i = 0; i < 8; ++i, n >>= 8) hash = (hash ^ (n & 0xff)) * 1099511628211ull;
  };
  for (const std::string& a : args) mix(a);
  mix(programText);
  std::vector<uint64_t> all(static_cast<size_t>(ranks));
  allGatherAcrossRanks(&hash, all.data(), sizeof hash);
  for (int r = 1; r < ranks; ++r)
    if (all[size_t(r)] != all[0])
      return "rank " + std::to_string(r) + " was started with other arguments or another program than rank 0 " +
             "(mpirun's ':' form?): every rank must run the same program with the same arguments";
  return "";
}

void finishRanks() {
#ifdef WEFT_MPI
  if (ranks == 1) return;
  comms.clear();
  MPI_Finalize();
#endif
}

void abortRanks(int status) {
#ifdef WEFT_MPI
  if (ranks > 1) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::exit(status);
}

void waitForRanks() {
#ifdef WEFT_MPI
  if (ranks > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double fromRankZero(double v) {
#ifdef WEFT_MPI
  if (ranks > 1) MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#endif
  return v;
}

int rankCount() { return ranks; }
int rankIndex() { return rank; }

std::string meshMisfitOnRanks(int64_t devices) {
  if (devices % ranks == 0) return "";
  return "the mesh has " + std::to_string(devices) + " devices and mpirun started " + std::to_string(ranks) +
         " ranks, which do not divide them: run with a number of ranks that divides " + std::to_string(devices);
}

int64_t devicesHeld(const MeshAxes& mesh) { return deviceCount(mesh) / ranks; }

bool ownsDevice(const MeshAxes& mesh, int64_t device) { return ranks == 1 || device / devicesHeld(mesh) == rank; }

int64_t firstOwnedDevice(const MeshAxes& mesh) { return ranks == 1 ? 0 : rank * devicesHeld(mesh); }

rt::Comm& rankComm(const MeshAxes& mesh) {
#ifdef WEFT_MPI
  std::unique_ptr<rt::MpiComm>& c = comms[mesh.sizes];
  if (!c) c = std::make_unique<rt::MpiComm>(mesh.sizes, MPI_COMM_WORLD);
  return *c;
#else
  (void)mesh;
  throw WeftError("internal: no communicator across ranks without MPI");
#endif
}

void allGatherAcrossRanks(const void* in, void* out, int64_t bytes) {
#ifdef WEFT_MPI
  if (bytes > INT_MAX)
    throw WeftError("a collective of " + std::to_string(bytes) + " bytes is past what MPI sends in one message");
  MPI_Allgather(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, MPI_COMM_WORLD);
#else
  std::memcpy(out, in, size_t(bytes));
#endif
}

void gatherRankBlocks(const MeshAxes& mesh, std::vector<Tensor>& locals) {
  if (ranks == 1) return;
  const int64_t per = devicesHeld(mesh), first = firstOwnedDevice(mesh);
  const Tensor& mine = locals[size_t(first)];
  const int64_t bytes = mine.bytes();
  std::vector<char> sent(size_t(bytes * per)), all(size_t(bytes * per * ranks));
  for (int64_t j = 0; j < per; ++j) std::memcpy(sent.data() + j * bytes, locals[size_t(first + j)].raw(), size_t(bytes));
  allGatherAcrossRanks(sent.data(), all.data(), bytes * per);
  for (size_t d = 0; d < locals.size(); ++d) {
    if (ownsDevice(mesh, int64_t(d))) continue;
    locals[d] = Tensor::empty(mine.dtype(), mine.shape());
    std::memcpy(locals[d].raw(), all.data() + int64_t(d) * bytes, size_t(bytes));
  }
}

}  // namespace weft::spmd
