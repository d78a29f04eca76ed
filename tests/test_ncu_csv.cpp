// ncu CSV parsing (raw and details pages), units and numbers, attachment to a trace, the roofline from
// attached metrics, and the ncu command line. The samples follow what ncu 2025.3.1 wrote on an H100
// (shortened: the real raw page has ~300 columns).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "analysis/counter_pairing.hpp"
#include "analysis/deep_analysis.hpp"
#include "analysis/roofline.hpp"
#include "collectors/nvidia/ncu_csv.hpp"
#include "support/errors.hpp"
#include "testing/counter_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::collectors;

namespace {

const char* kRaw = R"csv(==PROF== Connected to process 674 (/tmp/p/k)
==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Disconnected from process 674
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","device__attribute_display_name","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum","lts__t_sector_hit_rate.pct","smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
"","","","","","","","","","","","","byte","byte","ns","%","inst"
"0","674","k","127.0.0.1","_Z5k_fmaIfEvPT_S0_S0_","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","NVIDIA H100 80GB HBM3","67,117,824","44,531,968","55,168","50.63","268,435,456"
"1","674","k","127.0.0.1","_Z5k_fmaIdEvPT_S0_S0_","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","NVIDIA H100 80GB HBM3","134,229,760","111,702,784","89,088","50.54","0"
"2","674","k","127.0.0.1","_Z5k_fmaIfEvPT_S0_S0_","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","NVIDIA H100 80GB HBM3","n/a","44,326,912","54,720","50.67","268,435,456"
)csv";

// The default page with auto-scaled units, as `ncu --csv --print-units auto` writes it.
const char* kDetails =
    R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","682","k","127.0.0.1","void k_fma<float>(T1 *, T1, T1)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","Mbyte","67.11"
"0","682","k","127.0.0.1","void k_fma<float>(T1 *, T1, T1)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","us","54.88"
"1","682","k","127.0.0.1","void k_fma<double>(T1 *, T1, T1)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","Kbyte","1,234.5"
"1","682","k","127.0.0.1","void k_fma<double>(T1 *, T1, T1)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","88.26"
"1","682","k","127.0.0.1","void k_fma<double>(T1 *, T1, T1)","1","7","(256, 1, 1)","(65536, 1, 1)","0","9.0","Command line profiler metrics","lts__t_sector_hit_rate.pct","%","50.58"
)csv";

// The trace side: the same program recorded by the CUPTI collector (grid in threads: 65536 x 256).
struct FmaTrace {
  test::CounterTraceBuilder b;
  Index gpu, kf, kd;
  std::vector<Index> f, d;
  explicit FmaTrace(int float_dispatches = 3) {
    gpu = b.agent("sm_90", "NVIDIA H100 80GB HBM3", 132);
    kf = b.kernel("void k_fma<float>(float*, float, float)", "_Z5k_fmaIfEvPT_S0_S0_");
    kd = b.kernel("void k_fma<double>(double*, double, double)", "_Z5k_fmaIdEvPT_S0_S0_");
    TimeNs t = 1'000;
    for (int i = 0; i < float_dispatches; ++i) {
      f.push_back(add(kf, t));
      if (i == 0) d.push_back(add(kd, t + 100'000));
      t += 1'000'000;
    }
  }
  Index add(Index k, TimeNs start) {
    Index i = b.dispatch(k, gpu, start, 60'000);
    b.trace().dispatches.edit(i)->grid[0] = 65536 * 256;
    b.trace().dispatches.edit(i)->block[0] = 256;
    return i;
  }
  std::optional<double> value(Index dispatch, const std::string& metric) {
    for (const auto& c : b.trace().counters)
      if (c.dispatch == dispatch && b.trace().strings.at(c.counter) == metric) return c.value;
    return std::nullopt;
  }
};

bool has_warning(const std::vector<std::string>& w, const std::string& needle) {
  for (const auto& s : w)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(NcuNumbers, ThousandsSeparatorsAndNonNumbers) {
  EXPECT_EQ(parse_ncu_number("268,435,456"), 268435456.0);
  EXPECT_EQ(parse_ncu_number("1,234.5"), 1234.5);
  EXPECT_EQ(parse_ncu_number("50.63"), 50.63);
  EXPECT_EQ(parse_ncu_number("1e3"), 1000.0);
  EXPECT_EQ(parse_ncu_number("-5"), -5.0);
  EXPECT_EQ(parse_ncu_number(" 7 "), 7.0);
  EXPECT_FALSE(parse_ncu_number("n/a"));
  EXPECT_FALSE(parse_ncu_number(""));
  EXPECT_FALSE(parse_ncu_number("(256, 1, 1)"));
  EXPECT_FALSE(parse_ncu_number("NVIDIA H100"));
  EXPECT_FALSE(parse_ncu_number("12abc"));
  EXPECT_FALSE(parse_ncu_number("inf"));
}

TEST(NcuUnits, ScaledUnitsNormaliseToBaseUnits) {
  auto f = [](const char* u) { return normalize_ncu_unit(u); };
  EXPECT_EQ(f("byte")->factor, 1);
  EXPECT_EQ(f("Kbyte")->factor, 1e3);  // decimal: 67,114,496 byte was printed as 67.11 Mbyte
  EXPECT_EQ(f("Mbyte")->factor, 1e6);
  EXPECT_EQ(f("Gbyte")->base, "byte");
  EXPECT_EQ(f("us")->factor, 1e3);
  EXPECT_EQ(f("usecond")->factor, 1e3);
  EXPECT_EQ(f("usecond")->base, "ns");
  EXPECT_EQ(f("msecond")->factor, 1e6);
  EXPECT_EQ(f("nsecond")->factor, 1);
  EXPECT_EQ(f("Gbyte/second")->factor, 1e9);
  EXPECT_EQ(f("Gbyte/second")->base, "byte/second");
  EXPECT_EQ(f("Ghz")->factor, 1e9);
  EXPECT_EQ(f("%")->factor, 1);
  EXPECT_EQ(f("inst")->factor, 1);
  EXPECT_EQ(f("Minst")->factor, 1e6);
  EXPECT_EQ(f("Kcycle")->base, "cycle");
  EXPECT_EQ(f("")->factor, 1);
  EXPECT_FALSE(f("furlong"));
  EXPECT_FALSE(f("Xinst"));
}

TEST(NcuCsv, RawPageOneRowPerInstanceWithUnitsRow) {
  NcuReport r = parse_ncu_csv(kRaw, "raw.csv");
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  const NcuKernel& k0 = r.kernels[0];
  EXPECT_EQ(k0.id, 0);
  EXPECT_EQ(k0.process_id, 674);
  EXPECT_EQ(k0.process_name, "k");
  EXPECT_EQ(k0.kernel_name, "_Z5k_fmaIfEvPT_S0_S0_");
  EXPECT_EQ(k0.block_size, "(256, 1, 1)");
  EXPECT_EQ(k0.grid_size, "(65536, 1, 1)");
  EXPECT_EQ(k0.compute_capability, "9.0");
  EXPECT_EQ(r.value(k0, "dram__bytes_read.sum"), 67117824.0);
  EXPECT_EQ(r.value(k0, "gpu__time_duration.sum"), 55168.0);
  EXPECT_EQ(r.value(k0, "lts__t_sector_hit_rate.pct"), 50.63);
  EXPECT_EQ(r.value(k0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 268435456.0);
  EXPECT_FALSE(r.value(k0, "device__attribute_display_name"));  // text, not a number
  EXPECT_FALSE(r.value(r.kernels[2], "dram__bytes_read.sum"));   // "n/a"
  EXPECT_EQ(r.value(r.kernels[1], "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 0.0);
  EXPECT_EQ(r.metric_units[static_cast<std::size_t>(r.metric_index("gpu__time_duration.sum"))], "ns");
  EXPECT_EQ(r.metric_index("Kernel Name"), -1);  // identity columns are not metrics
  EXPECT_FALSE(r.value(k0, "no_such_metric"));
}

TEST(NcuCsv, AnIntegerFieldOutOfRangeIsUnreadableNotUndefined) {
  // Found by fuzzing: 6.6e82 as a process ID was converted to int64 (undefined behaviour under UBSan).
  std::string csv = kRaw;
  const std::string row = "\"0\",\"674\",";
  ASSERT_NE(csv.find(row), std::string::npos);
  csv.replace(csv.find(row), row.size(), "\"0\",\"6.6e82\",");
  NcuReport r = parse_ncu_csv(csv, "huge.csv");
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].process_id, 0) << "the fallback of an unreadable process ID";
  EXPECT_EQ(r.kernels[0].id, 0);
}

TEST(NcuCsv, DetailsPageScaledUnitsGroupedById) {
  NcuReport r = parse_ncu_csv(kDetails, "details.csv");
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].kernel_name, "void k_fma<float>(T1 *, T1, T1)");
  // 67.11 Mbyte = 67,110,000 B; 54.88 us = 54,880 ns
  EXPECT_DOUBLE_EQ(*r.value(r.kernels[0], "dram__bytes_read.sum"), 67.11e6);
  EXPECT_DOUBLE_EQ(*r.value(r.kernels[0], "gpu__time_duration.sum"), 54880);
  // 1,234.5 Kbyte = 1,234,500 B; 88.26 usecond = 88,260 ns
  EXPECT_DOUBLE_EQ(*r.value(r.kernels[1], "dram__bytes_read.sum"), 1234500);
  EXPECT_DOUBLE_EQ(*r.value(r.kernels[1], "gpu__time_duration.sum"), 88260);
  EXPECT_DOUBLE_EQ(*r.value(r.kernels[1], "lts__t_sector_hit_rate.pct"), 50.58);
  EXPECT_FALSE(r.value(r.kernels[0], "lts__t_sector_hit_rate.pct"));  // not reported for instance 0
  EXPECT_EQ(r.metric_units[static_cast<std::size_t>(r.metric_index("dram__bytes_read.sum"))], "byte");
}

TEST(NcuCsv, QuotedFieldsWithCommasAndQuotes) {
  const std::string text =
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"m.sum\"\n"
      "\"\",\"\",\"\",\"\",\"byte\"\n"
      "\"0\",\"void f<2, float>(float*, \"\"q\"\")\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"1,000\"\n";
  NcuReport r = parse_ncu_csv(text, "q.csv");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].kernel_name, "void f<2, float>(float*, \"q\")");
  EXPECT_EQ(r.value(r.kernels[0], "m.sum"), 1000.0);
}

TEST(NcuCsv, ApplicationOutputAroundTheTableIsSkipped) {
  std::string text = std::string("hello from the app, with a comma\nstray \"quote\n") + kRaw +
                     "the app prints, after the table\nresult: 42\n";
  NcuReport r = parse_ncu_csv(text, "mixed.csv");
  EXPECT_EQ(r.kernels.size(), 3u);
  EXPECT_TRUE(has_warning(r.warnings, "1 line(s) that are not rows"));  // the 2-field line after the table
}

TEST(NcuCsv, UnknownUnitIsKeptAsPrintedWithAWarning) {
  const std::string text =
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"weird.sum\",\"furlong\",\"3\"\n";
  NcuReport r = parse_ncu_csv(text, "w.csv");
  EXPECT_EQ(r.value(r.kernels[0], "weird.sum"), 3.0);
  EXPECT_TRUE(has_warning(r.warnings, "unit 'furlong'"));
}

TEST(NcuCsv, NotAnNcuTableIsAnError) {
  for (const char* bad : {"", "hello\nworld\n", "\"Kernel Name\",\"x\"\n\"k\",\"1\"\n"}) {
    try {
      parse_ncu_csv(bad, "bad.csv");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::InputInvalid);
      EXPECT_NE(std::string(e.what()).find("bad.csv"), std::string::npos);
    }
  }
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Process ID\"\n\"0\",\"1\"\n", "nokernel.csv"), Error);
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Kernel Name\",\"Metric Name\"\n\"0\",\"k\",\"m\"\n", "novalue.csv"), Error);
  try {
    read_ncu_csv("/nonexistent/ncu.csv");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputMissing);
  }
}

TEST(NcuCsv, ReadFromFile) {
  test::TempDir dir;
  std::ofstream(dir.file("r.csv")) << kRaw;
  EXPECT_EQ(read_ncu_csv(dir.file("r.csv")).kernels.size(), 3u);
}

TEST(KernelBaseName, StripsReturnTypeAndParameters) {
  EXPECT_EQ(analysis::kernel_base_name("void k_fma<float>(T1 *, T1, T1)"), "k_fma<float>");
  EXPECT_EQ(analysis::kernel_base_name("void k_fma<float>(float*, float, float)"), "k_fma<float>");
  EXPECT_EQ(analysis::kernel_base_name("k_mma(__half *, float *)"), "k_mma");
  EXPECT_EQ(analysis::kernel_base_name("void ns::f<std::pair<int, int> >(int)"), "ns::f<std::pair<int, int> >");
  EXPECT_EQ(analysis::kernel_base_name("void (anonymous namespace)::k(int)"), "(anonymous namespace)::k");
  EXPECT_EQ(analysis::kernel_base_name("_Z5k_fmaIfEvPT_S0_S0_"), "_Z5k_fmaIfEvPT_S0_S0_");
  EXPECT_EQ(analysis::kernel_base_name("plain"), "plain");
}

// ---- Attaching to a trace

TEST(NcuAttach, MangledNamesInLaunchOrderPerKernel) {
  FmaTrace t;  // k_fma<float> x 3, k_fma<double> x 1
  auto r = analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(kRaw, "raw.csv")));
  EXPECT_EQ(r.matched_instances, 3u);
  EXPECT_EQ(r.unmatched_instances, 0u);
  // ID 0 -> 1st float dispatch, ID 2 -> 2nd float dispatch, ID 1 -> the double dispatch.
  EXPECT_EQ(t.value(t.f[0], "gpu__time_duration.sum"), 55168.0);
  EXPECT_EQ(t.value(t.f[1], "gpu__time_duration.sum"), 54720.0);
  EXPECT_FALSE(t.value(t.f[2], "gpu__time_duration.sum"));
  EXPECT_EQ(t.value(t.d[0], "dram__bytes_read.sum"), 134229760.0);
  EXPECT_FALSE(t.value(t.f[1], "dram__bytes_read.sum"));             // "n/a" is not attached
  EXPECT_FALSE(t.value(t.f[0], "device__attribute_display_name"));  // static attributes are not
  // 3 instances x 5 numeric metrics, minus the one n/a = 14 samples.
  EXPECT_EQ(r.values.size(), 14u);
  EXPECT_TRUE(has_warning(r.warnings, "ncu profiled 2 of the 3 dispatch(es) of 'void k_fma<float>"));
}

TEST(NcuAttach, DemangledNamesMatchByBaseName) {
  FmaTrace t;
  auto r = analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(kDetails, "details.csv")));
  EXPECT_EQ(r.matched_instances, 2u);
  EXPECT_DOUBLE_EQ(*t.value(t.f[0], "gpu__time_duration.sum"), 54880);
  EXPECT_DOUBLE_EQ(*t.value(t.d[0], "gpu__time_duration.sum"), 88260);
}

TEST(NcuAttach, MoreInstancesThanDispatchesAreSkippedWithAWarning) {
  FmaTrace t(1);  // one k_fma<float> dispatch, ncu has two instances of it
  auto r = analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(kRaw, "raw.csv")));
  EXPECT_EQ(r.matched_instances, 2u);
  EXPECT_EQ(r.unmatched_instances, 1u);
  EXPECT_TRUE(has_warning(r.warnings, "ncu profiled 2 instance(s) of 'void k_fma<float>(float*, float, float)' but the "
                                      "trace has 1"));
  EXPECT_EQ(t.value(t.f[0], "gpu__time_duration.sum"), 55168.0);  // the first instance
}

TEST(NcuAttach, UnknownKernelsAndSizeMismatchesAreReported) {
  FmaTrace t;
  t.b.trace().dispatches.edit(t.f[0])->block[0] = 128;  // pairing looks wrong for this one
  std::string raw = kRaw;
  raw += "\"3\",\"674\",\"k\",\"127.0.0.1\",\"_Z5otherv\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"x\",\"1\",\"1\",\"1\",\"1\",\"1\"\n";
  auto r = analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(raw, "raw.csv")));
  EXPECT_EQ(r.unmatched_instances, 1u);
  EXPECT_TRUE(has_warning(r.warnings, "'_Z5otherv' matches no kernel"));
  EXPECT_TRUE(has_warning(r.warnings, "1 matched instance(s) have a grid or block size different"));
}

TEST(NcuAttach, ChosenMetricsOnlyAndExistingSamplesKept) {
  FmaTrace t;
  t.b.counter(t.f[0], "gpu__time_duration.sum", 1.0);  // already there: not replaced, not doubled
  const std::vector<std::string> metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum", "sm__not_collected.sum"};
  auto r = analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(kRaw, "raw.csv"), metrics));
  EXPECT_EQ(t.value(t.f[0], "gpu__time_duration.sum"), 1.0);
  EXPECT_FALSE(t.value(t.f[0], "lts__t_sector_hit_rate.pct"));
  EXPECT_EQ(t.value(t.d[0], "dram__bytes_read.sum"), 134229760.0);
  EXPECT_TRUE(has_warning(r.warnings, "no metric 'sm__not_collected.sum'"));
  std::size_t durations_on_f0 = 0;
  for (const auto& c : t.b.trace().counters)
    if (c.dispatch == t.f[0] && t.b.trace().strings.at(c.counter) == "gpu__time_duration.sum") ++durations_on_f0;
  EXPECT_EQ(durations_on_f0, 1u);
}

TEST(NcuAttach, RooflineFromAttachedMetricsUsesNcuDuration) {
  // A full roofline metric set for one k_fma<float> instance (values from the H100 run).
  std::string header = "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\"";
  std::string units = "\"\",\"\",\"\",\"\",\"\"";
  std::string row = "\"0\",\"674\",\"_Z5k_fmaIfEvPT_S0_S0_\",\"(256, 1, 1)\",\"(65536, 1, 1)\"";
  for (const auto& m : analysis::ncu_roofline_metrics("sm_90")) {
    std::string v = "0";
    if (m == "gpu__time_duration.sum") v = "55,168";
    if (m == "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") v = "268,435,456";
    if (m == "dram__bytes_read.sum") v = "67,117,824";
    if (m == "dram__bytes_write.sum") v = "44,531,968";
    header += ",\"" + m + "\"";
    units += ",\"\"";
    row += ",\"" + v + "\"";
  }
  FmaTrace t;
  analysis::attach_counter_samples(t.b.trace(), ncu_counter_samples(parse_ncu_csv(header + "\n" + units + "\n" + row + "\n", "full.csv")));
  analysis::RooflineResult r = analysis::compute_roofline(t.b.trace());
  ASSERT_EQ(r.kernels.size(), 1u);
  const analysis::RooflinePoint& p = r.kernels[0].point;
  EXPECT_EQ(p.status, analysis::PointStatus::Ok) << (p.reasons.empty() ? "" : p.reasons[0]);
  // FLOP = 2 x 268,435,456 = 536,870,912 over ncu's 55,168 ns (not the trace's 60,000 ns)
  EXPECT_DOUBLE_EQ(*p.total_gflops, 536870912.0 / 55168.0);
  // DRAM = 67,117,824 + 44,531,968 = 111,649,792 B -> 2023.8 GB/s; AI = 4.81 < ridge 67,000 / 3,350 = 20
  EXPECT_DOUBLE_EQ(*p.gbps[0], 111649792.0 / 55168.0);
  EXPECT_EQ(p.bound, analysis::Bound::Memory);
  EXPECT_NEAR(*p.fraction_of_roof, 111649792.0 / 55168.0 / 3350.0, 1e-12);  // ~0.604
}

// ---- Command line

TEST(NcuCommand, DefaultsAndOptions) {
  NcuCommandOptions o;
  o.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
  o.application = {"./app", "--size", "1024"};
  auto argv = ncu_command_line(o);
  auto after = [&](const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? std::string("<absent>") : *(it + 1);
  };
  EXPECT_EQ(argv.front(), "ncu");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--csv"), argv.end());
  EXPECT_EQ(after("--page"), "raw");
  EXPECT_EQ(after("--print-units"), "base");
  EXPECT_EQ(after("--print-kernel-base"), "mangled");
  EXPECT_EQ(after("--target-processes"), "all");
  EXPECT_EQ(after("--cache-control"), "all");
  EXPECT_EQ(after("--clock-control"), "none");
  EXPECT_EQ(after("--replay-mode"), "kernel");
  EXPECT_EQ(after("--metrics"), "gpu__time_duration.sum,dram__bytes_read.sum");
  EXPECT_EQ(after("--kernel-name"), "<absent>");
  EXPECT_EQ(after("--launch-count"), "<absent>");
  EXPECT_EQ((std::vector<std::string>(argv.end() - 3, argv.end())), o.application);

  o.kernel_regex = "k_fma.*";
  o.launch_count = 20;
  o.clock_control = "base";
  o.log_file = "/tmp/ncu.log";
  argv = ncu_command_line(o);
  EXPECT_EQ(after("--kernel-name"), "regex:k_fma.*");
  EXPECT_EQ(after("--launch-count"), "20");
  EXPECT_EQ(after("--clock-control"), "base");
  EXPECT_EQ(after("--log-file"), "/tmp/ncu.log");
}

TEST(NcuCommand, InvalidChoicesAreUsageErrors) {
  NcuCommandOptions o;
  o.metrics = {"gpu__time_duration.sum"};
  o.application = {"./app"};
  auto expect_usage = [](NcuCommandOptions x) {
    try {
      ncu_command_line(x);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage);
    }
  };
  NcuCommandOptions a = o;
  a.metrics.clear();
  expect_usage(a);
  NcuCommandOptions b = o;
  b.application.clear();
  expect_usage(b);
  NcuCommandOptions c = o;
  c.clock_control = "boost";
  expect_usage(c);
  NcuCommandOptions d = o;
  d.cache_control = "some";
  expect_usage(d);
  NcuCommandOptions e = o;
  e.launch_count = 0;
  expect_usage(e);
  NcuCommandOptions f = o;
  f.replay_mode = "range";
  expect_usage(f);
}

// ---- A real capture: tests/data/ncu/h200_roofline_deep_raw.csv is what the command line above
// (ncu_roofline_metrics + ncu_deep_metrics for sm_90, --log-file) produced with ncu 2025.3.1 on an H200
// for a small program: k_fma<float>, k_fma<double>, k_fma<half>, k_mma (wmma f16), k_div, twice each.

TEST(NcuRealCapture, ParsesAttachesAndGivesPlausiblePoints) {
  NcuReport report = read_ncu_csv(std::string(RPL_SOURCE_DIR) + "/tests/data/ncu/h200_roofline_deep_raw.csv");
  ASSERT_EQ(report.kernels.size(), 10u);
  EXPECT_TRUE(report.warnings.empty()) << report.warnings[0];
  for (const auto& k : report.kernels) EXPECT_EQ(report.value(k, "profiler__replayer_passes"), 15.0);  // 8 + 9 - 2 shared
  for (const auto& m : analysis::ncu_roofline_metrics("sm_90")) EXPECT_GE(report.metric_index(m), 0) << m;
  for (const auto& m : analysis::ncu_deep_metrics("sm_90")) EXPECT_GE(report.metric_index(m), 0) << m;

  test::CounterTraceBuilder b;
  Index gpu = b.agent("sm_90", "NVIDIA H200", 132);
  struct K {
    const char* mangled;
    uint32_t grid, block;
  };
  const K kernels[] = {{"_Z5k_fmaIfEvPT_S0_S0_", 65536, 256}, {"_Z5k_fmaIdEvPT_S0_S0_", 65536, 256},
                       {"_Z5k_fmaI6__halfEvPT_S1_S1_", 65536, 256}, {"_Z5k_mmaP6__halfPf", 1024, 32},
                       {"_Z5k_divPfS_", 65536, 256}};
  TimeNs t = 0;
  for (int rep = 0; rep < 2; ++rep)
    for (const auto& k : kernels) {
      Index sym = kNoIndex;
      for (Index s = 0; s < b.trace().symbols.size(); ++s)
        if (b.trace().strings.at(b.trace().symbols[s].mangled_name) == k.mangled) sym = s;
      if (sym == kNoIndex) sym = b.kernel(std::string("display ") + k.mangled, k.mangled);
      Index d = b.dispatch(sym, gpu, t, 100'000);
      b.trace().dispatches.edit(d)->grid[0] = k.grid * k.block;
      b.trace().dispatches.edit(d)->block[0] = k.block;
      t += 200'000;
    }
  auto a = analysis::attach_counter_samples(b.trace(), ncu_counter_samples(report));
  EXPECT_EQ(a.matched_instances, 10u);
  EXPECT_TRUE(a.warnings.empty()) << a.warnings[0];

  analysis::RooflineResult r = analysis::compute_roofline(b.trace());
  ASSERT_EQ(r.kernels.size(), 5u);
  for (const auto& k : r.kernels) {
    EXPECT_EQ(k.point.status, analysis::PointStatus::Ok) << k.name << ": " << (k.point.reasons.empty() ? "" : k.point.reasons[0]);
    EXPECT_FALSE(k.point.above_roof) << k.name;
  }
  auto find = [&](const char* mangled) -> const analysis::KernelRoofline& {
    for (const auto& k : r.kernels)
      if (k.name == std::string("display ") + mangled) return k;
    throw std::runtime_error(mangled);
  };
  // k_fma<float>: 2 x 268,435,456 FLOP per launch over ncu's durations 50,144 + 49,664 ns.
  const auto& f32 = find("_Z5k_fmaIfEvPT_S0_S0_").point;
  constexpr analysis::ComputeClass kF32{analysis::Pipe::Vector, analysis::DataType::F32};
  constexpr analysis::ComputeClass kTensorF16{analysis::Pipe::Matrix, analysis::DataType::F16};
  EXPECT_DOUBLE_EQ(*f32.flops_per_dispatch[kF32.index()], 536870912.0);
  EXPECT_DOUBLE_EQ(f32.duration_ns, 50144.0 + 49664.0);
  EXPECT_EQ(f32.bound, analysis::Bound::Memory);  // ~5 FLOP/B against a ridge of 67,000 / 4,800 = 14
  // k_mma: 1024 warps x 32 x 16x16x16 MACs = 268,435,456 tensor FLOP per launch.
  const auto& mma = find("_Z5k_mmaP6__halfPf").point;
  EXPECT_DOUBLE_EQ(*mma.flops_per_dispatch[kTensorF16.index()], 268435456.0);
  EXPECT_EQ(mma.dominant, kTensorF16);
  EXPECT_EQ(mma.bound, analysis::Bound::Compute);  // 5 KB of DRAM traffic for 268 MFLOP
}
