#include "mesh.h"

#include "../eval/operators.h"
#include "../spmd/ranks.h"
#include "../values/format.h"

namespace weft::mesh {

int64_t MeshObj::numDevices() const {
  int64_t n = 1;
  for (int64_t s : dimSizes) n *= s;
  return n;
}

int MeshObj::dimIndex(const std::string& dim) const {
  for (size_t i = 0; i < dimNames.size(); ++i)
    if (dimNames[i] == dim) return int(i);
  return -1;
}

int64_t MeshObj::coordinate(int64_t device, int k) const {
  int64_t stride = 1;
  for (size_t j = size_t(k) + 1; j < dimSizes.size(); ++j) stride *= dimSizes[j];
  return device / stride % dimSizes[size_t(k)];
}

std::string MeshObj::repr() const {
  std::string s = "Mesh(";
  for (size_t i = 0; i < dimNames.size(); ++i)
    s += (i ? ", " : "") + dimNames[i] + "=" + std::to_string(dimSizes[i]);
  return s + ")";
}

std::string MeshObj::describe() const {
  std::string dims = repr().substr(4);  // "(batch=2, model=4)"
  return "mesh " + (name.empty() ? "Mesh" : name) + dims;
}

bool MeshObj::equals(const OpaqueObj& o) const {
  auto* m = dynamic_cast<const MeshObj*>(&o);
  return m && m->dimNames == dimNames && m->dimSizes == dimSizes;
}

std::optional<Value> MeshObj::getAttr(Interpreter&, Symbol attr) {
  const std::string& n = symbolName(attr);
  auto ints = [](const std::vector<int64_t>& xs) {
    std::vector<Value> out;
    for (int64_t x : xs) out.push_back(makeInt(x));
    return makeList(std::move(out));
  };
  if (n == "dim_names" || n == "axis_names") {
    std::vector<Value> out;
    for (const auto& d : dimNames) out.push_back(makeStr(d));
    return makeList(std::move(out));
  }
  if (n == "shape") return ints(dimSizes);
  if (n == "size" || n == "num_devices") return makeInt(numDevices());
  if (n == "name") return name.empty() ? Value() : makeStr(name);
  if (n == "devices") {
    std::vector<Value> out;
    for (int64_t i = 0; i < numDevices(); ++i) out.push_back(makeStr("CPU:" + std::to_string(i)));
    return makeList(std::move(out));
  }
  return std::nullopt;
}

std::shared_ptr<MeshObj> makeMesh(std::string name, const std::vector<std::string>& dims,
                                  const std::vector<Value>& sizes, const std::vector<SourceRange>& at) {
  auto where = [&](size_t i) { return i < at.size() ? at[i] : SourceRange{}; };
  if (dims.empty()) throw WeftError("a mesh needs at least one dimension, as in Mesh(batch=2, model=4)");
  if (dims.size() > kMaxMeshDims)
    throw WeftError(where(kMaxMeshDims), "a mesh has at most " + std::to_string(kMaxMeshDims) + " dimensions, got " +
                                             std::to_string(dims.size()));
  auto m = std::make_shared<MeshObj>();
  m->name = std::move(name);
  int64_t devices = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == "unsharded" || dims[i] == "_")
      throw WeftError(where(i), "'" + dims[i] + "' cannot name a mesh dimension: it means unsharded");
    if (m->dimIndex(dims[i]) >= 0)
      throw WeftError(where(i), "mesh dimension '" + dims[i] + "' is given twice");
    const Value& v = sizes[i];
    bool isInt = isTensorLike(v) && tensorOf(v, "size").rank() == 0 && rt::isInt(tensorOf(v, "size").dtype()) &&
                 !tensorOf(v, "size").isAbstract();
    if (!isInt)
      throw WeftError(where(i), "mesh dimension '" + dims[i] + "' must have an integer size, not " + typeNameOf(v));
    int64_t n = tensorOf(v, "size").asInt();
    if (n <= 0)
      throw WeftError(where(i), "mesh dimension '" + dims[i] + "' must have a positive size, got " + std::to_string(n));
    if (n > kMaxDevices || devices * n > kMaxDevices)
      throw WeftError(where(i), "a mesh may have at most " + std::to_string(kMaxDevices) + " devices");
    devices *= n;
    m->dimNames.push_back(dims[i]);
    m->dimSizes.push_back(n);
  }
  if (std::string why = spmd::meshMisfitOnRanks(devices); !why.empty()) throw WeftError(why);  // under mpirun
  return m;
}

}  // namespace weft::mesh
