// `rocm-perf resources`: kernel resources from a committed gfx90a code object (values checked against
// llvm-readelf in tests/test_code_object.cpp) fed into the occupancy model.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl::test;

namespace {
const std::string kCodeObject = std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co";

nlohmann::json kernel(const nlohmann::json& doc, const std::string& prefix) {
  for (const auto& k : doc["kernels"])
    if (k["name"].get<std::string>().rfind(prefix, 0) == 0) return k;
  return nullptr;
}
}  // namespace

TEST(ResourcesCli, JsonValidatesAndFeedsOccupancy) {
  TempDir dir;
  auto r = run_cli({"resources", kCodeObject, "--json", "--block", "256"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir.file("out.json")) << r.out;
  EXPECT_EQ(validate_against_schema("resources", dir.file("out.json")), "");
  auto doc = nlohmann::json::parse(r.out);
  auto tile = kernel(doc, "tile_sum");
  ASSERT_FALSE(tile.is_null());
  EXPECT_EQ(tile["arch"], "gfx90a");
  EXPECT_EQ(tile["lds_bytes"], 1024);  // __shared__ float[256]
  EXPECT_EQ(tile["wave_size"], 64);
  // 256 threads = 4 waves per block; 1 KiB LDS allows 64 blocks per CU, registers allow 8 waves per SIMD:
  // nothing limits below the 8-wave maximum.
  EXPECT_EQ(tile["occupancy"]["waves_per_simd"], 8);
  EXPECT_EQ(tile["occupancy"]["theoretical"], 1.0);
}

TEST(ResourcesCli, DynamicLdsLimitsOccupancy) {
  // 256 threads (4 waves per block, 1 per SIMD) with 1 KiB static + 31 KiB dynamic LDS = 32 KiB per block:
  // 64 KiB per CU holds 2 blocks = 2 waves per SIMD of 8.
  auto r = run_cli({"resources", kCodeObject, "--json", "--block", "256", "--dynamic-lds", "31744", "--kernel", "^tile_sum"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["kernels"].size(), 1u);
  EXPECT_EQ(doc["kernels"][0]["occupancy"]["waves_per_simd"], 2);
  EXPECT_EQ(doc["kernels"][0]["occupancy"]["limiter"], "lds");
}

TEST(ResourcesCli, BadInputs) {
  EXPECT_EQ(run_cli({"resources", "/no/such.co"}).exit_code, 3);
  auto text = run_cli({"resources", std::string(RPL_SOURCE_DIR) + "/README.md"});
  EXPECT_EQ(text.exit_code, 4);  // not the format resources reads, as a trace that is not SQLite
  EXPECT_NE(text.err.find("README.md"), std::string::npos) << text.err;
  EXPECT_EQ(run_cli({"resources", kCodeObject, "--kernel", "("}).exit_code, 2);
  // A filter that matches nothing is "nothing to analyse", as in analyze.
  auto none = run_cli({"resources", kCodeObject, "--kernel", "^no_such_kernel$"});
  EXPECT_EQ(none.exit_code, 6);
  EXPECT_NE(none.err.find("matches --kernel '^no_such_kernel$'"), std::string::npos) << none.err;
}
