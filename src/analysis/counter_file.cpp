#include "analysis/counter_file.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/roofline_counters.hpp"
#include "support/errors.hpp"
#include "support/trim.hpp"

namespace rpl::analysis {
namespace {

[[noreturn]] void bad(const std::string& path, std::size_t line, const std::string& what) {
  throw Error(ExitCode::Usage, fmt::format("{}:{}: {}", path, line, what));
}

// ncu metric names (dram__bytes_read.sum.per_second), AMD counters (TCC_HIT_sum, with a
// ":device=N" qualifier), rocprofv3 derived counters (GPUBusy): letters, digits and _ . : = [ ].
bool valid_counter_name(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' || c == '=' || c == '[' ||
           c == ']';
  });
}

}  // namespace

std::vector<std::string> CounterFile::all_counters() const {
  std::vector<std::string> out;
  for (const auto& p : passes)
    for (const auto& c : p.counters)
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

std::string CounterFile::where(const std::string& counter) const {
  for (const auto& p : passes)
    if (std::find(p.counters.begin(), p.counters.end(), counter) != p.counters.end())
      return fmt::format("{}:{}", path, p.line);
  return path;
}

CounterFile parse_counter_file(std::string_view text, const std::string& path) {
  CounterFile file;
  file.path = path;
  std::size_t number = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    const auto nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    // "pmc:" (rocprofv3) or "pmc :" (the older rocprof's files).
    std::string_view rest = line;
    if (rest.substr(0, 3) != "pmc") bad(path, number, fmt::format("expected 'pmc: COUNTER ...', found '{}'", line));
    rest = trim(rest.substr(3));
    if (rest.empty() || rest[0] != ':') bad(path, number, fmt::format("expected 'pmc: COUNTER ...', found '{}'", line));
    rest = rest.substr(1);
    CounterFileLine pass;
    pass.line = number;
    std::string word;
    auto flush = [&] {
      if (word.empty()) return;
      if (!valid_counter_name(word))
        bad(path, number, fmt::format("'{}' is not a counter name (letters, digits and _ . : = [ ] only)", word));
      if (std::find(pass.counters.begin(), pass.counters.end(), word) != pass.counters.end())
        bad(path, number, fmt::format("counter '{}' appears twice on this line", word));
      pass.counters.push_back(word);
      word.clear();
    };
    for (char c : rest) {
      if (c == ' ' || c == '\t' || c == ',' || c == '\r') flush();
      else word += c;
    }
    flush();
    if (pass.counters.empty()) bad(path, number, "a 'pmc:' line without counters");
    file.passes.push_back(std::move(pass));
  }
  if (file.passes.empty())
    throw Error(ExitCode::Usage, fmt::format("{}: no 'pmc: COUNTER ...' line (one line per pass; '#' starts a comment)", path));
  return file;
}

std::vector<std::vector<std::string>> plan_amd_counter_passes(const CounterFile& file) {
  std::vector<std::vector<std::string>> out;
  for (const auto& line : file.passes) {
    std::vector<std::pair<std::vector<std::string>, std::map<std::string, int>>> split;  // counters, per-block use
    for (const auto& c : line.counters) {
      const int limit = amd_block_limit(c);
      auto fits = [&](auto& p) { return limit == 0 || p.second[std::string(amd_counter_block(c))] < limit; };
      auto it = std::find_if(split.begin(), split.end(), fits);
      if (it == split.end()) {
        split.emplace_back();
        it = std::prev(split.end());
      }
      it->first.push_back(c);
      ++it->second[std::string(amd_counter_block(c))];
    }
    for (auto& s : split) out.push_back(std::move(s.first));
  }
  return out;
}

std::string rocprofv3_input_text(const std::vector<std::vector<std::string>>& passes, const std::string& source) {
  std::string out = fmt::format("# written by rocm-perf from {}: one application run per pmc line\n", source);
  for (const auto& p : passes) out += fmt::format("pmc: {}\n", fmt::join(p, " "));
  return out;
}

}  // namespace rpl::analysis
