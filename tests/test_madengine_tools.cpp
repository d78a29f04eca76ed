// examples/madengine/: the tool definitions and configurations that run rocm-perf as a madengine profiling
// tool. Every command must end with the trailing `--` (madengine appends the model's command), its options
// must be ones rocm-perf accepts, every configuration must name a defined tool, and the post-script must
// turn a profile's run into the CSV and Perfetto files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using rpl::test::TempDir;

namespace {

const std::string kDir = std::string(RPL_SOURCE_DIR) + "/examples/madengine";

json load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  return json::parse(in);
}

bool ends_with_separator(const std::string& cmd) { return cmd.size() >= 3 && cmd.substr(cmd.size() - 3) == " --"; }

}  // namespace

TEST(MadengineTools, EveryCommandEndsWithTheSeparatorAndRunsRocmPerfProfile) {
  json tools = load(kDir + "/tools.json")["tools"];
  ASSERT_GE(tools.size(), 8u);
  for (const auto& [name, tool] : tools.items()) {
    std::string cmd = tool["cmd"];
    EXPECT_EQ(cmd.rfind("rocm-perf profile ", 0), 0u) << name;
    EXPECT_TRUE(ends_with_separator(cmd)) << name << ": madengine appends the model's command after `--`";
    EXPECT_TRUE(tool.contains("env_vars") && tool.contains("pre_scripts") && tool.contains("post_scripts")) << name;
    for (const auto& post : tool["post_scripts"]) {
      std::string path = post["path"];
      // Installed into madengine as scripts/common/tools/rocm-perf/<file> from examples/madengine/scripts/.
      EXPECT_TRUE(fs::exists(kDir + "/scripts/" + fs::path(path).filename().string())) << name << ": " << path;
    }
  }
  // The guide's eight profiles, by their rocm-perf names.
  for (const char* name : {"rocm_perf_lightweight", "rocm_perf_compute", "rocm_perf_memory", "rocm_perf_communication",
                           "rocm_perf_full", "rocm_perf_perfetto", "rocm_perf_api_overhead", "rocm_perf_pc_sampling"})
    EXPECT_TRUE(tools.contains(name)) << name;
}

TEST(MadengineTools, ConfigurationsNameDefinedToolsOrGiveTheirOwnCommand) {
  json tools = load(kDir + "/tools.json")["tools"];
  int configs = 0;
  for (const auto& entry : fs::directory_iterator(kDir + "/configs")) {
    ++configs;
    json config = load(entry.path().string());
    ASSERT_TRUE(config.contains("tools")) << entry.path();
    for (const auto& tool : config["tools"]) {
      EXPECT_TRUE(tools.contains(tool["name"])) << entry.path() << ": " << tool["name"];
      if (tool.contains("cmd")) {
        EXPECT_TRUE(ends_with_separator(tool["cmd"])) << entry.path();
      }
    }
  }
  EXPECT_GE(configs, 3);
}

// Each command as madengine runs it (through a shell, the model's command appended) parses: a wrong option
// would be a usage error (exit 2) before anything runs. Commands with --preset need the preset support.
TEST(MadengineTools, CommandsParseAsRocmPerfOptions) {
  json tools = load(kDir + "/tools.json")["tools"];
  bool has_preset = rpl::test::run_cli({"profile", "--help"}).out.find("--preset") != std::string::npos;
  int checked = 0, skipped = 0;
  for (const auto& [name, tool] : tools.items()) {
    std::string cmd = tool["cmd"];
    if (cmd.find("--preset") != std::string::npos && !has_preset) {
      ++skipped;
      continue;
    }
    TempDir dir;
    std::string args = cmd.substr(std::string("rocm-perf").size());
    int status = 0;
    std::string out = rpl::test::run_shell("cd '" + dir.path().string() + "' && '" +
                                               RPL_CLI_PATH + "'" + args + " /bin/true 2>&1",
                                           &status);
    EXPECT_NE(status, 2) << name << ": " << out;
    ++checked;
  }
  if (skipped) std::printf("skipped %d --preset tools: this rocm-perf has no --preset\n", skipped);
  EXPECT_GE(checked, 5);
}

TEST(MadengineTools, PostScriptWritesCsvAndPftraceFromTheRepresentativeRun) {
  TempDir dir;
  fs::path out = dir.path() / "rocm_perf_output";
  fs::create_directories(out / "runs" / "run-2");
  rpl::test::FixtureSpec spec;
  spec.file_name = "node01_4242_results.db";
  rpl::test::make_fixture_db(out / "runs" / "run-2", spec);
  std::ofstream(out / "profile.json") << R"({"schema_version": 1, "runs": {"representative_run": 2}})";
  int status = 0;
  std::string log = rpl::test::run_shell("ROCM_PERF='" + std::string(RPL_CLI_PATH) + "' bash '" + kDir +
                                             "/scripts/rocm_perf_post.sh' '" + out.string() + "' 2>&1",
                                         &status);
  EXPECT_EQ(status, 0) << log;
  EXPECT_TRUE(fs::exists(out / "csv" / "kernel_trace.csv")) << log;
  EXPECT_TRUE(fs::exists(out / "csv" / "hip_api_trace.csv")) << log;
  EXPECT_GT(fs::file_size(out / "trace.pftrace"), 0u) << log;

  // No profile: a clear message and a failure, not an empty export.
  std::string missing = rpl::test::run_shell("bash '" + kDir + "/scripts/rocm_perf_post.sh' '" +
                                                 (dir.path() / "nothing").string() + "' 2>&1",
                                             &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(missing.find("profile.json not found"), std::string::npos) << missing;
}

// Issue 33: every configuration, the madengine guide's six (rocprofv3_compute_bound, _memory_bound, _multi_gpu,
// _comprehensive, _lightweight, _multinode) and ours, run once end to end through tools.json by a stand-in
// madengine of the documented form (tests/doubles/fake_madengine.py), with the rocprofv3, rocprofv3-avail and
// ROCm SMI stand-ins as the AMD machine. The outputs each configuration promises are checked.
namespace {

struct MadengineRun {
  int status = -1;
  std::string log;
  fs::path out;  // <workdir>/rocm_perf_output
};

MadengineRun run_madengine(const TempDir& dir, const std::vector<std::string>& args) {
  const fs::path bin = dir.path() / "bin", work = dir.path() / "work";
  fs::create_directories(bin);
  fs::create_directories(work);
  if (!fs::exists(bin / "rocm-perf")) fs::create_symlink(RPL_CLI_PATH, bin / "rocm-perf");
  std::string command = "cd '" + work.string() + "' && PATH='" + bin.string() + ":" + RPL_TEST_DOUBLES_DIR + ":" +
                        std::getenv("PATH") + "' FAKE_MADENGINE_TOOLS='" + kDir + "/tools.json' FAKE_MADENGINE_SCRIPTS='" +
                        kDir + "/scripts' FAKE_ROCPROFV3_ARGV_LOG='" + dir.file("rocprofv3.argv") +
                        "' FAKE_ROCPROFV3_KERNELS='gemm(float*):3:20000' RPL_ROCM_SMI_LIBRARY='" + RPL_FAKE_ROCM_SMI +
                        "' python3 '" + RPL_SOURCE_DIR + "/tests/doubles/fake_madengine.py'";
  for (const std::string& a : args) command += " '" + a + "'";
  MadengineRun r;
  r.log = rpl::test::run_shell(command + " 2>&1", &r.status);
  r.out = work / "rocm_perf_output";
  return r;
}

bool has_file_ending(const fs::path& dir, const std::string& suffix) {
  if (!fs::exists(dir)) return false;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().ends_with(suffix)) return true;
  return false;
}

// What every profile (launcher form) configuration writes: a schema-valid profile.json of the expected preset,
// and the post-script's CSV and Perfetto files.
void expect_profile_outputs(const MadengineRun& r, const std::string& config, const char* preset) {
  SCOPED_TRACE(config);
  ASSERT_EQ(r.status, 0) << r.log;
  EXPECT_EQ(rpl::test::validate_against_schema("profile", (r.out / "profile.json").string()), "");
  const json profile = load((r.out / "profile.json").string());
  if (preset) EXPECT_EQ(profile["preset"]["name"], preset);
  EXPECT_TRUE(has_file_ending(r.out / "csv", "kernel_trace.csv")) << r.log;
  EXPECT_GT(fs::file_size(r.out / "trace.pftrace"), 0u) << r.log;
}

}  // namespace

TEST(MadengineConfigs, TheGuidesSixAndOursRunEndToEndWithTheirOutputs) {
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(kDir + "/configs")) {
    const std::string name = entry.path().stem().string();
    seen.insert(name);
    TempDir dir;
    std::vector<std::string> args = {"run", "--tags", "dummy_prof", "--additional-context-file", entry.path().string()};
    if (name == "rocprofv3_multinode") {  // the guide's SLURM form: a build manifest instead of tags
      std::ofstream(dir.file("build_manifest.json")) << R"({"built_models": {"dummy_prof": {}}})";
      args = {"run", "--manifest-file", dir.file("build_manifest.json"), "--additional-context-file", entry.path().string()};
    }
    const MadengineRun r = run_madengine(dir, args);
    const std::string argv = fs::exists(dir.file("rocprofv3.argv")) ? rpl::test::read_file(dir.file("rocprofv3.argv")) : "";
    if (name == "rocprofv3_compute_bound" || name == "rocprofv3_memory_bound") {
      expect_profile_outputs(r, name, name == "rocprofv3_compute_bound" ? "compute" : "memory");
      const json profile = load((r.out / "profile.json").string());
      EXPECT_FALSE(profile["counters"]["file_totals"].empty()) << name;  // the preset's counter file
      EXPECT_EQ(profile["runs"]["device_monitor"]["source"], "rocm-smi") << name;  // power / memory over time
    } else if (name == "rocprofv3_multi_gpu") {
      expect_profile_outputs(r, name, "communication");
      EXPECT_NE(argv.find("--rccl-trace"), std::string::npos) << argv;
      EXPECT_NE(argv.find("--scratch-memory-trace"), std::string::npos) << argv;
      EXPECT_EQ(rpl::test::validate_against_schema("scratch-memory", (r.out / "scratch_memory.json").string()), "");
      EXPECT_GT(load((r.out / "scratch_memory.json").string())["operations"].get<int>(), 0);
      int databases = 0;  // torchrun's 8 workers under one profiler: 8 processes traced
      for (const auto& e : fs::directory_iterator(r.out / "runs" / "run-1" / "rocpd"))
        if (e.is_directory())
          for (const auto& db : fs::directory_iterator(e.path())) databases += db.path().extension() == ".db";
      EXPECT_EQ(databases, 8) << r.log;
    } else if (name == "rocprofv3_comprehensive") {
      expect_profile_outputs(r, name, "full");
      EXPECT_EQ(rpl::test::validate_against_schema("library-calls", (r.out / "library_calls.json").string()), "");
      EXPECT_EQ(load((r.out / "library_calls.json").string())["calls"], 3);  // the stand-in's hipBLASLt markers
      EXPECT_TRUE(fs::exists(r.out / "library_trace.csv"));
      EXPECT_TRUE(fs::exists(r.out / "csv" / "library_trace.csv")) << r.log;  // the post-script's export
      EXPECT_TRUE(load((r.out / "profile.json").string()).contains("api_stats"));
      EXPECT_TRUE(fs::exists(r.out / "trace.perfetto.json"));
    } else if (name == "rocprofv3_lightweight" || name == "rocm_perf_lightweight") {
      expect_profile_outputs(r, name, "lightweight");
      EXPECT_TRUE(load((r.out / "trace.json").string()).contains("traceEvents"));
    } else if (name == "rocprofv3_multinode") {
      SCOPED_TRACE(name);
      ASSERT_EQ(r.status, 0) << r.log;
      for (const char* rank : {"rank-0", "rank-1"}) {
        EXPECT_TRUE(has_file_ending(r.out / "ranks" / rank, "_results.db")) << rank << "\n" << r.log;
        EXPECT_TRUE(has_file_ending(r.out / "csv" / rank, "_kernel_trace.csv")) << rank;  // one per worker
        EXPECT_TRUE(fs::exists(r.out / "csv" / rank / "scratch_memory_trace.csv")) << rank;
      }
      EXPECT_NE(argv.find("--rccl-trace"), std::string::npos) << argv;
      EXPECT_EQ(rpl::test::validate_against_schema("multi-rank", (r.out / "analysis" / "multi_rank.json").string()), "");
      // 2 nodes x torchrun's 8 workers: 16 ranks, each a traced process
      EXPECT_EQ(load((r.out / "analysis" / "multi_rank.json").string())["ranks"].size(), 16u);
    } else if (name == "rocm_perf_roofline" || name == "rocm_perf_nvidia") {
      // rocm_perf_nvidia names the vendor-neutral rocm_perf_roofline tool; here it runs on the AMD stand-ins
      expect_profile_outputs(r, name, nullptr);
      EXPECT_EQ(rpl::test::validate_against_schema("roofline", (r.out / "roofline.json").string()), "");
    } else if (name == "rocm_perf_custom") {
      expect_profile_outputs(r, name, nullptr);
      EXPECT_EQ(load((r.out / "profile.json").string())["runs"]["count"], 3);
    } else {
      ADD_FAILURE() << name << ": a configuration without checks of its outputs";
    }
  }
  for (const char* guide : {"rocprofv3_compute_bound", "rocprofv3_memory_bound", "rocprofv3_multi_gpu",
                            "rocprofv3_comprehensive", "rocprofv3_lightweight", "rocprofv3_multinode"})
    EXPECT_TRUE(seen.count(guide)) << guide;
}

TEST(MadengineConfigs, BadContextsAndMissingRanksAreClearFailures) {
  TempDir dir;
  std::ofstream(dir.file("unknown.json")) << R"({"tools": [{"name": "rocprofv3_everything"}]})";
  MadengineRun r = run_madengine(dir, {"run", "--tags", "m", "--additional-context-file", dir.file("unknown.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.log.find("tool 'rocprofv3_everything' is not defined"), std::string::npos) << r.log;
  std::ofstream(dir.file("broken.json")) << "{ \"tools\": [";
  r = run_madengine(dir, {"run", "--tags", "m", "--additional-context-file", dir.file("broken.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.log.find("broken.json is not JSON"), std::string::npos) << r.log;
  // the ranks' post-script without ranks: says what is missing, fails
  int status = 0;
  const std::string missing = rpl::test::run_shell("bash '" + kDir + "/scripts/rocm_perf_ranks_post.sh' '" +
                                                       dir.file("nothing") + "' 2>&1",
                                                   &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(missing.find("ranks not found"), std::string::npos) << missing;
}
