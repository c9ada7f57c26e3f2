// Random programs for the differential test of graph functions: each defines one @function over
// f32[3] tensors, a scalar and an i32 loop bound (assignments, tensor ifs, tensor whiles, for
// over range) and prints its results for two inputs. Run eagerly and as graphs, the output must
// be the same. Used by the fuzz target fuzz_graph_diff and the unit test test_graph_diff.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace weft::fuzz {

class GraphProgram {
 public:
  // Draws every choice from `bytes` (cycling; zeros once they run out).
  explicit GraphProgram(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

  std::string generate() {
    std::string body;
    names_ = {"a", "b"};
    int stmts = 1 + pick(6);
    for (int i = 0; i < stmts; ++i) body += statement(1);
    std::string src = "@function\nfn f(a: f32[3], b: f32[3], s: f32[], n: i32[]) {\n" + body +
                      "  return " + expr(2) + ", sum(" + expr(1) + ") * s\n}\n";
    src += "print(f(tensor([0.5, -1.25, 2.0]), tensor([1.5, 0.25, -0.75]), 0.5, 3))\n";
    src += "print(f(tensor([-2.0, 3.0, 0.125]), tensor([0.0, -1.0, 4.0]), -1.5, 0))\n";
    return src;
  }

 private:
  int pick(int n) {
    uint8_t b = bytes_.empty() || next_ >= bytes_.size() * 4 ? 0 : bytes_[next_ % bytes_.size()];
    ++next_;
    return n <= 0 ? 0 : b % n;
  }

  std::string name() { return names_[size_t(pick(int(names_.size())))]; }

  std::string expr(int depth) {
    if (depth <= 0) {
      switch (pick(3)) {
        case 0: return name();
        case 1: return "(" + name() + " * s)";
        default: return "tensor([1.0, 2.0, -0.5])";
      }
    }
    std::string x = expr(depth - 1), y = expr(depth - 1);
    switch (pick(10)) {
      case 0: return "(" + x + " + " + y + ")";
      case 1: return "(" + x + " - " + y + ")";
      case 2: return "(" + x + " * " + y + ")";
      case 3: return "relu(" + x + ")";
      case 4: return "tanh(" + x + ")";
      case 5: return "maximum(" + x + ", " + y + ")";
      case 6: return "where(" + x + " > " + y + ", " + x + ", " + y + ")";
      case 7: return "(sum(" + x + ") * " + y + ")";
      case 8: return "exp(clip(" + x + ", -5.0, 5.0))";
      default: return "sin(" + x + ")";
    }
  }

  std::string indent(int level) { return std::string(size_t(level) * 2, ' '); }

  std::string assign(int level) {
    std::string target = pick(3) == 0 ? "v" + std::to_string(names_.size()) : name();
    std::string s = indent(level) + target + " = " + expr(2) + "\n";
    if (target.size() > 1 && target[0] == 'v' && level == 1) names_.push_back(target);
    return s;
  }

  std::string statement(int level) {
    if (level >= 3) return assign(level);
    switch (pick(5)) {
      case 0: {  // a cond: both branches assign the same existing name
        std::string t = name();
        return indent(level) + "if sum(" + expr(1) + ") > 0.0 {\n" + indent(level + 1) + t + " = " + expr(2) + "\n" +
               indent(level) + "} else {\n" + indent(level + 1) + t + " = " + expr(1) + "\n" + indent(level) + "}\n";
      }
      case 1: {  // a while on the i32 argument
        std::string t = name();
        return indent(level) + "k = 0\n" + indent(level) + "while k < n {\n" + indent(level + 1) + t + " = tanh(" +
               expr(1) + ")\n" + indent(level + 1) + "k += 1\n" + indent(level) + "}\n";
      }
      case 2: {  // one loop node for a range known while tracing
        std::string t = name();
        return indent(level) + "for i in range(" + std::to_string(1 + pick(3)) + ") {\n" + indent(level + 1) + t +
               " = " + t + " * 0.5 + " + expr(1) + "\n" + indent(level) + "}\n";
      }
      default: return assign(level);
    }
  }

  std::vector<uint8_t> bytes_;
  size_t next_ = 0;
  std::vector<std::string> names_;
};

}  // namespace weft::fuzz
