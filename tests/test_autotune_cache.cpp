// The measurement cache and Kernel Tuner's cache format.
#include <gtest/gtest.h>

#include <fstream>

#include "autotune/cache.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::autotune {
namespace {

SearchSpace space() {
  return SearchSpace::from_json(nlohmann::ordered_json::parse(R"({"parameters": {"bx": [16, 32], "tile": [1, 2]}})"), "s");
}

TEST(AutotuneCache, ReopensWhatWasAppendedAndRefusesAnotherObjective) {
  test::TempDir d;
  const SearchSpace s = space();
  const nlohmann::ordered_json objective = {{"kind", "stdout"}, {"regex", "t=(.*)"}};
  {
    Cache c(d.file("c.jsonl"), s, objective);
    c.append("bx=16,tile=1", s.to_json(s.config(0)), {{true, 2.5, ""}, "measured"});
    c.append("bx=16,tile=2", s.to_json(s.config(1)), {{false, 0, "crashed"}, "measured"});
  }
  Cache again(d.file("c.jsonl"), s, objective);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again.find("bx=16,tile=1")->outcome.objective, 2.5);
  EXPECT_EQ(again.find("bx=16,tile=2")->outcome.reason, "crashed");
  EXPECT_EQ(again.find("bx=32,tile=1"), nullptr);
  try {
    Cache other(d.file("c.jsonl"), s, {{"kind", "stdout"}, {"regex", "time=(.*)"}});
    FAIL() << "accepted a cache of another objective";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("different objective (its regex differs"), std::string::npos) << e.what();
  }
}

TEST(AutotuneCache, ImportsAnUnterminatedKernelTunerCache) {
  test::TempDir d;
  // As Kernel Tuner leaves it when killed: entries appended, braces never closed.
  std::ofstream(d.file("kt.json")) << R"({"device_name": "NVIDIA H100", "kernel_name": "k", "tune_params_keys": ["bx", "tile"],
"tune_params": {"bx": [16, 32], "tile": [1, 2]}, "objective": "time", "cache": {
"16,1": {"bx": 16, "tile": 1, "time": 1.5, "times": [1.5]},
"32,2": {"bx": 32, "tile": 2, "time": "CompilationFailedConfig"},
"64,1": {"bx": 64, "tile": 1, "time": 0.5},)";
  std::size_t skipped = 0;
  const auto m = import_kernel_tuner_cache(d.file("kt.json"), space(), &skipped);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(skipped, 1u);  // bx=64 is not in the space
  EXPECT_TRUE(m.at("bx=16,tile=1").outcome.valid);
  EXPECT_EQ(m.at("bx=16,tile=1").outcome.objective, 1.5);
  EXPECT_FALSE(m.at("bx=32,tile=2").outcome.valid);
  EXPECT_NE(m.at("bx=32,tile=2").outcome.reason.find("CompilationFailedConfig"), std::string::npos);
  std::ofstream(d.file("other.json")) << R"({"tune_params_keys": ["block_size_x"], "cache": {}})";
  try {
    import_kernel_tuner_cache(d.file("other.json"), space(), nullptr);
    FAIL() << "accepted a cache of another space";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("its parameters are block_size_x, the space's are bx,tile"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rpl::autotune
