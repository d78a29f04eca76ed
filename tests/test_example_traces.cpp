// The example traces shipped for `scripts/dev.sh example` (issue 13 item 12): their process command lines are
// relative (no build machine's absolute paths), and they read and analyse.
#include <gtest/gtest.h>

#include <filesystem>

#include "store/rocpd_reader.hpp"

namespace rpl {
namespace {

TEST(ExampleTraces, CommandLinesAreRelative) {
  const std::filesystem::path dir = std::filesystem::path(RPL_SOURCE_DIR) / "examples" / "traces";
  std::size_t databases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".db") continue;
    ++databases;
    Trace trace = rocpd::read_databases({entry.path().string()}, {});
    ASSERT_FALSE(trace.processes.empty()) << entry.path();
    for (const Process& p : trace.processes) {
      EXPECT_FALSE(p.command.empty()) << entry.path();
      EXPECT_NE(p.command.front(), '/') << entry.path() << ": " << p.command;
      EXPECT_EQ(p.command.find("/work/"), std::string::npos) << entry.path() << ": " << p.command;
    }
    EXPECT_FALSE(trace.dispatches.empty()) << entry.path();
  }
  EXPECT_GE(databases, 2u);
}

}  // namespace
}  // namespace rpl
