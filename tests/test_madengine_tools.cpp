// examples/madengine/: the tool definitions and configurations that run rocm-perf as a madengine profiling
// tool. Every command must end with the trailing `--` (madengine appends the model's command), its options
// must be ones rocm-perf accepts, every configuration must name a defined tool, and the post-script must
// turn a profile's run into the CSV and Perfetto files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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
