// The rocprofv3 ATT (thread trace) output readers: code.json, occupancy JSON, wave timelines, stats CSV.
// The first byte chooses the reader; the rest is the file's text.
#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "analysis/deep_analysis.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  rpl::fuzz::expect_only_rpl_errors([&] {
    std::vector<std::string> notes;
    if (data[0] % 4 == 3) {
      auto code = rpl::analysis::summarize_att_stats_csv(text, "stats.csv", notes);
      (void)rpl::analysis::to_json(rpl::analysis::att_deep_analysis(code, std::nullopt, std::array<double, 5>{}, 64, notes));
      return;
    }
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return;
    switch (data[0] % 4) {
      case 0: {
        auto code = rpl::analysis::summarize_att_code(doc, "code.json", notes);
        auto d = rpl::analysis::att_deep_analysis(code, std::nullopt, std::array<double, 5>{}, 64, notes);
        d.hot_lines = rpl::analysis::att_hot_lines(doc, 20);
        (void)rpl::analysis::att_line_categories(doc);
        (void)rpl::analysis::to_json(d);
        break;
      }
      case 1: (void)rpl::analysis::att_occupancy(doc, notes); break;
      default: {
        std::array<double, 5> cycles{};
        rpl::analysis::add_att_wave_timeline(doc, cycles);
        if (auto w = rpl::analysis::att_wave(doc, {{2, rpl::analysis::InstCategory::Vmem}})) {
          rpl::analysis::DeepAnalysis d;
          d.waves.push_back(*w);
          (void)rpl::analysis::to_json(d);
        }
      }
    }
  });
  return 0;
}
