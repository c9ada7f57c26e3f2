#include "limit_options.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <utility>

#include "grammar/shown_text.h"
#include "stdlib/runtime/thread_pool.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/values/context.h"
#include "interpreter/values/tensor.h"

namespace weft::cli {
namespace {

// A non-negative integer, optionally followed by K, M, G or T (x 1024^n).
std::optional<int64_t> parseSize(const std::string& s) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno) return std::nullopt;
  int shift = 0;
  if (*end) {
    const std::string units = "KMGT";
    auto at = units.find(char(std::toupper(static_cast<unsigned char>(*end))));
    if (at == std::string::npos || end[1]) return std::nullopt;
    shift = 10 * int(at + 1);
  }
  if (v > (uint64_t(INT64_MAX) >> shift)) return std::nullopt;
  return int64_t(v << shift);
}

std::optional<double> parseSeconds(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

}  // namespace

const char* kLimitOptionsHelp =
    "limits (before FILE; 0 means none, except for --max-call-depth):\n"
    "  --max-steps=N             loop iterations and Weft calls (default: none)\n"
    "  --timeout=SECONDS         wall-clock time (default: none)\n"
    "  --max-call-depth=N        nested Weft calls (default: 1000)\n"
    "  --max-tensor-bytes=SIZE   one tensor (default: 8G)\n"
    "  --max-memory=SIZE         all live tensors together (default: 16G)\n"
    "  --threads=N               cores kernels and a mesh's devices use at once\n"
    "                            (default: all; WEFT_NUM_THREADS)\n"
    "  SIZE is bytes, or a number with K, M, G or T; --threads N is --threads=N\n";

namespace {

constexpr int64_t kMostThreads = 4096;

// A thread count: 1 to kMostThreads; more than the cores this process may use is allowed and said once.
bool setThreads(const std::string& value, const char* from) {
  std::optional<int64_t> n = parseSize(value);
  if (!n || *n < 1 || *n > kMostThreads || value.find_first_not_of("0123456789") != std::string::npos) {
    std::cerr << "weft: invalid value '" << shownText(value) << "' for " << from << " (a number of threads, 1 to "
              << kMostThreads << ")\n";
    return false;
  }
  static bool said = false;  // once per process (weft check applies the options twice)
  const int64_t cores = rt::usableCores();
  if (*n > cores && !std::exchange(said, true))
    std::cerr << "weft: note: " << from << " " << *n << " is more than the " << cores
              << " cores this process may use; threads will share them\n";
  context().threads = *n;
  return true;
}

}  // namespace

bool applyThreadsVariable() {
  const char* env = std::getenv("WEFT_NUM_THREADS");
  return !env || setThreads(env, "WEFT_NUM_THREADS");
}

int applyLimitOptions(const std::vector<std::string>& args, size_t first, Interpreter& interp) {
  if (!applyThreadsVariable()) return -1;
  size_t i = first;
  for (; i < args.size() && args[i].rfind("--", 0) == 0; ++i) {
    const std::string& a = args[i];
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (name == "--threads" && eq == std::string::npos && i + 1 < args.size()) value = args[++i];  // SPEC §9's form
    std::optional<int64_t> size = parseSize(value);
    bool ok = true;
    if (name == "--max-steps" && (ok = size.has_value())) {
      interp.limits().maxSteps = *size;
    } else if (name == "--timeout") {
      std::optional<double> s = parseSeconds(value);
      if ((ok = s.has_value())) interp.limits().timeoutSeconds = *s;
    } else if (name == "--max-call-depth" && (ok = size && *size > 0 && *size <= 1000000)) {
      interp.limits().maxCallDepth = int(*size);
    } else if (name == "--max-tensor-bytes" && (ok = size.has_value())) {
      memoryLimits().maxTensorBytes = *size ? *size : INT64_MAX;
    } else if (name == "--max-memory" && (ok = size.has_value())) {
      memoryLimits().maxLiveBytes = *size ? *size : INT64_MAX;
    } else if (name == "--threads") {
      if (!setThreads(value, "--threads")) return -1;
    } else if (ok) {
      std::cerr << "weft: unknown option '" << shownText(name) << "'\n" << kLimitOptionsHelp;
      return -1;
    }
    if (!ok) {
      std::cerr << "weft: invalid value '" << shownText(value) << "' for " << shownText(name) << "\n" << kLimitOptionsHelp;
      return -1;
    }
  }
  enterKernelThreads();
  return int(i);
}

}  // namespace weft::cli
