// Objects that may sit on a reference cycle: the scopes captured by closures and modules, and the
// containers that had a value stored into them (`a.append(a)`). Values are reference counted, so
// the interpreter clears each one still alive when it ends, which frees the cycles.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

namespace weft {

template <class T>
class CycleRoots {
 public:
  void add(const std::shared_ptr<T>& p) {
    if (!roots_.empty() && roots_.back().lock() == p) return;  // the same one, again and again in a loop
    // Drop the dead ones as it grows: a long loop that makes closures must not grow it forever.
    if (roots_.size() >= pruneAt_) {
      std::erase_if(roots_, [](const std::weak_ptr<T>& w) { return w.expired(); });
      pruneAt_ = std::max<size_t>(1024, 2 * roots_.size());
    }
    roots_.push_back(p);
  }
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
