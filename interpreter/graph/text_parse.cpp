// The parser of the graph text form (docs/graphs.md): recursive descent over the characters,
// since what a token is depends on where it stands (a dtype, a float, a value id).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>

#include "../../grammar/diagnostics.h"
#include "text.h"

namespace weft::graph {
namespace {

constexpr int kMaxDepth = 100;      // nesting of blocks
constexpr int kMaxValueDigits = 9;  // %999999999 at most

std::string elements(int64_t n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

bool isWordStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Parser {
 public:
  Parser(std::shared_ptr<const SourceFile> file, std::vector<SourceRange>* nodeAt)
      : file_(std::move(file)), s_(file_->text), nodeAt_(nodeAt) {}

  Graph run() {
    if (nodeAt_) nodeAt_->clear();
    expectWord("graph", "at the start of a graph");
    skip();
    g_.name = at('"') ? string() : dottedName();
    expect('(', "after the graph's name");
    g_.body.params = params();
    skip();
    if (peekWord() == "on") mesh();
    expect('{', "to open the graph's body");
    while (skip(), peekWord() == "var") variable();
    blockBody(g_.body, "return", 0);
    skip();
    if (pos_ < s_.size()) fail(pos_, "expected the end of the text after the graph, found " + found());
    finishValues();
    return std::move(g_);
  }

 private:
  // --- characters and positions
  [[noreturn]] void fail(size_t at, const std::string& message) const {
    SourceRange r{file_, position(at), position(at)};
    throw WeftError(r, message);
  }
  SourcePos position(size_t at) const {
    const auto& starts = file_->lineStarts;
    auto it = std::upper_bound(starts.begin(), starts.end(), uint32_t(at));
    uint32_t line = uint32_t(it - starts.begin());
    if (line == 0) return {1, 1};
    uint32_t col = 1;
    for (size_t i = starts[line - 1]; i < at && i < s_.size(); ++i)
      if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) ++col;
    return {line, col};
  }
  // Skips spaces, newlines and `#` comments.
  void skip() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        ++pos_;
      else if (c == '#')
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      else
        break;
    }
  }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  // After skipping space: whether the next character is c; consumes it if so.
  bool accept(char c) {
    skip();
    if (!at(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const char* context) {
    if (!accept(c)) fail(pos_, std::string("expected '") + c + "' " + context + ", found " + found());
  }
  std::string found() const {
    if (pos_ >= s_.size()) return "the end of the text";
    if (isWordStart(s_[pos_])) return "'" + wordAt(pos_) + "'";
    if (s_[pos_] == '\n') return "the end of the line";
    return "'" + std::string(1, s_[pos_]) + "'";
  }
  std::string wordAt(size_t p) const {
    size_t e = p;
    while (e < s_.size() && isWordChar(s_[e])) ++e;
    return s_.substr(p, e - p);
  }
  std::string peekWord() const { return pos_ < s_.size() && isWordStart(s_[pos_]) ? wordAt(pos_) : ""; }
  std::string word() {
    std::string w = peekWord();
    pos_ += w.size();
    return w;
  }
  void expectWord(const std::string& w, const char* context) {
    skip();
    if (peekWord() != w) fail(pos_, "expected '" + w + "' " + context + ", found " + found());
    pos_ += w.size();
  }
  std::string dottedName() {
    if (!(pos_ < s_.size() && isWordStart(s_[pos_]))) fail(pos_, "expected the graph's name, found " + found());
    size_t b = pos_;
    while (pos_ < s_.size() && (isWordChar(s_[pos_]) || s_[pos_] == '.')) ++pos_;
    return s_.substr(b, pos_ - b);
  }

  // --- literals
  std::string string() {
    skip();
    size_t start = pos_;
    if (!accept('"')) fail(pos_, "expected a string, found " + found());
    std::string out;
    while (true) {
      if (pos_ >= s_.size() || s_[pos_] == '\n') fail(start, "unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail(start, "unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'x': {
          unsigned v = 0;
          auto r = std::from_chars(s_.data() + pos_, s_.data() + std::min(pos_ + 2, s_.size()), v, 16);
          if (r.ptr != s_.data() + pos_ + 2) fail(pos_ - 2, "\\x needs two hex digits");
          pos_ += 2;
          out += char(v);
          break;
        }
        default: fail(pos_ - 2, std::string("unknown escape '\\") + e + "' in a string");
      }
    }
  }

  // A run of characters that can make up a number: digits, letters, '.', a sign at the start or
  // after an exponent's 'e', and the ':' of "nan:0x...".
  std::string numberToken() {
    skip();
    size_t b = pos_;
    if (at('-') || at('+')) ++pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      char prev = pos_ > b ? s_[pos_ - 1] : ' ';
      bool sign = (c == '-' || c == '+') && (prev == 'e' || prev == 'E');
      bool nanColon = c == ':' && (s_.compare(b, pos_ - b, "nan") == 0 || s_.compare(b, pos_ - b, "-nan") == 0);
      if (!(isWordChar(c) || c == '.' || sign || nanColon)) break;
      ++pos_;
    }
    if (pos_ == b) fail(pos_, "expected a number, found " + found());
    return s_.substr(b, pos_ - b);
  }
  static bool isIntText(const std::string& t) {
    size_t i = t[0] == '-' ? 1 : 0;
    return i < t.size() &&
           std::all_of(t.begin() + i, t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  }
  template <class I>
  I intValue(const std::string& t, size_t at) {
    I v{};
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (!isIntText(t) || r.ptr != t.data() + t.size()) fail(at, "expected an integer, found '" + t + "'");
    if (r.ec == std::errc::result_out_of_range) fail(at, "integer " + t + " is out of range");
    return v;
  }
  template <class I>
  I integer() {
    size_t at = (skip(), pos_);
    return intValue<I>(numberToken(), at);
  }
  // A float or double from its text (floatText's forms, or any decimal number).
  template <class F, class Bits>
  F floatValue(const std::string& t, size_t at) {
    if (t.rfind("nan:0x", 0) == 0) {
      Bits bits{};
      auto r = std::from_chars(t.data() + 6, t.data() + t.size(), bits, 16);
      F v;
      std::memcpy(&v, &bits, sizeof v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.size() == 6 || !std::isnan(v))
        fail(at, "'" + t + "' is not the bit pattern of a NaN");
      return v;
    }
    if (t == "nan") return std::numeric_limits<F>::quiet_NaN();
    if (t == "inf") return std::numeric_limits<F>::infinity();
    if (t == "-inf") return -std::numeric_limits<F>::infinity();
    F v{};
    const char* b = t.data() + (t[0] == '+' ? 1 : 0);
    auto r = std::from_chars(b, t.data() + t.size(), v);
    bool digits = std::isdigit(static_cast<unsigned char>(b[b[0] == '-' ? 1 : 0])) || b[b[0] == '-' ? 1 : 0] == '.';
    if (!digits || r.ec == std::errc::invalid_argument || r.ptr != t.data() + t.size())
      fail(at, "expected a number, found '" + t + "'");
    if (r.ec == std::errc::result_out_of_range) fail(at, "number " + t + " is out of range");
    return v;
  }

  // --- types and values
  TensorType type(bool allowUnknown = true) {
    skip();
    size_t start = pos_;
    std::string w = word();
    auto dt = rt::dtypeFromName(w);
    if (!dt) fail(start, "expected a dtype (f32, f64, i32, i64, bool), found " + (w.empty() ? found() : "'" + w + "'"));
    TensorType t{*dt, {}};
    expect('[', "after the dtype");
    if (accept(']')) return t;
    do {
      skip();
      size_t d = pos_;
      if (t.shape.rank() == rt::kMaxRank) fail(d, "a type has at most " + std::to_string(rt::kMaxRank) + " dimensions");
      if (peekWord() == "None") {
        if (!allowUnknown) fail(d, "a constant's shape has no None dimension");
        pos_ += 4;
        t.shape.push_back(rt::kUnknownDim);
      } else {
        int64_t n = integer<int64_t>();
        if (n < 0) fail(d, "a dimension is a size or None, not " + std::to_string(n));
        t.shape.push_back(n);
      }
    } while (accept(','));
    expect(']', "after the dimensions");
    return t;
  }

  // Placements written right after a type's ']': {batch: S0, model: P} (SPEC §7.1).
  struct Placed {
    size_t at = 0;  // 0: none written
    std::vector<std::string> names;
    spmd::Placements placements;
  };
  Placed placed() {
    Placed p;
    if (!at('{')) return p;
    p.at = pos_++;
    do {
      skip();
      size_t nameAt = pos_;
      std::string name = word();
      if (name.empty()) fail(nameAt, "expected a mesh dimension's name, found " + found());
      expect(':', "after the mesh dimension's name");
      skip();
      size_t placementAt = pos_;
      const std::string w = word();
      const auto pl = spmd::parsePlacement(w);
      if (!pl) fail(placementAt, "expected a placement (R, S<dimension> or P), found " + (w.empty() ? found() : "'" + w + "'"));
      p.names.push_back(std::move(name));
      p.placements.push_back(*pl);
    } while (accept(','));
    expect('}', "after the placements");
    return p;
  }
  TensorType placedType(Placed& p) {
    TensorType t = type();
    p = placed();
    return t;
  }

  // on mesh(batch=2, model=4): the mesh of a sharded graph.
  void mesh() {
    pos_ += 2;  // on
    expectWord("mesh", "after 'on'");
    expect('(', "after 'mesh'");
    do {
      skip();
      size_t at = pos_;
      std::string name = word();
      if (name.empty()) fail(at, "expected a mesh dimension's name, found " + found());
      for (const std::string& n : g_.mesh.names)
        if (n == name) fail(at, "mesh dimension '" + name + "' is named twice");
      expect('=', "after the mesh dimension's name");
      skip();
      size_t sizeAt = pos_;
      const int64_t size = integer<int64_t>();
      if (size < 1 || size > (int64_t(1) << 16)) fail(sizeAt, "a mesh dimension has 1 to 65536 devices, not " + std::to_string(size));
      g_.mesh.names.push_back(std::move(name));
      g_.mesh.sizes.push_back(size);
    } while (accept(','));
    expect(')', "after the mesh's dimensions");
  }

  int valueId() {
    skip();
    size_t start = pos_;
    if (!accept('%')) fail(pos_, "expected a value (%N), found " + found());
    size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == b) fail(start, "expected a value number after '%'");
    if (pos_ - b > size_t(kMaxValueDigits)) fail(start, "value number " + s_.substr(b, pos_ - b) + " is too large");
    return std::stoi(s_.substr(b, pos_ - b));
  }
  int use() {
    skip();
    size_t at = pos_;
    int id = valueId();
    uses_.push_back({id, at});
    return id;
  }
  int define(const TensorType& t, size_t at, int id) { return define(t, at, id, Placed()); }
  int define(const TensorType& t, size_t at, int id, Placed placed) {
    if (!defs_.emplace(id, Def{t, at, std::move(placed)}).second) fail(at, "%" + std::to_string(id) + " is defined twice");
    return id;
  }
  // "%a: T, %b: T" up to ')'
  std::vector<int> params() {
    std::vector<int> ids;
    if (accept(')')) return ids;
    do {
      skip();
      size_t at = pos_;
      int id = valueId();
      expect(':', "after a parameter");
      Placed p;
      const TensorType t = placedType(p);
      ids.push_back(define(t, at, id, std::move(p)));
    } while (accept(','));
    expect(')', "after the parameters");
    return ids;
  }
  // Values after yield/return: none, or "%a, %b".
  std::vector<int> results() {
    std::vector<int> ids;
    skip();
    if (!at('%')) return ids;
    do ids.push_back(use());
    while (accept(','));
    return ids;
  }

  void variable() {
    size_t start = pos_;
    pos_ += 3;  // var
    int64_t index = integer<int64_t>();
    if (index != int64_t(g_.variables.size()))
      fail(start, "variables are numbered in order: expected var " + std::to_string(g_.variables.size()));
    VariableSlot v;
    v.name = string();
    expect(':', "after the variable's name");
    Placed p;
    v.type = placedType(p);
    v.placements = placementsOn(p, v.type);
    g_.variables.push_back(std::move(v));
  }

  // --- nodes and blocks
  // Nodes up to the terminator ("yield" or "return") with its values and the closing '}'.
  void blockBody(Block& b, const char* terminator, int depth) {
    while (true) {
      skip();
      if (peekWord() == terminator) break;
      if (at('}') || pos_ >= s_.size())
        fail(pos_, std::string("expected '") + terminator + "' before the end of the block, found " + found());
      b.nodes.push_back(node(depth));
    }
    pos_ += std::strlen(terminator);
    b.results = results();
    expect('}', (std::string("after the values of '") + terminator + "'").c_str());
  }

  Node node(int depth) {
    size_t start = pos_;
    if (nodeAt_) nodeAt_->push_back({file_, position(start), position(start)});
    Node n;
    std::vector<size_t> outAt;
    if (at('%')) {
      do {
        skip();
        outAt.push_back(pos_);
        n.outputs.push_back(valueId());
      } while (accept(','));
      expect('=', "after the node's outputs");
      skip();
    }
    size_t opAt = pos_;
    std::string name = word();
    if (name.empty()) fail(opAt, "expected an op name, found " + found());
    if (name == "var" && n.outputs.empty()) fail(opAt, "variables are declared before the first node");
    if (!ops::findOp(name, n.op)) fail(opAt, "unknown op '" + name + "'");
    expect('(', "after the op name");
    if (!accept(')')) {
      do n.inputs.push_back(use());
      while (accept(','));
      expect(')', "after the inputs");
    }
    skip();
    if (at('{') && !blocksFollow()) attrs(n.attrs);
    skip();
    size_t typesAt = pos_;
    if (n.outputs.empty() && at(':')) fail(typesAt, "a node without outputs has no types");
    if (!n.outputs.empty()) {
      expect(':', "before the output types");
      std::vector<TensorType> types;
      std::vector<Placed> placements;
      do {
        placements.emplace_back();
        types.push_back(placedType(placements.back()));
      } while (accept(','));
      if (types.size() != n.outputs.size())
        fail(typesAt, std::to_string(n.outputs.size()) + " output" + (n.outputs.size() == 1 ? "" : "s") + " but " +
                          std::to_string(types.size()) + " type" + (types.size() == 1 ? "" : "s"));
      for (size_t i = 0; i < types.size(); ++i) define(types[i], outAt[i], n.outputs[i], std::move(placements[i]));
    }
    skip();
    if (at('{')) {
      size_t open = pos_++;
      if (depth + 1 > kMaxDepth) fail(open, "blocks nest deeper than " + std::to_string(kMaxDepth) + " levels");
      do {
        expect('(', "to open a block's parameters");
        Block b;
        b.params = params();
        expect('{', "to open a block");
        blockBody(b, "yield", depth + 1);
        n.blocks.push_back(std::move(b));
      } while (skip(), at('('));
      expect('}', "after the blocks");
    }
    if (accept('@')) {
      n.loc.file = string();
      expect(':', "between the file and the line");
      skip();
      size_t lineAt = pos_;
      int64_t line = integer<int64_t>();
      if (line < 0 || line > INT32_MAX) fail(lineAt, "line " + std::to_string(line) + " is out of range");
      n.loc.line = int(line);
    }
    return n;
  }

  // At '{': whether blocks (a '(' follows) rather than attributes.
  bool blocksFollow() {
    size_t save = pos_++;
    skip();
    bool blocks = at('(');
    pos_ = save;
    return blocks;
  }

  void attrs(ops::Attrs& a) {
    ++pos_;  // {
    do {
      skip();
      size_t keyAt = pos_;
      std::string key = word();
      if (key.empty()) fail(keyAt, "expected an attribute name, found " + found());
      if (a.has(key)) fail(keyAt, "attribute '" + key + "' is given twice");
      expect('=', "after the attribute name");
      a.set(key, attrValue());
    } while (accept(','));
    expect('}', "after the attributes");
  }

  ops::AttrValue attrValue() {
    skip();
    size_t start = pos_;
    if (at('"')) return string();
    if (accept('[')) {
      std::vector<int64_t> ints;
      if (accept(']')) return ints;
      do ints.push_back(integer<int64_t>());
      while (accept(','));
      expect(']', "after the integers");
      return ints;
    }
    std::string w = peekWord();
    if (w == "true" || w == "false") {
      pos_ += w.size();
      return w == "true";
    }
    if (auto dt = rt::dtypeFromName(w)) {
      size_t save = pos_;
      pos_ += w.size();
      skip();
      if (!at('[')) return *dt;
      pos_ = save;
      return tensor();
    }
    std::string t = numberToken();
    if (isIntText(t)) return intValue<int64_t>(t, start);
    return floatValue<double, uint64_t>(t, start);
  }

  Tensor tensor() {
    size_t start = pos_;
    TensorType t = type(false);
    int64_t n = 1;
    for (int64_t d : t.shape)
      if (__builtin_mul_overflow(n, d, &n)) fail(start, "constant of type " + typeText(t) + " is too large");
    expect('[', "before the constant's elements");
    // Every element takes at least one character: more than the text holds cannot follow.
    if (n > int64_t(s_.size() - pos_))
      fail(start, "constant of type " + typeText(t) + " needs " + elements(n) + ", more than the text holds");
    Tensor out = Tensor::empty(t.dtype, t.shape);
    int64_t count = 0;
    skip();
    if (!at(']')) {
      do {
        skip();
        size_t at = pos_;
        if (count == n) fail(at, "constant of type " + typeText(t) + " needs " + elements(n) + ", found more");
        element(out, count++, at);
      } while (accept(','));
    }
    skip();
    size_t close = pos_;
    expect(']', "after the constant's elements");
    if (count != n)
      fail(close, "constant of type " + typeText(t) + " needs " + elements(n) + ", found " + std::to_string(count));
    return out;
  }

  void element(Tensor& out, int64_t i, size_t at) {
    if (out.dtype() == DType::Bool) {
      std::string w = word();
      if (w != "true" && w != "false")
        fail(at, "expected true or false, found " + (w.empty() ? found() : "'" + w + "'"));
      out.data<uint8_t>()[i] = w == "true";
      return;
    }
    std::string t = numberToken();
    switch (out.dtype()) {
      case DType::F32: out.data<float>()[i] = floatValue<float, uint32_t>(t, at); break;
      case DType::F64: out.data<double>()[i] = floatValue<double, uint64_t>(t, at); break;
      case DType::I32: out.data<int32_t>()[i] = intValue<int32_t>(t, at); break;
      case DType::I64: out.data<int64_t>()[i] = intValue<int64_t>(t, at); break;
      case DType::Bool: break;
    }
  }

  // Value ids run from %0 without gaps, and every value used is defined somewhere.
  void finishValues() {
    int count = int(defs_.size());
    for (const auto& [id, def] : defs_)
      if (id >= count)
        fail(def.at, "values are numbered from %0 without gaps, but %" + std::to_string(id) + " is defined and only " +
                         std::to_string(count) + " values are");
    for (const auto& [id, at] : uses_)
      if (!defs_.count(id)) fail(at, "%" + std::to_string(id) + " is not defined");
    for (const auto& [id, def] : defs_) {
      g_.values.push_back(def.type);
      g_.placements.push_back(placementsOn(def.placed, def.type));
    }
    if (g_.mesh.empty()) g_.placements.clear();
  }

  // Written placements, checked against the mesh (the header declares it, before any value is
  // checked) and the type; none written: replicated.
  spmd::Placements placementsOn(const Placed& p, const TensorType& t) const {
    if (!p.at) return {};
    if (g_.mesh.empty()) fail(p.at, "placements need the graph's mesh: 'on mesh(...)' after the parameters");
    if (p.names != g_.mesh.names)
      fail(p.at, "placements name the mesh's dimensions in order, as in " +
                     spmd::placementsText(g_.mesh, spmd::Placements(size_t(g_.mesh.rank()))));
    if (auto why = spmd::misfit(t.shape, p.placements, g_.mesh))
      fail(p.at, *why + " (" + typeText(t) + " on mesh(" + spmd::meshText(g_.mesh) + "))");
    return p.placements;
  }

  struct Def {
    TensorType type;
    size_t at;
    Placed placed;
  };
  std::shared_ptr<const SourceFile> file_;
  const std::string& s_;
  std::vector<SourceRange>* nodeAt_;
  size_t pos_ = 0;
  Graph g_;
  std::map<int, Def> defs_;
  std::vector<std::pair<int, size_t>> uses_;
};

}  // namespace

Graph parseText(std::shared_ptr<const SourceFile> file, std::vector<SourceRange>* nodeAt) {
  return Parser(std::move(file), nodeAt).run();
}

}  // namespace weft::graph
