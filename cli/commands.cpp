#include "commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "grammar/shown_text.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/eval/suggest.h"
#include "interpreter/graph/comm_counts.h"
#include "interpreter/graph/pipeline.h"
#include "interpreter/values/context.h"
#include "interpreter/mesh/plan.h"
#include "interpreter/spmd/ranks.h"
#include "limit_options.h"
#include "stdlib/gemm_choice.h"

namespace weft::cli {
namespace {

// What ranks other than 0 print to.
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};

const char* kUsage =
    "usage: weft COMMAND [ARGS]\n"
    "  weft run [LIMITS] [--run-functions-eagerly] [--comm-report] [--no-implicit-comm] [--no-comm-buckets]\n"
    "           FILE.model [ARGS...]\n"
    "                                  run a program (LIMITS: see below); graph functions run\n"
    "                                  their traced graphs unless --run-functions-eagerly;\n"
    "                                  --comm-report: the collectives its sharded graphs ran;\n"
    "                                  --no-implicit-comm: a re-layout between ops is an error;\n"
    "                                  --no-comm-buckets: each small collective is a call of its own\n"
    "  weft check [--plan] [--comm-plan] [--no-implicit-comm] [--no-comm-buckets] FILE.model\n"
    "                                  parse and check a program without running it; with layouts\n"
    "                                  or --plan, run it on shapes alone and report its layouts;\n"
    "                                  --comm-plan: the collectives its sharded graph functions need;\n"
    "                                  --no-implicit-comm: a re-layout between ops is an error\n"
    "  weft graph FILE.model FN [-o OUT]\n"
    "                                  print a function's static graph, or write it to OUT\n"
    "                                  (.txt, .dot, or .svg/.png through Graphviz)\n"
    "  weft graph SAVED_DIR SIGNATURE [-o OUT]\n"
    "                                  the same for a saved model's signature (or function)\n"
    "  weft compile FILE.model -o DIR [--main] [--force] [--dump-after=PASS]\n"
    "                                  emit C++ for the program's exports (docs/compiled_code.md)\n"
    "  weft show SAVED_DIR [--all]     a saved model's signatures; --all adds its functions,\n"
    "                                  modules, variables and mesh\n"
    "  weft import MODEL.onnx -o DIR   an ONNX model as a Weft program, DIR/NAME.model, and its\n"
    "                                  tensors, DIR/tensors/*.npy (docs/onnx.md)\n"
    "  weft export-onnx FILE.model FN -o F.onnx\n"
    "                                  a graph function's graph as an ONNX model\n"
    "  weft info                       the CPU, the GEMM libraries found and which one runs\n"
    "                                  each class of shapes (docs/internals.md)\n"
    "  weft repl                       interactive session (also: weft with no arguments)\n"
    "  weft help                       this text\n";

// Runs a program, printing to `out` and `err`.
int runProgram(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
  graph::CommCounts counts;  // outlives the interpreter, whose context points to it
  Interpreter interp(out, err);
  std::vector<std::string> args;
  bool report = false;
  bool fileSeen = false;
  for (size_t i = 0; i < given.size(); ++i) {
    // Options come before the file (after it, they are the program's arguments); --threads N is
    // the one option whose value is a word of its own.
    const bool beforeFile = i > 0 && !fileSeen;
    if (beforeFile && given[i].rfind("--", 0) != 0 && given[i - 1] != "--threads") fileSeen = true;
    if (beforeFile && given[i] == "--run-functions-eagerly") interp.setRunFunctionsEagerly(true);
    else if (beforeFile && given[i] == "--comm-report") report = true;
    else if (beforeFile && given[i] == "--no-implicit-comm") context().noImplicitComm = true;
    else if (beforeFile && given[i] == "--no-comm-buckets") context().noCommBuckets = true;
    else args.push_back(given[i]);
  }
  if (report) context().commCounts = &counts;
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (size_t(file) >= args.size()) {
    err << "usage: weft run [LIMITS] FILE.model [ARGS...]\n" << kLimitOptionsHelp;
    return 2;
  }
  if (spmd::acrossRanks()) {
    std::ifstream in(args[file], std::ios::binary);  // unreadable: runFile says so, on every rank
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (std::string why = spmd::rankStartedOtherwise(given, text); !why.empty()) {
      if (spmd::rankIndex() == 0) err << "weft run: " << why << "\n";  // every rank knows: said once
      return 2;
    }
  }
  interp.setProgramArgs({args.begin() + file + 1, args.end()});
  const int status = interp.runFile(args[file]);
  if (report) out << counts.report();
  context().commCounts = nullptr;
  return status;
}

}  // namespace

int runCommand(const std::vector<std::string>& given) {
  if (std::string why = spmd::startRanks(); !why.empty()) {
    std::cerr << "weft run: " << why << "\n";
    return 2;
  }
  if (!spmd::acrossRanks()) return runProgram(given, std::cout, std::cerr);
  // Under mpirun every rank runs the program (interpreter/spmd/ranks.h) and rank 0 alone writes:
  // the others' output goes nowhere, and what they would say on stderr is kept, to be said only
  // for an error of their own.
  NullBuffer nothing;
  std::ostream silent(&nothing);
  std::ostringstream said;
  const bool writes = spmd::rankIndex() == 0;
  int errFd = -1;
  if (writes) std::cout << std::unitbuf;  // what it printed stays printed when another rank ends the job
  if (!writes) {
    errFd = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close(null);
  }
  const int status = runProgram(given, writes ? std::cout : silent, writes ? std::cerr : said);
  if (status == 0) {
    spmd::finishRanks();
    return 0;
  }
  // An error ends every rank, said once. Rank 0 says it. Another rank waits first: an error every
  // rank meets ends the job from rank 0 meanwhile, so only an error of its own is said by it.
  std::cout.flush();
  std::cerr.flush();
  if (!writes) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const std::string text = said.str();
    [[maybe_unused]] const ssize_t written = ::write(errFd, text.data(), text.size());  // none else to tell
  }
  spmd::abortRanks(status);
}

int checkCommand(const std::vector<std::string>& given) {
  std::vector<std::string> args;
  bool plan = false, commPlan = false, noImplicit = false, noBuckets = false;
  for (const auto& a : given) {
    if (a == "--plan") plan = true;
    else if (a == "--comm-plan") commPlan = true;
    else if (a == "--no-implicit-comm") noImplicit = true;
    else if (a == "--no-comm-buckets") noBuckets = true;
    else args.push_back(a);
  }
  Interpreter interp(std::cout, std::cerr);
  int file = applyLimitOptions(args, 1, interp);
  if (file < 0) return 2;
  if (size_t(file) >= args.size()) {
    std::cerr << "usage: weft check [--plan] [--comm-plan] [--no-implicit-comm] [--no-comm-buckets] FILE.model\n";
    return 2;
  }
  const ast::Program* program = nullptr;
  int status = interp.checkFile(args[file], &program);
  if (status != 0) return status;
  const bool graphs = mesh::hasGraphFunctions(*program);
  if (!plan && !commPlan && !graphs && !mesh::usesLayouts(*program)) return status;
  // Layouts are checked by running the program on shapes alone (docs/layouts.md), and graph
  // functions traced from their annotations after that run; only --plan shows what it prints.
  std::ostream discard(nullptr);
  Interpreter runner(plan ? std::cout : discard, std::cerr);
  // A check must end: the shape-only run has step and time limits unless the options say otherwise.
  runner.limits().maxSteps = 10'000'000;
  runner.limits().timeoutSeconds = 60;
  context().noCommBuckets = noBuckets;  // the runner's context, made with it
  context().noImplicitComm = noImplicit;
  applyLimitOptions(args, 1, runner);
  status = mesh::runPlan(runner, args[file], std::cout);
  // --comm-plan: what each graph function and export on a mesh would communicate (SPEC §7.1);
  // --no-implicit-comm alone makes the same plans and says only their implicit collectives.
  if (status == 0 && (commPlan || noImplicit) && runner.printCommPlans(commPlan ? std::cout : discard) > 0) status = 1;
  else if (status == 0 && graphs && runner.checkGraphFunctions() > 0) status = 1;
  return status;
}

bool knownPass(const std::string& command, const std::string& pass, const char* usage) {
  std::vector<std::string> names;
  for (const graph::Pass& p : graph::passes()) names.push_back(p.name);
  for (const std::string& n : names)
    if (n == pass) return true;
  std::cerr << "weft " << command << ": unknown pass '" << shownText(pass) << "'";
  if (auto near = closestName(pass, names)) std::cerr << "; did you mean '" << *near << "'?";
  std::cerr << "\n" << usage;
  return false;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "repl") return replCommand(args);
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage << kLimitOptionsHelp;
    return 0;
  }
  if (args[0] == "run") return runCommand(args);
  if (args[0] == "check") return checkCommand(args);
  if (args[0] == "graph") return graphCommand(args);
  if (args[0] == "compile") return compileCommand(args);
  if (args[0] == "show") return showCommand(args);
  if (args[0] == "import") return importCommand(args);
  if (args[0] == "export-onnx") return exportOnnxCommand(args);
  if (args[0] == "info") {
    std::cout << gemm::describe();
    return 0;
  }
  std::cerr << "weft: unknown command '" << shownText(args[0]) << "'";
  if (auto near = closestName(args[0], {"run", "check", "graph", "compile", "show", "import", "export-onnx", "info", "repl", "help"}))
    std::cerr << "; did you mean 'weft " << *near << "'?";
  std::cerr << "\n" << kUsage;
  return 2;
}

}  // namespace weft::cli
