// The ONNX reader plugin: a model file's protobuf (Debian's libonnx-dev and libprotobuf) to the
// plain data of interpreter/onnx/model_file.h, and back (export). Loaded by `weft` only when a program imports a
// model (interpreter/onnx/reader.cpp), so that no other process loads libprotobuf.
#include <onnx/onnx_pb.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "interpreter/onnx/model_file.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;

// Protobuf's own limit is 2 GiB; a message nested deeper than this is hostile, not a model.
constexpr int kMaxNesting = 64;
// More elements than this in one tensor is a corrupt header (2^40: 4 TiB of floats).
constexpr int64_t kMaxElements = int64_t(1) << 40;

struct Failure {
  std::string text;
};
[[noreturn]] void fail(std::string text) { throw Failure{std::move(text)}; }

int elementSize(ElemType t) {
  switch (t) {
    case ElemType::Uint8: case ElemType::Int8: case ElemType::Bool: return 1;
    case ElemType::Uint16: case ElemType::Int16: case ElemType::Float16: case ElemType::BFloat16: return 2;
    case ElemType::Float: case ElemType::Int32: case ElemType::Uint32: return 4;
    case ElemType::Int64: case ElemType::Double: case ElemType::Uint64: case ElemType::Complex64: return 8;
    case ElemType::Complex128: return 16;
    case ElemType::Undefined: case ElemType::String: return 0;
  }
  return 0;
}

std::string tensorLabel(const ::onnx::TensorProto& t) {
  return t.name().empty() ? std::string("a tensor") : "tensor '" + t.name() + "'";
}

// The external file's bytes, from a path that must stay inside the model's folder.
std::string readExternal(const ::onnx::TensorProto& t, const fs::path& dir, int64_t want) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& e : t.external_data()) {
    try {
      if (e.key() == "location") location = e.value();
      else if (e.key() == "offset") offset = std::stoll(e.value());
      else if (e.key() == "length") length = std::stoll(e.value());
    } catch (const std::exception&) {
      fail(tensorLabel(t) + ": external data " + e.key() + " '" + e.value() + "' is not a number");
    }
  }
  if (location.empty()) fail(tensorLabel(t) + ": external data without a location");
  if (dir.empty()) fail(tensorLabel(t) + ": external data, but the tensor is not part of a model folder");
  const fs::path rel(location);
  const fs::path base = fs::weakly_canonical(dir);
  const fs::path full = fs::weakly_canonical(base / rel);
  auto [end, _] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (rel.is_absolute() || end != base.end())
    fail(tensorLabel(t) + ": external data '" + location + "' is outside the model's folder");
  if (offset < 0) fail(tensorLabel(t) + ": external data offset is negative");
  if (length >= 0 && length != want)
    fail(tensorLabel(t) + ": external data length " + std::to_string(length) + " does not match its " +
         std::to_string(want) + " bytes");
  std::ifstream in(full, std::ios::binary);
  if (!in) fail(tensorLabel(t) + ": cannot open its external data '" + location + "'");
  std::string bytes(size_t(want), '\0');
  in.seekg(offset);
  if (!in.read(bytes.data(), want)) fail(tensorLabel(t) + ": external data '" + location + "' is too short");
  return bytes;
}

template <class T, class Field>
std::string packed(const Field& field) {
  std::string out(size_t(field.size()) * sizeof(T), '\0');
  for (int i = 0; i < field.size(); ++i) {
    T v = T(field.Get(i));
    std::memcpy(out.data() + size_t(i) * sizeof(T), &v, sizeof(T));
  }
  return out;
}

TensorData tensorData(const ::onnx::TensorProto& t, const fs::path& dir) {
  TensorData out;
  out.name = t.name();
  out.type = ElemType(t.data_type());
  const int size = elementSize(out.type);
  if (size == 0)
    fail(tensorLabel(t) + ": element type " + std::string(elemTypeName(out.type)) + " is not supported");
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) fail(tensorLabel(t) + ": negative dimension " + std::to_string(d));
    if (d > 0 && n > kMaxElements / d) fail(tensorLabel(t) + ": more than 2^40 elements");
    n *= d;
    out.dims.push_back(d);
  }
  const int64_t want = n * size;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    out.bytes = readExternal(t, dir, want);
  } else if (t.has_raw_data()) {
    out.bytes = t.raw_data();
  } else {
    switch (out.type) {
      case ElemType::Float: out.bytes = packed<float>(t.float_data()); break;
      case ElemType::Double: out.bytes = packed<double>(t.double_data()); break;
      case ElemType::Int64: out.bytes = packed<int64_t>(t.int64_data()); break;
      case ElemType::Int32: out.bytes = packed<int32_t>(t.int32_data()); break;
      case ElemType::Uint8: case ElemType::Bool: out.bytes = packed<uint8_t>(t.int32_data()); break;
      case ElemType::Int8: out.bytes = packed<int8_t>(t.int32_data()); break;
      case ElemType::Uint16: case ElemType::Float16: case ElemType::BFloat16:
        out.bytes = packed<uint16_t>(t.int32_data()); break;
      case ElemType::Int16: out.bytes = packed<int16_t>(t.int32_data()); break;
      case ElemType::Uint32: out.bytes = packed<uint32_t>(t.uint64_data()); break;
      case ElemType::Uint64: out.bytes = packed<uint64_t>(t.uint64_data()); break;
      case ElemType::Complex64: out.bytes = packed<float>(t.float_data()); break;
      case ElemType::Complex128: out.bytes = packed<double>(t.double_data()); break;
      case ElemType::Undefined: case ElemType::String: break;
    }
  }
  if (int64_t(out.bytes.size()) != want)
    fail(tensorLabel(t) + ": holds " + std::to_string(out.bytes.size()) + " bytes of data, its shape needs " +
         std::to_string(want));
  return out;
}

ValueInfo valueInfo(const ::onnx::ValueInfoProto& v) {
  ValueInfo out;
  out.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    out.type = ElemType(tt.elem_type());
    if (tt.has_shape()) {
      out.hasShape = true;
      for (const auto& d : tt.shape().dim()) {
        Dim dim;
        if (d.has_dim_value()) dim.size = d.dim_value();
        else dim.param = d.dim_param();
        out.dims.push_back(dim);
      }
    }
  }
  return out;
}

Graph graph(const ::onnx::GraphProto& g, const fs::path& dir);

Attribute attribute(const ::onnx::AttributeProto& a, const fs::path& dir) {
  using A = ::onnx::AttributeProto;
  Attribute out;
  out.name = a.name();
  switch (a.type()) {
    case A::FLOAT: out.kind = Attribute::Kind::Float; out.f = a.f(); break;
    case A::INT: out.kind = Attribute::Kind::Int; out.i = a.i(); break;
    case A::STRING: out.kind = Attribute::Kind::String; out.s = a.s(); break;
    case A::TENSOR: out.kind = Attribute::Kind::Tensor; out.t = tensorData(a.t(), dir); break;
    case A::GRAPH: out.kind = Attribute::Kind::Graph; out.g = std::make_shared<Graph>(graph(a.g(), dir)); break;
    case A::FLOATS: out.kind = Attribute::Kind::Floats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case A::INTS: out.kind = Attribute::Kind::Ints; out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case A::STRINGS: out.kind = Attribute::Kind::Strings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case A::TENSORS: out.kind = Attribute::Kind::Tensors; break;
    case A::GRAPHS: out.kind = Attribute::Kind::Graphs; break;
    default: out.kind = Attribute::Kind::Other; break;
  }
  return out;
}

Graph graph(const ::onnx::GraphProto& g, const fs::path& dir) {
  Graph out;
  out.name = g.name();
  for (const auto& v : g.input()) out.inputs.push_back(valueInfo(v));
  for (const auto& v : g.output()) out.outputs.push_back(valueInfo(v));
  for (const auto& t : g.initializer()) out.initializers.push_back(tensorData(t, dir));
  if (g.sparse_initializer_size()) fail("graph '" + g.name() + "' has sparse initializers, which are not supported");
  for (const auto& n : g.node()) {
    Node node;
    node.name = n.name();
    node.opType = n.op_type();
    node.domain = n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (!a.ref_attr_name().empty()) fail("node '" + n.name() + "': attribute references are not supported");
      node.attributes.push_back(attribute(a, dir));
    }
    out.nodes.push_back(std::move(node));
  }
  return out;
}

// Parses a message from a file with the nesting limit; "" or what went wrong.
template <class Message>
std::string parse(const std::string& path, Message& m) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "cannot open the file";
  bool ok;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream in(&file);
    in.SetRecursionLimit(kMaxNesting);
    ok = m.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!ok) return "not a valid ONNX protobuf (truncated, corrupt, or nested deeper than " + std::to_string(kMaxNesting) + ")";
  return "";
}

std::string readModel(const std::string& path, ModelFile& out) {
  ::onnx::ModelProto m;
  if (std::string e = parse(path, m); !e.empty()) return e;
  if (!m.has_graph()) return "the model has no graph";
  try {
    out.irVersion = m.ir_version();
    out.producer = m.producer_name();
    out.producerVersion = m.producer_version();
    for (const auto& o : m.opset_import()) out.opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
    if (m.functions_size()) fail("the model defines local functions, which are not supported");
    out.graph = graph(m.graph(), fs::path(path).parent_path());
  } catch (const Failure& f) {
    return f.text;
  }
  return "";
}

std::string readTensor(const std::string& path, TensorData& out) {
  ::onnx::TensorProto t;
  if (std::string e = parse(path, t); !e.empty()) return e;
  try {
    out = tensorData(t, fs::path());
  } catch (const Failure& f) {
    return f.text;
  }
  return "";
}

void fillTensor(const TensorData& d, ::onnx::TensorProto& t) {
  t.set_name(d.name);
  t.set_data_type(int32_t(d.type));
  for (int64_t x : d.dims) t.add_dims(x);
  t.set_raw_data(d.bytes);
}

void fillInfo(const ValueInfo& v, ::onnx::ValueInfoProto& out) {
  out.set_name(v.name);
  auto* tt = out.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(int32_t(v.type));
  if (!v.hasShape) return;
  auto* shape = tt->mutable_shape();
  for (const Dim& d : v.dims) {
    auto* dim = shape->add_dim();
    if (d.size >= 0) dim->set_dim_value(d.size);
    else dim->set_dim_param(d.param);
  }
}

void fillGraph(const Graph& g, ::onnx::GraphProto& out) {
  out.set_name(g.name);
  for (const ValueInfo& v : g.inputs) fillInfo(v, *out.add_input());
  for (const ValueInfo& v : g.outputs) fillInfo(v, *out.add_output());
  for (const TensorData& t : g.initializers) fillTensor(t, *out.add_initializer());
  for (const Node& n : g.nodes) {
    auto* node = out.add_node();
    node->set_name(n.name);
    node->set_op_type(n.opType);
    if (!n.domain.empty()) node->set_domain(n.domain);
    for (const auto& i : n.inputs) node->add_input(i);
    for (const auto& o : n.outputs) node->add_output(o);
    for (const Attribute& a : n.attributes) {
      using A = ::onnx::AttributeProto;
      auto* attr = node->add_attribute();
      attr->set_name(a.name);
      switch (a.kind) {
        case Attribute::Kind::Float: attr->set_type(A::FLOAT); attr->set_f(a.f); break;
        case Attribute::Kind::Int: attr->set_type(A::INT); attr->set_i(a.i); break;
        case Attribute::Kind::String: attr->set_type(A::STRING); attr->set_s(a.s); break;
        case Attribute::Kind::Tensor: attr->set_type(A::TENSOR); fillTensor(a.t, *attr->mutable_t()); break;
        case Attribute::Kind::Graph: attr->set_type(A::GRAPH); fillGraph(*a.g, *attr->mutable_g()); break;
        case Attribute::Kind::Floats: attr->set_type(A::FLOATS); for (float f : a.floats) attr->add_floats(f); break;
        case Attribute::Kind::Ints: attr->set_type(A::INTS); for (int64_t i : a.ints) attr->add_ints(i); break;
        case Attribute::Kind::Strings: attr->set_type(A::STRINGS); for (const auto& x : a.strings) attr->add_strings(x); break;
        case Attribute::Kind::Tensors: case Attribute::Kind::Graphs: case Attribute::Kind::Other: break;
      }
    }
  }
}

std::string writeModel(const ModelFile& m, const std::string& path) {
  ::onnx::ModelProto proto;
  proto.set_ir_version(m.irVersion);
  proto.set_producer_name(m.producer);
  proto.set_producer_version(m.producerVersion);
  for (const auto& [domain, version] : m.opsets) {
    auto* o = proto.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }
  fillGraph(m.graph, *proto.mutable_graph());
  // Written beside, then renamed: a failure never leaves half a model where one was.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !proto.SerializeToOstream(&out) || !out.flush()) return "cannot write the file";
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return "cannot write the file (" + ec.message() + ")";
  return "";
}

const ReaderApi kApi{readModel, readTensor, writeModel};

}  // namespace

}  // namespace weft::onnx

extern "C" const weft::onnx::ReaderApi* weft_onnx_reader_api() { return &weft::onnx::kApi; }
