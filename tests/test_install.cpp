// `cmake --install`: the installed tree works on its own, moved anywhere (nothing of the build or source tree
// is needed): rocm-perf runs, finds its helpers in ../lib/rocm-perf and its data in ../share/rocm-perf.
// The Debian package is checked by scripts/check_package.sh (CI: dpkg -i on a fresh machine).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "rpl/version.hpp"
#include "support/libexec.hpp"
#include "testing/binary_files.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::TempDir;

namespace {

std::string sh(const std::string& command, int* status) { return rpl::test::run_shell(command + " 2>&1", status); }

}  // namespace

TEST(Install, InstalledTreeRunsMovedAwayFromTheBuild) {
  TempDir dir;
  int status = 0;
  std::string log = sh("cmake --install '" RPL_BUILD_DIR "' --prefix '" + dir.file("prefix") + "'", &status);
  ASSERT_EQ(status, 0) << log;
  // Relocated: the install must not depend on where it was installed to.
  fs::rename(dir.file("prefix"), dir.file("moved"));
  const fs::path p = dir.path() / "moved";
  EXPECT_TRUE(fs::exists(p / "bin/rocm-perf"));
  EXPECT_TRUE(fs::exists(p / "share/rocm-perf/prompts/system.txt"));
  EXPECT_TRUE(fs::exists(p / "share/rocm-perf/schemas/profile.schema.json"));
  EXPECT_TRUE(fs::exists(p / "share/doc/rocm-perf/README.md"));
  // Every helper the build made is installed beside the others.
  for (const char* helper : {"rpl_spill_convert", "librpl_hsa_capture.so", "rpl_replay_hsa", "librpl_cuda_collector.so",
                             "librpl_cuda_capture.so", "librpl_cupti_counters.so", "rpl_replay_cuda", "librpl_nccl_profiler.so"}) {
    if (fs::exists(fs::path(RPL_BUILD_DIR) / "src/cli" / helper) ||
        fs::exists(fs::path(RPL_BUILD_DIR) / "src/collectors/nvidia/spill_convert" / helper)) {
      EXPECT_TRUE(fs::exists(p / "lib/rocm-perf" / helper)) << helper;
    }
  }

  const std::string bin = (p / "bin/rocm-perf").string();
  std::string version = sh("cd '" + dir.path().string() + "' && '" + bin + "' --version", &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(version.find(rpl::kVersion), std::string::npos) << version;

  fs::copy_file(std::string(RPL_SOURCE_DIR) + "/examples/traces/multistream-h100.db", dir.file("t.db"));
  log = sh("cd '" + dir.path().string() + "' && '" + bin + "' analyze t.db -o out --quiet", &status);
  EXPECT_EQ(status, 0) << log;
  EXPECT_TRUE(fs::exists(dir.file("out/profile.json")));

  if (fs::exists(p / "lib/rocm-perf/librpl_hsa_capture.so")) {
    // Found in ../lib/rocm-perf: the application runs and nothing is captured (11); not found would be 8.
    log = sh("cd '" + dir.path().string() + "' && '" + bin + "' capture --platform rocm -o cap --quiet -- /bin/true",
             &status);
    EXPECT_EQ(status, 11) << log;
  }
}

TEST(Install, SharedDataIsFoundByItsPathBelowShare) {
  // From the build tree (no ../share/rocm-perf beside the test): the source tree's share/.
  auto found = rpl::find_shared_data("prompts/system.txt");
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(fs::equivalent(*found, std::string(RPL_SOURCE_DIR) + "/share/prompts/system.txt"));
  EXPECT_FALSE(rpl::find_shared_data("prompts/no-such-file.txt").has_value());
  // $RPL_SHARE_DIR comes first.
  TempDir dir;
  fs::create_directories(dir.path() / "prompts");
  std::ofstream(dir.path() / "prompts/system.txt") << "x";
  setenv("RPL_SHARE_DIR", dir.path().c_str(), 1);
  found = rpl::find_shared_data("prompts/system.txt");
  unsetenv("RPL_SHARE_DIR");
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(fs::equivalent(*found, dir.path() / "prompts/system.txt"));
}
