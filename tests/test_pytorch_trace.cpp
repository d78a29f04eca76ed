// `rocm-perf analyze` on a recorded PyTorch training step with counters (tests/data/pytorch/README.md): what a
// user reads first. The findings the terminal shows (the first --top) include why the top kernels are slow,
// not only shape notes; cuBLAS's tensor-core GEMMs are not told to use fewer registers; each ranked kernel says
// whose code it is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

class PyTorchTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path xz = fs::path(RPL_SOURCE_DIR) / "tests" / "data" / "pytorch" / "train-step-h100-counters.db.xz";
    db_ = dir_.file("train.db");
    ASSERT_EQ(std::system(("xz -dc " + xz.string() + " > " + db_).c_str()), 0) << "xz (Debian: xz-utils) is needed";
    auto r = run_cli({"analyze", db_, "-o", dir_.file("out"), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(validate_against_schema("analysis", dir_.file("out/analysis.json")), "");
    analysis_ = nlohmann::json::parse(read_file(dir_.file("out/analysis.json")));
  }
  TempDir dir_;
  std::string db_;
  nlohmann::json analysis_;
};

TEST_F(PyTorchTrace, BottlenecksComeBeforeShapeNotesAndWarningsLead) {
  const auto& findings = analysis_["findings"];
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["id"], "gpu_idle");  // this step is launch bound: 98% idle
  int last_warning = -1, first_info = -1, last_bottleneck = -1, first_shape_mix = -1, bottlenecks = 0;
  for (int i = 0; i < int(findings.size()); ++i) {
    const std::string id = findings[i]["id"], severity = findings[i]["severity"];
    if (severity == "warning") last_warning = i;
    else if (first_info < 0) first_info = i;
    if (id == "bottleneck") last_bottleneck = i, ++bottlenecks;
    if (id == "shape_mix" && first_shape_mix < 0) first_shape_mix = i;
  }
  EXPECT_LT(last_warning, first_info);
  ASSERT_GE(bottlenecks, 3) << findings.dump(1);
  ASSERT_GE(first_shape_mix, 0);
  EXPECT_LT(last_bottleneck, first_shape_mix) << findings.dump(1);

  // the terminal's default top (10) shows bottlenecks
  auto r = run_cli({"analyze", db_, "-o", dir_.file("out2")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string shown = r.out.substr(0, r.out.find("Top kernels"));
  EXPECT_NE(shown.find("- bottleneck: nvjet_sm90_tst_256x128_6"), std::string::npos) << shown;  // names shortened in the middle
  EXPECT_NE(shown.find("its code is cuBLAS's"), std::string::npos) << shown;
  // the three cuBLAS GEMMs' bottlenecks share one remedy: printed once, then "as above"
  const std::size_t first = shown.find("remedy: its code is cuBLAS's");
  ASSERT_NE(first, std::string::npos) << shown;
  EXPECT_EQ(shown.find("remedy: its code is cuBLAS's", first + 1), std::string::npos) << shown;
  EXPECT_NE(shown.find("remedy: as above", first), std::string::npos) << shown;
}

TEST_F(PyTorchTrace, LibraryKernelsAreNamedAndGetRemediesForTheirOrigin) {
  int vendor = 0, framework = 0;
  for (const auto& k : analysis_["ranking"]["kernels"]) {
    const std::string name = k["name"], kind = k["origin"]["kind"];
    if (name.rfind("nvjet_", 0) == 0) {
      EXPECT_EQ(kind, "vendor_library") << name;
      EXPECT_EQ(k["origin"]["library"], "cuBLAS") << name;
      EXPECT_LT(k["occupancy"].get<double>(), 0.5) << name;  // the figure stays in the ranking ...
      ++vendor;
    }
    if (name.find("at::native::") != std::string::npos) {
      EXPECT_EQ(kind, "framework") << name;
      ++framework;
    }
  }
  EXPECT_GE(vendor, 3);
  EXPECT_GE(framework, 3);
  for (const auto& f : analysis_["findings"]) {
    if (!f["kernel"].is_string()) continue;
    const std::string kernel = f["kernel"];
    // ... but a library's tile choice is no finding
    if (kernel.rfind("nvjet_", 0) == 0) {
      EXPECT_NE(f["id"], "low_occupancy") << f.dump();
    }
    if (kernel.rfind("nvjet_", 0) == 0 && f["id"] == "bottleneck") {
      EXPECT_EQ(f["evidence"]["origin"]["library"], "cuBLAS");
      EXPECT_NE(f["remedy"].get<std::string>().find("its code is cuBLAS's"), std::string::npos) << f.dump();
    }
    if (kernel.find("at::native::") != std::string::npos && f["id"] == "bottleneck") {
      EXPECT_NE(f["remedy"].get<std::string>().find("torch.compile"), std::string::npos) << f.dump();
    }
  }
}

}  // namespace
}  // namespace rpl::test
