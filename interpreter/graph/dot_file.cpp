// Writing a graph to a file in the form its extension names, drawing it with Graphviz's `dot`
// for pictures.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../../grammar/diagnostics.h"
#include "dot.h"
#include "text.h"

extern char** environ;

namespace weft::graph {
namespace {

namespace fs = std::filesystem;

std::string extensionOf(const std::string& path) { return fs::path(path).extension().string(); }

// The full path of an executable on the PATH, or "".
std::string findProgram(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "";
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find(':', b);
    if (e == std::string::npos) e = path.size();
    std::string dir = path.substr(b, e - b);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate;
    }
    b = e + 1;
  }
  return "";
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw WeftError("weft graph: cannot write " + path);
}

}  // namespace

void checkGraphFile(const std::string& path) {
  std::string ext = extensionOf(path);
  if (ext != ".txt" && ext != ".dot" && ext != ".svg" && ext != ".png")
    throw WeftError("weft graph: cannot tell the form of '" + path +
                    "' from its extension: use .txt (the graph text), .dot, .svg or .png");
  if ((ext == ".svg" || ext == ".png") && findProgram("dot").empty())
    throw WeftError("weft graph: drawing " + ext.substr(1) +
                    " needs Graphviz's 'dot' program (Debian package graphviz), which is not on the PATH; "
                    "write a .dot file instead");
}

void writeGraphFile(const Graph& g, const std::string& path) {
  checkGraphFile(path);
  std::string ext = extensionOf(path);
  if (ext == ".txt") return writeText(path, printText(g));
  if (ext == ".dot") return writeText(path, dotText(g));
  // .svg and .png: dot reads the DOT from a temporary file and writes the picture.
  std::string tmp = (fs::temp_directory_path() / "weft-graph-XXXXXX.dot").string();
  int fd = ::mkstemps(tmp.data(), 4);
  if (fd < 0) throw WeftError("weft graph: cannot create a temporary file for Graphviz");
  ::close(fd);
  writeText(tmp, dotText(g));
  std::string dot = findProgram("dot"), format = "-T" + ext.substr(1);
  std::vector<char*> argv = {
      dot.data(), format.data(), tmp.data(), const_cast<char*>("-o"), const_cast<char*>(path.c_str()), nullptr};
  pid_t pid;
  int status = 0;
  bool ran = ::posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) == 0 &&
             ::waitpid(pid, &status, 0) == pid;
  fs::remove(tmp);
  if (!ran || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw WeftError("weft graph: Graphviz's dot failed to write " + path);
}

}  // namespace weft::graph
