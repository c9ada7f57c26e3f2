// export() and TensorSpec (SPEC §9): the program's entry points for `weft compile`.
#include "../eval/exports.h"

#include "../../grammar/shown_text.h"
#include "../eval/interpreter.h"
#include "../graph/graph.h"
#include "../mesh/builtins.h"
#include "../mesh/layout.h"
#include "../values/format.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {

namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// TensorSpec([None, 784], f32, name="x", layout=Layout.batch_sharded(grid, "batch", 2)): `None`
// (none) is a size known only at run time; the layout, how a graph function's input arrives split
// (SPEC §7.1), must have the shape's rank and divide its known sizes.
Value tensorSpec(Interpreter&, Args& a) {
  ArgReader r(a, "TensorSpec", {"shape", "dtype?", "name?", "layout?"});
  auto spec = std::make_shared<TensorSpecObj>();
  spec->type.dtype = r.dtype(1, DType::F32);
  std::vector<Value> dims = r.items(0);
  if (dims.size() > size_t(rt::kMaxRank)) r.fail(0, "has more than " + std::to_string(rt::kMaxRank) + " dimensions");
  for (const Value& d : dims) {
    if (d.isNone()) {
      spec->type.shape.push_back(rt::kUnknownDim);
      continue;
    }
    if (!d.isTensor() || d.tensor().rank() != 0 || !rt::isInt(d.tensor().dtype()) || d.tensor().isAbstract())
      r.fail(0, "must list integer sizes or none, got " + toRepr(d));
    int64_t n = d.tensor().asInt();
    if (n < 0) r.fail(0, "has a negative size " + std::to_string(n));
    spec->type.shape.push_back(n);
  }
  if (r.has(2)) spec->name = r.str(2);
  if (std::optional<size_t> at = firstControl(spec->name)) r.fail(2, controlCharacterReason(spec->name, *at));
  if (r.has(3) && !r.get(3).isNone()) {
    const Value& l = r.get(3);
    const auto* layout = l.is(Kind::Opaque) ? dynamic_cast<const mesh::LayoutObj*>(l.as<OpaqueObj>()) : nullptr;
    if (!layout || !mesh::layoutPlacements(*layout, spec->mesh, spec->placements))
      r.fail(3, "must be a Layout on a mesh, got " + toRepr(l));
    if (layout->rank() != int(spec->type.shape.rank()))
      r.fail(3, "has rank " + std::to_string(layout->rank()) + " (" + layout->dimsText() + ") but the shape " +
                    spec->type.shape.str() + " has rank " + std::to_string(spec->type.shape.rank()));
    if (std::optional<std::string> why = spmd::misfit(spec->type.shape, spec->placements, spec->mesh))
      r.fail(3, layout->dimsText() + " cannot split the shape " + spec->type.shape.str() + ": " + *why);
    spec->layout = l;
  }
  return Value(std::shared_ptr<Object>(std::move(spec)));
}

// export(fn, name=none, signature=none): the signature defaults to the parameters' annotations.
Value exportFn(Interpreter& in, Args& a) {
  ArgReader r(a, "export", {"fn", "name?", "signature?"});
  const Value& f = r.get(0);
  if (!f.is(Kind::Function) || !f.as<FunctionObj>()->body)
    r.fail(0, "must be a function declared with fn (got " + typeNameOf(f) + ")");
  auto* fn = f.as<FunctionObj>();
  Export e;
  e.fn = f;
  e.site = a.site;
  std::string base = fn->name.substr(fn->name.rfind('.') + 1);
  e.name = r.has(1) ? r.str(1) : base;
  if (!isIdentifier(e.name))
    r.fail(1, "must be a C++ identifier (letters, digits and _), got '" + shownText(e.name) + "'");
  for (const Export& other : in.exports())
    if (other.name == e.name)
      throw WeftError(a.site, "export '" + e.name + "' is defined twice (the first at line " +
                                  std::to_string(other.site.begin.line) + "); give one of them another name=");
  const auto& params = *fn->params;
  std::vector<Value> specs;
  if (r.has(2)) {
    specs = r.items(2);
    if (specs.size() != params.size())
      r.fail(2, "has " + std::to_string(specs.size()) + " entries but " + fn->name + "() takes " +
                    std::to_string(params.size()) + " parameters");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    e.inputNames.push_back(symbolName(params[i].name));
    if (!specs.empty()) {
      auto* spec = specs[i].is(Kind::Opaque) ? dynamic_cast<TensorSpecObj*>(specs[i].object()) : nullptr;
      if (!spec) r.fail(2, "must list TensorSpec values, got " + typeNameOf(specs[i]) + " for '" + e.inputNames[i] + "'");
      e.signature.push_back(spec->type);
      e.inputLayouts.emplace_back(spec->mesh, spec->placements);
      continue;
    }
    std::optional<graph::TensorType> t = params[i].type ? annotatedSignature(*params[i].type) : std::nullopt;
    if (!t)
      throw WeftError(a.site, "export '" + e.name + "': parameter '" + e.inputNames[i] + "' of " + fn->name +
                                  "() has no tensor annotation (such as f32[None, 784]); annotate it or give "
                                  "signature=[TensorSpec(...), ...]");
    e.signature.push_back(*t);
    e.inputLayouts.emplace_back();
  }
  in.addExport(std::move(e));
  return Value();
}

}  // namespace

void registerExports(Env& env) {
  env.set(intern("TensorSpec"), makeBuiltin("TensorSpec", tensorSpec));
  env.set(intern("export"), makeBuiltin("export", exportFn));
}

}  // namespace weft
