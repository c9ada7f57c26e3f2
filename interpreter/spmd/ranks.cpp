#include "ranks.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/comm.h"
#include "blocks.h"
#include "mpi_api.h"

namespace weft::spmd {
namespace {

int ranks = 1, rank = 0;
const MpiApi* mpi = nullptr;  // loaded when mpirun started several ranks

// One communicator per mesh shape, freed before MPI ends.
std::map<std::vector<int64_t>, std::unique_ptr<rt::Comm>> comms;

// The MPI plugin, or why it cannot be loaded.
std::string loadMpi() {
#ifdef WEFT_MPI_PLUGIN
  void* h = dlopen(WEFT_MPI_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!h)  // it is built where CMake found Open MPI
    return std::string("Weft's MPI plugin cannot be loaded (") + dlerror() +
           "): install libopenmpi-dev and build Weft again";
  auto entry = reinterpret_cast<const MpiApi* (*)()>(dlsym(h, "weft_mpi_api"));
  if (!entry) return "Weft's MPI plugin '" WEFT_MPI_PLUGIN "' has no entry point";
  mpi = entry();
  return "";
#else
  return "this Weft was built without MPI (a sanitized build)";
#endif
}

}  // namespace

std::string startRanks() {
  // mpirun tells each process it starts how many there are; a process it did not start is alone.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || std::atoi(size) <= 1) return "";
  if (std::string why = loadMpi(); !why.empty()) return std::string("mpirun started ") + size + " ranks, but " + why;
  mpi->start(ranks, rank);
  return "";
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
  if (ranks == 1) return;
  comms.clear();
  mpi->finish();
}

void abortRanks(int status) {
  if (ranks > 1) mpi->abort(status);
  std::exit(status);
}

void waitForRanks() {
  if (ranks > 1) mpi->barrier();
}

double fromRankZero(double v) {
  if (ranks > 1) mpi->broadcast(v);
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
  if (ranks == 1) throw WeftError("internal: no communicator across ranks in a single process");
  std::unique_ptr<rt::Comm>& c = comms[mesh.sizes];
  if (!c) c = mpi->meshComm(mesh.sizes);
  return *c;
}

void allGatherAcrossRanks(const void* in, void* out, int64_t bytes) {
  if (ranks == 1) {
    std::memcpy(out, in, size_t(bytes));
    return;
  }
  if (std::string why = mpi->allGather(in, out, bytes); !why.empty()) throw WeftError(why);
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
