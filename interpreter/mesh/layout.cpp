#include "layout.h"

#include "../eval/args.h"
#include "../eval/suggest.h"
#include "../values/env.h"
#include "../values/format.h"

namespace weft::mesh {

bool LayoutObj::replicated() const {
  for (const auto& d : dims)
    if (d) return false;
  return true;
}

std::string LayoutObj::dimsText() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] ? "'" + *dims[i] + "'" : std::string("_"));
  return s + "]";
}

std::string LayoutObj::repr() const { return "Layout(" + dimsText() + ", " + mesh->label() + ")"; }

bool LayoutObj::equals(const OpaqueObj& o) const {
  auto* l = dynamic_cast<const LayoutObj*>(&o);
  return l && l->dims == dims && l->mesh->equals(*mesh);
}

std::optional<std::string> LayoutObj::misfit(const Shape& shape) const {
  if (shape.rank() != rank())
    return "the layout has rank " + std::to_string(rank()) + " but the variable has rank " +
           std::to_string(shape.rank());
  for (int i = 0; i < rank(); ++i) {
    if (!dims[size_t(i)]) continue;
    int64_t n = mesh->dimSizes[size_t(mesh->dimIndex(*dims[size_t(i)]))];
    if (shape[i] % n != 0)
      return "the layout splits dimension " + std::to_string(i) + " (size " + std::to_string(shape[i]) +
             ") over '" + *dims[size_t(i)] + "' (size " + std::to_string(n) + "), which does not divide it";
  }
  return std::nullopt;
}

Shape LayoutObj::shardShape(const Shape& shape) const {
  Shape s = shape;
  for (int i = 0; i < rank(); ++i)
    if (dims[size_t(i)]) s[i] = shape[i] / mesh->dimSizes[size_t(mesh->dimIndex(*dims[size_t(i)]))];
  return s;
}

std::vector<int64_t> LayoutObj::blockOf(int64_t device) const {
  std::vector<int64_t> b(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i]) b[i] = mesh->coordinate(device, mesh->dimIndex(*dims[i]));
  return b;
}

int64_t LayoutObj::numBlocks() const {
  int64_t n = 1;
  for (const auto& d : dims)
    if (d) n *= mesh->dimSizes[size_t(mesh->dimIndex(*d))];
  return n;
}

int64_t LayoutObj::blockIndex(int64_t device) const {
  int64_t idx = 0;
  std::vector<int64_t> b = blockOf(device);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i]) idx = idx * mesh->dimSizes[size_t(mesh->dimIndex(*dims[i]))] + b[i];
  return idx;
}

std::optional<Value> LayoutObj::getAttr(Interpreter&, Symbol attr) {
  const std::string& n = symbolName(attr);
  if (n == "mesh") return Value(mesh);
  if (n == "rank") return Value(Tensor::scalar<int32_t>(rank()));
  if (n == "sharding_specs" || n == "dims") {
    std::vector<Value> out;
    for (const auto& d : dims) out.push_back(makeStr(d ? *d : kUnsharded));
    return makeList(std::move(out));
  }
  if (n == "is_fully_replicated")
    return makeBuiltin("is_fully_replicated", [](Interpreter&, Args& a) {
      ArgReader r(a, "is_fully_replicated", {});
      return Value(Tensor::scalar<bool>(a.self.as<LayoutObj>()->replicated()));
    }, Value(shared_from_this()));
  return std::nullopt;
}

std::shared_ptr<LayoutObj> makeLayout(std::vector<std::optional<std::string>> dims, std::shared_ptr<MeshObj> mesh,
                                      const std::vector<SourceRange>& at) {
  auto where = [&](size_t i) { return i < at.size() ? at[i] : SourceRange{}; };
  if (dims.size() > size_t(rt::kMaxRank))
    throw WeftError(where(0), "a layout has at most " + std::to_string(rt::kMaxRank) + " dimensions");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i]) continue;
    if (mesh->dimIndex(*dims[i]) < 0) {
      std::string msg = "layout dimension '" + *dims[i] + "' is not a dimension of " + mesh->describe();
      if (auto near = closestName(*dims[i], mesh->dimNames)) msg += "; did you mean '" + *near + "'?";
      throw WeftError(where(i), msg);
    }
    for (size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i])
        throw WeftError(where(i), "mesh dimension '" + *dims[i] +
                                      "' appears twice in a layout; it may split one tensor dimension only");
  }
  auto l = std::make_shared<LayoutObj>();
  l->dims = std::move(dims);
  l->mesh = std::move(mesh);
  return l;
}

namespace {

std::shared_ptr<MeshObj> meshArg(const ArgReader& r, int i) {
  auto* m = dynamic_cast<MeshObj*>(r.get(i).object());
  if (!m) r.fail(i, "must be a Mesh, not " + typeNameOf(r.get(i)));
  return std::static_pointer_cast<MeshObj>(r.get(i).objectPtr());
}

int rankArg(const ArgReader& r, int i) {
  int64_t rank = r.integer(i);
  if (rank < 0 || rank > rt::kMaxRank) r.fail(i, "must be between 0 and " + std::to_string(rt::kMaxRank));
  return int(rank);
}

}  // namespace

Value layoutBuiltin() {
  Value layout = makeBuiltin("Layout", [](Interpreter&, Args& a) {
    ArgReader r(a, "Layout", {"sharding_specs", "mesh"});
    auto mesh = meshArg(r, 1);
    std::vector<std::optional<std::string>> dims;
    for (const Value& d : r.items(0)) {
      if (d.isNone()) dims.push_back(std::nullopt);
      else if (d.is(Kind::Str)) {
        const std::string& s = d.as<StrObj>()->text;
        dims.push_back(s == kUnsharded ? std::nullopt : std::optional<std::string>(s));
      } else {
        r.fail(0, "must list mesh dimension names or UNSHARDED, not " + typeNameOf(d));
      }
    }
    try {
      return Value(makeLayout(std::move(dims), mesh));
    } catch (WeftError& e) {
      if (!e.at.valid()) e.at = a.site;
      throw;
    }
  });
  auto members = std::make_shared<Env>();
  members->set(intern("replicated"), makeBuiltin("Layout.replicated", [](Interpreter&, Args& a) {
    ArgReader r(a, "Layout.replicated", {"mesh", "rank"});
    return Value(makeLayout(std::vector<std::optional<std::string>>(size_t(rankArg(r, 1))), meshArg(r, 0)));
  }));
  // DTensor's batch_sharded: dimension `axis` (the batch, 0 by default) split over `batch_dim`.
  members->set(intern("batch_sharded"), makeBuiltin("Layout.batch_sharded", [](Interpreter&, Args& a) {
    ArgReader r(a, "Layout.batch_sharded", {"mesh", "batch_dim", "rank", "axis?"});
    auto mesh = meshArg(r, 0);
    int rank = rankArg(r, 2);
    int64_t axis = r.integer(3, 0);
    if (axis < -rank || axis >= rank) r.fail(3, "must be a dimension of the rank-" + std::to_string(rank) + " layout");
    if (axis < 0) axis += rank;  // from the end, as DTensor's list indexing takes it
    std::vector<std::optional<std::string>> dims(static_cast<size_t>(rank));
    dims[size_t(axis)] = r.str(1);
    try {
      return Value(makeLayout(std::move(dims), mesh));
    } catch (WeftError& e) {
      if (!e.at.valid()) e.at = a.site;
      throw;
    }
  }));
  layout.as<BuiltinObj>()->members = members;
  return layout;
}

}  // namespace weft::mesh
