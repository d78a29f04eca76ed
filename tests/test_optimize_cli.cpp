// rocm-perf optimize on the command line: bad input is refused with its documented exit code before any
// application runs, and the source is never touched.
#include <gtest/gtest.h>

#include <fstream>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

TEST(OptimizeCli, MissingSourceIsExit3) {
  test::TempDir tmp;
  auto r = test::run_cli({"optimize", "--source", tmp.file("missing.cu"), "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("missing.cu"), std::string::npos) << r.err;
}

TEST(OptimizeCli, SourceThatDoesNotParseIsExit7AndUntouched) {
  test::TempDir tmp;
  std::ofstream(tmp.file("bad.cu")) << "this is {{{ not a kernel\n";
  auto r = test::run_cli({"optimize", "--source", tmp.file("bad.cu"), "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("does not parse"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(tmp.file("bad.cu")), "this is {{{ not a kernel\n");
}

TEST(OptimizeCli, NoSourceFoundSaysWhatItNeeds) {
  test::TempDir tmp;
  auto r = test::run_cli({"optimize", "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--source FILE"), std::string::npos) << r.err;
}

TEST(OptimizeCli, BadOptionValuesAreUsageErrors) {
  test::TempDir tmp;
  std::ofstream(tmp.file("k.cu")) << "__global__ void k(float* x) { x[0] = 1; }\n";
  auto r = test::run_cli({"optimize", "--source", tmp.file("k.cu"), "--min-speedup", "0.5", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  auto n = test::run_cli({"optimize", "--source", tmp.file("k.cu"), "--max-candidates", "0", "--", "/bin/true"});
  EXPECT_EQ(n.exit_code, 2) << n.err;
}

TEST(OptimizeCli, LlmProposerOptionsAreCheckedBeforeAnythingRuns) {
  test::TempDir tmp;
  const std::string kernel = "__global__ void k(float* x) { x[0] = 1; }\n";
  std::ofstream(tmp.file("k.cu")) << kernel;
  auto no_model = test::run_cli({"optimize", "--source", tmp.file("k.cu"), "--proposer", "llm", "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(no_model.exit_code, 2) << no_model.err;
  EXPECT_NE(no_model.err.find("--llm-model"), std::string::npos) << no_model.err;
  auto both = test::run_cli({"optimize", "--source", tmp.file("k.cu"), "--proposer", "llm", "--llm-model", "m", "--candidate",
                             tmp.file("k.cu"), "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  auto unknown = test::run_cli({"optimize", "--source", tmp.file("k.cu"), "--proposer", "oracle", "--", "/bin/true"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_EQ(test::read_file(tmp.file("k.cu")), kernel);
}

TEST(OptimizeCli, LlmProposerSendsNothingWhenTheSourceDoesNotParse) {
  test::TempDir tmp;
  std::ofstream(tmp.file("bad.cu")) << "this is {{{ not a kernel\n";
  // Port 1 on the loopback refuses connections: a request would be exit 15, not the parse error's 7.
  auto r = test::run_cli({"optimize", "--source", tmp.file("bad.cu"), "--proposer", "llm", "--llm-model", "m", "--llm-url",
                          "http://127.0.0.1:1/v1", "-o", tmp.file("out"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(test::read_file(tmp.file("bad.cu")), "this is {{{ not a kernel\n");
}

}  // namespace
}  // namespace rpl
