// Device monitoring over time (--monitor-device): the per-device summary (energy, mean and peak power),
// the sampling thread against the NVML and ROCm SMI stand-ins (tests/doubles/fake_nvml.cpp,
// fake_rocm_smi.cpp), the rocpd round trip (rocpd_track + rocpd_sample), and `profile` end to end with the
// rocprofv3 test double: profile.json, the database, report.html and the Perfetto export.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/device_power.hpp"
#include "collectors/device_monitor.hpp"
#include "store/rocpd_device_metrics.hpp"
#include "store/rocpd_reader.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using analysis::summarize_device_metrics;
using test::TempDir;

DeviceMetricSeries series(int device, const char* metric, std::vector<int64_t> t, std::vector<double> v) {
  DeviceMetricSeries s;
  s.device = device;
  s.device_name = "GPU" + std::to_string(device);
  s.metric = metric;
  s.unit = device_metric_unit(metric);
  s.source = "nvml";
  s.times = std::move(t);
  s.values = std::move(v);
  return s;
}

constexpr int64_t kS = 1'000'000'000;

TEST(DevicePower, EnergyComesFromTheCounterWhereItAdvances) {
  auto d = summarize_device_metrics({series(0, "power", {0, kS, 3 * kS}, {100, 200, 200}),
                                     series(0, "energy", {0, kS, 3 * kS}, {5000, 5150, 5550})});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(*d[0].energy_j, 550);
  EXPECT_EQ(d[0].energy_method, "counter");
  // Time-weighted: 1 s at mean 150 W, 2 s at 200 W -> 550 J / 3 s.
  EXPECT_NEAR(*d[0].mean_power_w, 550.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(*d[0].peak_power_w, 200);
  EXPECT_DOUBLE_EQ(d[0].monitored_s, 3);
  EXPECT_EQ(d[0].samples, 3u);
}

TEST(DevicePower, EnergyIsIntegratedWithoutACounterOrWhenItWentBackwards) {
  auto no_counter = summarize_device_metrics({series(1, "power", {0, 2 * kS}, {100, 300})});
  EXPECT_DOUBLE_EQ(*no_counter[0].energy_j, 400);
  EXPECT_EQ(no_counter[0].energy_method, "integrated");
  auto reset = summarize_device_metrics(
      {series(1, "power", {0, 2 * kS}, {100, 300}), series(1, "energy", {0, kS, 2 * kS}, {900, 10, 20})});
  EXPECT_DOUBLE_EQ(*reset[0].energy_j, 400);
  EXPECT_EQ(reset[0].energy_method, "integrated");
  auto one_sample = summarize_device_metrics({series(1, "power", {5}, {100})});
  EXPECT_FALSE(one_sample[0].energy_j);  // no interval, no energy
  EXPECT_DOUBLE_EQ(*one_sample[0].mean_power_w, 100);
}

TEST(DevicePower, SummarisesEachDeviceAndTheMetricsItHas) {
  auto d = summarize_device_metrics({series(1, "memory_used", {0, kS}, {1e9, 3e9}),
                                     series(0, "sm_clock", {0, kS, 2 * kS}, {1500, 1980, 1980}),
                                     series(0, "temperature", {0, kS}, {40, 47})});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].device, 0);
  EXPECT_DOUBLE_EQ(*d[0].min_sm_clock_mhz, 1500);
  EXPECT_DOUBLE_EQ(*d[0].max_sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*d[0].peak_temperature_c, 47);
  EXPECT_FALSE(d[0].peak_memory_used_bytes);
  EXPECT_FALSE(d[0].mean_power_w);
  EXPECT_DOUBLE_EQ(*d[1].peak_memory_used_bytes, 3e9);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(DeviceMonitor, SamplesTheNvmlStandInOnTheTraceClock) {
  ScopedEnv env("RPL_NVML_LIBRARY", RPL_FAKE_NVML);
  collectors::DeviceMonitor monitor(collectors::open_device_metric_source(platform::Kind::Cuda),
                                    std::chrono::milliseconds(5));
  EXPECT_EQ(monitor.source().name(), "nvml");
  const int64_t before = collectors::boottime_now_ns();
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  auto got = monitor.stop();
  const int64_t after = collectors::boottime_now_ns();
  ASSERT_EQ(got.size(), 8u);  // power, energy, 2 clocks, temperature, memory used, 2 utilisations
  for (const auto& s : got) {
    EXPECT_EQ(s.device_name, "Fake NVML GPU");
    EXPECT_EQ(s.source, "nvml");
    ASSERT_GE(s.times.size(), 5u) << s.metric;  // 60 ms at 5 ms, with slack for a loaded machine
    EXPECT_TRUE(std::is_sorted(s.times.begin(), s.times.end()));
    EXPECT_GE(s.times.front(), before);
    EXPECT_LE(s.times.back(), after);
  }
  auto d = summarize_device_metrics(got);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(*d[0].mean_power_w, 150);
  EXPECT_EQ(d[0].energy_method, "counter");
  // The stand-in's counter advances at 150 W of wall time: energy / duration is 150 W within timing noise.
  EXPECT_NEAR(*d[0].energy_j / d[0].monitored_s, 150, 15);
  EXPECT_DOUBLE_EQ(*d[0].peak_memory_used_bytes, double(1ull << 30));
}

TEST(DeviceMonitor, ReadsTheRocmSmiStandIn) {
  ScopedEnv env("RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI);
  collectors::DeviceMonitor monitor(collectors::open_device_metric_source(platform::Kind::Rocm),
                                    std::chrono::milliseconds(5));
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto d = summarize_device_metrics(monitor.stop());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].device_name, "Fake MI300X 1");
  EXPECT_DOUBLE_EQ(*d[0].peak_power_w, 500);
  EXPECT_DOUBLE_EQ(*d[1].peak_power_w, 250);
  EXPECT_DOUBLE_EQ(*d[0].peak_temperature_c, 52);
  EXPECT_DOUBLE_EQ(*d[1].peak_memory_used_bytes, double(4ull << 30));
  EXPECT_EQ(d[0].energy_method, "counter");
  EXPECT_NEAR(*d[0].energy_j / d[0].monitored_s, 500, 50);
}

TEST(DeviceMonitor, AMissingLibraryIsAClearProfilerError) {
  ScopedEnv env("RPL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  try {
    collectors::open_device_metric_source(platform::Kind::Cuda);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::ProfilerFailed);
    EXPECT_NE(std::string(e.what()).find("libnvidia-ml"), std::string::npos) << e.what();
  }
}

TEST(DeviceMetricsStore, RoundTripThroughRocpdTracksAndSamples) {
  TempDir dir;
  const std::string db = test::make_fixture_db(dir.path());
  std::vector<DeviceMetricSeries> in = {series(0, "power", {10, 20, 30}, {100.5, 200.25, 150}),
                                        series(0, "memory_used", {10, 30}, {1e9, 2e9}),
                                        series(1, "power", {15}, {99})};
  in[0].device_name = "NVIDIA \"H100\"";  // quotes survive the JSON extdata
  EXPECT_EQ(rocpd::append_device_metrics(db, in), 6u);
  Trace t = rocpd::read_databases({db});
  ASSERT_EQ(t.device_metrics.size(), 3u);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(t.device_metrics[i].device, in[i].device);
    EXPECT_EQ(t.device_metrics[i].device_name, in[i].device_name);
    EXPECT_EQ(t.device_metrics[i].metric, in[i].metric);
    EXPECT_EQ(t.device_metrics[i].unit, in[i].unit);
    EXPECT_EQ(t.device_metrics[i].source, "nvml");
    EXPECT_EQ(t.device_metrics[i].times, in[i].times);
    EXPECT_EQ(t.device_metrics[i].values, in[i].values);
  }
  // Stored in the rocpd 3.0 tables: one track per series, one sample per reading.
  test::SqlFile sql(db);
  EXPECT_EQ(sql.rows("SELECT id FROM rocpd_track").size(), 3u);
  EXPECT_EQ(sql.rows("SELECT id FROM rocpd_sample").size(), 6u);
  // The fixture's dispatches are untouched.
  EXPECT_FALSE(t.dispatches.empty());
}

TEST(DeviceMetricsStore, AnalyzeOfAMonitoredDatabaseDrawsTheSamplesInsideTheTimeline) {
  // The fixture's kernels run from t0 + 200 us on (t0 = 1 s): samples every 20 us across them.
  TempDir dir;
  const std::string db = test::make_fixture_db(dir.path());
  std::vector<int64_t> times;
  std::vector<double> watts;
  for (int i = 0; i < 40; ++i) times.push_back(1'000'000'000 + 150'000 + 20'000 * i), watts.push_back(100 + 5 * i);
  rocpd::append_device_metrics(db, {series(0, "power", times, watts)});
  auto r = test::run_cli({"analyze", db, "-o", dir.file("out"), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_file(dir.file("out/report.html"));
  const std::string track = "class=\"metric\" data-device=\"0\" data-metric=\"power\" data-samples=\"";
  const auto at = html.find(track);
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::stoi(html.substr(at + track.size())), 5);  // the samples inside the kernels' window
  EXPECT_NE(html.find("<polyline class=\"metric-line\""), std::string::npos);
  EXPECT_NE(html.find("GPU 0 power (W)"), std::string::npos);
}

TEST(DeviceMetricsStore, AFixtureWithoutSamplesReadsNone) {
  TempDir dir;
  Trace t = rocpd::read_databases({test::make_fixture_db(dir.path())});
  EXPECT_TRUE(t.device_metrics.empty());
}

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(test::read_file(path)); }

TEST(ProfileMonitor, RocmProfileWithSamplingIntervalStoresAndReportsSamples) {
  TempDir dir;
  const char* path = std::getenv("PATH");
  auto r = test::run_cli({"profile", "--platform", "rocm", "--runs", "2", "--sampling-interval", "5", "-o",
                          dir.file("out"), "--", "/bin/sh", "-c", "sleep 0.05"},
                         {{"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")},
                          {"RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI},
                          {"FAKE_ROCPROFV3_KERNELS", "gemm:4:50000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::validate_against_schema("profile", dir.file("out/profile.json")), "");
  auto doc = load(dir.file("out/profile.json"));
  EXPECT_EQ(doc["runs"]["device_monitor"]["source"], "rocm-smi");
  EXPECT_EQ(doc["runs"]["device_monitor"]["sampling_interval_ms"], 5);
  for (const auto& run : doc["runs"]["per_run"]) {
    ASSERT_EQ(run["devices"].size(), 2u);
    EXPECT_GT(run["devices"][0]["energy_j"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(run["devices"][0]["peak_power_w"].get<double>(), 500);
    EXPECT_GT(run["device_samples"].get<int>(), 10);
    // The samples are in the run's database.
    test::SqlFile sql(run["databases"][0].get<std::string>());
    EXPECT_EQ(sql.rows("SELECT id FROM rocpd_sample").size(), run["device_samples"].get<std::size_t>());
  }
  // report.html has a track per metric; the Perfetto export has counter events.
  const std::string html = test::read_file(dir.file("out/report.html"));
  EXPECT_NE(html.find("class=\"metric\" data-device=\"1\" data-metric=\"power\""), std::string::npos);
  const std::string db = doc["runs"]["per_run"][0]["databases"][0];
  auto e = test::run_cli({"export", "perfetto", db, "-o", dir.file("trace.json"), "--quiet"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto trace = load(dir.file("trace.json"));
  std::size_t counters = 0;
  for (const auto& ev : trace["traceEvents"])
    if (ev["ph"] == "C" && ev["name"] == "power (W)") ++counters;
  EXPECT_GT(counters, 10u);
  EXPECT_NE(r.out.find("energy"), std::string::npos) << r.out;  // the terminal summary names it
}

TEST(ProfileMonitor, TimingOnlyRunsAreMonitoredToo) {
  TempDir dir;
  auto r = test::run_cli({"profile", "--no-rocprof", "--platform", "rocm", "--runs", "1", "--monitor-device", "-o",
                          dir.path(), "--", "/bin/sh", "-c", "sleep 0.25"},
                         {{"RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::validate_against_schema("profile", dir.file("profile.json")), "");
  auto doc = load(dir.file("profile.json"));
  EXPECT_EQ(doc["runs"]["device_monitor"]["sampling_interval_ms"], 100);
  EXPECT_GE(doc["runs"]["per_run"][0]["devices"][0]["samples"].get<int>(), 3);
  EXPECT_EQ(doc["runs"]["per_run"][0]["device_samples"], 0);  // no database to store them in
}

TEST(ProfileMonitor, NvidiaClocksNotLockedAndABusyGpuAreReproducibilityWarnings) {
  // The NVML stand-in's SM clock alternates 1980 / 1410 MHz and the GPU reads 40% busy before the first run.
  TempDir dir;
  auto r = test::run_cli({"profile", "--no-rocprof", "--platform", "cuda", "--runs", "2", "--monitor-device",
                          "--sampling-interval", "5", "-o", dir.path(), "--", "/bin/sh", "-c", "sleep 0.05"},
                         {{"RPL_NVML_LIBRARY", RPL_FAKE_NVML}, {"FAKE_NVML_SM_CLOCKS", "1980,1410"},
                          {"FAKE_NVML_GPU_UTILIZATION", "40"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::validate_against_schema("profile", dir.file("profile.json")), "");
  const auto warnings = load(dir.file("profile.json"))["runs"]["reproducibility_warnings"];
  ASSERT_EQ(warnings.size(), 2u) << warnings.dump(1);
  EXPECT_NE(warnings[0].get<std::string>().find("40% busy"), std::string::npos);
  EXPECT_NE(warnings[1].get<std::string>().find("between 1410 and 1980 MHz"), std::string::npos);
  EXPECT_NE(r.err.find("reproducibility: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("clocks are not locked"), std::string::npos) << r.out;

  // Locked clocks and an idle GPU: nothing to say.
  TempDir quiet;
  r = test::run_cli({"profile", "--no-rocprof", "--platform", "cuda", "--runs", "2", "--monitor-device",
                     "--sampling-interval", "5", "-o", quiet.path(), "--", "/bin/sh", "-c", "sleep 0.05"},
                    {{"RPL_NVML_LIBRARY", RPL_FAKE_NVML}, {"FAKE_NVML_GPU_UTILIZATION", "0"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(load(quiet.file("profile.json"))["runs"]["reproducibility_warnings"].empty());
  EXPECT_EQ(r.err.find("reproducibility: "), std::string::npos) << r.err;
}

TEST(ProfileMonitor, BadIntervalAndMissingLibraryAreClearErrors) {
  TempDir dir;
  EXPECT_EQ(test::run_cli({"profile", "--sampling-interval", "0", "--", "/bin/true"}).exit_code, 2);
  auto r = test::run_cli({"profile", "--no-rocprof", "--platform", "cuda", "--monitor-device", "-o", dir.path(), "--",
                          "/bin/true"},
                         {{"RPL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1"}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("libnvidia-ml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rpl
