// `weft graph FILE.model FN [-o OUT]` (SPEC §9, docs/graphs.md): runs the program (writing no
// file), then prints or draws the static graph of its function FN. `weft graph SAVED_DIR SIGNATURE [-o OUT]` does
// the same for a saved model's signature (or one of its functions, by name).
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "grammar/shown_text.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/graph/dot.h"
#include "interpreter/graph/pipeline.h"
#include "interpreter/graph/text.h"
#include "interpreter/saved/saved_model.h"
#include "interpreter/values/context.h"
#include "limit_options.h"

namespace weft::cli {
namespace {

// The graph of a saved model's signature, or else of the function of that name.
const graph::Graph& savedGraph(const saved::SavedModel& model, const std::string& dir, const std::string& name) {
  if (const graph::Graph* g = model.signatureGraph(name)) return *g;
  const auto& fns = model.manifest.functions;
  for (size_t i = 0; i < fns.size(); ++i)
    if (fns[i].name == name) return model.graphs[i];
  std::string known;
  for (const auto& [sig, fn] : model.manifest.signatures) known += (known.empty() ? "" : ", ") + sig;
  for (const auto& f : fns) known += (known.empty() ? "" : ", ") + f.name;
  throw WeftError("saved model '" + dir + "' has no signature or function '" + name + "'" +
                  (known.empty() ? std::string(": it has none") : "; it has " + known));
}

}  // namespace

int graphCommand(const std::vector<std::string>& given) {
  const char* usage =
      "usage: weft graph [LIMITS] FILE.model FN [-o OUT] [--dump-after=PASS]\n"
      "       weft graph SAVED_DIR SIGNATURE [-o OUT] [--dump-after=PASS]\n"
      "  FN: a function, a method (demo.addprint) or an export's name; the program runs first,\n"
      "      its output discarded and its file writes skipped\n"
      "  SIGNATURE: a saved model's signature (serving_default) or function name\n"
      "  OUT: .txt (the graph text), .dot, .svg or .png (through Graphviz); without -o the text is printed\n"
      "  PASS: show the graph after that pass of weft compile's pipeline instead (docs/compiled_code.md)\n";
  std::vector<std::string> args;
  std::string out, dumpAfter;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].rfind("--dump-after=", 0) == 0) {
      dumpAfter = given[i].substr(13);
      if (!knownPass("graph", dumpAfter, usage)) return 2;
    } else if (given[i] != "-o") {
      args.push_back(given[i]);
    } else if (i + 1 < given.size() && out.empty()) {
      out = given[++i];
    } else {
      std::cerr << "weft graph: -o needs one file name\n" << usage;
      return 2;
    }
  }
  // The program runs to define its functions: its output is discarded, and it writes no file.
  std::ostream discard(nullptr);
  Interpreter interp(discard, std::cerr);
  context().writesFiles = false;  // the interpreter's context, made with it
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (args.size() != size_t(file) + 2) {
    std::cerr << (args.size() == size_t(file) + 1 ? "weft graph: which function? name FN after the file\n" : "")
              << usage;
    return 2;
  }
  try {
    if (!out.empty()) graph::checkGraphFile(out);
  } catch (const WeftError& e) {
    std::cerr << e.format();
    return 2;
  }
  // The graph as traced, or after the passes of weft compile's pipeline up to `dumpAfter` (the
  // executor's, for a pass only it runs: a graph on a mesh placed and partitioned).
  graph::Target target = graph::Target::Cpp;
  for (const graph::Pass& p : graph::passes())
    if (dumpAfter == p.name && !p.cpp) target = graph::Target::Executor;
  auto show = [&](const graph::Graph& traced) {
    const graph::Graph g = dumpAfter.empty() ? traced : graph::runPipelineUntil(traced, target, dumpAfter);
    if (out.empty()) std::cout << graph::printText(g);
    else graph::writeGraphFile(g, out);
  };
  std::error_code ec;
  if (std::filesystem::is_directory(args[file], ec)) {  // a saved model
    try {
      saved::SavedModel model = saved::readSavedModel(args[file], saved::Read::WithoutVariables);
      show(savedGraph(model, args[file], args[file + 1]));
    } catch (const WeftError& e) {
      std::cerr << e.format();
      return 1;
    }
    return 0;
  }
  if (int status = interp.runFile(args[file]); status != 0) return status;
  try {
    show(*interp.graphOf(args[file + 1]));
  } catch (const WeftError& e) {
    // A name from the command line has no place in the source: the error names the file.
    std::cerr << (e.at.valid() ? "" : shownText(args[file]) + ": ") << e.format();
    return 1;
  }
  return 0;
}

}  // namespace weft::cli
