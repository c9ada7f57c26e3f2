// Objects that may sit on a reference cycle: the scopes captured by closures and modules, and the
// containers that had a value stored into them (`a.append(a)`). Values are reference counted;
// the cycle collector (cycle_collector.h) starts from these to free the cycles nothing else
// holds, and the interpreter clears each one still alive when it ends.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

namespace weft {

template <class T>
class CycleRoots {
 public:
  // True when p was added (not the same as the last one).
  bool add(const std::shared_ptr<T>& p) {
    if (!roots_.empty() && !roots_.back().owner_before(p) && !p.owner_before(roots_.back()))
      return false;  // the same one, again and again in a loop
    // Drop the dead ones as it grows: a long loop that makes closures must not grow it forever.
    if (roots_.size() >= pruneAt_) {
      std::erase_if(roots_, [](const std::weak_ptr<T>& w) { return w.expired(); });
      pruneAt_ = std::max<size_t>(1024, 2 * roots_.size());
    }
    roots_.push_back(p);
    return true;
  }
  // Calls f(raw pointer, strong count) for each live one, taking no reference of its own.
  template <class F>
  void forEachCounted(F f) {
    for (auto& w : roots_) {
      const long count = w.use_count();
      if (count == 0) continue;
      T* p = w.lock().get();  // the temporary reference ends here: count is without it
      f(p, count);
    }
  }
  void prune() {
    std::erase_if(roots_, [](const std::weak_ptr<T>& w) { return w.expired(); });
    pruneAt_ = std::max<size_t>(1024, 2 * roots_.size());
  }
  size_t size() const { return roots_.size(); }
  template <class F>
  void forEachAlive(F f) {
    for (auto& w : roots_)
      if (auto p = w.lock()) f(*p);
  }

 private:
  std::vector<std::weak_ptr<T>> roots_;
  size_t pruneAt_ = 1024;
};

}  // namespace weft
