// Counter files (analysis/counter_file: rocprofv3's "pmc:" text format on both vendors) and the counter
// catalogs (collectors/counter_catalog: rocprofv3-avail and rpl_cupti_metrics output) they are checked
// against.
#include <gtest/gtest.h>

#include "analysis/counter_file.hpp"
#include "collectors/counter_catalog.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"

namespace rpl {
namespace {

using analysis::parse_counter_file;

std::string usage_error(const std::string& text) {
  try {
    parse_counter_file(text, "my/counters.txt");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(CounterFile, PassesCommentsCommasAndTheOldSpacing) {
  const auto f = parse_counter_file(
      "# compute\n"
      "\n"
      "pmc: SQ_WAVES SQ_INSTS_VALU   # trailing comment\n"
      "   pmc : TCC_HIT_sum,TCC_MISS_sum, GRBM_GUI_ACTIVE\r\n"
      "pmc:\tdram__bytes_read.sum SQ_WAVES:device=1\n",
      "c.txt");
  ASSERT_EQ(f.passes.size(), 3u);
  EXPECT_EQ(f.passes[0].line, 3u);
  EXPECT_EQ(f.passes[0].counters, (std::vector<std::string>{"SQ_WAVES", "SQ_INSTS_VALU"}));
  EXPECT_EQ(f.passes[1].line, 4u);
  EXPECT_EQ(f.passes[1].counters, (std::vector<std::string>{"TCC_HIT_sum", "TCC_MISS_sum", "GRBM_GUI_ACTIVE"}));
  EXPECT_EQ(f.passes[2].counters, (std::vector<std::string>{"dram__bytes_read.sum", "SQ_WAVES:device=1"}));
  EXPECT_EQ(f.all_counters().size(), 7u);  // SQ_WAVES:device=1 differs from SQ_WAVES
  EXPECT_EQ(f.where("TCC_MISS_sum"), "c.txt:4");
  EXPECT_EQ(f.where("SQ_WAVES"), "c.txt:3");  // its first line
  // The same counter on two lines is two passes' business, not an error.
  EXPECT_EQ(parse_counter_file("pmc: A\npmc: A\n", "x").passes.size(), 2u);
  // No newline at the end.
  EXPECT_EQ(parse_counter_file("pmc: A B", "x").passes[0].counters.size(), 2u);
}

TEST(CounterFile, BadInputNamesTheFileAndLine) {
  std::string e = usage_error("pmc: A\nSQ_WAVES SQ_BUSY\n");
  EXPECT_NE(e.find("my/counters.txt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected 'pmc: COUNTER ...'"), std::string::npos) << e;
  e = usage_error("# c\npmc:   # nothing\n");
  EXPECT_NE(e.find("my/counters.txt:2: a 'pmc:' line without counters"), std::string::npos) << e;
  e = usage_error("pmc: A\n\n\npmc: B B\n");
  EXPECT_NE(e.find("my/counters.txt:4: counter 'B' appears twice"), std::string::npos) << e;
  e = usage_error("pmc: SQ_WAVES; rm -rf\n");
  EXPECT_NE(e.find("my/counters.txt:1: 'SQ_WAVES;' is not a counter name"), std::string::npos) << e;
  e = usage_error("pmc: 3D_THING\n");
  EXPECT_NE(e.find("'3D_THING' is not a counter name"), std::string::npos) << e;
  e = usage_error("pmcx: A\n");
  EXPECT_NE(e.find(":1: expected"), std::string::npos) << e;
  e = usage_error("# only comments\n\n");
  EXPECT_NE(e.find("my/counters.txt: no 'pmc: COUNTER ...' line"), std::string::npos) << e;
  usage_error("");
}

TEST(CounterFile, AmdPassesSplitWhereABlockOverflows) {
  // Ten SQ counters on one line: SQ counts 8 per pass, so two runs; TCC_HIT_sum rides along in the first;
  // a counter of an unknown block (derived) stays on the first pass.
  const auto f = parse_counter_file(
      "pmc: SQ_A SQ_B SQ_C SQ_D SQ_E SQ_F SQ_G SQ_H SQ_I SQ_J TCC_HIT_sum GPUBusy\npmc: GRBM_COUNT\n", "x");
  const auto passes = analysis::plan_amd_counter_passes(f);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].size(), 10u);  // 8 SQ + TCC + GPUBusy
  EXPECT_EQ(passes[1], (std::vector<std::string>{"SQ_I", "SQ_J"}));
  EXPECT_EQ(passes[2], (std::vector<std::string>{"GRBM_COUNT"}));
  const std::string input = analysis::rocprofv3_input_text(passes, "x");
  EXPECT_NE(input.find("\npmc: SQ_I SQ_J\npmc: GRBM_COUNT\n"), std::string::npos) << input;
  EXPECT_EQ(input.rfind("# ", 0), 0u);
  // What rocm-perf writes parses back to the same passes.
  EXPECT_EQ(parse_counter_file(input, "y").passes.size(), 3u);
}

// rocprofv3-avail list --pmc, in the layout of ROCm 7.x's documentation (two GPUs, names over lines).
constexpr const char* kAvail =
    "ROCprofiler-SDK: listing counters\n"
    "GPU                           : 0\n"
    "Name                          : gfx942\n"
    "PMC                           :\n"
    "\n"
    "SQ_WAVES                       SQ_INSTS_VALU                 TCC_HIT_sum\n"
    "TCC_EA0_RDREQ_sum              GRBM_GUI_ACTIVE\n"
    "\n"
    "GPU                           : 1\n"
    "Name                          : gfx90a:sramecc+:xnack-\n"
    "PMC                           : SQ_WAVES TCC_EA_RDREQ_sum\n";

TEST(CounterCatalog, ParsesRocprofv3AvailAgentBlocks) {
  const auto agents = collectors::parse_rocprofv3_avail(kAvail);
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].device, 0);
  EXPECT_EQ(agents[0].arch, "gfx942");
  EXPECT_EQ(agents[0].vendor, "amd");
  ASSERT_EQ(agents[0].counters.size(), 5u);
  EXPECT_EQ(agents[0].counters[3].name, "TCC_EA0_RDREQ_sum");
  EXPECT_EQ(agents[1].device, 1);
  EXPECT_EQ(agents[1].arch, "gfx90a:sramecc+:xnack-");
  ASSERT_EQ(agents[1].counters.size(), 2u);
  EXPECT_EQ(agents[1].counters[1].name, "TCC_EA_RDREQ_sum");
  try {
    collectors::parse_rocprofv3_avail("nothing here\n");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::ProfilerFailed);
  }
}

TEST(CounterCatalog, ParsesTheCuptiEnumerationRecordedOnGH100) {
  // Recorded with rpl_cupti_metrics --chip GH100 list (CUPTI 13 host API), four metrics kept.
  const auto d = collectors::parse_cupti_metric_list(
      test::read_file(std::string(RPL_SOURCE_DIR) + "/tests/data/counters/cupti_metrics_gh100_excerpt.tsv"));
  EXPECT_EQ(d.chip, "GH100");
  EXPECT_EQ(d.vendor, "nvidia");
  ASSERT_EQ(d.counters.size(), 4u);
  const auto& dram = d.counters[0];
  EXPECT_EQ(dram.name, "dram__bytes_read");
  EXPECT_EQ(dram.type, "counter");
  EXPECT_EQ(dram.unit, "byte");
  EXPECT_NE(std::find(dram.submetrics.begin(), dram.submetrics.end(), ".sum"), dram.submetrics.end());
  const auto& hit = d.counters[2];
  EXPECT_EQ(hit.name, "lts__t_sector_hit_rate");
  EXPECT_EQ(hit.type, "ratio");
  EXPECT_EQ(hit.submetrics, (std::vector<std::string>{".max_rate", ".pct", ".ratio"}));
  EXPECT_FALSE(hit.description.empty());

  const auto device = collectors::parse_cupti_metric_list("device\t0\tGH100\tsm_90\nok\tdram__bytes_read.sum\n"
                                                          "unsupported\tfoo__bar.sum\n");
  EXPECT_EQ(device.arch, "sm_90");
  EXPECT_EQ(collectors::parse_cupti_check("device\t0\tGH100\tsm_90\nok\ta.sum\nunsupported\tfoo__bar.sum\n"),
            std::vector<std::string>{"foo__bar.sum"});
  EXPECT_THROW(collectors::parse_cupti_metric_list("metric\tx\tcounter\t\t\t\t\n"), Error);
}

}  // namespace
}  // namespace rpl
