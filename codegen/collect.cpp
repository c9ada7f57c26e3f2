#include "collect.h"

#include <filesystem>
#include <map>
#include <set>

#include "grammar/diagnostics.h"
#include "interpreter/eval/graph_call.h"
#include "interpreter/ops/ops.h"
#include "interpreter/saved/saved_model.h"
#include "interpreter/values/objects.h"

namespace weft::codegen {
namespace fs = std::filesystem;
namespace {

// Source files of the graph's nodes land in comments and in error messages' string literals.
void escapeLocations(graph::Block& b) {
  for (auto& n : b.nodes) {
    for (auto& inner : n.blocks) escapeLocations(inner);
    n.loc.file = literalText(n.loc.file);
  }
}

// The inputs' C++ parameter names: each, and each with _shape (its sizes' parameter), unique.
std::vector<std::string> inputIdents(const std::vector<std::string>& names) {
  std::set<std::string> used;
  std::vector<std::string> out;
  for (const std::string& n : names) {
    std::string base = cppName(n), id = base;
    for (int k = 1; used.count(id) || used.count(id + "_shape"); ++k) id = base + "_" + std::to_string(k);
    used.insert(id);
    used.insert(id + "_shape");
    out.push_back(id);
  }
  return out;
}

// An export ready to join the unit: its inputs' names and source files as C++ holds them.
void finishExport(ExportGraph& out) {
  out.inputNames = inputIdents(out.inputNames);
  escapeLocations(out.graph.body);
}

}  // namespace

CompileUnit collectUnit(Interpreter& interp, const std::string& sourceFile) {
  CompileUnit unit;
  unit.sourceFile = sourceFile;
  unit.program = namespaceName(std::filesystem::path(sourceFile).stem().string());
  ops::RandomState random = ops::randomState();
  unit.randomKey = random.key;
  unit.randomCounter = random.counter;
  std::map<const VariableObj*, int> index;
  std::set<std::string> idents;
  for (const Export& e : interp.exports()) {
    std::unique_ptr<GraphTraces::Entry> traced = interp.traceExport(e);
    // On a mesh: the variables' and the inputs' layouts put the graph there, as a graph
    // function's call does.
    placeOnMesh(traced->graph, *traced, "export '" + e.name + "'", e.site);
    if (!traced->graph.mesh.empty()) {
      if (!unit.mesh.empty() && !(unit.mesh == traced->graph.mesh))
        throw WeftError(e.site, "export '" + e.name + "' runs on mesh(" + spmd::meshText(traced->graph.mesh) +
                                    ") and another export of the program on mesh(" + spmd::meshText(unit.mesh) +
                                    "): the exports of one program share their state, on one mesh");
      unit.mesh = traced->graph.mesh;
    }
    ExportGraph out;
    out.name = cppName(e.name);
    out.inputNames = e.inputNames;
    out.source = std::filesystem::path(e.site.file ? e.site.file->path : sourceFile).filename().string() + ":" +
                 std::to_string(e.site.begin.line);
    out.site = e.site;
    out.graph = std::move(traced->graph);
    out.graph.name = e.name;
    for (const auto& v : traced->variables) {
      auto [it, fresh] = index.emplace(v.get(), int(unit.variables.size()));
      if (fresh) {
        UnitVariable u;
        u.name = v->name;
        u.path = v->path();
        if (u.path.empty()) u.path = v->name;
        u.ident = uniqueIdent(u.path, idents);
        u.value = readVariable(*v);
        unit.variables.push_back(std::move(u));
      }
      out.variables.push_back(it->second);
    }
    finishExport(out);
    unit.exports.push_back(std::move(out));
  }
  // The state lies on the mesh, so every export runs there (one without layouts, replicated).
  for (ExportGraph& out : unit.exports) out.graph.mesh = unit.mesh;
  return unit;
}

CompileUnit collectSavedUnit(const std::string& dir) {
  saved::SavedModel model = saved::readSavedModel(dir);
  CompileUnit unit;
  fs::path folder = fs::path(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  unit.sourceFile = folder.filename().string();
  unit.program = namespaceName(unit.sourceFile);
  std::set<std::string> idents;
  for (size_t i = 0; i < model.manifest.variables.size(); ++i) {
    const auto& v = model.manifest.variables[i];
    UnitVariable u;
    u.name = v.name;
    u.path = v.path.empty() ? v.name : v.path;
    u.ident = uniqueIdent(u.path, idents);
    u.value = model.variables[i];
    unit.variables.push_back(std::move(u));
  }
  std::vector<std::pair<std::string, int>> entries = model.manifest.signatures;
  if (entries.empty())
    for (size_t i = 0; i < model.manifest.functions.size(); ++i) entries.push_back({model.manifest.functions[i].name, int(i)});
  for (const auto& [name, index] : entries) {
    const saved::FunctionEntry& f = model.manifest.functions[size_t(index)];
    ExportGraph out;
    out.name = cppName(name);
    out.source = unit.sourceFile + "/" + f.file;
    out.graph = model.graphs[size_t(index)];
    out.graph.name = out.name;
    out.variables = f.variables;
    for (size_t k = 0; k < f.inputs.size(); ++k)
      out.inputNames.push_back(f.inputs[k].name.empty() ? "in" + std::to_string(k) : f.inputs[k].name);
    finishExport(out);
    unit.exports.push_back(std::move(out));
  }
  return unit;
}

}  // namespace weft::codegen
