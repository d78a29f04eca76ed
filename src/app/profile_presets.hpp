#pragma once
// `profile --preset NAME`: the madengine guide's eight rocprofv3 tools as one documented table of profile
// settings (docs/profile-presets.md), applied to ProfileOptions before anything runs, and the check that the
// platform present can honour every setting of the preset: a preset that cannot be honoured stops with
// ExitCode::Unsupported and says what is missing; it never collects less than it promises.
//
// Explicit flags and a preset: flags that add collection (--roofline, --deep, --api-stats) add to the
// preset; --counters FILE replaces the preset's counter file (explicit wins, logged); --no-rocprof
// contradicts every preset (usage error).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.hpp"

namespace rpl::app {

struct ProfileOptions;

struct PresetSettings {
  std::string name;                 // "lightweight", ..., as --preset takes it
  std::string madengine_tool;       // the guide's tool it stands for ("rocprofv3_lightweight")
  std::string collects;             // one line, for --help and the docs
  platform::TraceDomains trace;     // what the trace runs record
  std::string counter_file;         // a shipped counter file (share/counters/<arch>/), "" for none
  bool api_stats = false;           // per-API-call statistics in the outputs
  bool perfetto = false;            // also write trace.perfetto.json
  bool trace_json = false;          // also write trace.json (the guide's lightweight JSON trace)
  bool monitor_device = false;      // power, clocks, temperature and memory sampled during the runs
  bool pc_sampling = false;         // where in each kernel the time goes
};

// The eight presets, in the guide's order of cost.
const std::vector<PresetSettings>& profile_presets();
std::vector<std::string> preset_names();
// Throws rpl::Error(Usage) listing the names when `name` is none of them.
const PresetSettings& find_preset(const std::string& name);

// What the platform present can record beyond kernels, copies and API calls. The device monitor and PC
// sampling come from the sampling work (NVML / amd-smi; CUPTI / rocprofv3 PC sampling): true here only
// once their implementation is part of the build.
struct PlatformSupport {
  bool communication_trace = false;
  bool device_monitor = false;
  bool pc_sampling = false;
  std::string communication_unavailable;  // why not, when communication_trace is false
};
PlatformSupport platform_support(platform::Kind kind);

// Sets the preset's settings on `o` (o.preset names it). Explicit settings already on `o` stay (see above);
// throws rpl::Error(Usage) for --no-rocprof.
void apply_preset(const PresetSettings& preset, ProfileOptions& o);
// Throws rpl::Error(Unsupported) naming each setting of `o` that `kind` cannot honour. Checked for every
// profile run with a preset, before the application runs.
void check_platform_support(const ProfileOptions& o, platform::Kind kind, const PlatformSupport& support);

// profile.json "preset": the name and the settings the run used.
nlohmann::json preset_json(const ProfileOptions& o);

// A shipped counter file: its text for `arch` (gfx90a, gfx942, sm_90, ...; a gfx target's ":feature"
// suffixes ignored), or nullopt. The files are compiled in from share/counters/<arch>/<file>.
std::optional<std::string> shipped_counter_file(const std::string& arch, const std::string& file);
std::vector<std::string> shipped_counter_archs();

}  // namespace rpl::app
