#include "load.h"

#include <filesystem>
#include <fstream>

#include "../eval/args.h"
#include "../ops/ops.h"
#include "../saved/npy.h"
#include "export.h"
#include "reader.h"

namespace weft::onnx {

std::string moduleNameFor(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string(), out;
  bool upper = true;
  for (unsigned char c : stem) {
    if (c >= 0x80 || !std::isalnum(c)) {
      upper = true;
      continue;
    }
    out += upper ? char(std::toupper(c)) : char(c);
    upper = false;
  }
  if (out.empty() || std::isdigit((unsigned char)out[0])) out = "Onnx" + out;
  return out;
}

namespace {

// The options for a model: its module's name, and the op library's functions.
SourceOptions optionsFor(Interpreter& in, const std::string& path) {
  Value lib = in.importModule("onnx_ops", false, SourceRange{});
  std::shared_ptr<Env> ops = static_cast<NamespaceObj&>(*lib.object()).env;
  SourceOptions options;
  options.moduleName = moduleNameFor(path);
  options.origin = path;
  options.hasFunction = [ops](const std::string& name) { return ops->findLocal(intern(name)) != nullptr; };
  return options;
}

}  // namespace

std::string importOnnx(Interpreter& in, const std::string& path, const std::string& outDir) {
  ModelFile model = readModel(path);
  SourceOptions options = optionsFor(in, path);
  options.graphFunction = true;
  options.standalone = true;
  Source source = writeSource(model, options);
  std::string stem = std::filesystem::path(path).stem().string(), file;
  for (unsigned char c : stem) file += c < 0x80 && (std::isalnum(c) || c == '_' || c == '-') ? char(c) : '_';
  const std::filesystem::path out = std::filesystem::path(outDir) / (file.empty() ? "model.model" : file + ".model");
  std::filesystem::create_directories(std::filesystem::path(outDir) / "tensors");
  for (const ModuleTensor& t : source.tensors) saved::writeNpy((std::filesystem::path(outDir) / t.file).string(), toTensor(*t.data));
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << source.text;
  if (!f.flush()) throw WeftError("cannot write '" + out.string() + "'");
  return out.string();
}

Value loadOnnx(Interpreter& in, const std::string& path, bool graphFunction) {
  ModelFile model = readModel(path);
  SourceOptions options = optionsFor(in, path);
  options.graphFunction = graphFunction;
  Source source = writeSource(model, options);
  Value ns = in.runModuleFile(std::make_shared<SourceFile>("<onnx>/" + path, source.text), options.moduleName);
  auto weights = std::make_shared<DictObj>(), constants = std::make_shared<DictObj>();
  for (const ModuleTensor& t : source.tensors) (t.variable ? weights : constants)->set(makeStr(t.key), Value(toTensor(*t.data)));
  Args args;
  args.pos = {Value(weights), Value(constants)};
  return in.call(in.getAttr(ns, intern(options.moduleName)), args);
}

void registerBuiltins(Env& env) {
  env.set(intern("load_onnx"), makeBuiltin("load_onnx", [](Interpreter& in, Args& a) {
    ArgReader r(a, "load_onnx", {"path", "function?"});
    return loadOnnx(in, r.str(0), r.boolean(1, false, "call() a graph function"));
  }));
  env.set(intern("export_onnx"), makeBuiltin("export_onnx", [](Interpreter& in, Args& a) {
    ArgReader r(a, "export_onnx", {"fn", "path"});
    if (!r.get(0).is(Kind::Function)) r.fail(0, "must be a graph function (@function)");
    auto& fn = *r.get(0).as<FunctionObj>();
    if (!fn.graph) r.fail(0, "must be a graph function (@function): '" + fn.name + "' runs eagerly");
    std::vector<Tensor> variables;
    auto g = in.graphOf(fn, fn.name, &variables);
    // A plan (`weft check`) writes no file.
    if (!ops::shapesOnly()) writeModel(exportGraph(*g, variables), r.str(1));
    return Value();
  }));
  env.set(intern("load_onnx_tensor"), makeBuiltin("load_onnx_tensor", [](Interpreter&, Args& a) {
    ArgReader r(a, "load_onnx_tensor", {"path"});
    return Value(toTensor(readTensorFile(r.str(0))));
  }));
}

}  // namespace weft::onnx
