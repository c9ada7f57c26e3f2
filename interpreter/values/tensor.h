// The interpreter's tensor: a dtype, a shape and shared, immutable, row-major storage.
// A tensor without storage is abstract: it has a shape and dtype only (memory plans, tracing).
#pragma once
#include <cstring>
#include <memory>
#include <vector>

#include "../../stdlib/runtime/dtype.h"
#include "../../stdlib/runtime/shape.h"
#include "context.h"

namespace weft {

using rt::DType;
using rt::Shape;

// The current execution context's limits and live bytes (context.h).
MemoryLimits& memoryLimits();
int64_t liveTensorBytes();
// Strings and lists are not in the live total, but one of them may not exceed the one-tensor
// limit either: `s = s + s` in a loop would otherwise exhaust memory. Throws WeftError.
void checkValueBytes(int64_t bytes, const char* what);
// The bytes of a tensor of this dtype and shape; an error if a dimension is negative or the count
// overflows int64. Every tensor, with values or shape-only, is made through it, so that numel(),
// bytes() and strides never overflow later.
int64_t checkedBytes(DType dtype, const Shape& shape);

// A 64-byte aligned buffer that counts itself in the live-bytes total of the context it was
// allocated in.
class Storage {
 public:
  explicit Storage(int64_t bytes);  // throws WeftError past the limits
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() const { return data_; }
  int64_t bytes() const { return bytes_; }

 private:
  void* data_;
  int64_t bytes_;
  LiveBytes* live_;
};

class Tensor;

// Buffers that a graph executor gives back before it runs a node: the storage of the node's last
// results, which nothing else holds. While the pool is this thread's (StoragePool::Use),
// Tensor::empty takes a buffer of the same size from it before allocating, so that a kernel
// writes into the memory of its last call: pages touched once, not faulted in and cleared again
// every call. The kernel overwrites what it takes, as it would fresh memory.
class StoragePool {
 public:
  // Keeps t's storage when t is its only holder, and empties t.
  void give(Tensor& t);
  // A kept buffer of exactly `bytes`, or null.
  std::shared_ptr<Storage> take(int64_t bytes);
  void clear() { free_.clear(); }
  // Makes `pool` this thread's for its lifetime; what it keeps is released at the end.
  class Use {
   public:
    explicit Use(StoragePool& pool);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    StoragePool& pool_;
    StoragePool* outer_;
  };

 private:
  std::vector<std::shared_ptr<Storage>> free_;
};

// The blocks of a tensor split over the devices of a mesh (SPEC §7.1; interpreter/spmd/
// sharded_tensor.h keeps them): they are its storage, and its global value is put together only
// when something reads the tensor's data (print, ==, indexing, conversion to Python values).
class Shards {
 public:
  virtual ~Shards() = default;
  // The global value, put together on first use (once, whatever the thread).
  virtual const Tensor& global() const = 0;
  bool abstract = false;  // the blocks have shapes only (a plan runs on shapes alone)
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates uninitialised storage for dtype and shape (throws WeftError when too large).
  static Tensor empty(DType dtype, const Shape& shape);
  static Tensor zeros(DType dtype, const Shape& shape);
  // A shape-only tensor that holds no data.
  static Tensor abstract(DType dtype, const Shape& shape);
  // A value of the graph being traced (interpreter/graph/): abstract, with the id of the graph
  // value it stands for and the trace that made it (ExecutionContext::traces when it began). Its
  // shape may hold rt::kUnknownDim (a `None` dimension).
  static Tensor symbolic(DType dtype, const Shape& shape, int id, uint32_t trace) {
    Tensor t = abstract(dtype, shape);
    t.symbol_ = id;
    t.trace_ = trace;
    return t;
  }
  template <class T>
  static Tensor scalar(T v) {
    Tensor t = empty(rt::DTypeOf<T>::value, Shape{});
    *t.data<T>() = v;
    return t;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t numel() const { return shape_.numel(); }
  int64_t bytes() const { return numel() * int64_t(rt::dtypeSize(dtype_)); }
  bool isAbstract() const { return storage_ == nullptr && (shards_ == nullptr || shards_->abstract); }
  // Holds its data in one buffer of its own: neither abstract nor sharded.
  bool isWhole() const { return storage_ != nullptr; }
  bool isSymbolic() const { return symbol_ >= 0; }
  int symbol() const { return symbol_; }
  uint32_t trace() const { return trace_; }
  // The value of a gradient tape (interpreter/autodiff/tape.h) this handle stands for, 0 for
  // none: set on the results of ops and the variable reads a tape records. It belongs to the
  // handle, not the storage (a reshape shares storage but is another value).
  int64_t tapeId() const { return tapeId_; }
  void setTapeId(int64_t id) { tapeId_ = id; }

  template <class T>
  T* data() const { return static_cast<T*>(raw()); }
  void* raw() const { return storage_ ? storage_->data() : globalData(); }

  // A tensor stored as its devices' blocks (interpreter/spmd/sharded_tensor.h), or null.
  static Tensor sharded(DType dtype, const Shape& shape, std::shared_ptr<const Shards> shards) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = shape;
    t.shards_ = std::move(shards);
    return t;
  }
  const Shards* shards() const { return shards_.get(); }

  // The same data under another shape of equal size (no copy).
  Tensor reshaped(const Shape& shape) const;
  // A deep copy, so that the result can be written.
  Tensor clone() const;
  // Element i converted to double / int64 (any dtype); for scalars, printing and indices.
  double asDouble(int64_t i = 0) const;
  int64_t asInt(int64_t i = 0) const;
  bool sharesStorage(const Tensor& o) const { return storage_ == o.storage_ && shards_ == o.shards_; }
  // No other tensor holds this storage: it may be overwritten (a graph executor's buffers).
  bool ownsStorage() const { return storage_ && storage_.use_count() == 1; }
  // How many tensors hold this storage (0 when it has none).
  long storageUsers() const { return storage_.use_count(); }

 private:
  void* globalData() const;  // a sharded tensor's global value (null for an abstract tensor)
  DType dtype_ = DType::F32;
  Shape shape_;
  friend class StoragePool;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<const Shards> shards_;
  int symbol_ = -1;
  uint32_t trace_ = 0;
  int64_t tapeId_ = 0;
};

// A symbolic value outlives its trace only by a leak (a closure, a default argument or a module
// made while tracing kept it): using it then is an error naming the function, never a wrong
// number. Throws for such a value; passes every other tensor.
void requireLiveTrace(const Tensor& t);

}  // namespace weft
