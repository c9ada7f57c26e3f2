#include "library_namespaces.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "../values/objects.h"
#include "../values/value.h"

namespace weft {
namespace {

// Each namespace after the ones it holds: a member is a Weft name, `tf_name=weft_name` where
// the spellings differ, or a namespace listed above it.
struct Space {
  const char* path;
  const char* members;
};
constexpr Space kSpaces[] = {
    {"keras.layers",
     "Dense Activation Dropout Flatten Reshape Embedding LayerNormalization BatchNormalization Conv2D MaxPooling2D "
     "AveragePooling2D GlobalAveragePooling1D GlobalMaxPooling1D GlobalAveragePooling2D GlobalMaxPooling2D Add "
     "Concatenate MultiHeadAttention Input Layer"},
    {"keras.optimizers.schedules", "ExponentialDecay CosineDecay PiecewiseConstantDecay"},
    {"keras.optimizers", "SGD Adam AdamW RMSprop schedules"},
    {"keras.losses",
     "MeanSquaredError CategoricalCrossentropy SparseCategoricalCrossentropy BinaryCrossentropy mse mean_squared_error "
     "categorical_crossentropy sparse_categorical_crossentropy binary_crossentropy"},
    {"keras.callbacks",
     "History EarlyStopping ModelCheckpoint LearningRateScheduler ReduceLROnPlateau CSVLogger LambdaCallback"},
    {"keras.activations", "relu sigmoid tanh softmax log_softmax gelu silu softplus"},
    {"keras.utils", "to_categorical"},
    {"keras.models", "Sequential Model load_model"},
    {"keras", "Input Model Sequential Variable layers optimizers losses callbacks activations models utils"},
    {"tf.saved_model", "save load"},
    {"tf.math",
     "abs exp log sqrt rsqrt square sin cos tanh sigmoid erf floor ceil sign pow maximum minimum reduce_sum "
     "reduce_mean reduce_max reduce_min reduce_prod reduce_any reduce_all reduce_variance reduce_std"},
    {"tf.nn", "relu sigmoid tanh softmax log_softmax gelu silu softplus"},
    {"tf",
     "float32 float64 int32 int64 bool TensorSpec Module Variable GradientTape name_scope print constant zeros ones "
     "zeros_like ones_like fill=full eye range=arange linspace convert_to_tensor=tensor cast reshape transpose concat "
     "stack split squeeze expand_dims matmul where one_hot clip_by_value=clip shape abs exp log sqrt square tanh "
     "sigmoid maximum minimum reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_any reduce_all random "
     "keras math nn saved_model"},
};


const Space* space(const std::string& path) {
  for (const Space& s : kSpaces)
    if (path == s.path) return &s;
  return nullptr;
}

// The names a namespace's members are bound to (before any `=`).
std::vector<std::string> memberNames(const Space& s) {
  std::vector<std::string> names;
  std::istringstream words(s.members);
  for (std::string w; words >> w;) names.push_back(w.substr(0, w.find('=')));
  return names;
}

// The table's path of the namespace an import names (`tensorflow.keras` is `keras`), "" for a
// spec that names no library; an error for a part that is no namespace there.
std::string canonicalPath(const std::string& spec) {
  const std::string root = spec.substr(0, spec.find('.'));
  if (root != "tensorflow" && root != "keras") return "";
  std::string path = root == "tensorflow" ? "tf" : "keras";
  for (size_t at = root.size(); at < spec.size();) {
    const size_t next = std::min(spec.find('.', at + 1), spec.size());
    const std::string part = spec.substr(at + 1, next - at - 1);
    const std::vector<std::string> members = memberNames(*space(path));
    if (space(path + "." + part)) path += "." + part;
    else if (space(part) && std::find(members.begin(), members.end(), part) != members.end()) path = part;  // tf.keras
    else throw WeftError("cannot import '" + spec + "': '" + spec.substr(0, at) + "' has no namespace '" + part + "'");
    at = next;
  }
  return path;
}

}  // namespace

void defineLibraryNamespaces(Env& prelude) {
  std::map<std::string, Value> made;
  for (const Space& s : kSpaces) {
    auto env = std::make_shared<Env>();
    std::istringstream words(s.members);
    for (std::string w; words >> w;) {
      const size_t eq = w.find('=');
      const std::string name = w.substr(0, eq), weft = eq == std::string::npos ? w : w.substr(eq + 1);
      auto inner = made.find(std::string(s.path) + "." + weft);
      if (inner == made.end()) inner = made.find(weft);  // tf.keras
      Value* v = inner != made.end() ? &inner->second : prelude.find(intern(weft));
      if (!v) throw std::logic_error(std::string(s.path) + "." + name + " names '" + weft + "', which is not defined");
      env->set(intern(name), *v);
    }
    made[s.path] = Value(std::make_shared<NamespaceObj>(s.path, env));
  }
  prelude.set(intern("tf"), made["tf"]);
  prelude.set(intern("keras"), made["keras"]);
}

Value libraryNamespace(Env& prelude, const std::string& importSpec) {
  const std::string path = canonicalPath(importSpec);
  if (path.empty()) return Value();
  Value v = *prelude.findLocal(intern(path.substr(0, path.find('.'))));
  for (size_t at = path.find('.'); at != std::string::npos; at = path.find('.', at + 1)) {
    const size_t next = path.find('.', at + 1);
    v = *v.as<NamespaceObj>()->env->findLocal(intern(path.substr(at + 1, next == std::string::npos ? next : next - at - 1)));
  }
  return v;
}

std::optional<std::vector<std::string>> libraryNamespaceMembers(const std::string& importSpec) {
  const std::string path = canonicalPath(importSpec);
  if (path.empty()) return std::nullopt;
  return memberNames(*space(path));
}

}  // namespace weft
