// What `weft compile` turns into C++: a program's exports, each traced to a graph, and the
// variables their graphs read and write, shared between them (SPEC §9).
#pragma once
#include <string>
#include <vector>

#include "grammar/source.h"
#include "names.h"
#include "interpreter/graph/graph.h"
#include "interpreter/values/tensor.h"

namespace weft::codegen {

struct UnitVariable {
  std::string name;   // "dense/kernel"
  std::string path;   // "d1.kernel" (the object path), or the name when it has none
  std::string ident;  // a C++ identifier, unique in the unit
  Tensor value;       // its value when the program was compiled: the generated class's initial state
  spmd::Placements placements;  // on the unit's mesh, how its blocks lie (empty: replicated)
};

struct ExportGraph {
  std::string name;                     // the class and file names
  graph::Graph graph;                   // after the passes
  std::vector<int> variables;           // per graph slot: its index in CompileUnit::variables
  std::vector<std::string> inputNames;  // per graph input
  std::string source;                   // "mlp.model:12", where export() was called
  SourceRange site;                     // the export() call, where errors about it point
  // On the unit's mesh, `graph` is one device's program (after partitioning) and these say how
  // the global inputs and outputs lie on the mesh (lowerUnit fills them).
  std::vector<spmd::Placements> inputPlacements, outputPlacements;
  std::vector<graph::TensorType> inputTypes, outputTypes;  // the global values' types
};

struct CompileUnit {
  std::string program;  // the namespace of the generated code: the .model file's stem
  std::string sourceFile;
  // The random stream where the program left it: the state's start, so that compiled random ops
  // draw what the program's next eager ones would.
  uint64_t randomKey = 0, randomCounter = 0;
  std::vector<UnitVariable> variables;
  std::vector<ExportGraph> exports;
  // The mesh every export runs SPMD on, one thread per device (SPEC §7.1), when any export's
  // variables or inputs have layouts; empty for code that runs on one device.
  spmd::MeshAxes mesh;
};

}  // namespace weft::codegen
