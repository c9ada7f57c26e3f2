// Saved models (interpreter/saved/): a save/load round trip, atomic replacement, and a hostile
// folder for each way a loader can be attacked — every one a WeftError naming the file, never a
// crash, never a read outside the folder.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "scratch_dir.h"
#include "doctest/doctest.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/saved/manifest.h"
#include "interpreter/saved/npy.h"
#include "interpreter/saved/saved_model.h"

using namespace weft;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) { return testutil::scratchPath(name); }

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

struct Run {
  int status;
  std::string out, err;
};

Run run(const std::string& source) {
  std::ostringstream out, err;
  Interpreter in(out, err);
  int status = in.runSource(std::make_shared<SourceFile>("t.model", source));
  return {status, out.str(), err.str()};
}

const char* kDemo = R"(
module DemoModule(init_value: f32[] = 0.0) {
  x = Variable(init_value, trainable=true)
  @function
  fn addprint(a: f32[]) -> f32[] {
    x += a
    print(x)
    return x
  }
}
demo = DemoModule(init_value=1.0)
)";

// A fresh copy of a saved DemoModule at scratch(name).
fs::path savedDemo(const std::string& name) {
  static const fs::path good = [] {
    fs::path p = scratch("good_demo");
    Run r = run(std::string(kDemo) + "save(demo, \"" + p.string() + "\")\n");
    REQUIRE(r.status == 0);
    return p;
  }();
  fs::path p = scratch(name);
  fs::remove_all(p);
  fs::copy(good, p, fs::copy_options::recursive);
  return p;
}

// Replaces `from` by `to` in the model's manifest (which must hold it).
void editManifest(const fs::path& dir, const std::string& from, const std::string& to) {
  std::string text = slurp(dir / "saved_model.yaml");
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  spit(dir / "saved_model.yaml", text.replace(at, from.size(), to));
}

std::string loadError(const fs::path& dir) {
  try {
    saved::readSavedModelAtCall(dir.string());
  } catch (const WeftError& e) {
    CHECK_FALSE(e.at.valid());  // reported at the user's call, not inside a file
    return e.message;
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("saved model: round trip of DemoModule, variable updates persisting") {
  fs::path p = scratch("roundtrip");
  Run r = run(std::string(kDemo) + "demo.addprint(5.0)\nsave(demo, \"" + p.string() +
              "\", signatures={\"serving_default\": demo.addprint})\n"
              "m2 = load(\"" + p.string() + "\")\nm2.addprint(5.0)\nm2.signatures[\"serving_default\"](1.0)\n"
              "print(m2.variables)\nprint(m2.x.value, demo.x.value)\n");
  CHECK(r.err == "");
  CHECK(r.out == "6.0\n11.0\n12.0\n[<Variable 'demo_module/x' path=x shape=[] dtype=f32 numpy=12.0>]\n12.0 6.0\n");
  CHECK(fs::is_regular_file(p / "saved_model.yaml"));
  CHECK(fs::is_regular_file(p / "variables" / "x.npy"));
  CHECK(fs::is_regular_file(p / "graphs" / "addprint.txt"));
  saved::SavedModel m = saved::readSavedModel(p.string());
  REQUIRE(m.signature("serving_default"));
  CHECK(m.signature("serving_default")->name == "addprint");
  CHECK(m.variables[0].asDouble() == 6.0);
}

TEST_CASE("saved model: variables and methods whose names differ only in case get files that differ otherwise") {
  // On a file system that ignores case, w.npy and W.npy would be one file: one value for both.
  fs::path p = scratch("case");
  Run r = run("module M() {\n  w = Variable(1.0)\n  W = Variable(2.0)\n  @function\n  fn f(a: f32[]) -> f32[] { return a * w + W }\n"
              "  @function\n  fn F(a: f32[]) -> f32[] { return a + W }\n}\nm = M()\nsave(m, \"" + p.string() + "\")\n"
              "l = load(\"" + p.string() + "\")\nprint(l.f(1.0), l.F(1.0))\n");
  CHECK(r.err == "");
  CHECK(r.out == "3.0 3.0\n");
  saved::SavedModel m = saved::readSavedModel(p.string());
  std::set<std::string> files;
  for (const auto& v : m.manifest.variables) files.insert(v.file);
  for (const auto& f : m.manifest.functions) files.insert(f.file);
  CHECK(files == std::set<std::string>{"variables/w.npy", "variables/W_1.npy", "graphs/f.txt", "graphs/F_1.txt"});
}

TEST_CASE("saved model: a loaded function checks its arguments") {
  fs::path p = savedDemo("args");
  Run r = run("m = load(\"" + p.string() + "\")\nm.addprint(5)\n");
  CHECK(r.status == 1);
  CHECK(contains(r.err, "t.model:2:1: error: addprint() argument 'a' expects f32[], got i32[]"));
}

TEST_CASE("saved model: saving replaces a saved model whole, and nothing else") {
  fs::path p = scratch("replace");
  fs::remove_all(p);
  REQUIRE(run(std::string(kDemo) + "save(demo, \"" + p.string() + "\")\n").status == 0);
  spit(p / "variables" / "stale.npy", "left over");
  Run again = run(std::string(kDemo) + "demo.addprint(1.0)\nsave(demo, \"" + p.string() + "\")\n");
  REQUIRE(again.status == 0);
  CHECK_FALSE(fs::exists(p / "variables" / "stale.npy"));
  CHECK(saved::readSavedModel(p.string()).variables[0].asDouble() == 2.0);
  // No temporary folder is left beside it.
  for (const auto& e : fs::directory_iterator(p.parent_path()))
    CHECK_FALSE(contains(e.path().filename().string(), ".replace."));

  fs::path other = scratch("not_a_model");
  fs::create_directories(other);
  spit(other / "notes.txt", "mine");
  Run refused = run(std::string(kDemo) + "save(demo, \"" + other.string() + "\")\n");
  CHECK(refused.status == 1);
  CHECK(contains(refused.err, "holds no saved model"));
  CHECK(slurp(other / "notes.txt") == "mine");

  // A save that fails (a signature that cannot be traced) leaves the old model as it was.
  Run failed = run(std::string(kDemo) + "fn f(a) { return a }\nsave(demo, \"" + p.string() +
                   "\", signatures={\"s\": f})\n");
  CHECK(failed.status == 1);
  CHECK(contains(failed.err, "parameter 'a' of f() has no tensor annotation"));
  CHECK(saved::readSavedModel(p.string()).variables[0].asDouble() == 2.0);
}

TEST_CASE("saved model: a ModelCheckpoint whose write fails half-way leaves the last checkpoint whole") {
  fs::path p = scratch("checkpoint");
  fs::remove_all(p);
  // The second Dense's kernel is 360 KB: the second run may write files of 100 KB at most, so its
  // save fails inside that kernel's .npy, after the first Dense's files were written.
  auto program = [&](int seed) {
    return "seed(" + std::to_string(seed) + ")\nm = Sequential([Dense(300, input_shape=[1]), Dense(300)])\n"
           "m.compile(optimizer=\"sgd\", loss=\"mse\")\n"
           "m.fit(ones([4, 1]), zeros([4, 300]), epochs=1, verbose=0, callbacks=[ModelCheckpoint(\"" +
           p.string() + "\", monitor=\"loss\")])\n";
  };
  REQUIRE(run(program(1)).status == 0);
  std::string kernel = slurp(p / "variables" / "dense_1.kernel.npy");
  REQUIRE(kernel.size() > 300000);

  rlimit before{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &before) == 0);
  rlimit small = before;
  small.rlim_cur = 100 * 1024;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  Run failed = run(program(2));
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, oldHandler);

  CHECK(failed.status == 1);
  CHECK(contains(failed.err, "cannot save '" + (p / "variables" / "dense_1.kernel.npy").string() +
                                 "': write failed (File too large); nothing at '" + p.string() + "' was changed"));
  CHECK(slurp(p / "variables" / "dense_1.kernel.npy") == kernel);
  CHECK(saved::readSavedModel(p.string()).variables.size() == 4);
  for (const auto& e : fs::directory_iterator(p.parent_path()))  // no temporary folder left
    CHECK_FALSE(contains(e.path().filename().string(), ".checkpoint."));
}

TEST_CASE("saved model: hostile manifests") {
  fs::path p = savedDemo("hostile");
  const std::string manifest = (p / "saved_model.yaml").string();
  const std::string good = slurp(manifest);
  auto with = [&](const std::string& text) {
    spit(manifest, text);
    return loadError(p);
  };
  auto edited = [&](const std::string& from, const std::string& to) {
    spit(manifest, good);
    editManifest(p, from, to);
    return loadError(p);
  };
  CHECK(contains(with("- a\n- b\n"), "the manifest must be a YAML mapping"));
  CHECK(contains(with("just text"), "the manifest must be a YAML mapping"));
  CHECK(contains(with("{a: [1, 2"), "not valid YAML"));
  CHECK(contains(with(""), "must be a YAML mapping"));
  CHECK(contains(with(std::string(100000, '[')), manifest));  // depth: an error, not a stack overflow
  CHECK(contains(with("a: &a [*a]\n"), manifest));
  CHECK(contains(edited("version: 1", "version: 7"), "unknown format version 7 (this weft reads version 1)"));
  CHECK(contains(edited("version: 1", "version: many"), "'version' must be an integer"));
  CHECK(contains(edited("format: weft-saved-model", "format: other"), "'format' is 'other'"));
  CHECK(contains(edited("file: variables/x.npy", "file: ../../etc/passwd"), "leaves the saved model's folder"));
  CHECK(contains(edited("file: variables/x.npy", "file: /etc/passwd"), "is an absolute path"));
  CHECK(contains(edited("file: variables/x.npy", "file: variables//x.npy"), "empty component"));
  CHECK(contains(edited("file: variables/x.npy", "file: variables/missing.npy"), "variables/missing.npy': no such file"));
  CHECK(contains(edited("graph: graphs/addprint.txt", "graph: ../saved_model.yaml"), "leaves the saved model's folder"));
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f64\n    shape: []"),
                 "addprint.txt:1:1': variable 0 is f32[] in the graph, but 'x' is f64[]"));
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f99\n    shape: []"), "not one of f32"));
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f32\n    shape: [3]"),
                 "addprint.txt:1:1': variable 0 is f32[] in the graph, but 'x' is f32[3]"));
  // With no graph using it, the .npy file itself disagrees.
  spit(manifest, good);
  editManifest(p, "variables: [0]", "variables: []");
  fs::path graph = p / "graphs" / "addprint.txt";
  std::string goodGraph = slurp(graph);
  spit(graph, "graph addprint(%0: f32[]) {\n  return %0\n}\n");
  editManifest(p, "dtype: f32\n    shape: []", "dtype: f32\n    shape: [3]");
  CHECK(contains(loadError(p), "x.npy': it holds f32[], but the manifest declares variable 'x' f32[3]"));
  spit(graph, goodGraph);
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f32\n    shape: [1099511627776, 1099511627776]"),
                 "is too large"));
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f32\n    shape: [1, 1, 1, 1, 1, 1, 1, 1, 1]"),
                 "more than 8"));
  CHECK(contains(edited("dtype: f32\n    shape: []", "dtype: f32\n    shape: [-4]"), "outside 0.."));
  CHECK(contains(edited("serving_default: addprint", "serving_default: nothing"), "not among 'functions'"));
  CHECK(contains(edited("variables: [0]", "variables: [5]"), "outside 0..0"));
  CHECK(contains(edited("ref: {variable: 0}", "ref: {variable: 3}"), "outside 0..0"));
  CHECK(contains(edited("ref: {variable: 0}", "ref: {module: 0}"), "outside 1.."));
  CHECK(contains(edited("owner: 0", "owner: 9"), "outside -1..0"));
  CHECK(contains(edited("parent: -1", "parent: 0"), "outside -1..-1"));
  CHECK(contains(edited("inputs:\n      - {name: a, dtype: f32, shape: []}", "inputs: []"),
                 "the graph takes 1 inputs, the manifest declares 0"));
  CHECK(contains(edited("outputs:\n      - {name: output_0, dtype: f32, shape: []}",
                        "outputs:\n      - {name: output_0, dtype: f32, shape: [2]}"),
                 "output 0 ('output_0') is f32[] in the graph, f32[2] in the manifest"));
  CHECK(contains(edited("layout: ~", "layout: {mesh: 0, dims: []}"), "no mesh"));
  std::string dims;  // 17 dimensions of size 1: a mesh of one device, but more dimensions than any mesh has
  for (int i = 0; i < 17; ++i) dims += "      - {name: d" + std::to_string(i) + ", size: 1}\n";
  CHECK(contains(edited("meshes: []", "meshes:\n  - name: m\n    dims:\n" + dims),
                 "mesh 'm' has 17 dimensions, more than 16"));
  CHECK(contains(edited("meshes: []", "meshes:\n  - name: m\n    dims:\n" + dims.substr(dims.find('\n') + 1)),
                 "(no error)"));
  spit(manifest, good);
  CHECK(loadError(p) == "(no error)");
  fs::remove(manifest);
  CHECK(contains(loadError(p), "saved_model.yaml': no such file"));
  CHECK(contains(loadError(scratch("no_such_folder")), "no such folder"));
  CHECK(contains(loadError(p / "graphs" / "addprint.txt"), "not a folder"));
}

TEST_CASE("saved model: hostile files beside the manifest") {
  fs::path p = savedDemo("files");
  const fs::path npy = p / "variables" / "x.npy";
  const fs::path graph = p / "graphs" / "addprint.txt";
  const std::string goodNpy = slurp(npy), goodGraph = slurp(graph);

  spit(npy, goodNpy.substr(0, goodNpy.size() - 2));  // truncated
  CHECK(contains(loadError(p), npy.string()));
  spit(npy, "garbage");
  CHECK(contains(loadError(p), npy.string()));
  saved::writeNpy(npy.string(), Tensor::scalar<double>(1.0));
  CHECK(contains(loadError(p), "x.npy': it holds f64[], but the manifest declares variable 'x' f32[]"));
  spit(npy, goodNpy);

  // Symlinks out of the folder, to a file or through a folder, are refused.
  fs::path outside = scratch("outside.npy");
  spit(outside, goodNpy);
  fs::remove(npy);
  fs::create_symlink(outside, npy);
  CHECK(contains(loadError(p), "symlink to a file outside the saved model's folder"));
  fs::remove(npy);
  fs::create_symlink("x2.npy", npy);  // a symlink inside is fine
  spit(p / "variables" / "x2.npy", goodNpy);
  CHECK(loadError(p) == "(no error)");
  fs::remove(npy);
  fs::remove_all(p / "variables");
  fs::create_directories(scratch("elsewhere"));
  spit(scratch("elsewhere") / "x.npy", goodNpy);
  fs::create_directory_symlink(scratch("elsewhere"), p / "variables");
  CHECK(contains(loadError(p), "outside the saved model's folder"));
  fs::remove(p / "variables");
  fs::create_directories(p / "variables");
  fs::create_directories(npy);  // a folder where a file should be
  CHECK(contains(loadError(p), "not a regular file"));
  fs::remove(npy);
  spit(npy, goodNpy);

  spit(graph, "graph addprint(%0: f32[]) {\n  %1 = frobnicate(%0) : f32[]\n  return %1\n}\n");
  CHECK(contains(loadError(p), graph.string() + ":2:8': unknown op 'frobnicate'"));
  spit(graph, "not a graph");
  CHECK(contains(loadError(p), graph.string()));
  spit(graph, "graph addprint(%0: f32[]) {\n  %1 = add(%0, %0) : f32[3]\n  return %1\n}\n");
  CHECK(contains(loadError(p), graph.string() + ":2:3': add: output %1 is declared f32[3], but add gives f32[]"));
  spit(graph, "graph addprint(%0: f32[2]) {\n  var 0 \"x\": f32[]\n  return %0\n}\n");
  CHECK(contains(loadError(p), "input 0 ('a') is f32[2] in the graph, f32[] in the manifest"));
  spit(graph, goodGraph);
  CHECK(loadError(p) == "(no error)");
}

// `weft show`, `weft graph` and `weft compile` of a folder report what the reader finds at its
// place in the manifest or graph text: FILE:LINE:COL, the line and a caret (SPEC §10).
TEST_CASE("saved model: an error in a file of the folder is located there") {
  fs::path p = savedDemo("located");
  const std::string manifest = (p / "saved_model.yaml").string();
  const std::string good = slurp(manifest);
  auto shown = [&](const std::string& from, const std::string& to) {
    spit(manifest, good);
    editManifest(p, from, to);
    try {
      saved::readSavedModel(p.string());
    } catch (const WeftError& e) {
      CHECK(e.at.valid());
      return e.format();
    }
    return std::string("(no error)");
  };
  // Line 2, the version's value; yaml-cpp's columns count bytes, a caret's count characters.
  CHECK(shown("version: 1", "version: 2") ==
        manifest + ":2:10: error: unknown format version 2 (this weft reads version 1)\n  version: 2\n           ^\n");
  // In UTF-8, the column counts the two-byte characters once each.
  CHECK(shown("{name: a, dtype: f32, shape: []}", "{name: \"\u00e9\u00e9\", dtype: f99, shape: []}") ==
        manifest + ":34:29: error: 'dtype' of inputs of function 'addprint' '\u00e9\u00e9' is 'f99', not one of f32, f64, "
                   "i32, i64, bool\n        - {name: \"\u00e9\u00e9\", dtype: f99, shape: []}\n" + std::string(30, ' ') + "^\n");
  CHECK(contains(shown("file: variables/x.npy", "file: ../x.npy"),
                 manifest + ":25:11: error: file name '../x.npy' leaves the saved model's folder"));
  CHECK(contains(shown("file: variables/x.npy", "file: [x, y"),
                 manifest + ":26:7: error: not valid YAML: end of sequence flow not found\n  meshes: []\n        ^\n"));
  CHECK(contains(shown("    key: x\n", "    key: x\n    key: y\n"),
                 manifest + ":16:5: error: variable 'demo_module/x' has 'key' more than once"));
  // More entries than the reader takes: refused where the limit is passed, before a tree is built.
  std::string many = "[";
  for (int i = 0; i < 1000001; ++i) many += "0,";
  const std::string tooMany = shown("meshes: []", "meshes: []\nmany: " + many + "]");
  CHECK(contains(tooMany, manifest + ":27:"));
  CHECK(contains(tooMany, ": error: the manifest has more than 1000000 entries"));
  // In a graph file: the line and column of the node, as `weft graph` prints them.
  spit(manifest, good);
  const fs::path graph = p / "graphs" / "addprint.txt";
  const std::string goodGraph = slurp(graph);
  spit(graph, "graph addprint(%0: f32[]) {\n  %1 = frobnicate(%0) : f32[]\n  return %1\n}\n");
  try {
    saved::readSavedModel(p.string());
    FAIL("a graph with an unknown op loaded");
  } catch (const WeftError& e) {
    CHECK(e.format() == graph.string() + ":2:8: error: unknown op 'frobnicate'\n    %1 = frobnicate(%0) : f32[]\n"
                                         "         ^\n");
  }
  spit(graph, "graph addprint(%0: f32[2]) {\n  var 0 \"x\": f32[]\n  return %0\n}\n");
  try {
    saved::readSavedModel(p.string());
    FAIL("a graph that disagrees with its manifest loaded");
  } catch (const WeftError& e) {  // at the graph's header, which declares its inputs
    CHECK(contains(e.format(), graph.string() + ":1:1: error: input 0 ('a') is f32[2] in the graph"));
  }
  spit(graph, goodGraph);
}

TEST_CASE("saved model: a load error is reported at the call, naming the file") {
  fs::path p = savedDemo("at_call");
  editManifest(p, "version: 1", "version: 2");
  Run r = run("m = load(\"" + p.string() + "\")\n");
  CHECK(r.status == 1);
  CHECK(contains(r.err, "t.model:1:5: error: cannot load '" + (p / "saved_model.yaml").string()));
  CHECK(contains(r.err, "unknown format version 2"));
}

TEST_CASE("saved model: a Keras model and a sharded variable come back") {
  fs::path p = scratch("keras");
  Run r = run(R"(
mesh grid(model=2)
layout_map shard on grid {
  "d1.kernel": [_, model]
}
seed(1)
with shard {
  model = Sequential([Dense(4, input_shape=[3], name="d1"), Dense(2, name="d2")])
}
model.layers[1].trainable = false
x = ones([2, 3])
y = model(x)
save(model, ")" + p.string() + R"(")
m = load(")" + p.string() + R"(")
fn close(a, b) { return bool(max(abs(a - b)) <= 1e-6) }  # y's second product summed across devices
print(close(m(x), y), close(m.signatures["serving_default"](x), y))
print([v.path for v in m.trainable_variables], [v.path for v in m.non_trainable_variables])
print(m.layers[0].kernel.layout, m.layers[0].kernel.shard(1).shape)
print([s.name for s in m.submodules])
)");
  CHECK(r.err == "");
  CHECK(r.out == "true true\n['d1.kernel', 'd1.bias'] ['d2.kernel', 'd2.bias']\n"
                 "Layout([_, 'model'], grid) [3, 2]\n['d1', 'd2']\n");
}

TEST_CASE("saved model: a functional Model, dict and tuple results, a while loop") {
  fs::path fn = scratch("functional"), two = scratch("two");
  Run r = run(R"(
inp = Input(shape=[3])
model = Model(inp, Dense(2)(Dense(4, activation="relu")(inp)))
x = ones([2, 3])
save(model, ")" + fn.string() + R"(")
m = load(")" + fn.string() + R"(")
print(all(m(x) == model(x)), list(m.signatures.keys()))
module Two() {
  a = Variable([1.0, 2.0])
  @function
  fn both(x: f32[2], y: f32[2]) { return {"sum": x + y + a, "pair": (x, y)} }
  @function
  fn loop(n: i32[]) -> i32[] {
    s = 0
    while n > 0 {
      s += n
      n -= 1
    }
    return s
  }
}
save(Two(), ")" + two.string() + R"(")
t = load(")" + two.string() + R"(")
print(t.both(ones([2]), y=ones([2])), t.loop(10), t.loop(100), t.signatures)
)");
  CHECK(r.err == "");
  CHECK(r.out == "true ['serving_default']\n{'sum': [3.0, 4.0], 'pair': ([1.0, 1.0], [1.0, 1.0])} 55 5050 {}\n");
  saved::SavedModel m = saved::readSavedModel(two.string());
  REQUIRE(m.manifest.functions.size() == 2);
  CHECK(m.manifest.functions[0].outputs.size() == 3);  // nested: output_0, output_1, output_2
  CHECK(m.manifest.functions[0].outputs[2].name == "output_2");
}
