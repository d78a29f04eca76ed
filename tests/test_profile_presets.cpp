// Profile presets (app/profile_presets): the table, how a preset combines with explicit flags, the
// platform check, the shipped counter files per architecture, and the rocprofv3 options a preset maps to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "analysis/counter_file.hpp"
#include "analysis/roofline_counters.hpp"
#include "app/profile.hpp"
#include "app/profile_presets.hpp"
#include "collectors/amd/rocprofv3_collector.hpp"
#include "support/errors.hpp"

namespace rpl::app {
namespace {

template <typename F>
std::string error_of(F&& f, ExitCode expected) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

ProfileOptions with(const std::string& name, ProfileOptions o = {}) {
  apply_preset(find_preset(name), o);
  return o;
}

TEST(Presets, TheGuidesEightToolsByName) {
  const std::vector<std::string> expected = {"lightweight", "compute",  "memory",       "communication",
                                             "full",        "perfetto", "api-overhead", "pc-sampling"};
  EXPECT_EQ(preset_names(), expected);
  for (const auto& p : profile_presets()) {
    EXPECT_EQ(p.madengine_tool, "rocprofv3_" + std::string(p.name == "api-overhead" ? "api_overhead"
                                                            : p.name == "pc-sampling" ? "pc_sampling"
                                                                                      : p.name));
    EXPECT_FALSE(p.collects.empty());
  }
  const std::string e = error_of([] { find_preset("heavy"); }, ExitCode::Usage);
  EXPECT_NE(e.find("'heavy'"), std::string::npos) << e;
  EXPECT_NE(e.find("api-overhead"), std::string::npos) << e;  // the names are listed
}

TEST(Presets, WhatEachSets) {
  const auto light = with("lightweight");
  EXPECT_EQ(light.preset, "lightweight");
  EXPECT_FALSE(light.trace.memory_copies);
  EXPECT_TRUE(light.trace.runtime_api);
  EXPECT_FALSE(light.trace.all_api);
  EXPECT_TRUE(light.preset_counter_file.empty());
  EXPECT_TRUE(light.trace_json);
  EXPECT_FALSE(with("perfetto").trace_json);
  EXPECT_FALSE(light.analysis.api_stats || light.perfetto || light.monitor_device || light.pc_sampling);

  const auto api = with("api-overhead");
  EXPECT_TRUE(api.trace.all_api);
  EXPECT_TRUE(api.trace.markers);
  EXPECT_TRUE(api.analysis.api_stats);
  EXPECT_TRUE(api.preset_counter_file.empty());

  EXPECT_EQ(with("compute").preset_counter_file, "compute_bound.txt");
  EXPECT_TRUE(with("compute").monitor_device);
  EXPECT_EQ(with("memory").preset_counter_file, "memory_bound.txt");
  const auto comm = with("communication");
  EXPECT_EQ(comm.preset_counter_file, "communication_bound.txt");
  EXPECT_TRUE(comm.trace.communication);
  const auto full = with("full");
  EXPECT_EQ(full.preset_counter_file, "full_profile.txt");
  EXPECT_TRUE(full.trace.all_api && full.analysis.api_stats && full.perfetto && full.monitor_device);
  EXPECT_TRUE(with("perfetto").perfetto);
  EXPECT_TRUE(with("perfetto").trace.native_perfetto);
  EXPECT_TRUE(with("pc-sampling").pc_sampling);
}

TEST(Presets, ExplicitFlagsAddToAPresetAndCountersReplaceItsFile) {
  ProfileOptions o;
  o.roofline = true;
  o.analysis.api_stats = true;
  o.counters_file = "mine.txt";
  o = with("compute", o);
  EXPECT_TRUE(o.roofline);               // added to
  EXPECT_TRUE(o.analysis.api_stats);     // added to (the preset has none)
  EXPECT_EQ(*o.counters_file, "mine.txt");
  EXPECT_TRUE(o.preset_counter_file.empty());  // explicit wins
  const auto j = preset_json(o);
  EXPECT_EQ(j["name"], "compute");
  EXPECT_EQ(j["settings"]["counter_file"], "mine.txt");
  EXPECT_EQ(j["settings"]["roofline"], true);

  ProfileOptions timing;
  timing.timing_only = true;
  const std::string e = error_of([&] { with("lightweight", timing); }, ExitCode::Usage);
  EXPECT_NE(e.find("--no-rocprof"), std::string::npos) << e;
  EXPECT_TRUE(preset_json(ProfileOptions{}).is_null());
}

TEST(Presets, APresetThePlatformCannotHonourStops) {
  PlatformSupport all{true, true, true};
  for (const auto& p : profile_presets())
    for (auto kind : {platform::Kind::Rocm, platform::Kind::Cuda}) check_platform_support(with(p.name), kind, all);

  // NCCL calls cannot be traced on NVIDIA: communication refuses and names why.
  PlatformSupport no_comm{false, true, true};
  std::string e = error_of([&] { check_platform_support(with("communication"), platform::Kind::Cuda, no_comm); },
                           ExitCode::Unsupported);
  EXPECT_NE(e.find("--preset communication"), std::string::npos) << e;
  EXPECT_NE(e.find("NCCL"), std::string::npos) << e;
  EXPECT_NE(e.find("Nothing was run"), std::string::npos) << e;

  PlatformSupport none{true, false, false};
  e = error_of([&] { check_platform_support(with("pc-sampling"), platform::Kind::Rocm, none); }, ExitCode::Unsupported);
  EXPECT_NE(e.find("PC sampling"), std::string::npos) << e;
  e = error_of([&] { check_platform_support(with("memory"), platform::Kind::Cuda, none); }, ExitCode::Unsupported);
  EXPECT_NE(e.find("device monitoring"), std::string::npos) << e;
  check_platform_support(with("lightweight"), platform::Kind::Cuda, none);  // needs nothing extra
  check_platform_support(with("api-overhead"), platform::Kind::Cuda, none);

  EXPECT_TRUE(platform_support(platform::Kind::Rocm).communication_trace);
}

// NVIDIA's communication preset (issue 33): NCCL's calls through our NCCL profiler plugin. Offered when the
// plugin is found and the user has not chosen another plugin; refused (exit 17) naming why otherwise.
TEST(Presets, NvidiaTracesNcclCallsWhenOurPluginCanBeLoaded) {
  const char* saved_plugin = std::getenv("NCCL_PROFILER_PLUGIN");
  const std::string saved = saved_plugin ? saved_plugin : "";
  unsetenv("NCCL_PROFILER_PLUGIN");
  setenv("RPL_NCCL_PROFILER", "/bin/true", 1);  // any readable file stands for the plugin here
  auto s = platform_support(platform::Kind::Cuda);
  EXPECT_TRUE(s.communication_trace) << s.communication_unavailable;
  check_platform_support(with("communication"), platform::Kind::Cuda, s);

  setenv("NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler.so", 1);
  s = platform_support(platform::Kind::Cuda);
  EXPECT_FALSE(s.communication_trace);
  const std::string e = error_of([&] { check_platform_support(with("communication"), platform::Kind::Cuda, s); },
                                 ExitCode::Unsupported);
  EXPECT_NE(e.find("NCCL_PROFILER_PLUGIN is set (/opt/other/libnccl-profiler.so)"), std::string::npos) << e;
  EXPECT_NE(e.find("--preset communication cannot be honoured"), std::string::npos) << e;
  unsetenv("RPL_NCCL_PROFILER");
  if (saved_plugin) setenv("NCCL_PROFILER_PLUGIN", saved.c_str(), 1);
  else unsetenv("NCCL_PROFILER_PLUGIN");
}

TEST(Presets, EveryPresetCounterFileShipsForEachArchitectureAndParses) {
  const auto archs = shipped_counter_archs();
  for (const char* a : {"gfx90a", "gfx942", "gfx1030", "gfx1100", "sm_90"}) EXPECT_TRUE(has(archs, a)) << a;
  for (const auto& arch : archs)
    for (const char* file : {"compute_bound.txt", "memory_bound.txt", "communication_bound.txt", "full_profile.txt"}) {
      const auto text = shipped_counter_file(arch, file);
      ASSERT_TRUE(text) << arch << "/" << file;
      const auto parsed = analysis::parse_counter_file(*text, arch + "/" + file);
      EXPECT_GE(parsed.passes.size(), 1u);
      if (arch.rfind("gfx", 0) == 0) {
        // Each shipped line already fits one pass: no line is split.
        EXPECT_EQ(analysis::plan_amd_counter_passes(parsed).size(), parsed.passes.size()) << arch << "/" << file;
        for (const auto& c : parsed.all_counters()) EXPECT_EQ(c.find("__"), std::string::npos) << c;
      } else {
        for (const auto& c : parsed.all_counters()) EXPECT_NE(c.find("__"), std::string::npos) << c;  // ncu names
      }
    }
  // gfx942 renamed the L2-to-memory counters: the files follow the architecture.
  auto counters = [](const char* arch) {
    return analysis::parse_counter_file(*shipped_counter_file(arch, "memory_bound.txt"), arch).all_counters();
  };
  EXPECT_TRUE(has(counters("gfx942"), "TCC_EA0_RDREQ_sum"));
  EXPECT_FALSE(has(counters("gfx942"), "TCC_EA_RDREQ_sum"));
  EXPECT_TRUE(has(counters("gfx90a"), "TCC_EA_RDREQ_sum"));
  EXPECT_FALSE(has(counters("gfx90a"), "TCC_EA0_RDREQ_sum"));
  EXPECT_TRUE(shipped_counter_file("gfx90a:sramecc+:xnack-", "compute_bound.txt"));  // target features ignored
  // RDNA ships its own names (GL2C, no FLOP counters); architectures without files still have none.
  EXPECT_TRUE(has(counters("gfx1030"), "GL2C_HIT_sum"));
  EXPECT_TRUE(has(counters("gfx1100"), "GL2C_EA_RDREQ_128B_sum"));
  EXPECT_FALSE(has(counters("gfx1100"), "TCC_HIT_sum"));
  EXPECT_FALSE(shipped_counter_file("gfx1200", "compute_bound.txt"));
  EXPECT_FALSE(shipped_counter_file("gfx942", "nothing.txt"));
}

TEST(Presets, RocprofOptionsPerPreset) {
  auto line = [](const std::string& preset) {
    platform::CollectRequest r;
    r.argv = {"app", "--x"};
    if (!preset.empty()) r.trace = with(preset).trace;
    return collectors::Rocprofv3Collector::command_line(r, "OUT");
  };
  // Without a preset: the command line profile always used.
  EXPECT_EQ(line(""), (std::vector<std::string>{"rocprofv3", "--kernel-trace", "--memory-copy-trace", "--hip-runtime-trace",
                                                "--output-format", "rocpd", "-d", "OUT", "--", "app", "--x"}));
  EXPECT_EQ(line("lightweight"), (std::vector<std::string>{"rocprofv3", "--kernel-trace", "--hip-runtime-trace",
                                                           "--output-format", "rocpd", "-d", "OUT", "--", "app", "--x"}));
  const auto api = line("api-overhead");
  for (const char* f : {"--hip-trace", "--hsa-trace", "--marker-trace", "--memory-copy-trace"}) EXPECT_TRUE(has(api, f)) << f;
  EXPECT_FALSE(has(api, "--hip-runtime-trace"));
  EXPECT_TRUE(has(line("communication"), "--rccl-trace"));
  EXPECT_FALSE(has(line("full"), "--rccl-trace"));
  const auto perfetto = line("perfetto");
  const auto fmt = std::find(perfetto.begin(), perfetto.end(), "--output-format");
  ASSERT_NE(fmt, perfetto.end());
  EXPECT_EQ(*(fmt + 1), "rocpd");
  EXPECT_EQ(*(fmt + 2), "pftrace");
  // Library calls (issue 33): the full (comprehensive) preset records them; --marker-trace carries them.
  EXPECT_TRUE(with("full").trace.library_calls);
  EXPECT_FALSE(with("compute").trace.library_calls);
  ProfileOptions asked;
  asked.trace.library_calls = true;  // --library-trace, then a preset: the preset adds, never takes back
  EXPECT_TRUE(with("lightweight", asked).trace.library_calls);
  EXPECT_FALSE(has(line("lightweight"), "--marker-trace"));
  platform::CollectRequest lib;
  lib.argv = {"app"};
  lib.trace = with("lightweight", asked).trace;
  EXPECT_TRUE(has(collectors::Rocprofv3Collector::command_line(lib, "OUT"), "--marker-trace"));
  // Scratch memory: the communication preset (the guide's "RCCL trace, scratch memory").
  EXPECT_TRUE(with("communication").trace.scratch_memory);
  EXPECT_TRUE(has(line("communication"), "--scratch-memory-trace"));
  EXPECT_FALSE(has(line("full"), "--scratch-memory-trace"));
  // The trailing `--` rule: the application always follows a lone `--`.
  for (const auto& p : preset_names()) {
    const auto l = line(p);
    EXPECT_EQ(l[l.size() - 3], "--") << p;
  }
}

TEST(Presets, LibraryMarkerEnvironmentKeepsTheUsersValues) {
  ::unsetenv("HIPBLASLT_ENABLE_MARKER");
  ::setenv("MIOPEN_ENABLE_LOGGING_ROCTX", "0", 1);  // the user switched MIOpen's markers off: kept
  const auto env = collectors::library_marker_environment();
  ::unsetenv("MIOPEN_ENABLE_LOGGING_ROCTX");
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"HIPBLASLT_ENABLE_MARKER", "1"}));
  EXPECT_EQ(collectors::library_marker_environment().size(), 2u);
}

}  // namespace
}  // namespace rpl::app
