// The CUDA collector's GPU suite (scripts/gpu/run_gpu_suite.sh) as a test. It needs an NVIDIA GPU and a
// folder staged by scripts/gpu/stage_devbuild.sh, named by RPL_GPU_DEVBUILD; without either it is skipped,
// visibly (CI machines have no GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "testing/tmpdir.hpp"

namespace {

bool have_nvidia_gpu() {
  return access("/dev/nvidiactl", F_OK) == 0 && std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

TEST(CudaCollectorGpu, SuitePassesOnThisGpu) {
  if (!have_nvidia_gpu()) GTEST_SKIP() << "no NVIDIA GPU here: the CUDA collector's GPU suite is not run";
  const char* devbuild = std::getenv("RPL_GPU_DEVBUILD");
  if (!devbuild || !*devbuild)
    GTEST_SKIP() << "RPL_GPU_DEVBUILD is not set: stage the collector and apps with scripts/gpu/stage_devbuild.sh";
  rpl::test::TempDir out;
  std::string cmd = std::string("bash '") + RPL_SOURCE_DIR + "/scripts/gpu/run_gpu_suite.sh' --devbuild '" + devbuild +
                    "' --out '" + out.path().string() + "' --no-bench --no-accuracy";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
