// Layout maps (SPEC §7): keys — exact object paths or whole-path regular expressions — to
// layouts on one mesh. Patterns are RE2, which runs in time linear in the path whatever the
// pattern, so no key can hang a program.
#pragma once
#include <memory>

#include "layout.h"

namespace re2 {
class RE2;
}

namespace weft::mesh {

struct LayoutMapObj : OpaqueObj {
  struct Entry {
    std::string key;
    std::shared_ptr<LayoutObj> layout;
    SourceRange at;  // the key in the source: where its errors and warnings point
    std::shared_ptr<re2::RE2> pattern;
  };
  std::string name;  // "shard" for `layout_map shard on grid { ... }`
  std::shared_ptr<MeshObj> mesh;
  std::vector<Entry> entries;

  // Adds a key; a repeated key, a layout on another mesh or a malformed pattern is an error.
  void add(const std::string& key, std::shared_ptr<LayoutObj> layout, const SourceRange& at);
  // The entry for `path`: an exact key first, else the one pattern matching the whole path;
  // -1 when none. Several matching patterns are an error that lists them (`what` names the
  // variable in it).
  int lookup(const std::string& path, const std::string& what) const;

  std::string typeName() const override { return "LayoutMap"; }
  std::string repr() const override;
  // For messages: "layout map 'shard'", or "the LayoutMap on grid" for an unnamed one.
  std::string describe() const { return name.empty() ? "the LayoutMap on " + mesh->label() : "layout map '" + name + "'"; }
  std::optional<Value> getAttr(Interpreter&, Symbol name) override;
  std::optional<Value> getItem(Interpreter&, const Value& key) override;
  bool setItem(const Value& key, Value v, const SourceRange& at) override;
  // `with lm { ... }`: the same as `with layout_map_scope(lm) { ... }` (scope.cpp).
  bool isContext() const override { return true; }
  void enter(Interpreter&) override;
  void exit(Interpreter&) override;
};

// The LayoutMap(mesh) builtin.
Value layoutMapBuiltin();

}  // namespace weft::mesh
