#include "collectors/amd/att_import.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::collectors {
namespace {

namespace fs = std::filesystem;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

nlohmann::json read_json(const fs::path& path) {
  const std::string text = read_input_file(path.string(), "ATT output file");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::InputInvalid, path.string() + ": not valid JSON (" + e.what() + ")");
  }
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// "ui_output_agent_<agent>_dispatch_<id>" -> (agent, id).
bool parse_dispatch_dir(std::string_view name, std::string& agent, int64_t& id) {
  constexpr std::string_view kPrefix = "ui_output_agent_", kMiddle = "_dispatch_";
  if (!starts_with(name, kPrefix)) return false;
  const std::size_t mid = name.rfind(kMiddle);
  if (mid == std::string_view::npos || mid <= kPrefix.size()) return false;
  const std::string_view digits = name.substr(mid + kMiddle.size());
  if (!all_digits(digits) || digits.size() > 18) return false;
  agent = std::string(name.substr(kPrefix.size(), mid - kPrefix.size()));
  id = std::stoll(std::string(digits));
  return true;
}

// "se<N>_sm<N>_sl<N>_wv<N>.json": one traced wave.
bool is_wave_file(std::string_view name) {
  constexpr std::string_view kSuffix = ".json";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) return false;
  name.remove_suffix(kSuffix.size());
  for (std::string_view tag : {"se", "_sm", "_sl", "_wv"}) {
    if (!starts_with(name, tag)) return false;
    name.remove_prefix(tag.size());
    std::size_t n = 0;
    while (n < name.size() && std::isdigit(static_cast<unsigned char>(name[n]))) ++n;
    if (n == 0) return false;
    name.remove_prefix(n);
  }
  return name.empty();
}

std::string read_text(const fs::path& path) {
  return read_input_file(path.string(), "ATT output file");
}

}  // namespace

std::vector<AttDispatchOutput> find_att_outputs(const std::string& root) {
  std::vector<AttDispatchOutput> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw Error(ExitCode::InputMissing, root + ": not a directory");
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_directory(ec)) continue;
    const std::string name = it->path().filename().string();
    AttDispatchOutput o;
    if (!parse_dispatch_dir(name, o.agent, o.dispatch_id)) continue;
    o.path = it->path().string();
    const fs::path stats = it->path().parent_path() / ("stats_" + name + ".csv");
    if (fs::exists(stats, ec)) o.stats_csv = stats.string();
    out.push_back(std::move(o));
    it.disable_recursion_pending();
  }
  std::sort(out.begin(), out.end(), [](const AttDispatchOutput& a, const AttDispatchOutput& b) {
    return a.dispatch_id != b.dispatch_id ? a.dispatch_id < b.dispatch_id : a.path < b.path;
  });
  return out;
}

std::string diagnose_att_root(const std::string& root) {
  if (!find_att_outputs(root).empty()) return {};
  std::size_t raw = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec) && it->path().extension() == ".att") ++raw;
  }
  if (raw > 0)
    return fmt::format("{}: {} raw .att file(s) but no decoded ui_output_agent_*_dispatch_* folder: rocprofv3 did "
                       "not find the rocprof-trace-decoder library (install it and pass --att-library-path or "
                       "ROCPROF_ATT_LIBRARY_PATH), so there is nothing to analyse",
                       root, raw);
  return root + ": no ATT output (no ui_output_agent_*_dispatch_* folder and no .att file)";
}

AttDispatchDocuments read_att_dispatch(const AttDispatchOutput& output) {
  const fs::path dir(output.path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ExitCode::InputMissing, output.path + ": not a directory");
  AttDispatchDocuments docs;
  docs.path = output.path;
  const fs::path code_json = dir / "code.json";
  if (fs::exists(code_json, ec)) {
    docs.code_file = code_json.string();
    docs.code = read_json(code_json);
  } else if (!output.stats_csv.empty()) {
    docs.stats_csv_file = output.stats_csv;
    docs.stats_csv = read_text(output.stats_csv);
  }
  const fs::path occ = dir / "occupancy.json";
  if (fs::exists(occ, ec)) docs.occupancy = read_json(occ);
  std::vector<fs::path> waves;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec) && is_wave_file(entry.path().filename().string())) waves.push_back(entry.path());
  std::sort(waves.begin(), waves.end());
  for (const auto& w : waves) docs.waves.push_back(read_json(w));
  return docs;
}

}  // namespace rpl::collectors
