// Structure-aware fuzzing: the input is not a program but the choices that build one from a
// small grammar of Weft, biased to the values that broke the interpreter before (issue 14):
// int64 extremes, zero-size and huge dimensions, huge slice steps, containers that hold
// themselves, modules declared in functions, special files. Each program runs under the limits
// of fuzz_run, eagerly or on shapes alone (as `weft check` does), and must leave no tensor alive.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "interpreter/builtins/builtins.h"
#include "interpreter/eval/interpreter.h"
#include "interpreter/ops/ops.h"
#include "interpreter/values/tensor.h"

namespace {

// Boundary values: each was, or is next to, a limit somewhere in the interpreter.
const char* const kInts[] = {"0", "1", "-1", "2", "3", "5", "255", "2147483647", "-2147483648", "2147483648",
                             "3000000000", "1000000000000", "4611686018427387904", "9223372036854775807",
                             "-9223372036854775807", "i64(5)", "i64(-1)"};
const char* const kDims[] = {"0", "1", "2", "3", "4", "7", "2147483648", "3000000000", "4611686018427387904",
                             "9223372036854775807", "-1"};
const char* const kFloats[] = {"0.0", "-0.0", "1.5", "-2.5", "1e308", "1e-45", "(tensor(0.0) / 0.0)",
                               "-(tensor(0.0) / 0.0)", "(tensor(1.0) / 0.0)", "3.4e38"};
const char* const kStrings[] = {"\"\"", "\"abc\"", "\"\x1b[31m\"", "\"\\n\"", "\"\xc2\x9b\"", "\"d.kernel\""};
const char* const kDtypes[] = {"f32", "f64", "i32", "i64", "bool"};
// Paths for load_npy and import: special files, a FIFO, a directory, a file of another kind, and
// names in the scratch folder the run happens in. save_npy gets only paths it cannot harm.
const char* const kReadPaths[] = {"\"/dev/zero\"", "\"/dev/null\"", "\"fifo.npy\"", "\"/tmp\"", "\"/etc/passwd\"",
                                  "\"out.npy\"", "\"missing.model\"", "\"fifo.model\""};
const char* const kWritePaths[] = {"\"/dev/zero\"", "\"/dev/null\"", "\"fifo.npy\"", "\"/tmp\"", "\"out.npy\""};
// The reproducers of issue 14, as statements the generator may emit whole (its seeds).
const char* const kReproducers[] = {
    "print([1, 2, 3][1::9223372036854775807])\n",
    "xs = []\nxs.append(xs)\nmodule R() {\n}\nr = R()\nr.xs = xs\n",
    "print(zeros([1000000000000, 0]))\n",
    "save_npy(\"fifo.npy\", ones([2]))\n",
    "print(list(range(9223372036854775800, 9223372036854775807, 3)))\n",
    "print(len(range(-9223372036854775807, 9223372036854775807)))\n",
    "for i, v in enumerate(range(1000000000000)) {\n  break\n}\n",
    "with plan() {\n  print(concat([zeros([9223372036854775807], dtype=bool), zeros([9223372036854775807], dtype=bool)], 0))\n}\n",
    "with plan() {\n  print(reshape(zeros([4611686018427387904, 4]), [-1]))\n}\n",
    "print(zeros([3000000000, 0]).shape)\n",
    "fn mk() {\n  module Inner() {\n  }\n}\nmk()\n",
    "print(Dense(2)(1.0))\n",
    "print(LayerNormalization(axis=5)(zeros([2, 3])))\n",
    "print(Dense(2147483647)(zeros([1, 3])))\n",
    "ys = [1, 2, 3]\nprint(ys.pop(0), sum(ones([2]), axis=[]), tensor([1.5], dtype=i32))\n",
    "print(clip(ones([2]), tensor(0.0) / 0.0, 1.0))\n",
};

class Generator {
 public:
  explicit Generator(FuzzedDataProvider& in) : in_(in) {}

  std::string program() {
    std::string out;
    int n = in_.ConsumeIntegralInRange(1, 12);
    for (int i = 0; i < n && in_.remaining_bytes(); ++i) out += stmt(0);
    return out;
  }

 private:
  template <size_t N>
  const char* pick(const char* const (&xs)[N]) {
    return xs[in_.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }
  std::string var() { return vars_.empty() ? "none" : vars_[in_.ConsumeIntegralInRange<size_t>(0, vars_.size() - 1)]; }
  std::string fresh() {
    vars_.push_back("v" + std::to_string(vars_.size()));
    return vars_.back();
  }
  std::string indent(int depth) { return std::string(size_t(2 * depth), ' '); }

  std::string shape() {
    std::string s = "[";
    int rank = in_.ConsumeIntegralInRange(0, 4);
    for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::string(pick(kDims));
    return s + "]";
  }

  std::string expr(int depth) {
    if (depth > 3) return atom();
    switch (in_.ConsumeIntegralInRange(0, 27)) {
      case 0: return "zeros(" + shape() + ", dtype=" + pick(kDtypes) + ")";
      case 1: return "ones(" + shape() + ")";
      case 2: return "reshape(" + expr(depth + 1) + ", " + shape() + ")";
      case 3: return "concat([" + expr(depth + 1) + ", " + expr(depth + 1) + "], " + pick(kInts) + ")";
      case 4: return "sum(" + expr(depth + 1) + ", axis=" + (in_.ConsumeBool() ? "[]" : pick(kInts)) + ")";
      case 5: return "clip(" + expr(depth + 1) + ", " + expr(depth + 1) + ", " + expr(depth + 1) + ")";
      case 6: return expr(depth + 1) + "[" + pick(kInts) + ":" + pick(kInts) + ":" + pick(kInts) + "]";
      case 7: return expr(depth + 1) + "[" + pick(kInts) + "]";
      case 8: return "list(range(" + std::string(pick(kInts)) + ", " + pick(kInts) + ", " + pick(kInts) + "))";
      case 9: return "len(" + expr(depth + 1) + ")";
      case 10: return expr(depth + 1) + ".shape";
      case 11: return "list(enumerate(" + expr(depth + 1) + "))";
      case 12: return "list(zip(" + expr(depth + 1) + ", " + expr(depth + 1) + "))";
      case 13: return "str(" + expr(depth + 1) + ")";
      case 14: return "tensor([" + expr(depth + 1) + "], dtype=" + pick(kDtypes) + ")";
      case 15: return "cast(" + expr(depth + 1) + ", " + pick(kDtypes) + ")";
      case 16: return "(" + expr(depth + 1) + " + " + expr(depth + 1) + ")";
      case 17: return "(" + expr(depth + 1) + " @ " + expr(depth + 1) + ")";
      case 18: return "[" + expr(depth + 1) + ", " + expr(depth + 1) + "]";
      case 19: return "{" + expr(depth + 1) + ": " + expr(depth + 1) + "}";
      case 20: return "load_npy(" + std::string(pick(kReadPaths)) + ")";
      case 21: return "Dense(" + std::string(pick(kInts)) + ")(" + expr(depth + 1) + ")";
      case 22: return "LayerNormalization(axis=" + std::string(pick(kInts)) + ")(" + expr(depth + 1) + ")";
      case 23: return "transpose(" + expr(depth + 1) + ")";
      case 24: return "arange(" + std::string(pick(kFloats)) + ", " + pick(kFloats) + ", " + pick(kFloats) + ")";
      case 25: return "full(" + shape() + ", " + pick(kFloats) + ")";
      case 26: return "range(" + std::string(pick(kInts)) + ", " + pick(kInts) + ", " + pick(kInts) + ")";
      default: return atom();
    }
  }

  std::string atom() {
    switch (in_.ConsumeIntegralInRange(0, 4)) {
      case 0: return pick(kInts);
      case 1: return pick(kFloats);
      case 2: return pick(kStrings);
      case 3: return var();
      default: return "[]";
    }
  }

  std::string block(int depth) {
    std::string out;
    int n = in_.ConsumeIntegralInRange(1, 3);
    for (int i = 0; i < n && in_.remaining_bytes(); ++i) out += stmt(depth);
    return out;
  }

  std::string stmt(int depth) {
    const std::string in = indent(depth);
    if (depth > 2) return in + "print(" + expr(0) + ")\n";
    switch (in_.ConsumeIntegralInRange(0, 16)) {
      case 0:
      case 1: {
        std::string e = expr(0);
        return in + fresh() + " = " + e + "\n";
      }
      case 2: return in + "print(" + expr(0) + ")\n";
      case 3: {  // a container that holds itself, maybe stored in a module
        std::string v = fresh();
        std::string s = in + v + " = [" + expr(1) + "]\n" + in + v + ".append(" + v + ")\n";
        if (in_.ConsumeBool()) s += in + "module M" + v + "() {\n" + in + "}\n" + in + "m" + v + " = M" + v + "()\n" + in + "m" + v + ".xs = " + v + "\n";
        return s;
      }
      case 4: return in + "for i" + std::to_string(depth) + ", x" + std::to_string(depth) + " in enumerate(" + expr(1) +
                     ") {\n" + block(depth + 1) + indent(depth + 1) + "break\n" + in + "}\n";
      case 5: {
        std::string c = "c" + std::to_string(depth);
        return in + c + " = 0\n" + in + "while " + c + " < " + pick(kInts) + " {\n" + indent(depth + 1) + c + " += 1\n" +
               block(depth + 1) + in + "}\n";
      }
      case 6: {  // a function, maybe declaring a module, maybe with a misplaced break
        std::string f = "f" + std::to_string(functions_++);
        std::string s = in + "fn " + f + "(a, b) {\n";
        if (in_.ConsumeBool()) s += indent(depth + 1) + "module Inner() {\n" + indent(depth + 2) + "w = a\n" + indent(depth + 1) + "}\n";
        if (in_.ConsumeIntegralInRange(0, 7) == 0) s += indent(depth + 1) + "break\n";
        s += block(depth + 1) + indent(depth + 1) + "return " + expr(1) + "\n" + in + "}\n";
        return s + in + fresh() + " = " + f + "(" + expr(1) + ", " + expr(1) + ")\n";
      }
      case 7: return in + "save_npy(" + pick(kWritePaths) + ", " + expr(1) + ")\n";
      case 8: return in + "with plan() {\n" + block(depth + 1) + in + "}\n";
      case 9: return in + "import " + pick(kReadPaths) + " as imported" + std::to_string(depth) + "\n";
      case 10: return in + var() + ".pop(" + pick(kInts) + ")\n";
      case 11: {
        std::string d = fresh();
        return in + d + " = {}\n" + in + d + "[" + pick(kInts) + "] = " + d + "\n" + in + d + "[" + atom() + "] = " +
               expr(1) + "\n";
      }
      case 12: return in + "mesh grid" + std::to_string(depth) + "(batch=" + pick(kDims) + ")\n";
      case 13: return in + "assert " + expr(0) + ", " + expr(0) + "\n";
      case 14:  // rarely: a misplaced one stops the whole program before it runs
        if (in_.ConsumeIntegralInRange(0, 7) != 0) return in + "pass\n";
        return in + (in_.ConsumeBool() ? "return\n" : "continue\n");
      case 15: return depth == 0 ? pick(kReproducers) : in + "pass\n";
      default: return in + "print(" + var() + ")\n";
    }
  }

  FuzzedDataProvider& in_;
  std::vector<std::string> vars_;
  int functions_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::installBuiltins();
  weft::memoryLimits().maxTensorBytes = 1 << 20;  // as fuzz_run: each op stays fast
  weft::memoryLimits().maxLiveBytes = 64 << 20;
  // The special files the programs name, in the scratch folder run.sh runs in.
  ::mkfifo("fifo.npy", 0600);
  ::mkfifo("fifo.model", 0600);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const bool shapesOnly = in.ConsumeBool();  // as `weft check` runs a program with layouts
  const std::string program = Generator(in).program();
  // To see what a finding ran: WEFT_FUZZ_SHOW=1 build-asan/tests/fuzz/fuzz_gen FINDING
  if (std::getenv("WEFT_FUZZ_SHOW")) std::fprintf(stderr, "%s---\n", program.c_str());
  weft::fuzz::withLargeStack([&] {
    const weft::LiveBytes* counted;  // the interpreter's counter; counters outlive their context
    {
      weft::Interpreter interp(weft::fuzz::nullStream(), weft::fuzz::nullStream());
      counted = weft::context().liveBytes;
      interp.limits().maxSteps = 20000;
      interp.limits().timeoutSeconds = 2;
      weft::ops::setShapesOnly(shapesOnly);
      interp.runSource(std::make_shared<weft::SourceFile>("gen.model", program));
      weft::ops::setShapesOnly(false);
    }
    if (counted->bytes != 0) __builtin_trap();
  });
  return 0;
}
