#pragma once
// Terminal tables that fit a width: the name column comes last and takes what the numbers leave; columns of
// lower priority are dropped when the width is short, and when even the numbers that must stay leave the name
// too little, each row's name goes on a line of its own above its numbers. Prose lines are wrapped at spaces.
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
  // the width the name column then has (at least `min_name`). When only priority-0 columns are left and they
  // leave less than `min_name` and than `longest_name` (the longest name the rows will show), the table is
  // stacked: each name on a line of its own, its numbers on the next, and the returned width is the name
  // line's (`width` less the indent). So a table whose names fit beside the numbers keeps one line a row.
  std::size_t fit(std::size_t width, std::size_t min_name, std::size_t longest_name = std::string::npos);
  std::string header() const;                                   // one line, or two when stacked
  std::string row(std::size_t i, std::string_view name) const;  // one line (two when stacked), newline included
  bool shows(std::string_view header) const;                   // whether a column survived fit()
  bool stacked() const { return stacked_; }

 private:
  std::size_t fixed_width() const;  // indent and every column with its separator
  std::string numbers(const std::vector<std::string>& cells) const;  // the numbers' line of a stacked row
  std::vector<TextColumn> columns_;
  std::vector<std::size_t> widths_;
  std::string name_header_;
  std::size_t indent_;
  std::size_t numbers_indent_ = 0;  // stacked: the numbers' extra indent under their name
  bool stacked_ = false;
};

// The longest of `texts` (0 when there are none): what a table's names ask of fit().
std::size_t longest_text(const std::vector<std::string>& texts);

// `text` in lines of at most `width` (words longer than a line are cut): the first line indented by
// `indent` spaces, the following ones by `hang`; each line ends with a newline.
std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent, std::size_t hang);

// One line of aligned text (no newline) kept as it is when it fits `width`, else wrap_text() of it with its own
// leading spaces as the indent and `hang` for the following lines; ends with a newline.
std::string fitted_line(std::string_view line, std::size_t width, std::size_t hang);

}  // namespace rpl::report
