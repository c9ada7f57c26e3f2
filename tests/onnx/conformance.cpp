// ONNX's backend conformance tests (Debian's libonnx-testdata): every test's model.onnx loaded with
// load_onnx, run eagerly and as a graph function on each of its test_data_set_N inputs, and its
// outputs compared with the expected ones as ONNX's own runner compares them (rtol 1e-3, atol 1e-7,
// NaN equal to NaN). Each test that fails must be listed, with its reason, in the expected-failures
// file, and each listed test must fail: a fixed op shows up as a stale line, a broken one as a new
// failure. Usage:
//   weft_onnx_conformance DATA_DIR EXPECTED_FILE [--write-expected] [--filter TEXT] [--verbose]
//                         [--write-sample FILE.model N] [--report] [--every K]
// DATA_DIR holds the suites (node, simple, pytorch-converted, pytorch-operator). --write-sample
// writes a Weft program that runs N of the tests that pass, at least one per op they use, with
// call() a graph function (tests/run_onnx_compiled.cmake compiles its graphs); --report prints,
// as Markdown for docs/onnx.md, how many of the tests that use each op pass in both modes;
// --every K runs only every K-th test (the sanitized build's run, where each test is ten times
// slower), and checks the expected failures of those alone.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/onnx/load.h"
#include "interpreter/onnx/reader.h"

namespace fs = std::filesystem;
using namespace weft;

namespace {

const char* const kSuites[] = {"node", "simple", "pytorch-converted", "pytorch-operator"};
const char* const kModes[] = {"eager", "graph"};

std::string firstLine(std::string s) {
  if (auto n = s.find('\n'); n != std::string::npos) s.resize(n);
  return s;
}

double element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::F32: return t.data<float>()[i];
    case DType::F64: return t.data<double>()[i];
    case DType::I32: return t.data<int32_t>()[i];
    case DType::I64: return double(t.data<int64_t>()[i]);
    case DType::Bool: return t.data<bool>()[i];
  }
  return 0;
}

// "" when got matches want, else what differs.
std::string compare(const Tensor& got, const Tensor& want, size_t k) {
  const std::string which = "output " + std::to_string(k);
  if (got.dtype() != want.dtype())
    return which + " has dtype " + std::string(rt::dtypeName(got.dtype())) + ", expected " + rt::dtypeName(want.dtype());
  if (got.shape() != want.shape()) return which + " has shape " + got.shape().str() + ", expected " + want.shape().str();
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = element(got, i), w = element(want, i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (g == w) continue;
    if (!(std::abs(g - w) <= 1e-7 + 1e-3 * std::abs(w))) {
      std::ostringstream s;
      s << which << " differs at element " << i << ": " << g << ", expected " << w;
      return s.str();
    }
  }
  return "";
}

std::vector<fs::path> dataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

// "" when the test passes in this mode, else why not.
std::string runTest(const fs::path& dir, bool graph) {
  std::ostringstream out, err;
  Interpreter in(out, err);
  try {
    Value m = onnx::loadOnnx(in, (dir / "model.onnx").string(), graph);
    std::vector<fs::path> sets = dataSets(dir);
    if (sets.empty()) return "no test data";
    for (const fs::path& set : sets) {
      Args args;
      for (int i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i)
        args.pos.push_back(Value(onnx::toTensor(onnx::readTensorFile((set / ("input_" + std::to_string(i) + ".pb")).string()))));
      Value result = in.call(m, args);
      std::vector<Value> outs;
      if (result.kind() == Kind::Tuple) outs = static_cast<TupleObj&>(*result.object()).items;
      else outs = {result};
      size_t k = 0;
      for (; fs::exists(set / ("output_" + std::to_string(k) + ".pb")); ++k) {
        if (k >= outs.size()) return "fewer outputs than expected";
        if (outs[k].kind() != Kind::Tensor) return "output " + std::to_string(k) + " is not a tensor";
        Tensor want = onnx::toTensor(onnx::readTensorFile((set / ("output_" + std::to_string(k) + ".pb")).string()));
        if (std::string d = compare(outs[k].tensor(), want, k); !d.empty()) return d;
      }
      if (k != outs.size()) return "more outputs than expected";
    }
  } catch (const WeftError& e) {
    return firstLine(e.message);
  } catch (const std::exception& e) {
    return std::string("exception: ") + firstLine(e.what());
  }
  return "";
}

std::string literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// The program of --write-sample: each test's first data set through its model, compared as
// compare() does.
void writeSample(const std::string& path, const std::vector<fs::path>& tests) {
  std::ofstream out(path);
  out << "# ONNX conformance tests with call() a graph function, written by weft_onnx_conformance\n"
         "# --write-sample: each output is compared with ONNX's expected one (rtol 1e-3, atol 1e-7).\n"
         "fn close(got, want) {\n"
         "  if got.dtype != want.dtype or got.shape != want.shape { return false }\n"
         "  if got.dtype == bool or got.dtype == i32 or got.dtype == i64 { return all(got == want) }\n"
         "  g = cast(got, f64)\n"
         "  w = cast(want, f64)\n"
         "  return all(((g != g) & (w != w)) | (g == w) | (abs(g - w) <= 1e-7 + 1e-3 * abs(w)))\n"
         "}\n"
         "fn check(name, got, wants) {\n"
         "  outs = [got] if len(wants) == 1 else list(got)\n"
         "  ok = len(outs) == len(wants) and all([close(outs[k], wants[k]) for k in range(len(wants))])\n"
         "  if not ok { print(name, \"differs from ONNX's expected output\") }\n"
         "  return ok\n"
         "}\n"
         "passed = 0\n";
  for (const fs::path& t : tests) {
    const fs::path set = dataSets(t)[0];
    std::string ins, outs;
    for (int i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i)
      ins += std::string(i ? ", " : "") + "load_onnx_tensor(" + literal((set / ("input_" + std::to_string(i) + ".pb")).string()) + ")";
    for (int k = 0; fs::exists(set / ("output_" + std::to_string(k) + ".pb")); ++k)
      outs += std::string(k ? ", " : "") + "load_onnx_tensor(" + literal((set / ("output_" + std::to_string(k) + ".pb")).string()) + ")";
    const std::string name = t.parent_path().filename().string() + "/" + t.filename().string();
    out << "m = load_onnx(" << literal((t / "model.onnx").string()) << ", function=true)\n"
        << "if check(" << literal(name) << ", m(" << ins << "), [" << outs << "]) { passed += 1 }\n";
  }
  out << "print(passed, \"of " << tests.size() << " ONNX tests pass as graph functions\")\n";
}

// Up to n of the passing tests: first one for each op not yet covered, then others in order.
std::vector<fs::path> sample(const std::vector<fs::path>& passing, size_t n) {
  std::set<std::string> ops;
  std::vector<fs::path> picked, rest;
  for (const fs::path& t : passing) {
    bool fresh = false, computes = false;
    for (const auto& node : onnx::readModel((t / "model.onnx").string()).graph.nodes) {
      fresh |= ops.insert(node.opType).second;
      computes |= node.opType != "Identity" && node.opType != "Dropout";
    }
    if (!computes) continue;  // compiled code must compute something: nothing to compile
    (fresh && picked.size() < n ? picked : rest).push_back(t);
  }
  for (size_t i = 0; picked.size() < n && i < rest.size(); ++i) picked.push_back(rest[i]);
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: weft_onnx_conformance DATA_DIR EXPECTED_FILE [--write-expected] [--filter TEXT] [--verbose]\n"
                 "                             [--write-sample FILE.model N] [--report] [--every K]\n";
    return 2;
  }
  const fs::path data = argv[1];
  const std::string expectedPath = argv[2];
  bool write = false, verbose = false, report = false;
  std::string filter, samplePath;
  size_t sampleSize = 0, every = 1;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--write-expected") write = true;
    else if (a == "--verbose") verbose = true;
    else if (a == "--report") report = true;
    else if (a == "--every" && i + 1 < argc) every = size_t(std::max(1, std::atoi(argv[++i])));
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--write-sample" && i + 2 < argc) {
      samplePath = argv[++i];
      sampleSize = size_t(std::atoi(argv[++i]));
    }
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (!fs::is_directory(data / "node")) {
    std::cerr << data << " holds no ONNX test data (install Debian's libonnx-testdata)\n";
    return 2;
  }
  // "suite/test mode" -> reason
  std::map<std::string, std::string> expected;
  {
    std::ifstream in(expectedPath);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line);
      std::string test, mode, reason;
      s >> test >> mode;
      std::getline(s, reason);
      expected[test + " " + mode] = reason;
    }
  }
  installBuiltins();
  std::map<std::string, std::string> failures;
  std::map<std::string, std::pair<int, int>> counts;  // "suite mode" -> (passed, run)
  std::vector<fs::path> passing;  // in both modes
  std::set<std::string> ran;       // the tests run (all, or every K-th)
  size_t seen = 0;
  std::map<std::string, std::pair<int, int>> perOp;  // op -> (tests using it that pass, tests using it)
  for (const char* suite : kSuites) {
    if (!fs::is_directory(data / suite)) continue;
    std::vector<fs::path> tests;
    for (const auto& e : fs::directory_iterator(data / suite))
      if (fs::exists(e.path() / "model.onnx")) tests.push_back(e.path());
    std::sort(tests.begin(), tests.end());
    for (const fs::path& t : tests) {
      const std::string name = std::string(suite) + "/" + t.filename().string();
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      if (seen++ % every != 0) continue;
      ran.insert(name);
      bool passes = true;
      for (const char* mode : kModes) {
        std::string why = runTest(t, std::string(mode) == "graph");
        passes = passes && why.empty();
        auto& c = counts[std::string(suite) + " " + mode];
        ++c.second;
        if (why.empty()) ++c.first;
        else failures[name + " " + mode] = why;
        if (verbose) std::cout << name << " " << mode << ": " << (why.empty() ? "ok" : why) << "\n";
      }
      if (passes) passing.push_back(t);
      if (report) {
        std::set<std::string> ops;
        try {
          for (const auto& node : onnx::readModel((t / "model.onnx").string()).graph.nodes) ops.insert(node.opType);
        } catch (const WeftError&) {
        }
        for (const std::string& op : ops) {
          perOp[op].first += passes;
          ++perOp[op].second;
        }
      }
    }
  }
  for (const auto& [key, c] : counts) std::cout << key << ": " << c.first << " of " << c.second << " pass\n";
  if (report) {
    std::cout << "| op | pass | of |\n|---|---|---|\n";
    for (const auto& [op, c] : perOp) std::cout << "| " << op << " | " << c.first << " | " << c.second << " |\n";
  }
  if (!samplePath.empty()) {
    writeSample(samplePath, sample(passing, sampleSize));
    std::cout << "wrote " << samplePath << "\n";
  }
  if (write) {
    std::ofstream out(expectedPath);
    out << "# ONNX conformance tests that Weft fails, with the first line of the reason\n"
           "# (tests/onnx/conformance.cpp; regenerate with --write-expected).\n";
    for (const auto& [key, why] : failures) out << key << " " << why << "\n";
    std::cout << failures.size() << " failures written to " << expectedPath << "\n";
    return 0;
  }
  int bad = 0;
  for (const auto& [key, why] : failures) {
    auto it = expected.find(key);
    if (it == expected.end()) {
      std::cout << "NEW FAILURE " << key << ": " << why << "\n";
      ++bad;
    }
  }
  for (const auto& [key, why] : expected) {
    if (!ran.count(key.substr(0, key.find(' ')))) continue;
    if (!failures.count(key)) {
      std::cout << "NOW PASSES (remove from " << expectedPath << ") " << key << "\n";
      ++bad;
    }
  }
  return bad ? 1 : 0;
}
