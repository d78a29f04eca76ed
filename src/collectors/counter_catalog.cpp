#include "collectors/counter_catalog.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/errors.hpp"
#include "support/input_file.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"
#include "support/process.hpp"
#include "support/temp_file.hpp"
#include "support/trim.hpp"

namespace rpl::collectors {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0; pos < text.size();) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::vector<std::string> split_any_of(std::string_view s, std::string_view separators) {
  std::vector<std::string> out;
  std::string word;
  for (char c : s) {
    if (separators.find(c) != std::string_view::npos) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// "KEY   : VALUE" of rocprofv3-avail's agent blocks; nullopt for other lines.
std::optional<std::pair<std::string, std::string>> key_value(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string key(trim(line.substr(0, colon)));
  if (key != "GPU" && key != "CPU" && key != "Name" && key != "PMC") return std::nullopt;
  return std::make_pair(key, std::string(trim(line.substr(colon + 1))));
}

// Runs `argv` with stdout to a temporary file and returns what it printed. A failure throws ProfilerFailed
// with the tool's stderr, except exit status `usage_status`, which is the caller's to explain.
std::string run_and_read(const std::vector<std::string>& argv, const std::string& what) {
  TempFile out((temporary_directory() / "rocm-perf-counters.out").string());
  TempFile err((temporary_directory() / "rocm-perf-counters.err").string());
  ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_file = out.path();
  spec.stderr_file = err.path();
  spec.timeout_s = 120;
  log::debug("running: {}", fmt::join(argv, " "));
  const ProcessResult r = run_process(spec);
  if (!r.ok())
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("{} ({}) {}: {}", what, fmt::join(argv, " "), r.describe(), tail_of_file(err.path())));
  return read_input_file(out.path(), what);
}

std::string require_rocprofv3_avail() {
  if (auto path = find_executable("rocprofv3-avail")) return *path;
  throw Error(ExitCode::ProfilerFailed,
              "rocprofv3-avail was not found on PATH: it lists the counters of the GPU (ROCm 7.x's rocprofiler-sdk "
              "installs it in /opt/rocm/bin)");
}

std::string require_cupti_metrics_tool() {
  if (auto path = find_cupti_metrics_tool()) return *path;
  throw Error(ExitCode::ProfilerFailed,
              fmt::format("rpl_cupti_metrics (the CUPTI metric enumeration) is not in {}: build rocm-perf with CUPTI, "
                          "or set RPL_CUPTI_METRICS to its path",
                          libexec_locations()));
}

std::vector<std::string> device_args(int device) { return {"--device", std::to_string(device)}; }

}  // namespace

std::vector<DeviceCounters> parse_rocprofv3_avail(std::string_view text) {
  std::vector<DeviceCounters> out;
  DeviceCounters* current = nullptr;
  bool in_pmc = false;
  for (std::string_view raw : lines_of(text)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (auto kv = key_value(line)) {
      const auto& [key, value] = *kv;
      if (key == "GPU" || key == "CPU") {
        in_pmc = false;
        current = nullptr;
        if (key == "CPU") continue;  // CPU agents have no counters we can use
        out.emplace_back();
        current = &out.back();
        current->vendor = "amd";
        current->tool = "rocprofv3-avail";
        try {
          current->device = std::stoi(value);
        } catch (const std::exception&) {
          current->device = static_cast<int>(out.size() - 1);
        }
      } else if (current && key == "Name") {
        current->arch = current->chip = value;
        in_pmc = false;
      } else if (current && key == "PMC") {
        in_pmc = true;
        for (auto& n : split_any_of(value, " \t,")) current->counters.push_back({n, "", "", "", {}});
      }
      continue;
    }
    if (current && in_pmc)
      for (auto& n : split_any_of(line, " \t,")) current->counters.push_back({n, "", "", "", {}});
  }
  if (out.empty())
    throw Error(ExitCode::ProfilerFailed, "rocprofv3-avail printed no GPU agent (expected 'GPU : N', 'Name : gfx...', "
                                          "'PMC :' blocks)");
  return out;
}

DeviceCounters parse_cupti_metric_list(std::string_view text) {
  DeviceCounters d;
  d.vendor = "nvidia";
  d.tool = "cupti";
  bool identified = false;
  for (std::string_view line : lines_of(text)) {
    std::vector<std::string> f;
    for (std::size_t pos = 0;;) {
      const auto tab = line.find('\t', pos);
      f.emplace_back(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
      if (tab == std::string_view::npos) break;
      pos = tab + 1;
    }
    if (f[0] == "device" && f.size() >= 4) {
      d.device = std::atoi(f[1].c_str());
      d.chip = f[2];
      d.arch = f[3];
      identified = true;
    } else if (f[0] == "chip" && f.size() >= 2) {
      d.chip = f[1];
      identified = true;
    } else if (f[0] == "metric" && f.size() >= 7) {
      d.counters.push_back({f[1], f[2], f[4], f[6], split_any_of(f[5], ",")});
    }
  }
  if (!identified) throw Error(ExitCode::ProfilerFailed, "rpl_cupti_metrics printed no device line");
  return d;
}

std::vector<std::string> parse_cupti_check(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : lines_of(text))
    if (line.rfind("unsupported\t", 0) == 0) out.emplace_back(trim(line.substr(12)));
  return out;
}

std::optional<std::string> find_cupti_metrics_tool() { return find_libexec("rpl_cupti_metrics", "RPL_CUPTI_METRICS"); }

DeviceCounters list_device_counters(platform::Kind kind, int device) {
  if (device < 0) throw Error(ExitCode::Usage, fmt::format("--device {}: expected a device index (0, 1, ...)", device));
  if (kind == platform::Kind::Cuda) {
    std::vector<std::string> argv{require_cupti_metrics_tool()};
    for (auto& a : device_args(device)) argv.push_back(a);
    argv.push_back("list");
    return parse_cupti_metric_list(run_and_read(argv, "the CUPTI metric enumeration"));
  }
  const std::vector<std::string> argv{require_rocprofv3_avail(), "-d", std::to_string(device), "list", "--pmc"};
  auto agents = parse_rocprofv3_avail(run_and_read(argv, "rocprofv3-avail"));
  for (auto& a : agents)
    if (a.device == device) return std::move(a);
  if (agents.size() == 1) return std::move(agents.front());  // -d selected it; its block may say another index
  throw Error(ExitCode::Usage, fmt::format("rocprofv3-avail lists no GPU {}", device));
}

CounterCheck check_device_counters(platform::Kind kind, int device, const std::vector<std::string>& names) {
  CounterCheck check;
  if (kind == platform::Kind::Cuda) {
    std::vector<std::string> argv{require_cupti_metrics_tool()};
    for (auto& a : device_args(device)) argv.push_back(a);
    argv.push_back("check");
    argv.insert(argv.end(), names.begin(), names.end());
    const std::string text = run_and_read(argv, "the CUPTI metric check");
    check.arch = parse_cupti_metric_list(text).arch;
    check.unsupported = parse_cupti_check(text);
    return check;
  }
  const DeviceCounters d = list_device_counters(kind, device);
  check.arch = d.arch;
  std::set<std::string> known;
  for (const auto& c : d.counters) known.insert(c.name);
  for (const auto& n : names)
    if (!known.count(n.substr(0, n.find(':')))) check.unsupported.push_back(n);
  return check;
}

}  // namespace rpl::collectors
