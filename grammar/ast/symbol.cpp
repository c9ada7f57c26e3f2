#include "symbol.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace weft {
namespace {

// One table for the process, shared by interpreters on several threads: interning takes a lock;
// a name is read without one from chunks that never move (a symbol's chunk is published before
// the symbol is handed out).
constexpr size_t kChunkBits = 12, kChunk = size_t(1) << kChunkBits, kChunks = size_t(1) << 14;

struct Table {
  std::mutex lock;
  std::array<std::atomic<std::string*>, kChunks> chunks{};
  size_t count = 0;
  std::unordered_map<std::string_view, Symbol> ids;
  ~Table() {
    for (auto& c : chunks) delete[] c.load();
  }
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

Symbol intern(std::string_view name) {
  Table& t = table();
  std::lock_guard<std::mutex> held(t.lock);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  const size_t s = t.count;
  if (s >= kChunk * kChunks) throw std::length_error("too many distinct names");
  std::string* chunk = t.chunks[s >> kChunkBits].load(std::memory_order_relaxed);
  if (!chunk) {
    chunk = new std::string[kChunk];
    t.chunks[s >> kChunkBits].store(chunk, std::memory_order_release);
  }
  chunk[s & (kChunk - 1)] = std::string(name);
  ++t.count;
  t.ids.emplace(chunk[s & (kChunk - 1)], Symbol(s));
  return Symbol(s);
}

const std::string& symbolName(Symbol s) {
  return table().chunks[s >> kChunkBits].load(std::memory_order_acquire)[s & (kChunk - 1)];
}

}  // namespace weft
