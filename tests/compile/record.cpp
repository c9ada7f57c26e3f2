// weft_record: the compiled-code test's view of programs that do not export anything. It runs a
// program (or generated ones, tests/fuzz/graph_program.h), records the first call of every graph
// its graph functions trace — the graph, its variables' values before the call, the inputs and
// the outputs — and compiles each recorded graph as an export whose state starts where that call
// started, writing the call's inputs and outputs as the test's cases.
//   weft_record OUT NAME FILE.model      OUT/gen/NAME (C++) and OUT/cases/NAME (.npy cases)
//   weft_record OUT NAME --generated N   the same for N generated programs
// A graph the code generator cannot emit is listed, and the recording fails.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "../fuzz/graph_program.h"
#include "codegen/collect.h"
#include "codegen/emit/files.h"
#include "codegen/emit/function_emitter.h"
#include "codegen/pipeline.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/graph/text.h"
#include "interpreter/saved/npy.h"

namespace fs = std::filesystem;
using namespace weft;

namespace {

// Whether a graph draws from the random stream: its compiled state would have to start where the
// stream was before the recorded call (tests/compile/ops.model's `noisy` covers random ops).
bool drawsRandom(const graph::Block& b) {
  for (const auto& n : b.nodes) {
    // An op-level seed draws the same numbers wherever it runs: only the global stream's draws
    // depend on where the program's stream was.
    if (ops::opDef(n.op).family == ops::Family::Random && !n.attrs.has("seed")) return true;
    for (const auto& inner : n.blocks)
      if (drawsRandom(inner)) return true;
  }
  return false;
}

// A graph's text without its name and placements: the code generator emits one device, so graphs
// that differ only in how they were sharded compile to the same code.
std::string unshardedText(graph::Graph g) {
  g.name.clear();
  g.mesh = {};
  g.placements.clear();
  for (auto& v : g.variables) v.placements.clear();
  return graph::printText(g);
}

struct Recorder {
  fs::path cases;
  codegen::CompileUnit unit;
  std::set<const GraphTraces::Entry*> seen;
  std::set<std::string> texts;  // unshardedText of every graph recorded
  int repeated = 0;

  void record(const FunctionObj& fn, const GraphTraces::Entry& e, const std::vector<Tensor>& in,
              const std::vector<Tensor>& vars, const std::vector<Tensor>& out) {
    if (!seen.insert(&e).second) return;
    if (drawsRandom(e.graph.body)) {
      std::cout << "skipped: " << fn.name << " draws random numbers\n";
      return;
    }
    if (!texts.insert(unshardedText(e.graph)).second) {
      ++repeated;
      return;
    }
    codegen::ExportGraph x;
    x.name = unit.program + "_" + codegen::identifier(fn.name) + "_" + std::to_string(unit.exports.size());
    x.graph = e.graph;
    x.graph.name = x.name;
    x.source = fn.name;
    for (size_t i = 0; i < in.size(); ++i) x.inputNames.push_back("in" + std::to_string(i));
    for (size_t i = 0; i < vars.size(); ++i) {
      codegen::UnitVariable v;
      v.name = e.graph.variables[i].name;
      v.path = v.name;
      v.ident = x.name + "_v" + std::to_string(i);
      v.value = vars[i];
      x.variables.push_back(int(unit.variables.size()));
      unit.variables.push_back(v);
    }
    for (size_t i = 0; i < in.size(); ++i)
      saved::writeNpy((cases / (x.name + ".0.in" + std::to_string(i) + ".npy")).string(), in[i]);
    for (size_t i = 0; i < out.size(); ++i)
      saved::writeNpy((cases / (x.name + ".0.out" + std::to_string(i) + ".npy")).string(), out[i]);
    // A graph that ran on a mesh summed its shards' partial results in another order than one
    // device does: its outputs agree to 1e-4 (as tests/lang/spmd_random_layouts asks), not 1e-5.
    auto sharded = [](const Tensor& t) { return !t.isWhole(); };
    if (std::any_of(in.begin(), in.end(), sharded) || std::any_of(vars.begin(), vars.end(), sharded))
      std::ofstream(cases / (x.name + ".0.tolerance")) << "1e-4";
    unit.exports.push_back(std::move(x));
  }
};

int runProgram(Recorder& r, const std::string& name, const std::string& src) {
  std::ostringstream out, err;
  r.seen.clear();  // entries of an earlier program's interpreter are gone (their addresses reused)
  Interpreter interp(out, err);
  interp.setGraphCallRecorder([&](auto&... a) { r.record(a...); });
  int status = src.empty() ? interp.runFile(name) : interp.runSource(std::make_shared<SourceFile>(name, src));
  if (status != 0) std::cerr << "weft_record: " << name << " failed:\n" << err.str();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: weft_record OUT NAME FILE.model | weft_record OUT NAME --generated N\n";
    return 2;
  }
  weft::installBuiltins();
  const fs::path out = fs::absolute(argv[1]);
  Recorder r;
  r.unit.program = codegen::identifier(argv[2]);
  r.unit.sourceFile = argv[3];
  r.cases = out / "cases" / argv[2] / "graph";
  fs::create_directories(r.cases);
  if (std::string(argv[3]) == "--generated") {
    std::mt19937 rng(777);
    for (int k = 0; k < std::atoi(argv[4]); ++k) {
      std::vector<uint8_t> bytes(64);
      for (auto& b : bytes) b = uint8_t(rng());
      if (runProgram(r, "generated_" + std::to_string(k) + ".model", fuzz::GraphProgram(bytes).generate()) != 0) return 1;
    }
  } else {
    fs::path file = fs::absolute(argv[3]);
    fs::current_path(file.parent_path());  // as the golden tests run it: relative paths from its folder
    if (runProgram(r, file.filename().string(), "") != 0) return 1;
  }
  // Every traced graph compiles; one that does not is listed, and the recording fails.
  codegen::lowerUnit(r.unit, "", std::cout);
  std::vector<codegen::ExportGraph> kept;
  int skipped = 0;
  for (auto& e : r.unit.exports) {
    try {
      codegen::emitExport(r.unit, e);
      kept.push_back(std::move(e));
    } catch (const WeftError& err) {
      std::cout << "does not compile: " << err.message << "\n";
      ++skipped;
      for (const auto& f : fs::directory_iterator(r.cases))
        if (f.path().filename().string().rfind(e.name + ".", 0) == 0) fs::remove(f.path());
    }
  }
  r.unit.exports = std::move(kept);
  codegen::EmitOptions options;
  options.main = true;
  codegen::writeUnit(r.unit, (out / "gen" / argv[2]).string(), options);
  std::cout << "recorded and compiled " << r.unit.exports.size() << " graphs";
  if (r.repeated) std::cout << " (" << r.repeated << " more differed from these only in placements)";
  std::cout << "\n";
  return skipped ? 1 : 0;
}
