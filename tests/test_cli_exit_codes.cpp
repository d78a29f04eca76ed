// One table of exit codes, used the same way by every command (issue 29): no GPU platform is 14 wherever a
// command needs one, with advice the command can follow; the table in --help and in README.md agree; a warning
// about an option placed after the application suggests the option with its value.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <set>

#include "testing/cli.hpp"

using namespace rpl::test;

namespace {

bool machine_has_gpu_platform() {
  return access("/dev/kfd", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

// The codes a text lists in "| N | ..." rows (README) or "N name" pairs (--help).
std::set<int> codes_in(const std::string& text, const std::regex& pattern) {
  std::set<int> codes;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) codes.insert(std::stoi((*it)[1]));
  return codes;
}

}  // namespace

TEST(ExitCodes, NoGpuPlatformIs14WithAdviceTheCommandOffers) {
  if (machine_has_gpu_platform()) GTEST_SKIP() << "this machine has a GPU platform: the no-GPU answer cannot be seen";
  const std::pair<std::string, std::string> path = {"PATH", "/usr/bin:/bin"};  // no rocprofv3, no nvidia-smi
  auto profile = run_cli({"profile", "--runs", "1", "--", "true"}, {path});
  EXPECT_EQ(profile.exit_code, 14) << profile.err;
  EXPECT_NE(profile.err.find("no GPU platform found"), std::string::npos) << profile.err;
  EXPECT_NE(profile.err.find("--no-rocprof"), std::string::npos) << profile.err;  // profile offers timing only
  for (const std::vector<std::string>& args : {std::vector<std::string>{"counters", "list"},
                                               std::vector<std::string>{"capture", "--", "true"}}) {
    auto r = run_cli(args, {path});
    EXPECT_EQ(r.exit_code, 14) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("--platform"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--no-rocprof"), std::string::npos) << args[0] << " has no --no-rocprof: " << r.err;
  }
  // Timing only needs no GPU platform.
  EXPECT_EQ(run_cli({"profile", "--no-rocprof", "--runs", "1", "-o", "/tmp/rpl-exit-codes-timing", "--", "true"},
                    {path})
                .exit_code,
            0);
}

TEST(ExitCodes, HelpAndReadmeListTheSameCodes) {
  auto help = run_cli({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  const std::set<int> in_help = codes_in(help.out, std::regex(R"(\b(\d{1,2}) [a-zA-Z])"));
  const std::string readme = read_file(std::string(RPL_SOURCE_DIR) + "/README.md");
  const auto table = readme.find("## Exit codes");
  ASSERT_NE(table, std::string::npos);
  const std::string section = readme.substr(table, readme.find("\n## ", table + 1) - table);
  const std::set<int> in_readme = codes_in(section, std::regex(R"(\n\| (\d{1,2}) \|)"));
  std::set<int> all;
  for (int c = 0; c <= 17; ++c) all.insert(c);
  EXPECT_EQ(in_readme, all);
  for (int c : all) EXPECT_TRUE(in_help.count(c)) << "code " << c << " missing from --help:\n" << help.out;
}

TEST(ExitCodes, OptionAfterTheApplicationIsSuggestedWithItsValue) {
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "1", "-o", "/tmp/rpl-exit-codes-trailing", "true", "--top",
                    "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rocm-perf profile --top 3 -- true"), std::string::npos) << r.err;
}
