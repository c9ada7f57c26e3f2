// Keras' model containers, written natively because they manage other modules' names, paths
// and graphs: Input, Sequential, Model (functional), and summary().
#pragma once
#include "../eval/hooks.h"
#include "../eval/interpreter.h"

namespace weft {

void registerKeras(Env& env);
// isinstance, issubclass, clear_session (interpreter/builtins/classes.cpp).
void registerClasses(Env& env);
// The Keras summary table of a module (SPEC §5).
// Keras' training methods (compile, fit, evaluate, predict, save, save_weights, load_weights,
// get_layer) on a Sequential or functional model: each calls its Weft half _keras_NAME in
// stdlib/training.model or stdlib/saving.model (interpreter/builtins/training.cpp).
void addTrainingMethods(const std::shared_ptr<ModuleObj>& model);
// model.NAME, one of those methods, bound to `model` (a module of the program's own with a
// `call` has them so, as a subclassed keras.Model has).
Value trainingMethod(const std::string& name, const Value& model);
// isatty(), _overwrite_line(text) (interpreter/builtins/training.cpp).
void registerTerminal(Env& env);
// The callbacks' helpers: _format_filepath, _write_text, _file_has_text, _attach_model.
void registerCallbackHelpers(Env& env);
// Whole-model saving's helpers: _layer_config, _save_keras, _read_keras, _read_weights,
// _functional_config, _keras_object, _construct (interpreter/builtins/keras_saving.cpp).
void registerKerasSaving(Env& env);
std::string summaryTable(Interpreter& in, ModuleObj& m);
// A module's constructor arguments, by parameter name, into `config` (what model.save keeps of a
// layer, and layer.get_config() holds; keras_saving.cpp).
void addConstructorArgs(const ModuleObj& m, DictObj& config);
// Fills hooks.layerAttr: weights, get_weights, set_weights, count_params, output_shape
// (interpreter/builtins/keras_weights.cpp).
void installLayerAttrs(EvalHooks& hooks);

}  // namespace weft
