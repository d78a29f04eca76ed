// The in-process counter pass writes ncu's raw CSV layout (collectors/nvidia/counter_csv.hpp); what it writes
// must come back through the ncu parser unchanged, units normalised, "n/a" as missing.
#include <gtest/gtest.h>

#include <cmath>

#include "collectors/nvidia/counter_csv.hpp"
#include "collectors/nvidia/ncu_csv.hpp"

using namespace rpl::collectors;

TEST(CounterCsv, WhatTheLibraryWritesTheNcuParserReadsBack) {
  const std::vector<std::string> metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum",
                                            "lts__t_sector_hit_rate.pct",
                                            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                            "sm__maximum_warps_per_active_cycle_pct"};
  CounterCsvRow r;
  r.kernel = "_Z8fma_peakPfi";
  r.process_id = 4242;
  r.process_name = "fma \"peak\"";  // a quote inside a field is doubled
  r.host_name = "gpu-host";
  r.context_id = 1;
  r.stream_id = 7;
  r.grid = {4224, 2, 1};
  r.block = {256, 1, 1};
  r.device = 0;
  r.compute_capability = "9.0";
  r.values = {1300000.0, 67115520.0, 50.31397030653481, 0.1 + 0.2, std::nullopt};
  std::string text = "==RPL== chip GH100: 4 metric(s) in 2 replay pass(es)\n" + counter_csv_header(metrics) +
                     counter_csv_row(0, r);
  r.values[0] = 1310000.0;
  text += counter_csv_row(1, r);

  const NcuReport report = parse_ncu_csv(text, "counters-4242.csv");
  ASSERT_EQ(report.kernels.size(), 2u);
  EXPECT_EQ(report.metric_names, metrics);
  EXPECT_EQ(report.metric_units[0], "ns");
  EXPECT_EQ(report.metric_units[1], "byte");
  EXPECT_EQ(report.metric_units[2], "%");
  const NcuKernel& k = report.kernels[0];
  EXPECT_EQ(k.id, 0);
  EXPECT_EQ(k.process_id, 4242);
  EXPECT_EQ(k.process_name, "fma \"peak\"");
  EXPECT_EQ(k.kernel_name, "_Z8fma_peakPfi");
  EXPECT_EQ(k.grid_size, "(4224, 2, 1)");
  EXPECT_EQ(k.block_size, "(256, 1, 1)");
  EXPECT_EQ(k.compute_capability, "9.0");
  EXPECT_EQ(report.value(k, "gpu__time_duration.sum"), 1300000.0);
  EXPECT_EQ(report.value(report.kernels[1], "gpu__time_duration.sum"), 1310000.0);
  EXPECT_EQ(report.value(k, "lts__t_sector_hit_rate.pct"), 50.31397030653481);  // %.17g: no digit lost
  EXPECT_EQ(report.value(k, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 0.1 + 0.2);
  EXPECT_FALSE(report.value(k, "sm__maximum_warps_per_active_cycle_pct").has_value());  // "n/a"
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();
}

TEST(CounterCsv, UnitsByMetricName) {
  EXPECT_EQ(counter_csv_unit("gpu__time_duration.sum"), "nsecond");
  EXPECT_EQ(counter_csv_unit("dram__bytes_write.sum"), "byte");
  EXPECT_EQ(counter_csv_unit("dram__bytes.sum.per_second"), "");  // a rate, not bytes
  EXPECT_EQ(counter_csv_unit("sm__warps_active.avg.pct_of_peak_sustained_active"), "%");
  EXPECT_EQ(counter_csv_unit("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"), "");
}
