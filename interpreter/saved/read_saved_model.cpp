// Reads a saved model's folder (saved_model.h): the manifest, then each graph and variable file
// it names, every one checked against the manifest before it is used.
#include <filesystem>

#include "../../grammar/diagnostics.h"
#include "../graph/text.h"
#include "../graph/verify.h"
#include "npy.h"
#include "path_safety.h"
#include "saved_model.h"

namespace weft::saved {
namespace {

std::string specText(const graph::TensorType& t) { return graph::typeText(t); }

}  // namespace

const FunctionEntry* SavedModel::signature(const std::string& name) const {
  for (const auto& [n, fn] : manifest.signatures)
    if (n == name) return &manifest.functions[size_t(fn)];
  return nullptr;
}

const graph::Graph* SavedModel::signatureGraph(const std::string& name) const {
  for (const auto& [n, fn] : manifest.signatures)
    if (n == name && size_t(fn) < graphs.size()) return &graphs[size_t(fn)];
  return nullptr;
}

void checkGraphMatches(const graph::Graph& g, const FunctionEntry& f, const Manifest& m,
                       const std::shared_ptr<const SourceFile>& file) {
  auto bad = [&](const std::string& why) {  // at the graph's first line, which declares its inputs
    throw WeftError(SourceRange{file, {1, 1}, {1, 1}}, why + " (function '" + f.name + "' in the manifest)");
  };
  const auto& params = g.body.params;
  if (params.size() != f.inputs.size())
    bad("the graph takes " + std::to_string(params.size()) + " inputs, the manifest declares " +
        std::to_string(f.inputs.size()));
  for (size_t i = 0; i < params.size(); ++i)
    if (g.values[size_t(params[i])] != f.inputs[i].type)
      bad("input " + std::to_string(i) + " ('" + f.inputs[i].name + "') is " + specText(g.values[size_t(params[i])]) +
          " in the graph, " + specText(f.inputs[i].type) + " in the manifest");
  const auto& results = g.body.results;
  if (results.size() != f.outputs.size())
    bad("the graph returns " + std::to_string(results.size()) + " outputs, the manifest declares " +
        std::to_string(f.outputs.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (g.values[size_t(results[i])] != f.outputs[i].type)
      bad("output " + std::to_string(i) + " ('" + f.outputs[i].name + "') is " +
          specText(g.values[size_t(results[i])]) + " in the graph, " + specText(f.outputs[i].type) + " in the manifest");
  if (g.variables.size() != f.variables.size())
    bad("the graph has " + std::to_string(g.variables.size()) + " variables, the manifest lists " +
        std::to_string(f.variables.size()));
  for (size_t i = 0; i < g.variables.size(); ++i) {
    const VariableEntry& v = m.variables[size_t(f.variables[i])];
    if (g.variables[i].type != v.type)
      bad("variable " + std::to_string(i) + " is " + specText(g.variables[i].type) + " in the graph, but '" + v.path +
          "' is " + specText(v.type));
  }
}

SavedModel readSavedModel(const std::string& dir, Read what) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw WeftError("cannot load '" + dir + "': " +
                    (std::filesystem::exists(dir, ec) ? "not a folder" : "no such folder"));
  SavedModel model;
  const std::string manifestPath = fileInside(dir, kManifestFile);
  model.manifest = readManifest(readSmallFile(manifestPath, kMaxManifestBytes), manifestPath);
  const Manifest& m = model.manifest;
  for (const FunctionEntry& f : m.functions) {
    const std::string path = fileInside(dir, f.file);
    std::vector<SourceRange> nodeAt;
    auto file = std::make_shared<const SourceFile>(path, readSmallFile(path, kMaxGraphBytes));
    graph::Graph g;
    try {
      g = graph::parseText(file, &nodeAt);
      graph::verify(g, &nodeAt);
    } catch (const WeftError& e) {
      if (e.at.valid()) throw;
      throw WeftError("cannot load '" + path + "': " + e.message);  // a problem of no one line
    }
    checkGraphMatches(g, f, m, file);
    model.graphs.push_back(std::move(g));
  }
  if (what == Read::WithoutVariables) return model;
  for (const VariableEntry& v : m.variables) {
    const std::string path = fileInside(dir, v.file);
    Tensor t = readNpy(path);
    if (t.dtype() != v.type.dtype || t.shape() != v.type.shape)
      throw WeftError("cannot load '" + path + "': it holds " + rt::dtypeName(t.dtype()) + shapeText(t.shape()) +
                      ", but the manifest declares variable '" + v.path + "' " + specText(v.type));
    model.variables.push_back(std::move(t));
  }
  return model;
}

SavedModel readSavedModelAtCall(const std::string& dir, Read what) {
  try {
    return readSavedModel(dir, what);
  } catch (const WeftError& e) {
    if (!e.at.valid()) throw;
    throw WeftError("cannot load '" + e.at.file->path + ":" + std::to_string(e.at.begin.line) + ":" +
                    std::to_string(e.at.begin.col) + "': " + e.message);
  }
}

}  // namespace weft::saved
