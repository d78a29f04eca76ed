// AMD ATT (rocprofv3 --att) per-dispatch output -> DeepAnalysis. File formats: reference
// amd-profiling-stack.md §5.2; decoder pain points §8 #1-#3.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/deep_analysis.hpp"
#include "support/csv.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"
#include "support/json_optional.hpp"
#include "support/trim.hpp"

namespace rpl::analysis {
namespace {

constexpr std::size_t idx(InstCategory c) { return static_cast<std::size_t>(c); }

// A decoder value, 0 where it is not a number.
double number(const nlohmann::json& v) { return json_number(v).value_or(0); }

void add_line(AttCodeSummary& s, std::string_view isa, double hits, double latency, double stall, double idle) {
  std::string text(trim(isa, kWhitespace));
  if (text.empty() || text[0] == ';') return;  // kernel header rows ("; kernel name") and comments
  if (hits < 0 || latency < 0 || stall < 0 || idle < 0) return;
  const InstCategory c = classify_instruction(text);
  const auto h = static_cast<uint64_t>(std::llround(hits));
  s.hits[idx(c)] += h;
  s.latency[idx(c)] += latency;
  s.stall[idx(c)] += stall;
  s.idle[idx(c)] += idle;
  if (text.starts_with("s_waitcnt")) {
    s.waitcnt_hits += h;
    s.waitcnt_latency += latency;
  }
  ++s.lines;
}

}  // namespace

AttCodeSummary summarize_att_code(const nlohmann::json& doc, const std::string& source, std::vector<std::string>& notes) {
  AttCodeSummary s;
  if (!doc.is_object()) throw Error(ExitCode::InputInvalid, source + ": code.json is not a JSON object");
  auto code = doc.find("code");
  if (code == doc.end() || code->is_null() || (code->is_array() && code->empty())) {
    notes.push_back(source + ": no instructions (\"code\" is null or empty): no wave ran on the traced CU "
                             "(widen --att-shader-engine-mask, change --att-target-cu, or launch more waves)");
    return s;
  }
  if (!code->is_array()) throw Error(ExitCode::InputInvalid, source + ": \"code\" is not an array");
  // Column positions from the header's names; the documented order when there is no header.
  std::size_t isa = 0, hit = 6, latency = 7, stall = 8, idle = 9;
  auto header = doc.find("header");
  if (header != doc.end() && header->is_string()) {
    std::map<std::string, std::size_t> col;
    std::size_t i = 0;
    for (const auto& name : split_csv_line(header->get<std::string>())) col[std::string(trim(name, kWhitespace))] = i++;
    auto need = [&](const char* name, std::size_t& out) {
      auto it = col.find(name);
      if (it == col.end()) throw Error(ExitCode::InputInvalid, source + ": code.json header has no '" + name + "' column");
      out = it->second;
    };
    need("ISA", isa);
    need("Hit", hit);
    need("Latency", latency);
    need("Stall", stall);
    need("Idle", idle);
  } else {
    notes.push_back(source + ": code.json has no header; assumed the documented column order "
                             "(ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle)");
  }
  const std::size_t width = std::max({isa, hit, latency, stall, idle}) + 1;
  std::size_t short_rows = 0;
  for (const auto& row : *code) {
    if (!row.is_array() || row.size() < width || !row[isa].is_string()) {
      ++short_rows;
      continue;
    }
    add_line(s, row[isa].get<std::string>(), number(row[hit]), number(row[latency]), number(row[stall]), number(row[idle]));
  }
  if (short_rows) notes.push_back(fmt::format("{}: {} malformed code row(s) skipped", source, short_rows));
  return s;
}

AttCodeSummary summarize_att_stats_csv(std::string_view text, const std::string& source, std::vector<std::string>& notes) {
  AttCodeSummary s;
  const auto records = split_csv(text);
  if (records.empty()) {
    notes.push_back(source + ": empty stats file");
    return s;
  }
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < records[0].size(); ++i) col[std::string(trim(records[0][i], kWhitespace))] = i;
  for (const char* name : {"Instruction", "Hitcount", "Latency", "Stall", "Idle"})
    if (!col.count(name)) throw Error(ExitCode::InputInvalid, source + ": stats CSV header has no '" + name + "' column");
  const std::size_t inst = col["Instruction"], hit = col["Hitcount"], lat = col["Latency"], st = col["Stall"],
                    idle = col["Idle"];
  const std::size_t width = std::max({inst, hit, lat, st, idle}) + 1;
  auto num = [](const std::string& v) {
    try {
      return std::stod(v);
    } catch (...) {
      return -1.0;  // rejected by add_line
    }
  };
  std::size_t bad = 0;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& rec = records[r];
    if (rec.size() < width) {
      ++bad;
      continue;
    }
    add_line(s, rec[inst], num(rec[hit]), num(rec[lat]), num(rec[st]), num(rec[idle]));
  }
  if (bad) notes.push_back(fmt::format("{}: {} malformed row(s) skipped", source, bad));
  if (s.lines == 0) notes.push_back(source + ": no instruction rows (header only): no wave ran on the traced CU");
  return s;
}

std::optional<AttOccupancy> att_occupancy(const nlohmann::json& doc, std::vector<std::string>& notes) {
  if (!doc.is_object()) return std::nullopt;
  struct Event {
    double time;
    int delta;
  };
  std::map<std::pair<std::string, int64_t>, std::vector<Event>> per_cu;  // (se, cu) -> events
  for (const auto& [key, events] : doc.items()) {
    if (key == "dispatches" || key == "version" || !events.is_array()) continue;
    for (const auto& e : events) {
      if (!e.is_array() || e.size() < 5) continue;
      // A CU index or time that is not a plausible number is a damaged event (found by fuzz/fuzz_att: 1e108
      // does not convert to an integer).
      const double cu = number(e[1]), time = number(e[0]);
      if (!std::isfinite(time) || !(cu >= 0 && cu < 1e6)) continue;
      per_cu[{key, static_cast<int64_t>(cu)}].push_back({time, number(e[4]) != 0 ? +1 : -1});
    }
  }
  if (per_cu.empty()) {
    notes.push_back("occupancy.json has no wave start/end events");
    return std::nullopt;
  }
  AttOccupancy out;
  double mean_sum = 0;
  bool clamped = false;
  for (auto& [cu, events] : per_cu) {
    // Ends before starts at the same time, so a wave that replaces another does not count twice.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return a.time != b.time ? a.time < b.time : a.delta < b.delta;
    });
    int resident = 0;
    double area = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (i > 0) area += resident * (events[i].time - events[i - 1].time);
      resident += events[i].delta;
      if (resident < 0) {  // an end whose start was before the trace began
        resident = 0;
        clamped = true;
      }
      out.peak_waves_per_cu = std::max<uint32_t>(out.peak_waves_per_cu, static_cast<uint32_t>(resident));
    }
    const double span = events.back().time - events.front().time;
    if (span > 0) {
      mean_sum += area / span;
      ++out.cus;
    }
  }
  if (clamped) notes.push_back("occupancy.json has wave ends without starts (trace began mid-wave); counted from zero");
  if (out.cus == 0) {
    notes.push_back("occupancy.json events span no time");
    return std::nullopt;
  }
  out.mean_waves_per_cu = mean_sum / static_cast<double>(out.cus);
  return out;
}

void add_att_wave_timeline(const nlohmann::json& wave_doc, std::array<double, 5>& state_cycles) {
  const nlohmann::json* wave = &wave_doc;
  if (auto it = wave_doc.find("wave"); it != wave_doc.end() && it->is_object()) wave = &*it;
  auto timeline = wave->find("timeline");
  if (timeline == wave->end() || !timeline->is_array()) return;
  for (const auto& entry : *timeline) {
    if (!entry.is_array() || entry.size() < 2) continue;
    const double state = number(entry[0]), duration = number(entry[1]);
    if (state >= 0 && state < 5 && duration > 0) state_cycles[static_cast<std::size_t>(state)] += duration;
  }
}

DeepAnalysis att_deep_analysis(const AttCodeSummary& code, const std::optional<AttOccupancy>& occupancy,
                               const std::array<double, 5>& state_cycles, uint32_t max_waves_per_cu,
                               std::vector<std::string> notes) {
  DeepAnalysis d;
  d.source = "att";
  d.notes = std::move(notes);

  uint64_t hits = 0;
  double latency = 0, stall = 0, idle = 0;
  for (std::size_t c = 0; c < kInstCategoryCount; ++c) {
    hits += code.hits[c];
    latency += code.latency[c];
    stall += code.stall[c];
    idle += code.idle[c];
  }
  d.instructions_executed = hits;
  if (hits > 0) {
    for (std::size_t c = 0; c < kInstCategoryCount; ++c) d.instruction_mix[c] = static_cast<double>(code.hits[c]) / hits;
    // Per execution, not per line: a line executed a million times weighs a million times.
    auto per_exec = [&](InstCategory c) -> std::optional<double> {
      if (code.hits[idx(c)] == 0) return std::nullopt;
      return code.latency[idx(c)] / static_cast<double>(code.hits[idx(c)]);
    };
    d.vmem_latency_cycles = per_exec(InstCategory::Vmem);
    d.smem_latency_cycles = per_exec(InstCategory::Smem);
    d.lds_latency_cycles = per_exec(InstCategory::Lds);
    if (code.waitcnt_hits > 0) d.waitcnt_cycles = code.waitcnt_latency / static_cast<double>(code.waitcnt_hits);
    d.notes.push_back("ATT instruction counts sample the traced CUs only and the decoder can drop records on large "
                      "traces: they are used as proportions, never as totals");
  }
  // Stall share of issue time: latency already includes the stall (latency = stall + issue), so the
  // cycles an instruction costs are latency + idle (idle: the gap before it).
  if (latency + idle > 0 && stall > 0) {
    for (std::size_t c = 0; c < kInstCategoryCount; ++c)
      if (code.stall[c] > 0)
        d.stall_breakdown.push_back({to_string(static_cast<InstCategory>(c)), code.stall[c] / stall});
    std::stable_sort(d.stall_breakdown.begin(), d.stall_breakdown.end(),
                     [](const NamedFraction& a, const NamedFraction& b) { return a.fraction > b.fraction; });
    const double memory =
        code.stall[idx(InstCategory::Vmem)] + code.stall[idx(InstCategory::Smem)] + code.stall[idx(InstCategory::Lds)] +
        code.stall[idx(InstCategory::Wait)];
    d.memory_stall_share = memory / stall;
    d.stall_fraction = stall / (latency + idle);
  } else if (latency + idle > 0) {
    d.stall_fraction = 0.0;
  }
  // The per-wave timelines, when present, measure stalled time directly: WAIT + STALL over the wave's
  // non-empty time. They replace the instruction-based estimate.
  static constexpr const char* kStates[5] = {"empty", "idle", "exec", "wait", "stall"};
  const double active = state_cycles[1] + state_cycles[2] + state_cycles[3] + state_cycles[4];
  if (active > 0) {
    for (std::size_t s = 1; s < 5; ++s) d.wave_states.push_back({kStates[s], state_cycles[s] / active});
    d.stall_fraction = (state_cycles[3] + state_cycles[4]) / active;
    d.notes.push_back("stall_fraction from the per-wave state timelines (wait + stall time / wave time)");
  } else if (d.stall_fraction) {
    d.notes.push_back("stall_fraction from code.json: stall cycles / (latency + idle cycles)");
  }
  if (occupancy) {
    d.mean_waves_per_cu = occupancy->mean_waves_per_cu;
    d.peak_waves_per_cu = occupancy->peak_waves_per_cu;
    if (max_waves_per_cu > 0) d.achieved_occupancy = std::min(1.0, occupancy->mean_waves_per_cu / max_waves_per_cu);
  }
  d.available = hits > 0 || occupancy.has_value() || active > 0;
  return d;
}

DeepAnalysis analyze_att_dispatch(const AttDispatchDocuments& documents, uint32_t max_waves_per_cu) {
  std::vector<std::string> notes;
  AttCodeSummary code;
  if (documents.code) {
    code = summarize_att_code(*documents.code, documents.code_file, notes);
  } else if (documents.stats_csv) {
    code = summarize_att_stats_csv(*documents.stats_csv, documents.stats_csv_file, notes);
  } else {
    notes.push_back(documents.path + ": no code.json and no stats CSV: no instruction data");
  }
  std::optional<AttOccupancy> occupancy;
  if (documents.occupancy) occupancy = att_occupancy(*documents.occupancy, notes);
  std::array<double, 5> states{};
  for (const auto& wave : documents.waves) add_att_wave_timeline(wave, states);
  DeepAnalysis d = att_deep_analysis(code, occupancy, states, max_waves_per_cu, std::move(notes));
  // The detail behind the totals: the costliest listing lines, and each wave's own breakdown.
  constexpr std::size_t kHotLines = 20;
  std::map<int64_t, InstCategory> line_categories;
  if (documents.code) {
    d.hot_lines = att_hot_lines(*documents.code, kHotLines);
    line_categories = att_line_categories(*documents.code);
  }
  for (const auto& wave : documents.waves)
    if (auto w = att_wave(wave, line_categories)) d.waves.push_back(std::move(*w));
  std::stable_sort(d.waves.begin(), d.waves.end(), [](const AttWave& a, const AttWave& b) {
    return std::tie(a.shader_engine, a.cu, a.simd, a.slot, a.id) < std::tie(b.shader_engine, b.cu, b.simd, b.slot, b.id);
  });
  if (!d.available) d.notes.push_back(documents.path + ": the ATT output holds no data to analyse");
  return d;
}

}  // namespace rpl::analysis
