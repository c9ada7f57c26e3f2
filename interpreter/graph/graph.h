// The graph IR: SSA values with tensor types, nodes keyed by OpId with attributes, and blocks
// (a cond's two branches, a while's condition and body) that nest inside nodes. A block may use
// any value defined before it in an enclosing block. Variables are slots of the graph, read and
// written by read_variable / assign_variable nodes, so a graph never bakes their values in.
// The text form (text.h) prints and parses it exactly; docs/graphs.md describes it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../ops/op_table.h"
#include "../spmd/placement.h"

namespace weft::graph {

using ops::TensorType;
// "f32[None, 784]", as annotations are written.
std::string typeText(const TensorType& t);
// Whether a tensor of shape `actual` fits `t` (equal rank and dtype, equal known dimensions).
bool accepts(const TensorType& t, DType dtype, const Shape& actual);

// Where a node came from in the .model source.
struct Loc {
  std::string file;
  int line = 0;
  bool operator==(const Loc& o) const { return file == o.file && line == o.line; }
};

struct Block;

struct Node {
  ops::OpId op = ops::OpId::Constant;
  std::vector<int> inputs;   // value ids
  std::vector<int> outputs;  // value ids, defined by this node
  ops::Attrs attrs;
  // cond: [then, else], each yielding the node's outputs; while: [cond, body], both taking the
  // loop values as params, cond yielding one bool scalar and body the next loop values.
  std::vector<Block> blocks;
  Loc loc;
  // The module (and name scope) path whose code made the node, "mlp/hidden": pictures group by
  // it as TensorBoard groups by name scope. Not part of the text form.
  std::string scope;
};

struct Block {
  std::vector<int> params;   // value ids bound when the block runs
  std::vector<Node> nodes;
  std::vector<int> results;  // yielded (the graph's outputs for the top block)
};

struct VariableSlot {
  std::string name;  // the variable's path or name, for messages and pictures
  TensorType type;
  std::string scope;  // the scope of its first read or write (Node::scope), for pictures
  // A constant the lift-constants pass moved out of the code, which no program variable holds
  // (C++ target only; the text form does not print it).
  Tensor initial;
  spmd::Placements placements;  // its layout on the graph's mesh (empty: replicated)
};

struct Graph {
  std::string name;
  std::vector<TensorType> values;  // indexed by value id
  // A sharded graph's mesh, and each value's placements on it, indexed by value id (SPEC §7.1);
  // a value past the end of `placements`, or with none, is replicated. Empty mesh: one device.
  spmd::MeshAxes mesh;
  std::vector<spmd::Placements> placements;
  std::vector<VariableSlot> variables;
  Block body;  // params: the inputs; results: the outputs
  // The placements of value `id` (replicated on every mesh dimension when it has none).
  spmd::Placements placementsOf(int id) const {
    if (size_t(id) < placements.size() && !placements[size_t(id)].empty()) return placements[size_t(id)];
    return spmd::Placements(size_t(mesh.rank()));
  }
  int addValue(const TensorType& t) {
    values.push_back(t);
    return int(values.size()) - 1;
  }
};

}  // namespace weft::graph
