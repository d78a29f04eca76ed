// Capture-dir mode without a GPU: the result check between memory dumps, and the mode's bad input. (The
// mode itself runs on the GPU: bench/autotune/gpu/capture_mode_demo.sh.)
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "autotune/replay_evaluator.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::autotune {
namespace {

void write_floats(const std::string& path, const std::vector<float>& v) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

TEST(AutotuneReplay, DumpComparisonUsesARelativeTolerance) {
  test::TempDir d;
  write_floats(d.file("ref/r000001.bin"), {1.0f, 100.0f, -3.0f});
  write_floats(d.file("same/r000001.bin"), {1.0f, 100.0f, -3.0f});
  write_floats(d.file("close/r000001.bin"), {1.0005f, 100.05f, -3.001f});
  write_floats(d.file("far/r000001.bin"), {1.0f, 101.0f, -3.0f});
  EXPECT_EQ(compare_dumps(d.file("ref"), d.file("same"), 0), "");
  EXPECT_EQ(compare_dumps(d.file("ref"), d.file("close"), 1e-3), "");
  EXPECT_NE(compare_dumps(d.file("ref"), d.file("close"), 0).find("bit-exact"), std::string::npos);
  const std::string far = compare_dumps(d.file("ref"), d.file("far"), 1e-3);
  EXPECT_NE(far.find("1 of 3 values"), std::string::npos) << far;
  EXPECT_NE(far.find("first at element 1"), std::string::npos) << far;
  EXPECT_NE(compare_dumps(d.file("ref"), d.file("missing"), 1e-3).find("missing"), std::string::npos);
}

TEST(AutotuneReplay, BadInputNamesTheValue) {
  test::TempDir d;
  std::ofstream(d.file("space.json")) << R"({"parameters": {"BK": [4, 8]}})";
  std::ofstream(d.file("k.cu")) << "// kernel\n";
  std::filesystem::create_directories(d.file("cap"));
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"autotune", "--space", d.file("space.json"), "-o", d.file("out")};
    a.insert(a.end(), extra.begin(), extra.end());
    return test::run_cli(a);
  };
  test::CliResult r = run({"--capture-dir", d.file("cap")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs --kernel-source"), std::string::npos) << r.err;
  r = run({"--capture-dir", d.file("nope"), "--kernel-source", d.file("k.cu"), "--compile-template", "nvcc -o {OUT} {SOURCE}"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  r = run({"--capture-dir", d.file("cap"), "--kernel-source", d.file("k.cu"), "--compile-template", "nvcc -DBK={BK} {SOURCE}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("never writes {OUT}"), std::string::npos) << r.err;
  r = run({"--capture-dir", d.file("cap"), "--kernel-source", d.file("k.cu"), "--compile-template", "nvcc -DX={BX} -o {OUT}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown placeholder {BX}"), std::string::npos) << r.err;
  r = run({"--capture-dir", d.file("cap"), "--cmd-template", "true {BK}", "--kernel-source", d.file("k.cu"),
           "--compile-template", "nvcc -o {OUT}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give one of them"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rpl::autotune
