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

std::size_t TextTable::fit(std::size_t width, std::size_t min_name) {
  while (fixed_width() + min_name > width) {
    auto lowest = std::max_element(columns_.begin(), columns_.end(),
                                   [](const TextColumn& a, const TextColumn& b) { return a.priority < b.priority; });
    if (lowest == columns_.end() || lowest->priority == 0) break;
    widths_.erase(widths_.begin() + (lowest - columns_.begin()));
    columns_.erase(lowest);
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

std::string TextTable::header() const {
  std::string out(indent_, ' ');
  for (std::size_t c = 0; c < columns_.size(); ++c) cell(out, columns_[c].header, widths_[c], columns_[c].left);
  out += name_header_;
  out += '\n';
  return out;
}

std::string TextTable::row(std::size_t i, std::string_view name) const {
  std::string out(indent_, ' ');
  for (std::size_t c = 0; c < columns_.size(); ++c)
    cell(out, i < columns_[c].cells.size() ? columns_[c].cells[i] : "", widths_[c], columns_[c].left);
  out += name;
  out += '\n';
  return out;
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

}  // namespace rpl::report
