// Tensor shapes: a rank of at most kMaxRank, stored inline so that small tensors allocate once.
#ifndef WEFT_RT_SHAPE_H
#define WEFT_RT_SHAPE_H
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace weft::rt {

inline constexpr int kMaxRank = 8;
// A dimension known only when a graph runs (a `None` in a signature); only shapes of graph
// values hold it, never a tensor with data.
inline constexpr int64_t kUnknownDim = -1;

// Checked size arithmetic, for every element count, byte count and summed or multiplied
// dimension that a program controls: nullopt when the result leaves int64 (2**62 * 4), where
// plain arithmetic would wrap (undefined) into a small or negative size.
inline std::optional<int64_t> sizeAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> sizeMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) push_back(d);
  }
  int rank() const { return rank_; }
  int size() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  // Callers check rank() < kMaxRank first (the interpreter reports it as a user error).
  void push_back(int64_t d) { dims_[rank_++] = d; }
  void insert(int at, int64_t d) {
    for (int i = rank_; i > at; --i) dims_[i] = dims_[i - 1];
    dims_[at] = d;
    ++rank_;
  }
  void erase(int at) {
    for (int i = at; i + 1 < rank_; ++i) dims_[i] = dims_[i + 1];
    --rank_;
  }
  const int64_t* begin() const { return dims_.data(); }
  const int64_t* end() const { return dims_.data() + rank_; }
  int64_t back() const { return dims_[rank_ - 1]; }

  // Every tensor's shape passed checkedNumel when it was made, so this cannot overflow.
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }
  // The element count, or nullopt when the dimensions, zeros left out, multiply past int64: a
  // [0, 2**62, 2**62] tensor is empty, but its strides would still wrap (NumPy refuses it too).
  std::optional<int64_t> checkedNumel() const {
    std::optional<int64_t> n = 1;
    bool empty = false;
    for (int i = 0; i < rank_ && n; ++i) {
      empty |= dims_[i] == 0;
      if (dims_[i] != 0) n = sizeMul(*n, dims_[i]);
    }
    if (n && empty) return 0;
    return n;
  }
  bool operator==(const Shape& o) const {
    if (rank_ != o.rank_) return false;
    for (int i = 0; i < rank_; ++i)
      if (dims_[i] != o.dims_[i]) return false;
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  // "[2, 3]", as Weft prints x.shape
  std::string str() const {
    std::string s = "[";
    for (int i = 0; i < rank_; ++i) {
      if (i) s += ", ";
      s += dims_[i] == kUnknownDim ? std::string("None") : std::to_string(dims_[i]);
    }
    return s + "]";
  }

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

// Row-major strides in elements.
inline std::array<int64_t, kMaxRank> stridesOf(const Shape& s) {
  std::array<int64_t, kMaxRank> st{};
  int64_t acc = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

}  // namespace weft::rt

#endif  // WEFT_RT_SHAPE_H
