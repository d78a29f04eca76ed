// AMD ATT (rocprofv3 --att) in detail: the costliest lines of the decoded code listing (code.json) and where
// each traced wave's time went (se*_sm*_sl*_wv*.json). Formats: reference amd-profiling-stack.md §5.2.
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "analysis/deep_analysis.hpp"
#include "support/csv.hpp"
#include "support/json_optional.hpp"
#include "support/trim.hpp"

namespace rpl::analysis {
namespace {

// A listing's value, -1 where it is not a number (the callers skip such values).
double listing_number(const nlohmann::json& v) { return json_number(v).value_or(-1); }

// Where each column is in a code row: by the header's names, or the documented order without a header.
// LineNumber, Source and Vaddr may be missing (kNone: the line gives -1, "" and 0 for them).
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
struct ListingColumns {
  std::size_t isa = 0, line = 2, source = 3, vaddr = 5, hit = 6, latency = 7, stall = 8, idle = 9;
  bool complete = true;  // false: the header lacks a column the summary needs too (ISA, Hit, Latency, Stall, Idle)
  std::size_t width() const {
    std::size_t w = std::max({isa, hit, latency, stall, idle});
    for (std::size_t optional : {line, source, vaddr})
      if (optional != kNone) w = std::max(w, optional);
    return w + 1;
  }
};

ListingColumns listing_columns(const nlohmann::json& doc) {
  ListingColumns c;
  auto header = doc.find("header");
  if (header == doc.end() || !header->is_string()) return c;
  std::map<std::string, std::size_t> at;
  std::size_t i = 0;
  for (const auto& name : split_csv_line(header->get<std::string>())) at[std::string(trim(name, kWhitespace))] = i++;
  auto take = [&](const char* name, std::size_t& out, bool required) {
    auto it = at.find(name);
    if (it != at.end()) out = it->second;
    else if (required) c.complete = false;
    else out = kNone;
  };
  take("ISA", c.isa, true);
  take("LineNumber", c.line, false);
  take("Source", c.source, false);
  take("Vaddr", c.vaddr, false);
  take("Hit", c.hit, true);
  take("Latency", c.latency, true);
  take("Stall", c.stall, true);
  take("Idle", c.idle, true);
  return c;
}

// Calls `row(isa, columns)` for each instruction row of code.json (not comments, kernel headers or malformed rows).
template <typename Row>
void for_each_listing_row(const nlohmann::json& doc, Row&& row) {
  if (!doc.is_object()) return;
  auto code = doc.find("code");
  if (code == doc.end() || !code->is_array()) return;
  const ListingColumns c = listing_columns(doc);
  if (!c.complete) return;  // summarize_att_code refuses such a listing with its reason
  for (const auto& r : *code) {
    if (!r.is_array() || r.size() < c.width() || !r[c.isa].is_string()) continue;
    const std::string isa(trim(r[c.isa].get<std::string>(), kWhitespace));
    if (isa.empty() || isa[0] == ';') continue;
    row(isa, r, c);
  }
}

int64_t integer_or(const nlohmann::json& v, int64_t fallback) {
  const double d = listing_number(v);
  return d >= 0 && d < 9e15 ? static_cast<int64_t>(d) : fallback;
}

}  // namespace

std::vector<AttHotLine> att_hot_lines(const nlohmann::json& code_doc, std::size_t top) {
  std::vector<AttHotLine> lines;
  double total = 0;
  for_each_listing_row(code_doc, [&](const std::string& isa, const nlohmann::json& r, const ListingColumns& c) {
    const double hits = listing_number(r[c.hit]), latency = listing_number(r[c.latency]),
                 stall = listing_number(r[c.stall]), idle = listing_number(r[c.idle]);
    if (hits < 0 || hits > 1e18 || latency < 0 || stall < 0 || idle < 0 || !std::isfinite(latency + idle + stall))
      return;
    AttHotLine l;
    l.isa = isa;
    l.category = classify_instruction(isa);
    if (c.line != kNone) l.line = integer_or(r[c.line], -1);
    if (c.source != kNone && r[c.source].is_string()) l.source = r[c.source].get<std::string>();
    if (c.vaddr != kNone) l.vaddr = static_cast<uint64_t>(std::max<int64_t>(0, integer_or(r[c.vaddr], 0)));
    l.hits = static_cast<uint64_t>(std::llround(hits));
    l.latency = latency;
    l.stall = stall;
    l.idle = idle;
    total += latency + idle;
    lines.push_back(std::move(l));
  });
  std::stable_sort(lines.begin(), lines.end(), [](const AttHotLine& a, const AttHotLine& b) {
    return a.latency + a.idle > b.latency + b.idle;
  });
  while (!lines.empty() && lines.back().latency + lines.back().idle <= 0) lines.pop_back();  // never executed
  if (lines.size() > top) lines.resize(top);
  for (AttHotLine& l : lines) l.share = total > 0 ? (l.latency + l.idle) / total : 0;
  return lines;
}

std::map<int64_t, InstCategory> att_line_categories(const nlohmann::json& code_doc) {
  std::map<int64_t, InstCategory> out;
  for_each_listing_row(code_doc, [&](const std::string& isa, const nlohmann::json& r, const ListingColumns& c) {
    if (c.line == kNone) return;
    if (const int64_t line = integer_or(r[c.line], -1); line >= 0) out[line] = classify_instruction(isa);
  });
  return out;
}

std::optional<AttWave> att_wave(const nlohmann::json& doc, const std::map<int64_t, InstCategory>& line_categories) {
  if (!doc.is_object()) return std::nullopt;
  auto wave = doc.find("wave");
  if (wave == doc.end() || !wave->is_object()) return std::nullopt;
  AttWave w;
  if (auto name = doc.find("name"); name != doc.end() && name->is_string()) {
    const std::string n = name->get<std::string>();
    if (n.size() > 2 && n.rfind("SE", 0) == 0) w.shader_engine = integer_or(nlohmann::json(n.substr(2)), -1);
  }
  auto field = [&](const char* key, int64_t fallback) {
    auto it = wave->find(key);
    return it == wave->end() ? fallback : integer_or(*it, fallback);
  };
  w.cu = field("cu", -1);
  w.simd = field("simd", -1);
  w.slot = field("slot", -1);
  w.id = field("id", -1);
  w.begin = static_cast<double>(field("begin", 0));
  w.end = static_cast<double>(field("end", 0));
  add_att_wave_timeline(doc, w.state_cycles);
  const double active = w.state_cycles[1] + w.state_cycles[2] + w.state_cycles[3] + w.state_cycles[4];
  if (active > 0) w.stall_fraction = (w.state_cycles[3] + w.state_cycles[4]) / active;

  std::array<double, kInstCategoryCount> by_category{};
  if (auto inst = wave->find("instructions"); inst != wave->end() && inst->is_array()) {
    for (const auto& i : *inst) {
      if (!i.is_array() || i.size() < 5) continue;
      ++w.instructions;
      const double stall = listing_number(i[2]);
      if (!(stall > 0) || !std::isfinite(stall)) continue;
      auto found = line_categories.find(integer_or(i[4], -1));
      const InstCategory c = found == line_categories.end() ? InstCategory::Other : found->second;
      by_category[static_cast<std::size_t>(c)] += stall;
      w.instruction_stall += stall;
    }
  }
  if (w.instruction_stall > 0) {
    for (std::size_t c = 0; c < kInstCategoryCount; ++c)
      if (by_category[c] > 0)
        w.stall_by_category.push_back({to_string(static_cast<InstCategory>(c)), by_category[c] / w.instruction_stall});
    std::stable_sort(w.stall_by_category.begin(), w.stall_by_category.end(),
                     [](const NamedFraction& a, const NamedFraction& b) { return a.fraction > b.fraction; });
  }
  return w;
}

}  // namespace rpl::analysis
