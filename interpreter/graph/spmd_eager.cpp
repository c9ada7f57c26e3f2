#include "spmd_eager.h"

#include <map>
#include <ostream>
#include <streambuf>

#include "../../grammar/source.h"
#include "../../stdlib/runtime/device_threads.h"
#include "../spmd/blocks.h"
#include "../spmd/ranks.h"
#include "../spmd/sharded_tensor.h"
#include "../values/context.h"
#include "passes.h"
#include "spmd_executor.h"
#include "text.h"

namespace weft::graph {
namespace {

// Ops print nothing; the runner needs somewhere to print to.
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};

// The runners made so far on this thread, by their graph's text (op, attributes, operand types
// and placements, source line). Each keeps its devices' threads parked; past kMaxRunners they are
// all let go.
constexpr size_t kMaxRunners = 1024;
thread_local std::map<std::string, std::unique_ptr<SpmdExecutor>> runners;
// One op runs at a time: the runners of meshes of one size share their devices' threads.
thread_local std::map<int64_t, std::shared_ptr<rt::DeviceThreads>> threads;

// On shapes alone (a plan): the results as propagation places them, with blocks of their shapes.
std::vector<Tensor> onShapes(const Graph& g, const std::shared_ptr<OpaqueObj>& meshObject) {
  const Graph placed = propagatePlacements(g);
  std::vector<Tensor> out;
  for (int r : placed.body.results) {
    const spmd::Placements ps = placed.placementsOf(r);
    const TensorType& t = placed.values[size_t(r)];
    Shape local = t.shape;
    for (size_t k = 0; k < ps.size(); ++k) local = spmd::localShape(local, ps[k], g.mesh.sizes[k]);
    std::vector<Tensor> locals(size_t(spmd::deviceCount(g.mesh)), Tensor::abstract(t.dtype, local));
    out.push_back(spmd::makeSharded(g.mesh, ps, std::move(locals), meshObject, t.dtype, t.shape));
  }
  return out;
}

std::vector<Tensor> applySharded(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs) {
  const spmd::ShardedTensor* on = nullptr;
  for (const Tensor& t : in) {
    const spmd::ShardedTensor* s = spmd::shardsOf(t);
    if (!s) continue;
    if (on && !(on->mesh == s->mesh))
      throw WeftError(std::string(ops::opName(op)) + ": tensors on two meshes meet in one op: mesh(" +
                      spmd::meshText(on->mesh) + ") and mesh(" + spmd::meshText(s->mesh) +
                      "); distribute one of them on the other's mesh first");
    if (!on) on = s;
  }
  Graph g;
  g.name = ops::opName(op);
  g.mesh = on->mesh;
  Node n;
  n.op = op;
  n.attrs = attrs;
  if (const SourceRange* at = context().statement; at && at->valid()) n.loc = {at->file->path, int(at->begin.line)};
  std::vector<TensorType> types;
  for (const Tensor& t : in) {
    const int id = g.addValue(ops::typeOf(t));
    types.push_back(ops::typeOf(t));
    g.body.params.push_back(id);
    n.inputs.push_back(id);
    const spmd::ShardedTensor* s = spmd::shardsOf(t);
    g.placements.resize(g.values.size());
    g.placements.back() = s ? s->placements : spmd::Placements(size_t(g.mesh.rank()));
  }
  for (const TensorType& t : ops::opDef(op).infer(types, attrs)) {
    n.outputs.push_back(g.addValue(t));
    g.body.results.push_back(n.outputs.back());
  }
  g.body.nodes.push_back(std::move(n));
  for (const Tensor& t : in)
    if (t.isAbstract()) return onShapes(g, on->meshObject);
  const std::string key = printText(g);
  auto found = runners.find(key);
  if (found == runners.end()) {
    static NullBuffer nothing;
    static std::ostream silent(&nothing);
    std::shared_ptr<rt::DeviceThreads>& devices = threads[spmd::devicesHeld(g.mesh)];
    if (!devices) devices = deviceThreads(spmd::devicesHeld(g.mesh));
    auto made = std::make_unique<SpmdExecutor>(g, std::vector<std::shared_ptr<VariableObj>>{}, silent, nullptr, devices);
    if (runners.size() >= kMaxRunners) runners.clear();
    found = runners.emplace(key, std::move(made)).first;
  }
  found->second->meshObject = on->meshObject;
  return found->second->run(in);
}

}  // namespace

void installEagerSpmd() { ops::setShardedApply(applySharded); }

void releaseEagerSpmd() {
  runners.clear();
  threads.clear();
}

}  // namespace weft::graph
