#include "tensor.h"

#include <cstdlib>
#include <new>
#include <utility>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../../grammar/diagnostics.h"
#include "format.h"

namespace weft {
namespace {

// glibc gives each freed block of 128 KiB or more back to the kernel until the program frees a
// larger one; from then on it keeps blocks up to the largest freed (at most 32 MiB) for reuse.
// Eager ops make and drop blocks of megabytes at every call, so a fresh process paid a page
// fault for every 4 KiB of each: the eager train step of the MLP 784-512-512-10 at batch 64
// took 11 ms, against 3.9 ms with the thresholds where glibc's own rule puts them after such a
// free (docs/internals.md, "Memory from the system"). Set before the first tensor, unless the user set them.
[[maybe_unused]] const bool kFreedBlocksKept = [] {
#ifdef __GLIBC__
  if (!std::getenv("MALLOC_MMAP_THRESHOLD_") && !std::getenv("MALLOC_TRIM_THRESHOLD_") && !std::getenv("GLIBC_TUNABLES")) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);  // twice the other, as glibc's rule sets it
  }
#endif
  return true;
}();

}  // namespace

MemoryLimits& memoryLimits() { return context().limits; }

int64_t liveTensorBytes() { return context().liveBytes->bytes.load(std::memory_order_relaxed); }

void checkValueBytes(int64_t bytes, const char* what) {
  const MemoryLimits& lim = memoryLimits();
  if (bytes > lim.maxTensorBytes)
    throw WeftError(std::string(what) + " would be larger than the limit of " + humanBytes(lim.maxTensorBytes) +
                    " for one value (--max-tensor-bytes)");
  // What a reader or an operator holds while it builds a value counts with the live tensors.
  const int64_t live = liveTensorBytes();
  if (live + bytes > lim.maxLiveBytes)
    throw WeftError(std::string(what) + " would need " + humanBytes(bytes) + ", past the limit of " +
                    humanBytes(lim.maxLiveBytes) + " for all live values (" + humanBytes(live) +
                    " in use; --max-memory)");
}

Storage::Storage(int64_t bytes) : bytes_(bytes) {
  ExecutionContext& c = context();
  const MemoryLimits& lim = c.limits;
  const int64_t live = c.liveBytes->bytes.load(std::memory_order_relaxed);
  if (bytes < 0 || bytes > lim.maxTensorBytes)
    throw WeftError("tensor of " + humanBytes(bytes) + " is larger than the limit of " +
                    humanBytes(lim.maxTensorBytes) + " for one tensor");
  if (live + bytes > lim.maxLiveBytes)
    throw WeftError("allocating " + humanBytes(bytes) + " would exceed the limit of " +
                    humanBytes(lim.maxLiveBytes) + " for all live tensors (" + humanBytes(live) +
                    " in use)");
  size_t rounded = (size_t(bytes) + 63) / 64 * 64;
  data_ = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!data_) throw WeftError("out of memory allocating a tensor of " + humanBytes(bytes));
  live_ = c.liveBytes;
  live_->bytes.fetch_add(bytes, std::memory_order_relaxed);
}

Storage::~Storage() {
  live_->bytes.fetch_sub(bytes_, std::memory_order_relaxed);
  std::free(data_);
}

int64_t checkedBytes(DType dtype, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0) throw WeftError("negative dimension in shape " + shape.str());
  std::optional<int64_t> n = shape.checkedNumel();
  std::optional<int64_t> bytes = n ? rt::sizeMul(*n, int64_t(rt::dtypeSize(dtype))) : std::nullopt;
  if (!bytes)
    throw WeftError("a tensor of shape " + shape.str() + " and dtype " + rt::dtypeName(dtype) + " has more bytes than int64 can count");
  return *bytes;
}

namespace {
thread_local StoragePool* pool = nullptr;  // this thread's, while a StoragePool::Use lasts
}  // namespace

void StoragePool::give(Tensor& t) {
  if (t.ownsStorage() && !t.shards_) free_.push_back(std::move(t.storage_));
  t = Tensor();
}

std::shared_ptr<Storage> StoragePool::take(int64_t bytes) {
  for (auto& s : free_)
    if (s->bytes() == bytes) {
      std::shared_ptr<Storage> got = std::move(s);
      s = std::move(free_.back());
      free_.pop_back();
      return got;
    }
  return nullptr;
}

StoragePool::Use::Use(StoragePool& p) : pool_(p), outer_(std::exchange(pool, &p)) {}

StoragePool::Use::~Use() {
  pool = outer_;
  pool_.clear();
}

Tensor Tensor::empty(DType dtype, const Shape& shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  const int64_t bytes = checkedBytes(dtype, shape);
  if (pool) t.storage_ = pool->take(bytes);
  if (!t.storage_) t.storage_ = std::make_shared<Storage>(bytes);
  return t;
}

Tensor Tensor::zeros(DType dtype, const Shape& shape) {
  Tensor t = empty(dtype, shape);
  std::memset(t.raw(), 0, size_t(t.bytes()));
  return t;
}

Tensor Tensor::abstract(DType dtype, const Shape& shape) {
  // A plan's shapes are bounded as real ones, if not by memory; a traced graph's unknown
  // dimensions (rt::kUnknownDim) count as 1.
  Shape known = shape;
  for (int i = 0; i < known.rank(); ++i)
    if (known[i] == rt::kUnknownDim) known[i] = 1;
  checkedBytes(dtype, known);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  return t;
}

void* Tensor::globalData() const { return shards_ ? shards_->global().raw() : nullptr; }

Tensor Tensor::reshaped(const Shape& shape) const {
  Tensor t = shards_ ? shards_->global() : *this;  // a view of the global value, not of the blocks
  t.tapeId_ = tapeId_;
  t.shape_ = shape;
  t.symbol_ = -1;
  return t;
}

Tensor Tensor::clone() const {
  if (isAbstract()) return *this;
  Tensor t = empty(dtype_, shape_);
  std::memcpy(t.raw(), raw(), size_t(bytes()));
  return t;
}

// A shape-only tensor has no values to read: a clear error rather than a null dereference.
static void needData(const Tensor& t) {
  if (t.isAbstract())
    throw WeftError("the value of a shape-only tensor " + std::string(rt::dtypeName(t.dtype())) + t.shape().str() +
                    " is not known (a plan runs on shapes alone)");
}

double Tensor::asDouble(int64_t i) const {
  needData(*this);
  return rt::dispatch(dtype_, [&](auto tag) -> double { return double(data<decltype(tag)>()[i]); });
}

int64_t Tensor::asInt(int64_t i) const {
  needData(*this);
  return rt::dispatch(dtype_, [&](auto tag) -> int64_t { return int64_t(data<decltype(tag)>()[i]); });
}

void requireLiveTrace(const Tensor& t) {
  if (!t.isSymbolic()) return;
  const ExecutionContext& c = context();
  for (uint32_t live : c.liveTraces)
    if (live == t.trace()) return;
  const std::string fn = t.trace() - 1 < c.traceNames.size() ? c.traceNames[t.trace() - 1] : "a graph function";
  throw WeftError("this tensor is a placeholder of the graph traced for " + fn +
                  "(), kept past its trace by a closure, a default argument or a module made while tracing; "
                  "return the value from " + fn + "() instead");
}

}  // namespace weft
