// model.summary(): the Keras table (SPEC §5).
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "../mesh/summary_layouts.h"
#include "../ops/check.h"
#include "keras.h"
#include "../values/format.h"

namespace weft {
namespace {

// Keras' column stops: a 65-character table, or a 98-character one with "Connected to".
struct Layout {
  int length;
  std::vector<int> positions;
};
const Layout kPlain{65, {29, 55, 65}};
const Layout kConnected{98, {29, 58, 68, 98}};

// One table row; a field too long for its column continues on the next line, as in Keras.
void row(std::ostringstream& out, const Layout& layout, std::vector<std::string> fields) {
  const std::vector<int>& kPositions = layout.positions;
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
  for (const Value& v : in.collectVariables(m))
    n = ops::checkedSize("summary", rt::sizeAdd(n, v.as<VariableObj>()->value.numel()), "the parameter count");
  return n;
}

SymbolicTensor* symbolic(const Value& v) { return dynamic_cast<SymbolicTensor*>(v.object()); }

// Keras' "Connected to" of a functional model: for each layer, the tensors its calls took, as
// `layer[node][0]`. Empty when the model is a plain chain (one input, each layer called once on
// one tensor that nothing else takes), where Keras leaves the column out.
std::map<const Object*, std::vector<std::string>> connections(ModuleObj& m) {
  std::map<const Object*, std::vector<std::string>> out;
  Value* inputs = m.attrs->findLocal(intern("inputs"));
  Value* outputs = m.attrs->findLocal(intern("outputs"));
  if (m.typeName != "Functional" || !inputs || !outputs) return out;
  std::set<const Object*> seen, takenOnce, takenTwice;
  std::map<const Object*, int> nodesPerLayer;
  bool chain = inputs->as<ListObj>()->items.size() == 1;
  std::function<void(const Value&)> visit = [&](const Value& t) {
    auto* node = symbolic(t);
    if (!node || !seen.insert(t.object()).second || node->inputs.empty()) return;
    std::vector<std::string>& into = out[node->layer.object()];
    int taken = 0;
    for (const Value& arg : node->inputs)
      mapSymbolic(arg, [&](const Value& x) {
        auto* in = symbolic(x);
        into.push_back(in->layer.as<ModuleObj>()->name + "[" + std::to_string(in->nodeIndex) + "][0]");
        if (!takenOnce.insert(x.object()).second) takenTwice.insert(x.object());
        ++taken;
        visit(x);
        return x;
      });
    chain &= taken == 1 && ++nodesPerLayer[node->layer.object()] == 1;
  };
  for (const Value& o : outputs->as<ListObj>()->items) visit(o);
  if (chain && takenTwice.empty()) out.clear();
  else for (const Value& i : inputs->as<ListObj>()->items) out[symbolic(i)->layer.object()];  // []
  return out;
}

std::string listText(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", '" : "'") + items[i] + "'";
  return s + "]";
}

std::vector<Value> layersOf(Interpreter& in, ModuleObj& m) {
  if (Value* l = m.attrs->findLocal(intern("layers")); l && l->is(Kind::List)) return l->as<ListObj>()->items;
  return in.childModules(&m);
}

}  // namespace

std::string summaryTable(Interpreter& in, ModuleObj& m) {
  std::ostringstream out;
  auto connected = connections(m);
  const Layout& layout = connected.empty() ? kPlain : kConnected;
  std::string thin(size_t(layout.length), '_'), thick(size_t(layout.length), '=');
  out << "Model: \"" << m.name << "\"\n" << thin << '\n';
  std::vector<std::string> header = {"Layer (type)", "Output Shape", "Param #"};
  if (!connected.empty()) header.push_back("Connected to");
  row(out, layout, header);
  out << thick << '\n';
  for (const Value& l : layersOf(in, m)) {
    auto* layer = l.as<ModuleObj>();
    int64_t n = paramCount(in, layer);
    bool unbuilt = !layer->built && n == 0;
    std::vector<std::string> fields = {layer->name + " (" + layer->typeName + ")", unbuilt ? "?" : shapeText(*layer),
                                       unbuilt ? "0 (unbuilt)" : withCommas(n)};
    if (!connected.empty()) fields.push_back(listText(connected[l.object()]));
    row(out, layout, fields);
  }
  out << thick << '\n';
  int64_t total = 0, trainable = 0;
  for (const Value& v : in.collectVariables(&m)) {
    auto* var = v.as<VariableObj>();
    total = ops::checkedSize("summary", rt::sizeAdd(total, var->value.numel()), "the parameter count");
    if (var->trainable) trainable += var->value.numel();  // at most total
  }
  out << "Total params: " << withCommas(total) << '\n'
      << "Trainable params: " << withCommas(trainable) << '\n'
      << "Non-trainable params: " << withCommas(total - trainable) << '\n'
      << thin << '\n';
  out << mesh::layoutSummary(in, in.collectVariables(&m));  // only when a variable is sharded
  return out.str();
}

}  // namespace weft
