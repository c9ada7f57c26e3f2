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
    << "  std::shared_ptr<State> state_;\n"
    << "  weft::rt::Buffer arenas_[State::kDevices];  // each device's memory plan\n"
    << "  weft::rt::Buffer inputs_[State::kDevices][" << nin << "], outputs_[State::kDevices][" << nout
    << "];  // the devices' blocks\n"
    << "  int64_t shapes_[State::kDevices][" << nout << "][8] = {};  // the output blocks' sizes\n"
    << "  weft::rt::DeviceThreads threads_{State::kDevices};  // one per device, parked between calls\n";
  return h.str();
}

std::string shardedCall(const CompileUnit& unit, const ExportGraph& e, const FunctionCode& code, const std::string& cls,
                        const std::string& params) {
  (void)unit;
  std::ostringstream s;
  const size_t nin = e.inputTypes.size(), nout = e.outputTypes.size();
  s << "weft::rt::Status " << cls << "::call(" << params << ") {\n"
    << "  auto fail = [](const std::string& why) { return weft::rt::Status::error(" << cppString(e.name + ": ")
    << " + why); };\n"
    << "  const int64_t devices = State::kDevices;\n";
  // Inputs: the global sizes checked, then each device's block cut.
  for (size_t i = 0; i < nin; ++i) {
    const graph::TensorType& t = e.inputTypes[i];
    const std::string n = code.inputNames[i], in = "in" + std::to_string(i), T = cppType(t.dtype);
    s << "  // " << n << ": " << graph::typeText(t) << " " << commentText(spmd::placementsText(unit.mesh, e.inputPlacements[i]))
      << "\n"
      << "  static const int " << in << "_places[] = " << placementList(e.inputPlacements[i]) << ";\n"
      << "  const weft::rt::MeshPlace " << in << "_place{State::kMeshSizes, State::kMeshRank, " << in << "_places};\n"
      << "  weft::rt::Shape " << in << "_global, " << in << "_local, " << in << "_start;\n";
    for (int a = 0; a < t.shape.rank(); ++a) {
      const std::string given = n + "_shape[" + std::to_string(a) + "]";
      if (t.shape[a] != rt::kUnknownDim)
        s << "  if (" << given << " != " << t.shape[a] << ") return fail(\"input '" << n << "' expects "
          << graph::typeText(t) << ", got size \" + std::to_string(" << given << ") + \" in dimension " << a << "\");\n";
      else
        s << "  if (" << given << " < 0) return fail(\"input '" << n << "' has a negative size\");\n";
      s << "  " << in << "_global.push_back(" << given << ");\n";
    }
    s << "  if (const int a = weft::rt::unevenDimension(" << in << "_place, " << in << "_global); a >= 0)\n"
      << "    return fail(\"input '" << n << "' of shape \" + " << in << "_global.str() + \" does not split evenly on mesh("
      << literalText(spmd::meshText(unit.mesh)) << ") along dimension \" + std::to_string(a));\n"
      << "  weft::rt::blockOf(" << in << "_place, " << in << "_global, 0, " << in << "_local, " << in << "_start);\n"
      << "  for (int64_t d = 0; d < devices; ++d) {\n"
      << "    char* p = inputs_[d][" << i << "].reserve(std::max<size_t>(1, size_t(" << in << "_local.numel()) * sizeof(" << T
      << ")));\n"
      << "    if (!p) return fail(\"out of memory for the blocks of input '" << n << "'\");\n"
      << "    weft::rt::cutBlock(" << in << "_place, " << n << ", " << in << "_global, sizeof(" << T << "), d, p);\n"
      << "  }\n";
  }
  // The device program's arguments: device d's blocks, and its outputs' capacities.
  auto args = [&](const std::string& d, bool sizesOnly) {
    std::string a;
    for (size_t i = 0; i < nin; ++i)
      a += ", reinterpret_cast<const " + std::string(cppType(e.inputTypes[i].dtype)) + "*>(inputs_[" + d + "][" +
           std::to_string(i) + "].data()), in" + std::to_string(i) + "_local.begin()";
    for (size_t j = 0; j < nout; ++j) {
      const std::string o = "out" + std::to_string(j);
      a += sizesOnly ? ", nullptr, 0, shapes_[0][" + std::to_string(j) + "]"
                     : ", reinterpret_cast<" + std::string(cppType(e.outputTypes[j].dtype)) + "*>(outputs_[" + d + "][" +
                           std::to_string(j) + "].data()), " + o + "_local.numel(), shapes_[" + d + "][" +
                           std::to_string(j) + "]";
    }
    return a;
  };
  // Outputs: device 0 says its blocks' sizes (every device's are the same), which give the
  // global sizes; the caller's buffers must hold them before any device computes.
  s << "  std::vector<int64_t> mesh(State::kMeshSizes, State::kMeshSizes + State::kMeshRank);\n"
    << "  weft::rt::Rendezvous rendezvous(mesh);\n"
    << "  {\n    weft::rt::ThreadComm comm(rendezvous, 0);\n"
    << "    if (weft::rt::Status s = runDevice(0, comm, true" << args("0", true) << "); !s) return s;\n  }\n";
  for (size_t j = 0; j < nout; ++j) {
    const graph::TensorType& t = e.outputTypes[j];
    const std::string o = "out" + std::to_string(j), T = cppType(t.dtype);
    s << "  static const int " << o << "_places[] = " << placementList(e.outputPlacements[j]) << ";\n"
      << "  const weft::rt::MeshPlace " << o << "_place{State::kMeshSizes, State::kMeshRank, " << o << "_places};\n"
      << "  weft::rt::Shape " << o << "_local;\n"
      << "  for (int a = 0; a < " << t.shape.rank() << "; ++a) " << o << "_local.push_back(shapes_[0][" << j << "][a]);\n"
      << "  const weft::rt::Shape " << o << "_global = weft::rt::globalOf(" << o << "_place, " << o << "_local);\n"
      << "  for (int a = 0; a < " << t.shape.rank() << "; ++a) " << o << "_shape[a] = " << o << "_global[a];\n"
      << "  const int64_t " << o << "_numel = weft::rt::checkedNumel(" << o << "_shape, " << t.shape.rank() << ");\n"
      << "  if (" << o << "_numel < 0) return fail(\"output " << j << " has more elements than int64 counts\");\n"
      << "  if (" << o << "_capacity < " << o << "_numel) return fail(\"output " << j << " needs \" + std::to_string(" << o
      << "_numel) + \" elements, its buffer holds \" + std::to_string(" << o << "_capacity));\n"
      << "  for (int64_t d = 0; d < devices; ++d)\n"
      << "    if (!outputs_[d][" << j << "].reserve(std::max<size_t>(1, size_t(" << o << "_local.numel()) * sizeof(" << T
      << "))))\n      return fail(\"out of memory for the blocks of output " << j << "\");\n";
  }
  // Every device on its own thread; the first to fail stops the others' collectives.
  s << "  std::mutex failed;\n  int64_t first = -1;\n  std::vector<weft::rt::Status> status(static_cast<size_t>(devices));\n"
    << "  threads_.run([&](int64_t d) {\n"
    << "    weft::rt::ThreadComm comm(rendezvous, d);\n    weft::rt::Status s;\n"
    << "    try {\n      s = runDevice(d, comm, false" << args("d", false) << ");\n"
    << "    } catch (const weft::rt::CommError& e) {\n      s = fail(e.what());\n    }\n"
    << "    if (s) return;\n"
    << "    std::lock_guard<std::mutex> lock(failed);\n"
    << "    if (first < 0) first = d;\n    status[size_t(d)] = std::move(s);\n"
    << "    rendezvous.abort(\"device \" + std::to_string(d) + \" stopped\");\n  });\n"
    << "  if (first >= 0) return status[size_t(first)];\n";
  for (size_t j = 0; j < nout; ++j) {
    const graph::TensorType& t = e.outputTypes[j];
    const std::string o = "out" + std::to_string(j);
    s << "  if (weft::rt::isPartial(" << o << "_place)) std::memset(" << o << ", 0, size_t(" << o << "_numel) * sizeof("
      << cppType(t.dtype) << "));\n"
      << "  for (int64_t d = 0; d < devices; ++d)\n"
      << "    weft::rt::placeBlock(" << o << "_place, " << o << ", " << o << "_global, weft::rt::DType::"
      << dtypeEnumName(t.dtype) << ", d, outputs_[d][" << j << "].data());\n";
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
    << "#pragma once\n#include <memory>\n#include <string>\n\n#include \"weft_runtime/compiled.h\"\n\n"
    << "#ifndef " << macro << "_WEIGHTS_DIR\n#define " << macro << "_WEIGHTS_DIR \"weights\"\n#endif\n\n"
    << "namespace " << ns << " {\n\n"
    << "// Where weft compile wrote the variables' values (each NAME.npy, the whole value).\n"
    << "inline const char* const kDefaultWeightsDir = " << macro << "_WEIGHTS_DIR;\n\n"
    << "// One program's variables, shared by every export constructed on it: each device of the mesh\n"
    << "// holds its blocks of them, and its exports run every device on a thread of its own.\n"
    << "class State {\n public:\n"
    << "  static constexpr int kMeshRank = " << u.mesh.rank() << ";\n"
    << "  static constexpr int64_t kMeshSizes[" << u.mesh.rank() << "] = {";
  for (size_t k = 0; k < u.mesh.sizes.size(); ++k) h << (k ? ", " : "") << u.mesh.sizes[k];
  h << "};  // " << commentText(spmd::meshText(u.mesh)) << "\n"
    << "  static constexpr int64_t kDevices = " << devices << ";  // numbered row-major over the mesh\n\n"
    << "  // Reads each variable whole from DIR/IDENT.npy and cuts it into the devices' blocks.\n"
    << "  static weft::rt::Status load(const std::string& dir, std::shared_ptr<State>& out);\n"
    << "  // Writes each variable's current value, put together from the devices' blocks, to\n"
    << "  // DIR/IDENT.npy (the folder must exist): a trained state loads again anywhere.\n"
    << "  weft::rt::Status save(const std::string& dir) const;\n\n"
    << "  // One device's blocks of the variables, and its random stream (Philox: a key and the next block).\n"
    << "  struct Device {\n";
  for (const auto& v : u.variables)
    h << "    " << cppType(v.value.dtype()) << "* " << v.ident << " = nullptr;  // '" << commentText(v.name) << "' ("
      << commentText(v.path) << "): " << rt::dtypeName(v.value.dtype()) << localShape(u, v).str() << " of "
      << v.value.shape().str() << " " << commentText(spmd::placementsText(u.mesh, placementsOf(u, v))) << "\n";
  h << "    uint64_t random_key = " << u.randomKey << "u, random_counter = " << u.randomCounter << "u;\n  };\n"
    << "  Device devices[kDevices];\n\n"
    << " private:\n  weft::rt::Buffer storage_[kDevices][" << std::max<size_t>(1, u.variables.size()) << "];\n};\n\n"
    << "}  // namespace " << ns << "\n";
  return h.str();
}

std::string shardedStateSource(const CompileUnit& u) {
  std::ostringstream s;
  s << "// Generated by `weft compile` from " << commentText(u.sourceFile) << ".\n#include \"" << u.program << "_state.h\"\n\n"
    << "#include <algorithm>\n\n#include \"weft_runtime/npy.h\"\n#include \"weft_runtime/shards.h\"\n\n"
    << "namespace " << u.program << " {\nnamespace {\n\n"
    << "// How each variable lies on the mesh (weft_runtime/shards.h).\n";
  for (size_t i = 0; i < u.variables.size(); ++i)
    s << "const int kPlaces" << i << "[] = " << placementList(placementsOf(u, u.variables[i])) << ";\n";
  s << "\n}  // namespace\n\n"
    << "weft::rt::Status State::load(const std::string& dir, std::shared_ptr<State>& out) {\n"
    << "  auto st = std::make_shared<State>();\n  weft::rt::Buffer whole;\n  weft::rt::Shape shape;\n  std::string why;\n";
  for (size_t i = 0; i < u.variables.size(); ++i) {
    const auto& v = u.variables[i];
    const std::string T = cppType(v.value.dtype());
    s << "  why = weft::rt::readNpyFile((dir + \"/" << v.ident << ".npy\").c_str(), weft::rt::DType::"
      << dtypeEnumName(v.value.dtype()) << ", whole, shape);\n"
      << "  if (why.empty() && shape != " << shapeLiteral(v.value.shape()) << ") why = \"" << v.ident
      << ".npy: the shape \" + shape.str() + \" is not " << v.value.shape().str() << "\";\n"
      << "  if (!why.empty()) return weft::rt::Status::error(why);\n"
      << "  for (int64_t d = 0; d < kDevices; ++d) {\n"
      << "    char* p = st->storage_[d][" << i << "].reserve(std::max<size_t>(1, " << localShape(u, v).numel()
      << " * sizeof(" << T << ")));\n"
      << "    if (!p) return weft::rt::Status::error(\"out of memory for the blocks of " << v.ident << "\");\n"
      << "    weft::rt::cutBlock({kMeshSizes, kMeshRank, kPlaces" << i << "}, whole.data(), shape, sizeof(" << T
      << "), d, p);\n"
      << "    st->devices[d]." << v.ident << " = reinterpret_cast<" << T << "*>(p);\n  }\n";
  }
  s << "  out = std::move(st);\n  return {};\n}\n\n"
    << "weft::rt::Status State::save(const std::string& dir) const {\n  weft::rt::Buffer whole;\n  std::string why;\n";
  for (size_t i = 0; i < u.variables.size(); ++i) {
    const auto& v = u.variables[i];
    const std::string T = cppType(v.value.dtype());
    s << "  if (!whole.reserve(std::max<size_t>(1, " << v.value.numel() << " * sizeof(" << T << "))))\n"
      << "    return weft::rt::Status::error(\"out of memory for " << v.ident << "\");\n"
      << "  for (int64_t d = 0; d < kDevices; ++d)\n"
      << "    weft::rt::placeBlock({kMeshSizes, kMeshRank, kPlaces" << i << "}, whole.data(), " << shapeLiteral(v.value.shape())
      << ", weft::rt::DType::" << dtypeEnumName(v.value.dtype()) << ", d, devices[d]." << v.ident << ");\n"
      << "  why = weft::rt::writeNpyFile((dir + \"/" << v.ident << ".npy\").c_str(), weft::rt::DType::"
      << dtypeEnumName(v.value.dtype()) << ", " << shapeLiteral(v.value.shape()) << ", whole.data());\n"
      << "  if (!why.empty()) return weft::rt::Status::error(why);\n";
  }
  s << "  return {};\n}\n\n}  // namespace " << u.program << "\n";
  return s.str();
}

}  // namespace weft::codegen
