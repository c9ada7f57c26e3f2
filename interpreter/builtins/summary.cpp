// model.summary(): the Keras table (SPEC §5).
#include <sstream>

#include "../mesh/summary_layouts.h"
#include "keras.h"
#include "../values/format.h"

namespace weft {
namespace {

constexpr int kLineLength = 65;
constexpr int kPositions[] = {29, 55, 65};  // Keras' column stops for a 65-character line


// One table row; a field too long for its column continues on the next line, as in Keras.
void row(std::ostringstream& out, std::vector<std::string> fields) {
  while (true) {
    std::string line;
    bool more = false;
    for (size_t c = 0; c < fields.size(); ++c) {
      int start = c ? kPositions[c - 1] : 0;
      // The last column never wraps: "0 (unbuilt)" may run past the line, as it reads better.
      bool last = c + 1 == fields.size();
      int width = last ? int(fields[c].size()) : kPositions[c] - start - 2 - (c == 0 ? 1 : 0);
      if (c == 0) line += ' ';
      std::string part = fields[c].substr(0, size_t(std::max(width, 1)));
      fields[c] = fields[c].substr(part.size());
      more |= !fields[c].empty();
      line += part;
      if (c + 1 < fields.size()) line += std::string(size_t(std::max(0, kPositions[c] - int(line.size()))), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
    if (!more) return;
  }
}

std::string shapeText(const ModuleObj& layer) {
  const std::optional<Shape>& s = layer.outputShape;
  if (!s) return "?";
  std::string t = "(";
  for (int i = 0; i < s->rank(); ++i) {
    if (i) t += ", ";
    t += i == 0 && !layer.batchFixed ? "None" : std::to_string((*s)[i]);
  }
  return t + (s->rank() == 1 ? ",)" : ")");
}

int64_t paramCount(Interpreter& in, ModuleObj* m) {
  int64_t n = 0;
  for (const Value& v : in.collectVariables(m)) n += v.as<VariableObj>()->value.numel();
  return n;
}

std::vector<Value> layersOf(Interpreter& in, ModuleObj& m) {
  if (Value* l = m.attrs->findLocal(intern("layers")); l && l->is(Kind::List)) return l->as<ListObj>()->items;
  return in.childModules(&m);
}

}  // namespace

std::string summaryTable(Interpreter& in, ModuleObj& m) {
  std::ostringstream out;
  std::string thin(kLineLength, '_'), thick(kLineLength, '=');
  out << "Model: \"" << m.name << "\"\n" << thin << '\n';
  row(out, {"Layer (type)", "Output Shape", "Param #"});
  out << thick << '\n';
  for (const Value& l : layersOf(in, m)) {
    auto* layer = l.as<ModuleObj>();
    int64_t n = paramCount(in, layer);
    bool unbuilt = !layer->built && n == 0;
    row(out, {layer->name + " (" + layer->typeName + ")", unbuilt ? "?" : shapeText(*layer),
              unbuilt ? "0 (unbuilt)" : withCommas(n)});
  }
  out << thick << '\n';
  int64_t total = 0, trainable = 0;
  for (const Value& v : in.collectVariables(&m)) {
    auto* var = v.as<VariableObj>();
    total += var->value.numel();
    if (var->trainable) trainable += var->value.numel();
  }
  out << "Total params: " << withCommas(total) << '\n'
      << "Trainable params: " << withCommas(trainable) << '\n'
      << "Non-trainable params: " << withCommas(total - trainable) << '\n'
      << thin << '\n';
  out << mesh::layoutSummary(in, in.collectVariables(&m));  // only when a variable is sharded
  return out.str();
}

}  // namespace weft
