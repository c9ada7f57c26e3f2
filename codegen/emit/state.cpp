// Emit rules of the graph's constants, variable reads and assignments (the generated class's
// state, read in place unless the variable plan asks for a copy), print and check.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/graph/executor.h"

namespace weft::codegen {
namespace {

using graph::Node;

void knownSizes(Emitter& e, const Node& n) { e.known(n, n.outputs[0]); }
void noSizes(Emitter&, const Node&) {}
void noCode(Emitter&, const Node&, const std::string&) {}

void constantMemory(Emitter& e, const Node& n) {
  e.point(n.outputs[0], e.constant(n.attrs.tensor("value"), "c" + std::to_string(n.outputs[0])));
}

// A read is the state's storage, or a copy when a later assignment must not change it.
void readMemory(Emitter& e, const Node& n) {
  if (e.copiedRead(n)) e.own(n.outputs[0]);
  else e.point(n.outputs[0], e.variable(n));
}
void readCode(Emitter& e, const Node& n, const std::string& p) {
  if (e.owns(n.outputs[0]))
    e.code() << p << "copy(" << e.ptr(n.outputs[0]) << ", " << e.variable(n) << ", " << e.bytes(n.outputs[0]) << ");\n";
}

void noMemory(Emitter&, const Node&) {}
void assignCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "copy(" << e.variable(n) << ", " << e.ptr(n.inputs[0]) << ", " << e.bytes(n.inputs[0]) << ");\n";
}

// print: the text of its format with each {} replaced by a tensor, written to stdout at once.
void printCode(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& c = e.code();
  const std::string& f = n.attrs.s("format");
  c << p << "{\n" << p << "  std::string line;\n";
  std::string lit;
  size_t next = 0;
  auto flush = [&] {
    if (!lit.empty()) c << p << "  line += " << cppString(lit) << ";\n";
    lit.clear();
  };
  for (size_t i = 0; i < f.size(); ++i) {
    const char ch = f[i];
    if ((ch == '{' || ch == '}') && i + 1 < f.size() && f[i + 1] == ch) {
      lit += ch;
      ++i;
    } else if (ch == '{' && i + 1 < f.size() && f[i + 1] == '}') {
      flush();
      if (next < n.inputs.size()) {
        const int v = n.inputs[next++];
        c << p << "  line += weft::rt::formatTensor(" << e.ptr(v) << ", weft::rt::DType::" << dtypeEnumName(e.type(v).dtype)
          << ", " << e.shape(v) << ");\n";
      }
      ++i;
    } else if (ch == '{' && i + 1 < f.size() && f[i + 1] == ':') {  // an f-string field's spec
      flush();
      const size_t close = f.find('}', i);
      if (close == std::string::npos) {  // no field after all: the rest is text
        lit += f.substr(i);
        break;
      }
      if (next < n.inputs.size()) {
        const int v = n.inputs[next++];
        c << p << "  {\n" << p << "    std::string field;\n"
          << p << "    if (std::string why = weft::rt::formatTensorWithSpec(" << e.ptr(v) << ", weft::rt::DType::"
          << dtypeEnumName(e.type(v).dtype) << ", " << e.shape(v) << ", " << cppString(f.substr(i + 2, close - i - 2))
          << ", field); !why.empty()) " << e.fail(n, "why") << "\n" << p << "    line += field;\n" << p << "  }\n";
      }
      i = close;
    } else {
      lit += ch;
    }
  }
  flush();
  c << p << "  std::fwrite(line.data(), 1, line.size(), stdout);\n" << p << "}\n";
}

// check: a false condition ends the call with the interpreter's error line as its status.
void checkCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "if (!" << e.ptr(n.inputs[0]) << "[0]) return weft::rt::Status::error("
           << cppString(graph::checkFailureLine(n.attrs)) << ");\n";
}

}  // namespace

const ops::EmitRule kConstantRule{"", knownSizes, constantMemory, noCode};
const ops::EmitRule kReadVariableRule{"", knownSizes, readMemory, readCode};
const ops::EmitRule kAssignVariableRule{"", noSizes, noMemory, assignCode};
const ops::EmitRule kPrintRule{"format.h", noSizes, noMemory, printCode};
const ops::EmitRule kCheckRule{"", noSizes, noMemory, checkCode};

void registerStateEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::Constant}, &kConstantRule);
  ops::setEmit({OpId::ReadVariable}, &kReadVariableRule);
  ops::setEmit({OpId::AssignVariable}, &kAssignVariableRule);
  ops::setEmit({OpId::Print}, &kPrintRule);
  ops::setEmit({OpId::Check}, &kCheckRule);
}

}  // namespace weft::codegen
