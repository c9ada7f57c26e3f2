// load_csv: a text file of numbers (comma-separated by default) as a [rows, columns] tensor, as
// NumPy's loadtxt/genfromtxt read one. Gzip-compressed files are read too (data_source.h).
#include <charconv>
#include <cstring>
#include <algorithm>
#include <limits>
#include <vector>

#include "../../grammar/diagnostics.h"
#include "../values/format.h"
#include "../values/objects.h"
#include "../eval/args.h"
#include "data.h"
#include "data_source.h"

namespace weft::data {
namespace {

class CsvReader {
 public:
  CsvReader(const std::string& path, const CsvOptions& o) : path_(path), o_(o), src_(ByteSource::open("load_csv", path)) {}

  Tensor read() {
    std::string line;
    while (nextLine(line)) {
      ++lineNo_;
      if (lineNo_ <= o_.skipHeader) continue;
      if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);  // a comment
      parseRow(line);
    }
    if (rows_ == 0) fail(0, "it holds no rows of numbers");
    Tensor t;
    try {
      t = Tensor::empty(o_.dtype, Shape{rows_, cols_});
    } catch (const WeftError& e) {
      fail(0, e.message);
    }
    const int64_t n = rows_ * cols_;
    for (int64_t i = 0; i < n; ++i) {
      switch (o_.dtype) {
        case DType::F32: t.data<float>()[i] = float(floats_[size_t(i)]); break;
        case DType::F64: t.data<double>()[i] = floats_[size_t(i)]; break;
        case DType::I32: t.data<int32_t>()[i] = int32_t(ints_[size_t(i)]); break;
        case DType::I64: t.data<int64_t>()[i] = ints_[size_t(i)]; break;
        case DType::Bool: t.data<bool>()[i] = ints_[size_t(i)] != 0; break;
      }
    }
    return t;
  }

 private:
  [[noreturn]] void fail(int64_t line, const std::string& why) const {
    if (line == 0) throw WeftError("load_csv: cannot load '" + path_ + "': " + why);
    throw WeftError("load_csv: " + path_ + ":" + std::to_string(line) + ": " + why);
  }

  // The next line without its end ('\n', or "\r\n"); false at the end of the file.
  bool nextLine(std::string& line) {
    line.clear();
    for (;;) {
      if (at_ == end_) {
        end_ = src_->read(buf_, sizeof buf_);
        at_ = 0;
        if (end_ == 0) return !line.empty();
      }
      const char* start = buf_ + at_;
      const void* nl = std::memchr(start, '\n', size_t(end_ - at_));
      const int64_t len = nl ? static_cast<const char*>(nl) - start : end_ - at_;
      checkValueBytes(int64_t(line.size()) + len, "a line of a CSV file");
      line.append(start, size_t(len));
      at_ += len;
      if (nl) {
        ++at_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
    }
  }

  static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

  // Calls f(field) for each field of the line; returns how many there were (0: a blank line).
  // Nothing is stored per field, so that a line of a billion commas costs no memory.
  template <class F>
  int64_t forEachField(std::string_view rest, F f) const {
    int64_t n = 0;
    if (!o_.delimiter) {  // runs of whitespace
      size_t i = 0;
      while (i < rest.size()) {
        while (i < rest.size() && isSpace(rest[i])) ++i;
        size_t j = i;
        while (j < rest.size() && !isSpace(rest[j])) ++j;
        if (j > i) f(rest.substr(i, j - i), ++n);
        i = j;
      }
      return n;
    }
    bool blank = true;
    for (char c : rest) blank = blank && isSpace(c);
    if (blank) return 0;
    for (;;) {
      const size_t d = rest.find(*o_.delimiter);
      f(trim(rest.substr(0, d)), ++n);
      if (d == std::string_view::npos) return n;
      rest.remove_prefix(d + 1);
    }
  }

  void parseRow(const std::string& line) {
    // Count first: a ragged row is reported before any of it is parsed or stored.
    const int64_t n = forEachField(line, [](std::string_view, int64_t) {});
    if (n == 0) return;  // a blank line
    if (rows_ == 0) cols_ = n, firstRow_ = lineNo_;
    else if (n != cols_)
      fail(lineNo_, std::to_string(n) + " values where line " + std::to_string(firstRow_) + " has " +
                        std::to_string(cols_) + " (rows must have the same length)");
    // The values held so far, as the vector will hold them after this row (it grows by doubling).
    const bool f = rt::isFloat(o_.dtype);
    const size_t held = f ? floats_.size() : ints_.size(), cap = f ? floats_.capacity() : ints_.capacity();
    const size_t after = held + size_t(n) > cap ? std::max(held + size_t(n), 2 * cap) : cap;
    checkValueBytes(rt::sizeMul(int64_t(after), 8).value_or(std::numeric_limits<int64_t>::max()),
                    "the values of a CSV file");
    forEachField(line, [&](std::string_view f, int64_t column) { parseValue(f, column); });
    ++rows_;
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
  }

  void parseValue(std::string_view f, int64_t column) {
    auto bad = [&](const std::string& why) {
      fail(lineNo_, "column " + std::to_string(column) + ": " +
                        (f.empty() ? std::string("an empty value") : toRepr(makeStr(std::string(f.substr(0, 40))))) +
                        " " + why);
    };
    std::string_view s = f;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    if (rt::isFloat(o_.dtype)) {
      double v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      // Out of range: from_chars leaves v alone; NumPy reads 1e999 as inf and 1e-999 as 0.
      if (ec == std::errc::result_out_of_range && p == s.data() + s.size()) {
        v = std::strtod(std::string(s).c_str(), nullptr);
      } else if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        bad("is not a number");
      }
      floats_.push_back(v);
      return;
    }
    if (o_.dtype == DType::Bool) {
      if (s == "1" || s == "true" || s == "True") ints_.push_back(1);
      else if (s == "0" || s == "false" || s == "False") ints_.push_back(0);
      else bad("is not a bool (0, 1, true or false)");
      return;
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && p == s.data() + s.size() && o_.dtype == DType::I32 &&
         (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())))
      bad(std::string("is out of range for ") + rt::dtypeName(o_.dtype));
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
      bad(std::string("is not an integer (dtype ") + rt::dtypeName(o_.dtype) + ")");
    ints_.push_back(v);
  }

  std::string path_;
  CsvOptions o_;
  std::unique_ptr<ByteSource> src_;
  char buf_[1 << 16];
  int64_t at_ = 0, end_ = 0;
  int64_t lineNo_ = 0, rows_ = 0, cols_ = 0, firstRow_ = 0;
  std::vector<double> floats_;
  std::vector<int64_t> ints_;
};

}  // namespace

Tensor readCsv(const std::string& path, const CsvOptions& options) { return CsvReader(path, options).read(); }

}  // namespace weft::data

namespace weft {

// load_csv(path, delimiter=",", skip_header=0, dtype=f32)
Tensor loadCsvBuiltin(Args& a) {
  ArgReader r(a, "load_csv", {"path", "delimiter?", "skip_header?", "dtype?"});
  data::CsvOptions o;
  if (r.has(1)) {
    const std::string d = r.str(1);
    if (d.size() != 1 || d == "\n" || d == "#" || d == "." || d == "-" || d == "+" || (d[0] >= '0' && d[0] <= '9'))
      r.fail(1, "must be one character that cannot be part of a number or end a line (\",\", \";\", \"\\t\", "
                "or \" \" for runs of spaces and tabs), not " + toRepr(makeStr(d)));
    o.delimiter = d[0] == ' ' ? std::nullopt : std::optional<char>(d[0]);
  }
  const int64_t skip = r.integer(2, 0);
  if (skip < 0) r.fail(2, "must be at least 0, got " + std::to_string(skip));
  o.skipHeader = skip;
  o.dtype = r.dtype(3, DType::F32);
  return data::readCsv(r.str(0), o);
}

}  // namespace weft
