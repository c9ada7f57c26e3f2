#include "sharded.h"

#include <algorithm>
#include <sstream>

#include "function_emitter.h"
#include "interpreter/graph/text.h"
#include "../names.h"

namespace weft::codegen {
namespace {

// "{0, -1}": a value's placements as rt::MeshPlace reads them (shards.h).
std::string placementList(const spmd::Placements& ps) {
  std::string out = "{";
  for (size_t k = 0; k < ps.size(); ++k)
    out += (k ? ", " : "") + std::string(ps[k].sharded() ? std::to_string(ps[k].dim) : ps[k].partial() ? "weft::rt::kPartial"
                                                                                                         : "weft::rt::kReplicated");
  return out + "}";
}

std::string shapeLiteral(const Shape& s) {
  std::string out = "weft::rt::Shape{";
  for (int a = 0; a < s.rank(); ++a) out += (a ? ", " : "") + std::to_string(s[a]);
  return out + "}";
}

// A replicated value's placements on the unit's mesh, when a variable has none.
spmd::Placements placementsOf(const CompileUnit& u, const UnitVariable& v) {
  return v.placements.empty() ? spmd::Placements(size_t(u.mesh.rank())) : v.placements;
}

Shape localShape(const CompileUnit& u, const UnitVariable& v) {
  Shape s = v.value.shape();
  const spmd::Placements ps = placementsOf(u, v);
  for (size_t k = 0; k < ps.size(); ++k)
    if (ps[k].sharded()) s[ps[k].dim] /= u.mesh.sizes[k];
  return s;
}

}  // namespace

std::string shardedMembers(const ExportGraph& e, const std::string& deviceParams) {
  const size_t nin = std::max<size_t>(1, e.inputTypes.size()), nout = std::max<size_t>(1, e.outputTypes.size());
  std::ostringstream h;
  h << "  // One device's program (the partitioned graph), on its blocks; with sizesOnly, it writes its\n"
    << "  // outputs' block sizes and returns before computing.\n"
    << "  weft::rt::Status runDevice(int64_t device, weft::rt::Comm& comm, bool sizesOnly" << deviceParams << ");\n\n"
    << "  // Everything a call uses is made once, so that a steady-state call allocates nothing. Arrays\n"
    << "  // over the devices hold this process's devices' (all of them, or under MPI its rank's).\n"
    << "  std::shared_ptr<State> state_;\n"
    << "  weft::rt::Buffer arenas_[State::kDevices];  // each device's memory plan\n"
    << "  weft::rt::Buffer inputs_[" << nin << "][State::kDevices], outputs_[" << nout
    << "][State::kDevices];  // the devices' blocks\n"
    << "  const char* inputAt_[" << nin << "][State::kDevices] = {};  // each input block: in inputs_ or the caller's\n"
    << "  weft::rt::Buffer stage_;  // under MPI, the blocks of every device a rank scatters or gathers\n"
    << "  int64_t shapes_[State::kDevices][" << nout << "][8] = {};  // the output blocks' sizes\n"
    << "  weft::rt::Status status_[State::kDevices];  // each device's, of the last call\n"
    << "  weft::rt::Rendezvous rendezvous_{std::vector<int64_t>(State::kMeshSizes, State::kMeshSizes + State::kMeshRank),\n"
    << "                                  &state_->cores()};\n"
    << "  weft::rt::DeviceThreads threads_{state_->local_devices()};  // one per device, parked between calls\n";
  return h.str();
}

std::string shardedCall(const CompileUnit& unit, const ExportGraph& e, const FunctionCode& code, const std::string& cls,
                        const std::string& params) {
  std::ostringstream s;
  const size_t nin = e.inputTypes.size(), nout = e.outputTypes.size();
  s << "weft::rt::Status " << cls << "::run(bool everyRank" << (params.empty() ? "" : ", ") << params << ") {\n"
    << "  auto fail = [](const std::string& why) { return weft::rt::Status::error(" << cppString(e.name + ": ")
    << " + why); };\n"
    << "  // This process's devices: every device, or under MPI its rank's share (weft_runtime/ranks.h).\n"
    << "  // Only rank 0 reads the inputs and writes the outputs, unless every rank holds them.\n"
    << "  const int64_t devices = State::kDevices, first = state_->first_device(), local = state_->local_devices();\n"
    << "  const bool root = weft::rt::ranks().index == 0, holds = root || everyRank;\n"
    << "  weft::rt::RankComms* const comms = state_->comms();  // under MPI\n"
    << "  int64_t stage = 1;  // under MPI, the bytes of the blocks of the largest value a rank moves\n";
  // Each value's placement and shapes (global, and a device's block).
  for (size_t i = 0; i < nin; ++i) {
    const std::string in = "in" + std::to_string(i);
    s << "  // " << code.inputNames[i] << ": " << graph::typeText(e.inputTypes[i]) << " "
      << commentText(spmd::placementsText(unit.mesh, e.inputPlacements[i])) << "\n"
      << "  static const int " << in << "_places[] = " << placementList(e.inputPlacements[i]) << ";\n"
      << "  const weft::rt::MeshPlace " << in << "_place{State::kMeshSizes, State::kMeshRank, " << in << "_places};\n"
      << "  weft::rt::Shape " << in << "_global, " << in << "_local, " << in << "_start;\n";
  }
  for (size_t j = 0; j < nout; ++j) {
    const std::string o = "out" + std::to_string(j);
    s << "  static const int " << o << "_places[] = " << placementList(e.outputPlacements[j]) << ";\n"
      << "  const weft::rt::MeshPlace " << o << "_place{State::kMeshSizes, State::kMeshRank, " << o << "_places};\n"
      << "  weft::rt::Shape " << o << "_local, " << o << "_global;\n";
  }
  // The device program's arguments: device d's blocks, and its outputs' capacities.
  auto args = [&](const std::string& d, bool sizesOnly) {
    std::string a;
    for (size_t i = 0; i < nin; ++i)
      a += ", reinterpret_cast<const " + std::string(cppType(e.inputTypes[i].dtype)) + "*>(inputAt_[" + std::to_string(i) +
           "][" + d + "]), in" + std::to_string(i) + "_local.begin()";
    for (size_t j = 0; j < nout; ++j) {
      const std::string o = "out" + std::to_string(j);
      a += sizesOnly ? ", nullptr, 0, shapes_[" + d + "][" + std::to_string(j) + "]"
                     : ", reinterpret_cast<" + std::string(cppType(e.outputTypes[j].dtype)) + "*>(outputs_[" +
                           std::to_string(j) + "][" + d + "].data()), " + o + "_local.numel(), shapes_[" + d + "][" +
                           std::to_string(j) + "]";
    }
    return a;
  };
  // Rank 0 (every rank, when each holds the values) checks the inputs' global sizes, asks its
  // device for the outputs' block sizes (every device's are the same), which give the global
  // sizes, and checks the caller's buffers: all before any device computes, and every rank
  // returns the same verdict.
  s << "  auto check = [&]() -> weft::rt::Status {\n";
  for (size_t i = 0; i < nin; ++i) {
    const graph::TensorType& t = e.inputTypes[i];
    const std::string n = code.inputNames[i], in = "in" + std::to_string(i);
    for (int a = 0; a < t.shape.rank(); ++a) {
      const std::string given = n + "_shape[" + std::to_string(a) + "]";
      if (t.shape[a] != rt::kUnknownDim)
        s << "    if (" << given << " != " << t.shape[a] << ") return fail(\"input '" << n << "' expects "
          << graph::typeText(t) << ", got size \" + std::to_string(" << given << ") + \" in dimension " << a << "\");\n";
      else
        s << "    if (" << given << " < 0) return fail(\"input '" << n << "' has a negative size\");\n";
      s << "    " << in << "_global.push_back(" << given << ");\n";
    }
    s << "    if (const int a = weft::rt::unevenDimension(" << in << "_place, " << in << "_global); a >= 0)\n"
      << "      return fail(\"input '" << n << "' of shape \" + " << in << "_global.str() + \" does not split evenly on mesh("
      << literalText(spmd::meshText(unit.mesh)) << ") along dimension \" + std::to_string(a));\n"
      << "    weft::rt::blockOf(" << in << "_place, " << in << "_global, 0, " << in << "_local, " << in << "_start);\n";
  }
  s << "    weft::rt::ThreadComm sizer(rendezvous_, first);\n"
    << "    if (weft::rt::Status s = runDevice(first, comms ? comms->of(first) : sizer, true" << args("first", true)
    << "); !s) return s;\n";
  for (size_t j = 0; j < nout; ++j) {
    const graph::TensorType& t = e.outputTypes[j];
    const std::string o = "out" + std::to_string(j);
    s << "    for (int a = 0; a < " << t.shape.rank() << "; ++a) " << o << "_local.push_back(shapes_[first][" << j
      << "][a]);\n"
      << "    " << o << "_global = weft::rt::globalOf(" << o << "_place, " << o << "_local);\n"
      << "    for (int a = 0; a < " << t.shape.rank() << "; ++a) " << o << "_shape[a] = " << o << "_global[a];\n"
      << "    const int64_t " << o << "_numel = weft::rt::checkedNumel(" << o << "_shape, " << t.shape.rank() << ");\n"
      << "    if (" << o << "_numel < 0) return fail(\"output " << j << " has more elements than int64 counts\");\n"
      << "    if (" << o << "_capacity < " << o << "_numel) return fail(\"output " << j << " needs \" + std::to_string("
      << o << "_numel) + \" elements, its buffer holds \" + std::to_string(" << o << "_capacity));\n";
  }
  s << "    return {};\n  };\n"
    << "  if (weft::rt::Status s = everyRank ? weft::rt::agree(check()) : weft::rt::fromRoot(root ? check() : weft::rt::Status()); !s)\n"
    << "    return s;\n";
  // Ranks that each hold the inputs must hold the same sizes, or their blocks would not meet.
  s << "  if (everyRank) {\n    uint64_t sizes = 14695981039346656037u;  // FNV-1a over the inputs' sizes\n";
  for (size_t i = 0; i < nin; ++i)
    s << "    for (int64_t n : in" << i << "_global) sizes = (sizes ^ uint64_t(n)) * 1099511628211u;\n";
  s << "    if (!weft::rt::sameOnEveryRank(sizes))\n"
    << "      return fail(\"the ranks passed inputs of different sizes: each must pass the same to call_on_every_rank\");\n"
    << "  }\n";
  // Under MPI, the other ranks learn the sizes from rank 0.
  s << "  if (comms && !everyRank) {\n";
  for (size_t i = 0; i < nin; ++i) {
    const std::string in = "in" + std::to_string(i);
    s << "    weft::rt::broadcast(&" << in << "_global, sizeof " << in << "_global);\n"
      << "    weft::rt::blockOf(" << in << "_place, " << in << "_global, 0, " << in << "_local, " << in << "_start);\n";
  }
  for (size_t j = 0; j < nout; ++j) {
    const std::string o = "out" + std::to_string(j);
    s << "    weft::rt::broadcast(&" << o << "_global, sizeof " << o << "_global);\n"
      << "    weft::rt::broadcast(&" << o << "_local, sizeof " << o << "_local);\n";
  }
  s << "  }\n";
  // Each device's blocks, and under MPI the stage of rank 0's blocks of every device (and of a
  // rank's own, when it has several); every rank must have its
  // memory before any sends.
  s << "  auto reserve = [&]() -> weft::rt::Status {\n";
  auto reserveBlocks = [&](const std::string& buffers, const std::string& shape, const std::string& T,
                           const std::string& what) {
    s << "    for (int64_t d = first; d < first + local; ++d)\n"
      << "      if (!" << buffers << "[d].reserve(std::max<size_t>(1, size_t(" << shape << ".numel()) * sizeof(" << T
      << "))))\n        return fail(\"out of memory for the blocks of " << what << "\");\n"
      << "    stage = std::max<int64_t>(stage, (holds ? devices : local) * " << shape << ".numel() * int64_t(sizeof(" << T << ")));\n";
  };
  for (size_t i = 0; i < nin; ++i)
    reserveBlocks("inputs_[" + std::to_string(i) + "]", "in" + std::to_string(i) + "_local",
                  cppType(e.inputTypes[i].dtype), "input '" + code.inputNames[i] + "'");
  for (size_t j = 0; j < nout; ++j)
    reserveBlocks("outputs_[" + std::to_string(j) + "]", "out" + std::to_string(j) + "_local",
                  cppType(e.outputTypes[j].dtype), "output " + std::to_string(j));
  s << "    if (comms && !stage_.reserve(size_t(stage))) return fail(\"out of memory for the blocks of every device\");\n"
    << "    return {};\n  };\n"
    << "  if (weft::rt::Status s = weft::rt::agree(reserve()); !s) return s;\n";
  for (size_t i = 0; i < nin; ++i) {
    const std::string n = code.inputNames[i], in = "in" + std::to_string(i), T = cppType(e.inputTypes[i].dtype);
    s << "  weft::rt::spreadBlocks(" << in << "_place, " << n << ", " << in << "_global, sizeof(" << T
      << "), first, local, [&](int64_t d) { return inputs_[" << i << "][d].data(); }, " << in
      << "_local.numel() * int64_t(sizeof(" << T << ")), stage_.data(), everyRank, inputAt_[" << i << "]);\n";
  }
  // Every device on its own thread (device first on the caller's, the one that calls MPI); the
  // first to fail stops the others' collectives. Under MPI its error ends every rank: the other
  // ranks' devices may be waiting for it at a collective.
  s << "  std::mutex failed;\n  int64_t firstFailed = -1;\n"
    << "  if (comms) comms->reset();\n  else rendezvous_.reset();\n"
    << "  weft::rt::Cores& cores = state_->cores();  // at most threads() devices compute at once\n"
    << "  cores.reset(std::min(state_->threads(), local));\n"
    << "  auto device = [&](int64_t i) {  // the i-th of this process's devices\n"
    << "    const int64_t d = first + i;\n"
    << "    weft::rt::ThreadComm own(rendezvous_, d);\n    weft::rt::Status& s = status_[d];\n"
    << "    cores.acquire();\n"
    << "    try {\n      s = runDevice(d, comms ? comms->of(d) : own, false" << args("d", false) << ");\n"
    << "    } catch (const weft::rt::CommError& e) {\n      s = fail(e.what());\n    }\n"
    << "    cores.release();\n"
    << "    if (s) return;\n"
    << "    std::lock_guard<std::mutex> lock(failed);\n"
    << "    if (firstFailed < 0) firstFailed = d;\n"
    << "    const std::string why = \"device \" + std::to_string(d) + \" stopped\";\n"
    << "    if (comms) comms->abort(why);\n    else rendezvous_.abort(why);\n  };\n"
    << "  // A reference: std::function then allocates nothing. With a core per device, they spin a little\n"
    << "  // before they sleep.\n"
    << "  threads_.run(std::ref(device), state_->threads() >= local);\n"
    << "  if (firstFailed >= 0) {\n"
    << "    if (comms) weft::rt::stopRanks(\"rank \" + std::to_string(weft::rt::ranks().index) + \": \" + status_[firstFailed].message());\n"
    << "    return status_[firstFailed];\n  }\n";
  for (size_t j = 0; j < nout; ++j) {
    const graph::TensorType& t = e.outputTypes[j];
    const std::string o = "out" + std::to_string(j), T = cppType(t.dtype);
    s << "  weft::rt::collectBlocks(" << o << "_place, " << o << ", " << o << "_global, weft::rt::DType::"
      << dtypeEnumName(t.dtype) << ", first, local, [&](int64_t d) { return outputs_[" << j << "][d].data(); }, " << o
      << "_local.numel() * int64_t(sizeof(" << T << ")), stage_.data(), everyRank);\n";
  }
  s << "  return {};\n}\n\n";
  return s.str();
}

std::string shardedStateHeader(const CompileUnit& u) {
  std::ostringstream h;
  const std::string& ns = u.program;
  std::string macro = ns;
  for (char& c : macro) c = char(std::toupper(static_cast<unsigned char>(c)));
  int64_t devices = 1;
  for (int64_t n : u.mesh.sizes) devices *= n;
  h << "// The variables of " << commentText(u.sourceFile) << " that its exports read and write, as blocks on the\n"
    << "// devices of mesh(" << commentText(spmd::meshText(u.mesh)) << "): generated by `weft compile`.\n"
    << "#pragma once\n#include <memory>\n#include <string>\n\n#include \"weft_runtime/compiled.h\"\n"
    << "#include \"weft_runtime/device_threads.h\"\n#include \"weft_runtime/thread_pool.h\"\n\n"
    << "namespace weft::rt {\nclass RankComms;  // weft_runtime/ranks.h\n}\n\n"
    << "#ifndef " << macro << "_WEIGHTS_DIR\n#define " << macro << "_WEIGHTS_DIR \"weights\"\n#endif\n\n"
    << "namespace " << ns << " {\n\n"
    << "// Where weft compile wrote the variables' values (each NAME.npy, the whole value).\n"
    << "inline const char* const kDefaultWeightsDir = " << macro << "_WEIGHTS_DIR;\n\n"
    << "// One program's variables, shared by every export constructed on it: each device of the mesh\n"
    << "// holds its blocks of them. Its exports run every device on a thread of its own or, started by\n"
    << "// mpirun on ranks that divide the devices, each rank its share of them (weft_runtime/ranks.h).\n"
    << "class State {\n public:\n"
    << "  static constexpr int kMeshRank = " << u.mesh.rank() << ";\n"
    << "  static constexpr int64_t kMeshSizes[" << u.mesh.rank() << "] = {";
  for (size_t k = 0; k < u.mesh.sizes.size(); ++k) h << (k ? ", " : "") << u.mesh.sizes[k];
  h << "};  // " << commentText(spmd::meshText(u.mesh)) << "\n"
    << "  static constexpr int64_t kDevices = " << devices << ";  // numbered row-major over the mesh\n\n"
    << "  // Reads each variable whole from DIR/IDENT.npy and keeps this process's devices' blocks (all\n"
    << "  // of them; under MPI its rank's: weft_runtime/ranks.h). Every rank returns the same status.\n"
    << "  static weft::rt::Status load(const std::string& dir, std::shared_ptr<State>& out);\n"
    << "  // Writes each variable's current value, put together from the devices' blocks (gathered to\n"
    << "  // rank 0, which writes), to DIR/IDENT.npy (the folder must exist): a trained state loads\n"
    << "  // again on any mesh and any number of ranks. Every rank returns the same status.\n"
    << "  weft::rt::Status save(const std::string& dir) const;\n\n"
    << "  // The devices this process runs, first_device() .. first_device() + local_devices() - 1, and\n"
    << "  // under MPI their communicators (else null: the devices meet in this process alone).\n"
    << "  int64_t first_device() const { return first_device_; }\n"
    << "  int64_t local_devices() const { return local_devices_; }\n"
    << "  weft::rt::RankComms* comms() const { return comms_.get(); }\n\n"
    << "  // The cores this process's devices compute on at once: every core unless set_threads or\n"
    << "  // WEFT_NUM_THREADS says otherwise (1 to 4096); a device waiting at a collective lends its core\n"
    << "  // to another. Results are the same bits at any count.\n"
    << "  weft::rt::Status set_threads(int64_t n) {\n"
    << "    if (std::string why = weft::rt::threadsMisfit(n); !why.empty()) return weft::rt::Status::error(why);\n"
    << "    threads_ = n;\n    return {};\n  }\n"
    << "  int64_t threads() const { return weft::rt::threadsOrDefault(threads_); }\n"
    << "  weft::rt::Cores& cores() { return cores_; }  // the exports' calls hand them out\n\n"
    << "  State() = default;\n  ~State();\n\n"
    << "  // One device's blocks of the variables, and its random stream (Philox: a key and the next block).\n"
    << "  struct Device {\n";
  for (const auto& v : u.variables)
    h << "    " << cppType(v.value.dtype()) << "* " << v.ident << " = nullptr;  // '" << commentText(v.name) << "' ("
      << commentText(v.path) << "): " << rt::dtypeName(v.value.dtype()) << localShape(u, v).str() << " of "
      << v.value.shape().str() << " " << commentText(spmd::placementsText(u.mesh, placementsOf(u, v))) << "\n";
  h << "    uint64_t random_key = " << u.randomKey << "u, random_counter = " << u.randomCounter << "u;\n  };\n"
    << "  Device devices[kDevices];  // this process's hold their blocks\n\n"
    << " private:\n  weft::rt::Status read(const std::string& dir);\n\n"
    << "  int64_t first_device_ = 0, local_devices_ = kDevices, threads_ = 0;\n"
    << "  weft::rt::Cores cores_{1};\n"
    << "  std::unique_ptr<weft::rt::RankComms> comms_;\n"
    << "  weft::rt::Buffer storage_[kDevices][" << std::max<size_t>(1, u.variables.size()) << "];\n};\n\n"
    << "}  // namespace " << ns << "\n";
  return h.str();
}

std::string shardedStateSource(const CompileUnit& u) {
  std::ostringstream s;
  s << "// Generated by `weft compile` from " << commentText(u.sourceFile) << ".\n#include \"" << u.program << "_state.h\"\n\n"
    << "#include <algorithm>\n\n#include \"weft_runtime/npy.h\"\n#include \"weft_runtime/ranks.h\"\n"
    << "#include \"weft_runtime/shards.h\"\n\n"
    << "namespace " << u.program << " {\nnamespace {\n\n"
    << "// How each variable lies on the mesh (weft_runtime/shards.h).\n";
  for (size_t i = 0; i < u.variables.size(); ++i)
    s << "const int kPlaces" << i << "[] = " << placementList(placementsOf(u, u.variables[i])) << ";\n";
  s << "\n}  // namespace\n\nState::~State() = default;\n\n"
    << "weft::rt::Status State::load(const std::string& dir, std::shared_ptr<State>& out) {\n"
    << "  auto st = std::make_shared<State>();\n  int64_t threads = 0;\n"
    << "  if (std::string why = weft::rt::threadsVariable(threads); !why.empty()) return weft::rt::Status::error(why);\n"
    << "  weft::rt::Status s = weft::rt::localDevices(kDevices, st->first_device_, st->local_devices_);\n"
    << "  if (!s || !(s = weft::rt::agree(st->read(dir)))) return s;\n"
    << "  try {\n    st->comms_ = weft::rt::meshComms(kMeshSizes, kMeshRank, st->first_device_, st->local_devices_, &st->cores_);\n"
    << "  } catch (const weft::rt::CommError& e) {\n    return weft::rt::Status::error(e.what());\n  }\n"
    << "  out = std::move(st);\n  return {};\n}\n\n"
    << "// Each variable read whole (every rank reads the file), and this process's devices' blocks cut.\n"
    << "weft::rt::Status State::read(const std::string& dir) {\n"
    << "  weft::rt::Buffer whole;\n  weft::rt::Shape shape;\n  std::string why;\n";
  for (size_t i = 0; i < u.variables.size(); ++i) {
    const auto& v = u.variables[i];
    const std::string T = cppType(v.value.dtype());
    s << "  why = weft::rt::readNpyFile((dir + \"/" << v.ident << ".npy\").c_str(), weft::rt::DType::"
      << dtypeEnumName(v.value.dtype()) << ", whole, shape);\n"
      << "  if (why.empty() && shape != " << shapeLiteral(v.value.shape()) << ") why = \"" << v.ident
      << ".npy: the shape \" + shape.str() + \" is not " << v.value.shape().str() << "\";\n"
      << "  if (!why.empty()) return weft::rt::Status::error(why);\n"
      << "  for (int64_t d = first_device_; d < first_device_ + local_devices_; ++d) {\n"
      << "    char* p = storage_[d][" << i << "].reserve(std::max<size_t>(1, " << localShape(u, v).numel()
      << " * sizeof(" << T << ")));\n"
      << "    if (!p) return weft::rt::Status::error(\"out of memory for the blocks of " << v.ident << "\");\n"
      << "    weft::rt::cutBlock({kMeshSizes, kMeshRank, kPlaces" << i << "}, whole.data(), shape, sizeof(" << T
      << "), d, p);\n"
      << "    devices[d]." << v.ident << " = reinterpret_cast<" << T << "*>(p);\n  }\n";
  }
  // Rank 0 holds the largest value whole and, under MPI, every device's block of it.
  int64_t wholeBytes = 1, blockBytes = 1;
  for (const auto& v : u.variables) {
    const int64_t elem = int64_t(rt::dtypeSize(v.value.dtype()));
    wholeBytes = std::max(wholeBytes, v.value.numel() * elem);
    blockBytes = std::max(blockBytes, localShape(u, v).numel() * elem);
  }
  s << "  return {};\n}\n\n"
    << "weft::rt::Status State::save(const std::string& dir) const {\n"
    << "  const bool root = weft::rt::ranks().index == 0;\n"
    << "  weft::rt::Buffer whole, stage;  // a value, and under MPI its blocks (as for a call)\n"
    << "  weft::rt::Status s;\n"
    << "  if ((root && !whole.reserve(" << wholeBytes << ")) ||\n"
    << "      (comms_ && !stage.reserve(size_t((root ? kDevices : local_devices_) * " << blockBytes << "))))\n"
    << "    s = weft::rt::Status::error(\"out of memory to save the variables\");\n"
    << "  if (!(s = weft::rt::agree(s))) return s;\n"
    << "  std::string why;\n";
  for (size_t i = 0; i < u.variables.size(); ++i) {
    const auto& v = u.variables[i];
    const std::string T = cppType(v.value.dtype());
    s << "  weft::rt::collectBlocks({kMeshSizes, kMeshRank, kPlaces" << i << "}, whole.data(), "
      << shapeLiteral(v.value.shape()) << ", weft::rt::DType::" << dtypeEnumName(v.value.dtype())
      << ", first_device_, local_devices_, [&](int64_t d) { return devices[d]." << v.ident << "; }, "
      << localShape(u, v).numel() << " * int64_t(sizeof(" << T << ")), stage.data(), false);\n"
      << "  if (root && why.empty())\n"
      << "    why = weft::rt::writeNpyFile((dir + \"/" << v.ident << ".npy\").c_str(), weft::rt::DType::"
      << dtypeEnumName(v.value.dtype()) << ", " << shapeLiteral(v.value.shape()) << ", whole.data());\n";
  }
  s << "  return weft::rt::fromRoot(why.empty() ? weft::rt::Status() : weft::rt::Status::error(why));\n}\n\n"
    << "}  // namespace " << u.program << "\n";
  return s.str();
}

}  // namespace weft::codegen
