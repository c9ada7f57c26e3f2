// Plain text tables for the layout report and summary()'s layout section: left-aligned
// columns as wide as their widest cell, two spaces apart, as Keras' summary reads.
#pragma once
#include "../values/format.h"  // withCommas, humanBytes
#include <string>
#include <vector>

namespace weft::mesh {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  // The header, a rule of `rule` characters (none when 0) at least `ruleWidth` long, then the
  // rows; each line starts with a space.
  std::string str(char rule = 0, size_t ruleWidth = 0) const;
  size_t width() const;  // of the widest line

 private:
  std::vector<size_t> widths() const;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};


}  // namespace weft::mesh
