#pragma once
// Terminal tables that fit a width: the name column comes last and takes what the numbers leave; columns of
// lower priority are dropped when the width is short. Prose lines are wrapped at spaces.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::report {

struct TextColumn {
  std::string header;
  std::vector<std::string> cells;  // one per row
  int priority = 0;                // 0: always shown; the highest number is dropped first
  bool left = false;               // left-aligned (text) instead of right-aligned (numbers)
};

class TextTable {
 public:
  TextTable(std::vector<TextColumn> columns, std::string name_header, std::size_t indent = 2);
  // Drops columns, highest priority number first, until the name column gets `min_name` of `width`; returns
  // the width the name column then has (at least `min_name` unless only priority-0 columns are left).
  std::size_t fit(std::size_t width, std::size_t min_name);
  std::string header() const;
  std::string row(std::size_t i, std::string_view name) const;  // one line, newline included
  bool shows(std::string_view header) const;                   // whether a column survived fit()

 private:
  std::size_t fixed_width() const;  // indent and every column with its separator
  std::vector<TextColumn> columns_;
  std::vector<std::size_t> widths_;
  std::string name_header_;
  std::size_t indent_;
};

// `text` in lines of at most `width` (words longer than a line are cut): the first line indented by
// `indent` spaces, the following ones by `hang`; each line ends with a newline.
std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent, std::size_t hang);

}  // namespace rpl::report
