// A scope: names bound in insertion order, with a parent for lexical lookup.
// Function locals, module attributes and globals are all Envs; closures hold them by reference.
#pragma once
#include <memory>
#include <unordered_map>
#include <vector>

#include "../../grammar/ast/symbol.h"
#include "value.h"

namespace weft {

class Env {
 public:
  explicit Env(std::shared_ptr<Env> parent = nullptr) : parent_(std::move(parent)) {}

  // This scope only.
  Value* findLocal(Symbol s) {
    if (index_) {
      auto it = index_->find(s);
      return it == index_->end() ? nullptr : &slots_[it->second].second;
    }
    for (auto& [k, v] : slots_)
      if (k == s) return &v;
    return nullptr;
  }
  // This scope, then the parents.
  Value* find(Symbol s) {
    for (Env* e = this; e; e = e->parent_.get())
      if (Value* v = e->findLocal(s)) return v;
    return nullptr;
  }
  void set(Symbol s, Value v) {
    if (Value* slot = findLocal(s)) {
      *slot = std::move(v);
      return;
    }
    slots_.emplace_back(s, std::move(v));
    if (index_) {
      index_->emplace(s, slots_.size() - 1);
    } else if (slots_.size() > kLinearLimit) {
      index_ = std::make_unique<std::unordered_map<Symbol, size_t>>();
      for (size_t i = 0; i < slots_.size(); ++i) index_->emplace(slots_[i].first, i);
    }
  }
  // Unbinds a local name (a name a graph branch or loop body made, which does not live past it).
  void erase(Symbol s) {
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].first == s) {
        slots_.erase(slots_.begin() + long(i));
        if (index_) {
          index_->clear();
          for (size_t j = 0; j < slots_.size(); ++j) index_->emplace(slots_[j].first, j);
        }
        return;
      }
  }
  const std::vector<std::pair<Symbol, Value>>& entries() const { return slots_; }
  const std::shared_ptr<Env>& parent() const { return parent_; }
  // Moves every binding and the parent link out (the cycle collector frees them afterwards, so
  // that nothing is destroyed while it still walks the objects; cycle_collector.h).
  void release(std::vector<Value>& values, std::vector<std::shared_ptr<Env>>& envs) {
    for (auto& [k, v] : slots_) values.push_back(std::move(v));
    slots_.clear();
    index_.reset();
    if (parent_) envs.push_back(std::move(parent_));
    parent_.reset();
  }
  // Drops every binding and the parent link (breaks reference cycles at exit).
  void clear() {
    slots_.clear();
    index_.reset();
    parent_.reset();
  }

 private:
  static constexpr size_t kLinearLimit = 12;
  std::vector<std::pair<Symbol, Value>> slots_;
  std::unique_ptr<std::unordered_map<Symbol, size_t>> index_;
  std::shared_ptr<Env> parent_;
};

}  // namespace weft
