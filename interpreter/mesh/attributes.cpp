#include "attributes.h"

#include "../builtins/args.h"

namespace weft::mesh {

Value variableAttr(Interpreter& in, const Value& self, VariableObj& var, const std::string& name) {
  resolve(in, var);  // first need: the path is taken as final now
  if (name == "layout") return layoutOf(var) ? Value(var.placement->layout) : Value();
  return makeBuiltin("shard", [](Interpreter& in, Args& a) {
    ArgReader r(a, "shard", {"device"});
    auto* v = a.self.as<VariableObj>();
    resolve(in, *v);
    const LayoutObj* l = layoutOf(*v);
    if (!l)
      throw WeftError(a.site, "Variable '" + v->name + "' has no layout, so no shards: it was not created in a "
                              "layout_map_scope");
    int64_t i = r.integer(0), n = l->mesh->numDevices();
    if (i < 0 || i >= n)
      r.fail(0, "must be a device of " + l->mesh->describe() + ", from 0 to " + std::to_string(n - 1) + ", not " +
                    std::to_string(i));
    return Value(shard(*v, i));
  }, self);
}

}  // namespace weft::mesh
