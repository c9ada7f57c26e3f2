// A saved model as data (SPEC §8, docs/saved_models.md): its manifest, the verified graph of
// each function and each variable's tensor. readSavedModel is the one entry point that reads a
// folder — the `load` builtin, `weft show`, `weft graph DIR SIG` and a code generator all use
// it — and writeSavedModel the one that writes one, atomically.
#pragma once
#include <string>
#include <vector>

#include "../graph/graph.h"
#include "../values/tensor.h"
#include "manifest.h"

namespace weft::saved {

// The largest manifest and graph files the reader takes; the writer refuses to write larger.
constexpr size_t kMaxManifestBytes = size_t(16) << 20;
constexpr size_t kMaxGraphBytes = size_t(64) << 20;

struct SavedModel {
  Manifest manifest;
  std::vector<graph::Graph> graphs;  // one per manifest.functions entry
  std::vector<Tensor> variables;     // one per manifest.variables entry, of its type
  // Files written beside the manifest, which no reader of the folder needs: a Keras model's
  // architecture and optimizer state (keras_metadata.yaml, keras/*.npy) that load_model reads.
  // Each name is relative (folders are made); the contents are written as they are.
  std::vector<std::pair<std::string, std::string>> extraFiles;
  // The function a signature names, or null.
  const FunctionEntry* signature(const std::string& name) const;
  const graph::Graph* signatureGraph(const std::string& name) const;
};

// What to read: `weft show` needs no tensors.
enum class Read { Everything, WithoutVariables };

// Reads and checks everything: the manifest (manifest.h), each graph text (parsed and verified,
// its inputs, outputs and variable slots equal to what the manifest declares) and each .npy file
// (its dtype and shape equal to the manifest's). Every file is looked up inside `dir` only
// (path_safety.h). Any problem is a WeftError: located in the manifest or graph text where it is
// (FILE:LINE:COL, as `weft show` reports it), naming the file otherwise.
SavedModel readSavedModel(const std::string& dir, Read what = Read::Everything);
// The same for a program's call (`load`, `load_model`): an error located in a file of the folder
// is the caller's, "cannot load 'FILE:LINE:COL': WHY", so that it is reported at the call.
SavedModel readSavedModelAtCall(const std::string& dir, Read what = Read::Everything);

// Checks a graph against the function entry that names it (inputs, outputs, variable slots).
void checkGraphMatches(const graph::Graph& g, const FunctionEntry& f, const Manifest& m,
                       const std::shared_ptr<const SourceFile>& file);

// Writes model into a new folder beside `dir`, then renames it into place: a failure leaves
// whatever was at `dir` as it was, and a model saved over another replaces it whole. `dir` may
// not exist, or be an empty folder or a saved model; anything else there is an error.
void writeSavedModel(const std::string& dir, const SavedModel& model);

}  // namespace weft::saved
