#include "app/profile_presets.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "app/profile.hpp"
#include "app/builtin_counter_files.hpp"  // generated from share/counters/<arch>/*.txt
#include "collectors/collector_factory.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::app {
namespace {

platform::TraceDomains domains(bool copies, bool runtime_api, bool all_api, bool markers, bool communication,
                               bool native_perfetto = false) {
  platform::TraceDomains t;
  t.memory_copies = copies;
  t.runtime_api = runtime_api;
  t.all_api = all_api;
  t.markers = markers;
  t.communication = communication;
  t.native_perfetto = native_perfetto;
  return t;
}

std::vector<PresetSettings> make_presets() {
  std::vector<PresetSettings> p;
  //        name             madengine tool             collects
  p.push_back({"lightweight", "rocprofv3_lightweight",
               "kernels and the runtime API calls only, the lowest overhead; trace.json (the run as JSON trace events)",
               domains(false, true, false, false, false)});
  p.back().trace_json = true;
  p.push_back({"compute", "rocprofv3_compute",
               "kernels, copies, runtime API; compute_bound.txt counters (wave, VALU/SALU/MFMA or SASS/tensor "
               "instruction mix, waits); power and clocks over time",
               domains(true, true, false, false, false), "compute_bound.txt"});
  p.back().monitor_device = true;
  p.push_back({"memory", "rocprofv3_memory",
               "kernels, copies, runtime API; memory_bound.txt counters (cache hits and misses, DRAM traffic, LDS / "
               "shared memory); memory used over time",
               domains(true, true, false, false, false), "memory_bound.txt"});
  p.back().monitor_device = true;
  p.push_back({"communication", "rocprofv3_communication",
               "kernels, copies, runtime API, RCCL calls and markers; scratch memory (AMD); communication_bound.txt "
               "counters (atomics, remote and PCIe traffic); power and memory over time",
               domains(true, true, false, true, true), "communication_bound.txt"});
  p.back().monitor_device = true;
  p.back().trace.scratch_memory = true;  // the guide: RCCL trace, scratch memory
  p.push_back({"full", "rocprofv3_full",
               "every runtime and driver API call, markers, kernels, copies; library calls (library_trace.csv); "
               "full_profile.txt counters; API statistics; Perfetto trace; power and memory over time (high overhead)",
               domains(true, true, true, true, false, true), "full_profile.txt"});
  p.back().api_stats = p.back().perfetto = p.back().monitor_device = true;
  p.back().trace.library_calls = true;
  p.push_back({"perfetto", "rocprofv3_perfetto", "kernels, copies, runtime API and markers, written as a Perfetto trace",
               domains(true, true, false, true, false, true)});
  p.back().perfetto = true;
  p.push_back({"api-overhead", "rocprofv3_api_overhead",
               "every runtime and driver API call and markers, with per-call statistics (count, total, mean, p50, "
               "p99, min, max), like rocprofv3 --stats",
               domains(true, true, true, true, false)});
  p.back().api_stats = true;
  p.push_back({"pc-sampling", "rocprofv3_pc_sampling", "kernels and runtime API; PC sampling of every kernel (hotspots)",
               domains(false, true, false, false, false)});
  p.back().pc_sampling = true;
  return p;
}

std::string base_arch(const std::string& arch) { return arch.substr(0, arch.find(':')); }

}  // namespace

const std::vector<PresetSettings>& profile_presets() {
  static const std::vector<PresetSettings> presets = make_presets();
  return presets;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& p : profile_presets()) out.push_back(p.name);
  return out;
}

const PresetSettings& find_preset(const std::string& name) {
  for (const auto& p : profile_presets())
    if (p.name == name) return p;
  throw Error(ExitCode::Usage, fmt::format("--preset '{}': no such preset (one of: {})", name, fmt::join(preset_names(), ", ")));
}

PlatformSupport platform_support(platform::Kind kind) {
  PlatformSupport s;
  // AMD: rocprofv3 --rccl-trace records RCCL calls. NVIDIA: NCCL has no CUPTI callback domain; our NCCL
  // profiler plugin records its calls (issue 31), when it is installed and the user has not chosen another.
  if (kind == platform::Kind::Rocm) {
    s.communication_trace = true;
  } else {
    const auto nccl = collectors::nccl_call_recording();
    s.communication_trace = nccl.plugin.has_value();
    s.communication_unavailable = nccl.unavailable;
  }
  // The device monitor (NVML / ROCm SMI, collectors/device_monitor) and PC sampling (CUPTI / rocprofv3) exist on
  // both platforms; a missing vendor library is reported when the run starts (exit 8), before any run.
  s.device_monitor = true;
  s.pc_sampling = true;
  return s;
}

void apply_preset(const PresetSettings& preset, ProfileOptions& o) {
  if (o.timing_only)
    throw Error(ExitCode::Usage, fmt::format("--preset {} needs the profiler: it cannot be combined with --no-rocprof",
                                             preset.name));
  o.preset = preset.name;
  const platform::TraceDomains asked = o.trace;  // --library-trace, --scratch-memory-trace add to any preset
  o.trace = preset.trace;
  o.trace.library_calls = o.trace.library_calls || asked.library_calls;
  o.trace.scratch_memory = o.trace.scratch_memory || asked.scratch_memory;
  if (!preset.counter_file.empty()) {
    if (o.counters_file)
      log::info("--counters {} replaces the {} preset's {}", *o.counters_file, preset.name, preset.counter_file);
    else
      o.preset_counter_file = preset.counter_file;
  }
  o.analysis.api_stats = o.analysis.api_stats || preset.api_stats;
  o.perfetto = o.perfetto || preset.perfetto;
  o.trace_json = o.trace_json || preset.trace_json;
  o.monitor_device = o.monitor_device || preset.monitor_device;
  o.pc_sampling = o.pc_sampling || preset.pc_sampling;
}

void check_platform_support(const ProfileOptions& o, platform::Kind kind, const PlatformSupport& support) {
  std::vector<std::string> missing;
  const char* platform = kind == platform::Kind::Cuda ? "NVIDIA (CUDA)" : "AMD (ROCm)";
  if (o.trace.communication && !support.communication_trace)
    missing.push_back(kind == platform::Kind::Cuda
                          ? fmt::format("communication tracing (NCCL calls: {})", support.communication_unavailable)
                          : "communication tracing (RCCL calls)");
  if (o.monitor_device && !support.device_monitor)
    missing.push_back("device monitoring (power, clocks, temperature and memory over time: not in this build)");
  if (o.pc_sampling && !support.pc_sampling) missing.push_back("PC sampling (not in this build)");
  if (missing.empty()) return;
  const std::string what = o.preset.empty() ? std::string("this profile") : fmt::format("--preset {}", o.preset);
  throw Error(ExitCode::Unsupported,
              fmt::format("{} cannot be honoured on {}: it needs {}. Nothing was run (a preset never collects less "
                          "than it promises; choose another preset, see docs/profile-presets.md)",
                          what, platform, fmt::join(missing, "; ")));
}

nlohmann::json preset_json(const ProfileOptions& o) {
  if (o.preset.empty()) return nullptr;
  const auto& t = o.trace;
  nlohmann::json settings = {{"memory_copies", t.memory_copies},
                             {"runtime_api", t.runtime_api},
                             {"all_api", t.all_api},
                             {"markers", t.markers},
                             {"communication", t.communication},
                             {"native_perfetto", t.native_perfetto},
                             {"library_calls", t.library_calls},
                             {"scratch_memory", t.scratch_memory},
                             {"counter_file", o.counters_file      ? nlohmann::json(*o.counters_file)
                                              : o.preset_counter_file.empty() ? nlohmann::json(nullptr)
                                                                              : nlohmann::json(o.preset_counter_file)},
                             {"api_stats", o.analysis.api_stats},
                             {"perfetto", o.perfetto},
                             {"trace_json", o.trace_json},
                             {"monitor_device", o.monitor_device},
                             {"pc_sampling", o.pc_sampling},
                             {"roofline", o.roofline},
                             {"deep", o.deep}};
  return {{"name", o.preset}, {"settings", settings}};
}

std::optional<std::string> shipped_counter_file(const std::string& arch, const std::string& file) {
  const std::string a = base_arch(arch);
  for (const auto& f : kBuiltinCounterFiles)
    if (a == f.arch && file == f.name) return std::string(f.text);
  return std::nullopt;
}

std::vector<std::string> shipped_counter_archs() {
  std::vector<std::string> out;
  for (const auto& f : kBuiltinCounterFiles)
    if (std::find(out.begin(), out.end(), f.arch) == out.end()) out.emplace_back(f.arch);
  return out;
}

}  // namespace rpl::app
