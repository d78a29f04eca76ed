// The common flags (src/cli/common_flags.cpp): every command offers --quiet and --debug, and --json where it
// has a JSON document (export writes files only), declared in one place; --quiet and --json excluding each
// other where --quiet prints its own output (analyze, profile).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/cli.hpp"

using rpl::test::run_cli;

namespace {

struct CommandPath {
  std::vector<std::string> words;
  bool has_json;
};

const std::vector<CommandPath> kCommands = {
    {{"analyze"}, true},          {{"profile"}, true},          {{"resources"}, true},
    {{"capture"}, true},          {{"replay", "full-vm"}, true}, {{"replay", "reserve-check"}, true},
    {{"ceilings"}, true},         {{"autotune"}, true},         {{"counters", "list"}, true},
    {{"export", "perfetto"}, false}, {{"export", "csv"}, false}, {{"optimize"}, true},
    {{"import", "rocprofv3-csv"}, false},
};

TEST(CommonFlags, EveryCommandOffersThem) {
  for (const CommandPath& c : kCommands) {
    std::vector<std::string> args = c.words;
    args.push_back("--help");
    const auto r = run_cli(args);
    const std::string name = c.words.front() + (c.words.size() > 1 ? " " + c.words[1] : "");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    if (r.out.find("not in this build") != std::string::npos) continue;  // optimize without libclang
    EXPECT_NE(r.out.find("--quiet"), std::string::npos) << name << "\n" << r.out;
    EXPECT_NE(r.out.find("--debug"), std::string::npos) << name << "\n" << r.out;
    EXPECT_EQ(r.out.find("--json") != std::string::npos, c.has_json) << name << "\n" << r.out;
  }
}

TEST(CommonFlags, QuietExcludesJsonWhereQuietPrintsItsOwnOutput) {
  const auto r = run_cli({"analyze", "x.db", "--json", "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

}  // namespace
