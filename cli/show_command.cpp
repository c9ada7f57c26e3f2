// `weft show DIR [--all]` or `weft show --dir DIR` (SPEC §9, docs/saved_models.md): a saved model's signatures, in the
// spirit of `saved_model_cli show`; with --all also its graph methods, modules, variables and
// meshes. The model is read and checked as `load` reads it, without its variables' data.
#include <iostream>
#include <sstream>

#include "commands.h"
#include "grammar/diagnostics.h"
#include "grammar/shown_text.h"
#include "interpreter/graph/graph.h"
#include "interpreter/mesh/report_table.h"
#include "interpreter/saved/saved_model.h"

namespace weft::cli {
namespace {

using saved::FunctionEntry;
using saved::Manifest;

std::string specList(const std::vector<saved::TensorSpecEntry>& specs) {
  std::string s;
  for (const auto& e : specs) s += (s.empty() ? "" : ", ") + e.name + ": " + graph::typeText(e.type);
  return s;
}

void showSpecs(std::ostream& out, const char* title, const std::vector<saved::TensorSpecEntry>& specs) {
  out << "    " << title << ":";
  if (specs.empty()) out << " none";
  out << "\n";
  for (const auto& e : specs)
    out << "      " << e.name << ": dtype " << rt::dtypeName(e.type.dtype) << ", shape " << saved::shapeText(e.type.shape)
        << "\n";
}

std::string meshText(const saved::MeshEntry& m) {
  std::string s = (m.name.empty() ? "Mesh" : m.name) + "(";
  int64_t devices = 1;
  for (size_t i = 0; i < m.dimNames.size(); ++i) {
    s += (i ? ", " : "") + m.dimNames[i] + "=" + std::to_string(m.dimSizes[i]);
    devices *= m.dimSizes[i];
  }
  return s + "): " + std::to_string(devices) + " device" + (devices == 1 ? "" : "s");
}

std::string layoutText(const saved::VariableEntry& v, const Manifest& m) {
  if (!v.layout) return "-";
  std::string s = "[";
  for (size_t i = 0; i < v.layout->dims.size(); ++i) s += (i ? ", " : "") + v.layout->dims[i].value_or("_");
  const auto& mesh = m.meshes[size_t(v.layout->mesh)];
  return s + "] on " + (mesh.name.empty() ? "mesh " + std::to_string(v.layout->mesh) : mesh.name);
}

void show(std::ostream& out, const std::string& dir, const saved::SavedModel& model, bool all) {
  const Manifest& m = model.manifest;
  out << "Saved model " << dir << " (format version " << m.version << "): root module '" << m.modules[0].name << "' ("
      << m.modules[0].type << ")\n\n";
  out << "Signatures:";
  if (m.signatures.empty()) out << " none";
  out << "\n";
  for (const auto& [name, fn] : m.signatures) {
    const FunctionEntry& f = m.functions[size_t(fn)];
    out << "  " << name << ": " << f.name << " (" << f.file << ")\n";
    showSpecs(out, "inputs", f.inputs);
    showSpecs(out, "outputs", f.outputs);
  }
  if (!all) return;
  out << "\nFunctions:\n";
  for (const FunctionEntry& f : m.functions) {
    std::string outs;
    for (const auto& o : f.outputs) outs += (outs.empty() ? "" : ", ") + graph::typeText(o.type);
    out << "  " << f.name << "(" << specList(f.inputs) << ") -> " << (f.outputs.size() == 1 ? outs : "(" + outs + ")");
    if (!f.method.empty()) out << "   method " << f.method;
    out << "\n";
  }
  out << "\nModules:\n";
  mesh::Table modules({"path", "name", "type", "trainable"});
  for (const auto& mod : m.modules) modules.add({mod.path.empty() ? "(root)" : mod.path, mod.name, mod.type, mod.trainable ? "true" : "false"});
  out << modules.str();
  int64_t params = 0, trainable = 0;
  for (const auto& v : m.variables) {
    int64_t n = 1;
    for (int64_t d : v.type.shape) n *= d;
    params += n;
    if (v.trainable) trainable += n;
  }
  out << "\nVariables: " << m.variables.size() << " (" << withCommas(params) << (params == 1 ? " parameter, " : " parameters, ") << withCommas(trainable)
      << " trainable)\n";
  if (!m.variables.empty()) {
    mesh::Table vars({"name", "path", "dtype", "shape", "trainable", "layout", "file"});
    for (const auto& v : m.variables)
      vars.add({v.name, v.path, rt::dtypeName(v.type.dtype), saved::shapeText(v.type.shape), v.trainable ? "true" : "false",
                layoutText(v, m), v.file});
    out << vars.str();
  }
  out << "\nMesh:";
  if (m.meshes.empty()) out << " none";
  out << "\n";
  for (const auto& mesh : m.meshes) out << "  " << meshText(mesh) << "\n";
}

}  // namespace

int showCommand(const std::vector<std::string>& given) {
  const char* usage = "usage: weft show SAVED_DIR [--all]   (or saved_model_cli's spelling: --dir SAVED_DIR)\n";
  bool all = false;
  std::vector<std::string> args;
  for (size_t i = 1; i < given.size(); ++i) {
    if (given[i] == "--all") all = true;
    else if (given[i] == "--dir" && i + 1 < given.size()) args.push_back(given[++i]);
    else if (given[i].rfind("--dir=", 0) == 0) args.push_back(given[i].substr(6));
    else args.push_back(given[i]);
  }
  if (args.size() != 1 || args[0].rfind("-", 0) == 0) {
    std::cerr << usage;
    return 2;
  }
  try {
    saved::SavedModel model = saved::readSavedModel(args[0], saved::Read::WithoutVariables);
    // Names are checked when the manifest is read; the folder's is not: control bytes are escaped.
    std::ostringstream text;
    show(text, args[0], model, all);
    std::cout << shownText(text.str(), true);
  } catch (const WeftError& e) {
    std::cerr << e.format();
    return 1;
  }
  return 0;
}

}  // namespace weft::cli
