#include "app/capture_sweep.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "support/demangle.hpp"
#include "support/errors.hpp"

namespace rpl::app {

std::vector<capture::SweepEntry> read_sweep_log(const std::filesystem::path& file) {
  std::vector<capture::SweepEntry> entries;
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    try {
      if (j.is_discarded()) throw std::runtime_error("not JSON");
      entries.push_back(capture::sweep_entry_from_json(j));
    } catch (const std::exception& e) {
      throw Error(ExitCode::InputInvalid, fmt::format("{}:{}: malformed sweep entry: {}", file.string(), number, e.what()));
    }
  }
  // One entry per kernel (the last word wins), in order of first launch.
  std::map<std::string, capture::SweepEntry> last;
  for (auto& e : entries) last[e.mangled] = std::move(e);
  std::vector<capture::SweepEntry> out;
  for (auto& [name, e] : last) out.push_back(std::move(e));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  return out;
}

nlohmann::json sweep_index(const std::vector<capture::SweepEntry>& entries, const SweepRun& run) {
  std::map<std::string, uint64_t> counts{{"captured", 0}, {"failed", 0}, {"skipped", 0}, {"not_captured", 0}};
  nlohmann::json kernels = nlohmann::json::array();
  uint64_t bytes = 0;
  for (const auto& e : entries) {
    ++counts[e.status];
    bytes += e.region_bytes;
    kernels.push_back({{"order", e.order},
                       {"kernel", e.mangled},
                       {"demangled", demangle(e.mangled)},
                       {"dir", e.dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.dir)},
                       {"status", e.status},
                       {"reason", e.reason},
                       {"launches_seen", e.launches},
                       {"region_bytes", e.region_bytes}});
  }
  return {{"schema_version", capture::kSweepIndexSchemaVersion},
          {"kind", "capture-index"},
          {"command", run.command},
          {"kernel_regex", run.kernel_regex},
          {"dispatch", run.dispatch},
          {"max_kernels", run.max_kernels},
          {"application", run.application},
          {"summary",
           {{"distinct_kernels", entries.size()}, {"captured", counts["captured"]}, {"failed", counts["failed"]},
            {"skipped", counts["skipped"]}, {"not_captured", counts["not_captured"]}, {"captured_region_bytes", bytes}}},
          {"kernels", kernels}};
}

}  // namespace rpl::app
