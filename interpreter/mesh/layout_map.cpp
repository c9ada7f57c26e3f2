#include "layout_map.h"

#include <re2/re2.h>

#include "../../grammar/shown_text.h"
#include "../eval/args.h"
#include "../values/format.h"

namespace weft::mesh {

void LayoutMapObj::add(const std::string& key, std::shared_ptr<LayoutObj> layout, const SourceRange& at) {
  // No path holds one, and every message about the key quotes it.
  if (std::optional<size_t> c = firstControl(key))
    throw WeftError(at, "layout map key " + controlCharacterReason(key, *c) + "; no variable's path has one");
  for (const Entry& e : entries)
    if (e.key == key) {
      std::string where = e.at.valid() ? " (first at line " + std::to_string(e.at.begin.line) + ")" : "";
      throw WeftError(at, "layout map key '" + key + "' is given twice" + where);
    }
  if (!layout->mesh->equals(*mesh))
    throw WeftError(at, "layout map key '" + key + "': the layout is on " + layout->mesh->describe() +
                            ", but the layout map is on " + mesh->describe());
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<RE2>(key, options);
  if (!re->ok())
    throw WeftError(at, "layout map key '" + key + "' is not a valid regular expression: " + re->error() +
                            " (keys are exact paths or RE2 patterns matching the whole path)");
  entries.push_back({key, std::move(layout), at, std::move(re)});
}

int LayoutMapObj::lookup(const std::string& path, const std::string& what) const {
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].key == path) return int(i);
  std::vector<int> hits;
  for (size_t i = 0; i < entries.size(); ++i)
    if (RE2::FullMatch(path, *entries[i].pattern)) hits.push_back(int(i));
  if (hits.size() > 1) {
    std::string list;
    for (int i : hits) {
      const Entry& e = entries[size_t(i)];
      list += (list.empty() ? "" : ", ") + ("'" + e.key + "'");
      if (e.at.valid()) list += " (line " + std::to_string(e.at.begin.line) + ")";
    }
    throw WeftError(what + " matches " + std::to_string(hits.size()) + " patterns of " + describe() + ": " +
                    list + "; make them exclusive or add the exact key '" + path + "'");
  }
  return hits.empty() ? -1 : hits[0];
}

std::string LayoutMapObj::repr() const {
  std::string s = "LayoutMap(" + mesh->label() + ", {";
  for (size_t i = 0; i < entries.size(); ++i)
    s += (i ? ", " : "") + toRepr(makeStr(entries[i].key)) + ": " + entries[i].layout->dimsText();
  return s + "})";
}

std::optional<Value> LayoutMapObj::getAttr(Interpreter&, Symbol attr) {
  const std::string& n = symbolName(attr);
  if (n == "mesh") return Value(mesh);
  if (n == "name") return name.empty() ? Value() : makeStr(name);
  if (n == "keys")
    return makeBuiltin("keys", [](Interpreter&, Args& a) {
      ArgReader r(a, "keys", {});
      std::vector<Value> out;
      for (const Entry& e : a.self.as<LayoutMapObj>()->entries) out.push_back(makeStr(e.key));
      return makeList(std::move(out));
    }, Value(shared_from_this()));
  if (n == "get")
    return makeBuiltin("get", [](Interpreter& in, Args& a) {
      ArgReader r(a, "get", {"path"});
      auto v = a.self.as<LayoutMapObj>()->getItem(in, r.get(0));
      return *v;
    }, Value(shared_from_this()));
  return std::nullopt;
}

// As Keras 3's LayoutMap.__getitem__: the layout a variable with this path would take, or none.
std::optional<Value> LayoutMapObj::getItem(Interpreter&, const Value& key) {
  if (!key.is(Kind::Str)) throw WeftError("a layout map is indexed by a path string, not " + typeNameOf(key));
  const std::string& path = key.as<StrObj>()->text;
  int i = lookup(path, "path '" + path + "'");
  return i < 0 ? Value() : Value(entries[size_t(i)].layout);
}

bool LayoutMapObj::setItem(const Value& key, Value v, const SourceRange& at) {
  if (!key.is(Kind::Str)) throw WeftError(at, "a layout map key must be a string, not " + typeNameOf(key));
  auto* layout = dynamic_cast<LayoutObj*>(v.object());
  if (!layout) throw WeftError(at, "a layout map maps keys to Layouts, not to " + aTypeName(v));
  add(key.as<StrObj>()->text, std::static_pointer_cast<LayoutObj>(v.objectPtr()), at);
  return true;
}

Value layoutMapBuiltin() {
  return makeBuiltin("LayoutMap", [](Interpreter&, Args& a) {
    ArgReader r(a, "LayoutMap", {"mesh"});
    auto* m = dynamic_cast<MeshObj*>(r.get(0).object());
    if (!m) r.fail(0, "must be a Mesh, not " + typeNameOf(r.get(0)));
    auto lm = std::make_shared<LayoutMapObj>();
    lm->mesh = std::static_pointer_cast<MeshObj>(r.get(0).objectPtr());
    return Value(lm);
  });
}

}  // namespace weft::mesh
