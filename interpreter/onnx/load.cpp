#include "load.h"

#include <filesystem>

#include "../eval/args.h"
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

Value loadOnnx(Interpreter& in, const std::string& path, bool graphFunction) {
  ModelFile model = readModel(path);
  Value lib = in.importModule("onnx_ops", false, SourceRange{});
  auto& ops = static_cast<NamespaceObj&>(*lib.object());
  SourceOptions options;
  options.moduleName = moduleNameFor(path);
  options.origin = path;
  options.graphFunction = graphFunction;
  options.hasFunction = [&](const std::string& name) { return ops.env->findLocal(intern(name)) != nullptr; };
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
    ArgReader r(a, "load_onnx", {"path"});
    return loadOnnx(in, r.str(0));
  }));
  env.set(intern("load_onnx_tensor"), makeBuiltin("load_onnx_tensor", [](Interpreter&, Args& a) {
    ArgReader r(a, "load_onnx_tensor", {"path"});
    return Value(toTensor(readTensorFile(r.str(0))));
  }));
}

}  // namespace weft::onnx
