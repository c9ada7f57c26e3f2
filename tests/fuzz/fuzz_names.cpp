// Names on their way into generated C++ and CMake (codegen/names.h): the input is up to six
// names separated by \x1e — the saved model's folder, a variable's name, path and key, the
// signature's name, its input's name — and the source file of its graph's nodes. The demo saved
// model carrying them is compiled (as `weft compile DIR` does) beside a twin with plain names. A
// name may be refused; when it is not, the generated files hold no control byte but newlines,
// and their tokens (comments and literals aside) are the twin's but for identifiers that no
// header, keyword or generated name takes: no name can add, remove or end a piece of code.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "codegen/collect.h"
#include "codegen/emit/files.h"
#include "codegen/names.h"
#include "codegen/pipeline.h"
#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/saved/npy.h"

namespace fs = std::filesystem;

namespace {

const fs::path& scratch() {
  static const fs::path dir = "/tmp/weft_fuzz_names_" + std::to_string(getpid());
  return dir;
}

// A YAML double-quoted scalar of any bytes.
std::string yaml(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    char buf[8];
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

// A graph-text string of any bytes.
std::string graphString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    char buf[8];
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

struct Names {
  std::string folder, name, path, key, signature, input, file;
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The demo model (tests/fixtures/saved/demo) under these names, saved in scratch()/NAMES.folder.
fs::path saveDemo(const Names& n, const std::string& where) {
  fs::path dir = scratch() / where / n.folder;
  fs::create_directories(dir / "variables");
  fs::create_directories(dir / "graphs");
  weft::saved::writeNpy((dir / "variables" / "x.npy").string(), weft::Tensor::scalar<float>(6.0f));
  std::string loc = " @ " + graphString(n.file) + ":9\n";
  write(dir / "graphs" / "f.txt",
        "graph f(%0: f32[]) {\n  var 0 \"x\": f32[]\n  %1 = read_variable() {var = 0} : f32[]" + loc +
            "  %2 = add(%1, %0) : f32[]" + loc + "  assign_variable(%2) {var = 0}" + loc + "  return %2\n}\n");
  write(dir / "saved_model.yaml",
        "format: weft-saved-model\nversion: 1\nroot: {type: M, name: m}\nmodules:\n"
        "  - {type: M, name: m, path: \"\", parent: -1, key: \"\", trainable: true, attributes: [{name: x, ref: "
        "{variable: 0}}]}\nvariables:\n  - {name: " +
            yaml(n.name) + ", path: " + yaml(n.path) + ", owner: 0, key: " + yaml(n.key) +
            ", dtype: f32, shape: [], trainable: true, own_trainable: true, layout: ~, file: variables/x.npy}\n"
            "meshes: []\nsignatures:\n  " +
            yaml(n.signature) + ": f\nfunctions:\n  - name: f\n    method: f\n    graph: graphs/f.txt\n    inputs:\n"
            "      - {name: " +
            yaml(n.input) + ", dtype: f32, shape: []}\n    outputs:\n      - {name: out, dtype: f32, shape: []}\n"
            "    variables: [0]\n    returns: {output: 0}\n");
  return dir;
}

// Compiles the saved model at dir into out; false when it is refused.
bool compile(const fs::path& dir, const fs::path& out, weft::codegen::CompileUnit& unit) {
  try {
    unit = weft::codegen::collectSavedUnit(dir.string());
    weft::codegen::lowerUnit(unit, "", weft::fuzz::nullStream());
    weft::codegen::writeUnit(unit, out.string(), {true, true});
    return true;
  } catch (const weft::WeftError&) {
    return false;
  }
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool isIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// C++ tokens without comments; a literal as one token. A raw newline inside a literal, an
// unterminated comment or a backslash continuing a comment is a failure.
std::vector<std::string> cppTokens(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {
      size_t e = s.find('\n', i);
      if (e == std::string::npos) e = s.size();
      if (e > i && s[e - 1] == '\\') __builtin_trap();  // a continued comment would swallow the next line
      i = e;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t e = s.find("*/", i + 2);
      if (e == std::string::npos) __builtin_trap();
      i = e + 2;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) {
        if (s[j] == '\n') __builtin_trap();
        j += s[j] == '\\' ? 2 : 1;
      }
      if (j >= s.size()) __builtin_trap();
      out.push_back(std::string(1, c));  // literals compare by kind: their text is escaped
      i = j + 1;
    } else if (isIdent(c)) {
      size_t j = i;
      while (j < s.size() && isIdent(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      out.push_back(std::string(1, c));
      ++i;
    }
  }
  return out;
}

// CMake tokens without comments: words, parentheses, quoted arguments.
std::vector<std::string> cmakeTokens(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#') {
      if (s.compare(i, 2, "#[") == 0) __builtin_trap();  // a bracket comment: never generated
      size_t e = s.find('\n', i);
      i = e == std::string::npos ? s.size() : e;
    } else if (c == '(' || c == ')') {
      out.push_back(std::string(1, c));
      ++i;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      if (j >= s.size()) __builtin_trap();
      out.push_back(s.substr(i, j + 1 - i));
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])) && s[j] != '(' && s[j] != ')' &&
             s[j] != '#' && s[j] != '"')
        ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

// A token with each run of identifier characters as "I": a name changes nothing else of it.
std::string shape(const std::string& token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i)
    if (!isIdent(token[i])) out += token[i];
    else if (i == 0 || !isIdent(token[i - 1])) out += 'I';
  return out;
}

// Where the twin has a token, the hostile file has the same one, or one of the same shape whose
// identifiers (in C++) no header, keyword or generated name takes.
void compareTokens(const std::vector<std::string>& plain, const std::vector<std::string>& hostile, bool cmake) {
  if (plain.size() != hostile.size()) __builtin_trap();
  for (size_t i = 0; i < plain.size(); ++i) {
    if (plain[i] == hostile[i]) continue;
    if (shape(plain[i]) != shape(hostile[i])) __builtin_trap();
    if (!cmake && (std::isdigit(static_cast<unsigned char>(hostile[i][0])) || weft::codegen::reservedName(hostile[i])))
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::memoryLimits().maxTensorBytes = 64 << 20;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> fields{""};
  for (char c : weft::fuzz::text(data, size)) {
    if (c == '\x1e' && fields.size() < 7) fields.emplace_back();
    else fields.back() += c;
  }
  fields.resize(7);
  Names hostile{fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]};
  // The folder must be one path component of a folder to create; empty fields take plain names.
  if (hostile.folder.empty() || hostile.folder == "." || hostile.folder == ".." ||
      hostile.folder.find('/') != std::string::npos || hostile.folder.find('\0') != std::string::npos ||
      hostile.folder.size() > 200)
    hostile.folder = "model";
  Names plain{"model", "m/x", "x", "x", "serving", "a", "demo.model"};
  for (auto [h, p] : {std::pair{&hostile.name, &plain.name}, {&hostile.path, &plain.path}, {&hostile.key, &plain.key},
                      {&hostile.signature, &plain.signature}, {&hostile.input, &plain.input}, {&hostile.file, &plain.file}})
    if (h->empty()) *h = *p;
  std::error_code ec;
  fs::remove_all(scratch(), ec);
  weft::codegen::CompileUnit pu, hu;
  if (!compile(saveDemo(plain, "plain"), scratch() / "out_plain", pu)) __builtin_trap();
  if (!compile(saveDemo(hostile, "hostile"), scratch() / "out_hostile", hu)) return 0;  // refused: fine

  // The same files, by role.
  auto files = [](const weft::codegen::CompileUnit& u) {
    std::vector<std::string> f{u.program + "_state.h", u.program + "_state.cpp", "CMakeLists.txt"};
    for (const auto& e : u.exports)
      for (const char* suffix : {".h", ".cpp", "_main.cpp"}) f.push_back(e.name + suffix);
    return f;
  };
  std::vector<std::string> pf = files(pu), hf = files(hu);
  if (pf.size() != hf.size()) __builtin_trap();
  for (size_t i = 0; i < pf.size(); ++i) {
    std::string p = read(scratch() / "out_plain" / pf[i]), h = read(scratch() / "out_hostile" / hf[i]);
    for (char c : h)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7F) __builtin_trap();
    bool cmake = pf[i] == "CMakeLists.txt";
    compareTokens(cmake ? cmakeTokens(p) : cppTokens(p), cmake ? cmakeTokens(h) : cppTokens(h), cmake);
  }
  return 0;
}
