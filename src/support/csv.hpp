#pragma once
// Minimal CSV reading for tool outputs (ncu, rocprofv3 ATT stats): one record per line, fields separated
// by ',', optionally quoted with '"', a quote inside a quoted field written as "". A record never spans
// lines: the tools never write a newline inside a field, and a stray quote in unrelated output (an
// application's own prints mixed into the file) then cannot swallow the rest of the file.
#include <string>
#include <string_view>
#include <vector>

namespace rpl {

std::vector<std::string> split_csv_line(std::string_view line);
// Every non-empty line of `text` ('\r' before '\n' dropped), split.
std::vector<std::vector<std::string>> split_csv(std::string_view text);

}  // namespace rpl
