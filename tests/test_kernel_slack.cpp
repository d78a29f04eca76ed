// Per-kernel slack (analysis/kernel_slack): minimum and median over each kernel's dispatch nodes, copies left
// out, order by median; and through `analyze`: dag.json's kernel_slack (schema) and the terminal summary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/kernel_slack.hpp"
#include "testing/cli.hpp"
#include "testing/counter_trace.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;

TEST(KernelSlack, MinimumAndMedianPerKernelCopiesLeftOut) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index gemm = b.kernel("gemm"), norm = b.kernel("norm");
  CriticalPathResult dag;
  auto add = [&](Index symbol, TimeNs slack, bool on_path) {
    Index d = b.dispatch(symbol, gpu, 0, 10);
    dag.nodes.push_back({NodeKind::Dispatch, d});
    dag.slack.push_back(slack);
    dag.earliest_start.push_back(0);
    dag.on_path.push_back(on_path);
  };
  add(gemm, 0, true);
  add(gemm, 400, false);
  add(gemm, 100, false);  // gemm: 0, 100, 400 -> min 0, median 100
  add(norm, 1000, false);
  add(norm, 3000, false);  // norm: even count -> median 2000
  dag.nodes.push_back({NodeKind::Copy, 0});  // a copy has no kernel
  dag.slack.push_back(0);
  dag.earliest_start.push_back(0);
  dag.on_path.push_back(1);
  const auto slack = kernel_slack(b.trace(), dag);
  ASSERT_EQ(slack.size(), 2u);
  EXPECT_EQ(slack[0].name, "gemm");
  EXPECT_EQ(slack[0].dispatches, 3u);
  EXPECT_EQ(slack[0].on_critical_path, 1u);
  EXPECT_EQ(slack[0].min_slack_ns, 0);
  EXPECT_DOUBLE_EQ(slack[0].median_slack_ns, 100);
  EXPECT_EQ(slack[1].name, "norm");
  EXPECT_EQ(slack[1].min_slack_ns, 1000);
  EXPECT_DOUBLE_EQ(slack[1].median_slack_ns, 2000);
  EXPECT_EQ(slack[1].on_critical_path, 0u);
  dag.slack.pop_back();  // sizes that disagree: no answer rather than a wrong one
  EXPECT_TRUE(kernel_slack(b.trace(), dag).empty());
}

TEST(KernelSlack, DagJsonAndTheTerminalCarryIt) {
  test::TempDir dir;
  const std::string db = test::make_fixture_db(dir.path());
  auto r = test::run_cli({"analyze", db, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::validate_against_schema("dag", dir.file("out/dag.json")), "");
  const auto dag = nlohmann::json::parse(test::read_file(dir.file("out/dag.json")));
  ASSERT_TRUE(dag.contains("kernel_slack"));
  ASSERT_FALSE(dag["kernel_slack"].empty());
  std::size_t dispatches = 0;
  for (const auto& k : dag["kernel_slack"]) {
    EXPECT_LE(k["min_slack_ns"].get<double>(), k["median_slack_ns"].get<double>()) << k.dump();
    dispatches += k["dispatches"].get<std::size_t>();
  }
  EXPECT_EQ(dispatches, 7u);  // the fixture's 6 kernels on two streams and the consume kernel
  // Some kernel is on the critical path, so its minimum slack is 0.
  bool zero = false;
  for (const auto& k : dag["kernel_slack"]) zero |= k["on_critical_path"].get<int>() > 0 && k["min_slack_ns"] == 0;
  EXPECT_TRUE(zero) << dag["kernel_slack"].dump(1);
  EXPECT_NE(r.out.find("slack per kernel"), std::string::npos) << r.out;
}
