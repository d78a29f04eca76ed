#include "report/text_table.hpp"

#include <algorithm>

namespace rpl::report {

TextTable::TextTable(std::vector<TextColumn> columns, std::string name_header, std::size_t indent)
    : columns_(std::move(columns)), name_header_(std::move(name_header)), indent_(indent) {
  for (const auto& c : columns_) {
    std::size_t w = c.header.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    widths_.push_back(w);
  }
}

std::size_t TextTable::fixed_width() const {
  std::size_t w = indent_;
  for (std::size_t wc : widths_) w += wc + 2;
  return w;
}

std::size_t TextTable::fit(std::size_t width, std::size_t min_name, std::size_t longest_name) {
  while (fixed_width() + min_name > width) {
    auto lowest = std::max_element(columns_.begin(), columns_.end(),
                                   [](const TextColumn& a, const TextColumn& b) { return a.priority < b.priority; });
    if (lowest == columns_.end() || lowest->priority == 0) break;
    widths_.erase(widths_.begin() + (lowest - columns_.begin()));
    columns_.erase(lowest);
  }
  stacked_ = fixed_width() + std::min(min_name, longest_name) > width;
  if (stacked_) {
    numbers_indent_ = fixed_width() <= width ? 2 : 0;  // the numbers' line is fixed_width() - 2 wide
    return width > indent_ + 12 ? width - indent_ : 12;
  }
  return width > fixed_width() ? std::max(width - fixed_width(), min_name) : min_name;
}

bool TextTable::shows(std::string_view header) const {
  return std::any_of(columns_.begin(), columns_.end(), [&](const TextColumn& c) { return c.header == header; });
}

namespace {

void cell(std::string& out, std::string_view text, std::size_t width, bool left) {
  const std::size_t pad = width > text.size() ? width - text.size() : 0;
  if (!left) out.append(pad, ' ');
  out += text;
  if (left) out.append(pad, ' ');
  out += "  ";
}

}  // namespace

std::string TextTable::numbers(const std::vector<std::string>& cells) const {
  std::string out(indent_ + numbers_indent_, ' ');
  for (std::size_t c = 0; c < columns_.size(); ++c) cell(out, cells[c], widths_[c], columns_[c].left);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + '\n';
}

std::string TextTable::header() const {
  if (stacked_) {
    std::vector<std::string> headers;
    for (const auto& c : columns_) headers.push_back(c.header);
    return std::string(indent_, ' ') + name_header_ + '\n' + numbers(headers);
  }
  std::string out(indent_, ' ');
  for (std::size_t c = 0; c < columns_.size(); ++c) cell(out, columns_[c].header, widths_[c], columns_[c].left);
  out += name_header_;
  out += '\n';
  return out;
}

std::string TextTable::row(std::size_t i, std::string_view name) const {
  if (stacked_) {
    std::vector<std::string> cells;
    for (const auto& c : columns_) cells.push_back(i < c.cells.size() ? c.cells[i] : "");
    return std::string(indent_, ' ') + std::string(name) + '\n' + numbers(cells);
  }
  std::string out(indent_, ' ');
  for (std::size_t c = 0; c < columns_.size(); ++c)
    cell(out, i < columns_[c].cells.size() ? columns_[c].cells[i] : "", widths_[c], columns_[c].left);
  out += name;
  out += '\n';
  return out;
}

std::size_t longest_text(const std::vector<std::string>& texts) {
  std::size_t n = 0;
  for (const auto& t : texts) n = std::max(n, t.size());
  return n;
}

std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent, std::size_t hang) {
  std::string out;
  std::size_t margin = indent;
  std::string line;
  auto flush = [&] {
    out.append(margin, ' ');
    out += line;
    out += '\n';
    line.clear();
    margin = hang;
  };
  auto room = [&] { return width > margin + 8 ? width - margin : std::size_t{8}; };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(i, end - i);
    i = end;
    if (!line.empty() && line.size() + 1 + word.size() > room()) flush();
    while (word.size() > room()) {  // a word longer than a line (a long name or path): cut it
      if (!line.empty()) flush();
      line = std::string(word.substr(0, room()));
      word.remove_prefix(line.size());
      flush();
    }
    if (word.empty()) continue;
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty() || out.empty()) flush();
  return out;
}

std::string fitted_line(std::string_view line, std::size_t width, std::size_t hang) {
  if (line.size() <= width) return std::string(line) + '\n';
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  return wrap_text(line.substr(indent), width, indent, std::max(indent, hang));
}

}  // namespace rpl::report
