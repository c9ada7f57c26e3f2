#include "cycle_collector.h"

#include <unordered_map>
#include <vector>

#include "../values/objects.h"

namespace weft {
namespace {

class Collector {
 public:
  CycleCollection run(CycleRoots<Env>& envs, CycleRoots<Object>& containers) {
    envs.forEachCounted([&](Env* e, long count) { node(e, true, count); });
    containers.forEachCounted([&](Object* o, long count) {
      if (walked(*o)) node(o, false, count);
    });
    // Walk: each node's references, found once each (nodes are appended as they are found).
    for (size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i].firstEdge = edges_.size();
      const int64_t before = inspected_;
      if (nodes_[i].isEnv) walkEnv(*static_cast<Env*>(nodes_[i].ptr));
      else walkObject(*static_cast<Object*>(nodes_[i].ptr));
      nodes_[i].endEdge = edges_.size();
      nodes_[i].work = inspected_ - before;
    }
    for (int32_t target : edges_) --nodes_[size_t(target)].refs;
    // What is held from outside, and everything it reaches, is alive.
    std::vector<int32_t> work;
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].refs > 0) nodes_[i].alive = true, work.push_back(int32_t(i));
    while (!work.empty()) {
      const Node& n = nodes_[size_t(work.back())];
      work.pop_back();
      for (size_t e = n.firstEdge; e < n.endEdge; ++e)
        if (Node& t = nodes_[size_t(edges_[e])]; !t.alive) t.alive = true, work.push_back(edges_[e]);
    }
    CycleCollection result{int64_t(nodes_.size()), int64_t(edges_.size()), 0, 0};
    for (const Node& n : nodes_)
      if (n.alive) result.liveWork += n.work;
    // Move the garbage's references out before any is dropped, so that nothing is freed while
    // the nodes are still being visited; then free it all at once.
    std::vector<Value> values;
    std::vector<std::shared_ptr<Env>> scopes;
    for (const Node& n : nodes_) {
      if (n.alive) continue;
      ++result.freed;
      if (n.isEnv) static_cast<Env*>(n.ptr)->release(values, scopes);
      else release(*static_cast<Object*>(n.ptr), values, scopes);
    }
    nodes_.clear();
    index_.clear();
    values.clear();
    scopes.clear();
    return result;
  }

 private:
  struct Node {
    void* ptr;
    bool isEnv;
    long refs;
    bool alive = false;
    size_t firstEdge = 0, endEdge = 0;
    int64_t work = 0;  // values and links looked at to walk it
  };

  // Objects whose references the walk follows: containers, closures, modules, and the Keras
  // symbolic tensors that name the layers of a functional model (which hold them back).
  static bool walked(const Object& o) {
    switch (o.kind) {
      case Kind::List: case Kind::Tuple: case Kind::Dict: case Kind::Set: case Kind::Function: case Kind::ModuleType:
      case Kind::Module: case Kind::Builtin: case Kind::Namespace: return true;
      case Kind::Opaque: return dynamic_cast<const SymbolicTensor*>(&o) != nullptr;
      default: return false;
    }
  }

  int32_t node(void* p, bool isEnv, long count) {
    auto [it, added] = index_.emplace(p, int32_t(nodes_.size()));
    if (added) nodes_.push_back(Node{p, isEnv, count});
    return it->second;
  }
  void edge(const std::shared_ptr<Env>& e) {
    ++inspected_;
    if (e) edges_.push_back(node(e.get(), true, e.use_count()));
  }
  void edge(const Value& v) {
    ++inspected_;
    const std::shared_ptr<Object>& o = v.objectPtr();
    if (o && walked(*o)) edges_.push_back(node(o.get(), false, o.use_count()));
  }

  void walkEnv(const Env& e) {
    for (const auto& [k, v] : e.entries()) edge(v);
    edge(e.parent());
  }
  void walkObject(const Object& o) {
    switch (o.kind) {
      case Kind::List: for (const Value& v : static_cast<const ListObj&>(o).items) edge(v); break;
      case Kind::Tuple: for (const Value& v : static_cast<const TupleObj&>(o).items) edge(v); break;
      case Kind::Dict:
      case Kind::Set:
        for (const auto& [k, v] : static_cast<const DictObj&>(o).entries) edge(k), edge(v);
        break;
      case Kind::Function: {
        auto& f = static_cast<const FunctionObj&>(o);
        for (const Value& v : f.defaults) edge(v);
        edge(f.closure);
        break;
      }
      case Kind::ModuleType: {
        auto& t = static_cast<const ModuleTypeObj&>(o);
        for (const Value& v : t.defaults) edge(v);
        edge(t.closure);
        break;
      }
      case Kind::Builtin: {
        auto& b = static_cast<const BuiltinObj&>(o);
        edge(b.self);
        edge(b.members);
        break;
      }
      case Kind::Module: {
        auto& m = static_cast<const ModuleObj&>(o);
        edge(m.attrs);
        edge(m.inputShape);
        break;
      }
      case Kind::Namespace: edge(static_cast<const NamespaceObj&>(o).env); break;
      case Kind::Opaque: {
        auto& t = static_cast<const SymbolicTensor&>(o);
        edge(t.layer);
        for (const Value& v : t.inputs) edge(v);
        for (const auto& [k, v] : t.kwargs) edge(v);
        break;
      }
      default: break;
    }
  }

  // Moves out exactly the references walkObject follows.
  static void release(Object& o, std::vector<Value>& values, std::vector<std::shared_ptr<Env>>& scopes) {
    auto take = [&](std::vector<Value>& from) {
      for (Value& v : from) values.push_back(std::move(v));
      from.clear();
    };
    auto takeEnv = [&](std::shared_ptr<Env>& e) {
      if (e) scopes.push_back(std::move(e));
      e.reset();
    };
    switch (o.kind) {
      case Kind::List: take(static_cast<ListObj&>(o).items); break;
      case Kind::Tuple: take(static_cast<TupleObj&>(o).items); break;
      case Kind::Dict:
      case Kind::Set:
        for (auto& [k, v] : static_cast<DictObj&>(o).entries) values.push_back(std::move(k)), values.push_back(std::move(v));
        static_cast<DictObj&>(o).clear();
        break;
      case Kind::Function: take(static_cast<FunctionObj&>(o).defaults), takeEnv(static_cast<FunctionObj&>(o).closure); break;
      case Kind::ModuleType:
        take(static_cast<ModuleTypeObj&>(o).defaults), takeEnv(static_cast<ModuleTypeObj&>(o).closure);
        break;
      case Kind::Builtin:
        values.push_back(std::move(static_cast<BuiltinObj&>(o).self));
        static_cast<BuiltinObj&>(o).self = Value();
        takeEnv(static_cast<BuiltinObj&>(o).members);
        break;
      case Kind::Module: {
        auto& m = static_cast<ModuleObj&>(o);
        takeEnv(m.attrs);
        values.push_back(std::move(m.inputShape));
        m.inputShape = Value();
        break;
      }
      case Kind::Namespace: takeEnv(static_cast<NamespaceObj&>(o).env); break;
      case Kind::Opaque: {
        auto& t = static_cast<SymbolicTensor&>(o);
        values.push_back(std::move(t.layer));
        t.layer = Value();
        take(t.inputs);
        for (auto& [k, v] : t.kwargs) values.push_back(std::move(v));
        t.kwargs.clear();
        break;
      }
      default: break;
    }
  }

  std::vector<Node> nodes_;
  std::unordered_map<const void*, int32_t> index_;
  std::vector<int32_t> edges_;
  int64_t inspected_ = 0;
};

}  // namespace

CycleCollection collectCycles(CycleRoots<Env>& envs, CycleRoots<Object>& containers) {
  CycleCollection result = Collector().run(envs, containers);
  envs.prune();
  containers.prune();
  return result;
}

}  // namespace weft
