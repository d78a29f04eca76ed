// The capture/replay proof (bench/replay-proof/run_proof.sh) in a short form: the va_chase testbed captured,
// replayed bit-exactly in fresh processes, --no-recopy, --code-object and a relocated range. It needs an NVIDIA
// GPU and a folder staged by bench/replay-proof/stage.sh, named by RPL_REPLAY_DEVBUILD; without either it is
// skipped, visibly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "testing/tmpdir.hpp"

namespace {

TEST(ReplayGpu, VaChaseCaptureAndReplay) {
  if (access("/dev/nvidiactl", F_OK) != 0 || std::system("nvidia-smi -L >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no NVIDIA GPU here: capture/replay is not run";
  const char* devbuild = std::getenv("RPL_REPLAY_DEVBUILD");
  if (!devbuild || !*devbuild)
    GTEST_SKIP() << "RPL_REPLAY_DEVBUILD is not set: stage the tools with bench/replay-proof/stage.sh";
  rpl::test::TempDir out;
  std::string cmd = std::string("bash '") + RPL_SOURCE_DIR + "/bench/replay-proof/run_proof.sh' --devbuild '" + devbuild +
                    "' --out '" + out.path().string() + "' --reps 3 --iters 3 --cases 'chase extra'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
