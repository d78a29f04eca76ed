// Roofline: device table, ceilings, counter sets and passes, FLOP/byte formulas per architecture, the
// scope rule, above-roof flagging, unavailable architectures, and the roofline.json document.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/device_specs.hpp"
#include "analysis/roofline.hpp"
#include "app/ceilings_file.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/counter_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;
using rpl::app::parse_empirical_ceilings;
using rpl::app::read_empirical_ceilings;
using rpl::app::write_empirical_ceilings;

namespace {

constexpr ComputeClass kVecF32{Pipe::Vector, DataType::F32};
constexpr ComputeClass kVecF16{Pipe::Vector, DataType::F16};
constexpr ComputeClass kMatF16{Pipe::Matrix, DataType::F16};
constexpr ComputeClass kVecF64{Pipe::Vector, DataType::F64};
constexpr std::size_t kHbm = static_cast<std::size_t>(MemLevel::Hbm);
constexpr std::size_t kL2 = static_cast<std::size_t>(MemLevel::L2);
constexpr std::size_t kLds = static_cast<std::size_t>(MemLevel::Lds);

// Every roofline counter of `arch` on `dispatch`, zero unless given in `values`.
void all_counters(test::CounterTraceBuilder& b, Index dispatch, const std::string& arch,
                  const std::map<std::string, double>& values) {
  for (const auto& name : roofline_counter_names(roofline_counter_set(arch))) {
    auto it = values.find(name);
    b.counter(dispatch, name, it == values.end() ? 0.0 : it->second);
  }
  // A typo in a test's counter name would silently test nothing.
  const auto names = roofline_counter_names(roofline_counter_set(arch));
  for (const auto& [name, v] : values)
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << " is not a " << arch << " counter";
}

const KernelRoofline& kernel_named(const RooflineResult& r, const std::string& name) {
  for (const auto& k : r.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

// The gfx942 counters of the worked example below.
const std::map<std::string, double> kGfx942Example = {
    {"SQ_INSTS_VALU_ADD_F32", 100}, {"SQ_INSTS_VALU_MUL_F32", 50},  {"SQ_INSTS_VALU_FMA_F32", 200},
    {"SQ_INSTS_VALU_TRANS_F32", 10}, {"SQ_INSTS_VALU_MFMA_MOPS_F16", 1000},
    {"TCC_EA0_RDREQ_sum", 1000},     {"TCC_EA0_RDREQ_32B_sum", 100}, {"TCC_BUBBLE_sum", 200},
    {"TCC_EA0_WRREQ_sum", 500},      {"TCC_EA0_WRREQ_64B_sum", 300}, {"TCP_TCC_READ_REQ_sum", 2000},
    {"TCP_TCC_WRITE_REQ_sum", 400},  {"SQ_LDS_IDX_ACTIVE", 300},     {"SQ_LDS_BANK_CONFLICT", 50}};

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Device table and lookup

TEST(DeviceTable, Mi300xPeaksFollowTheReferenceFormulas) {
  DeviceMatch m = find_device("gfx942:sramecc+:xnack-", "AMD Instinct MI300X", 304);
  ASSERT_NE(m.spec, nullptr) << m.reason;
  EXPECT_EQ(m.spec->key, "mi300x");
  EXPECT_DOUBLE_EQ(m.compute_scale, 1.0);
  // 304 CU x 2100 MHz x 128 FLOP/clk/CU / 1000 = 81,715.2 GFLOP/s (non-packed VALU, §4.4).
  EXPECT_NEAR(m.spec->peak(Pipe::Vector, DataType::F32), 81715.2, 1e-6);
  EXPECT_NEAR(m.spec->peak(Pipe::Vector, DataType::F64), 81715.2, 1e-6);
  // x 2048 = 1,307,443.2 (MFMA F16, §4.5 check: 1307.4 TFLOP/s); x 256 F64 = 163,430.4; x 4096 F8.
  EXPECT_NEAR(m.spec->peak(Pipe::Matrix, DataType::F16), 1307443.2, 1e-6);
  EXPECT_NEAR(m.spec->peak(Pipe::Matrix, DataType::BF16), 1307443.2, 1e-6);
  EXPECT_NEAR(m.spec->peak(Pipe::Matrix, DataType::F64), 163430.4, 1e-6);
  EXPECT_NEAR(m.spec->peak(Pipe::Matrix, DataType::F8), 2614886.4, 1e-6);
  // 1300 MHz x 32 B x 128 channels = 5324.8 GB/s; L2 2.1 x 128 B x 128 ch = 34,406.4 GB/s.
  EXPECT_NEAR(m.spec->bandwidth(MemLevel::Hbm), 5324.8, 1e-9);
  EXPECT_NEAR(m.spec->bandwidth(MemLevel::L2), 34406.4, 1e-6);
  EXPECT_EQ(m.spec->l2_bytes, 32ull * 1024 * 1024);
}

TEST(DeviceTable, EveryEntryHasHbmAndAVectorPeak) {
  EXPECT_EQ(device_table().size(), 7u);
  for (const auto& d : device_table()) {
    EXPECT_GT(d.bandwidth(MemLevel::Hbm), 0) << d.key;
    EXPECT_GT(d.peak(Pipe::Vector, DataType::F32), 0) << d.key;
    EXPECT_GT(d.compute_units, 0u) << d.key;
    EXPECT_GT(d.l2_bytes, 0u) << d.key;
  }
}

TEST(DeviceTable, Mi250xIsOneGcdAndMi210Differs) {
  DeviceMatch gcd = find_device("gfx90a", "AMD Instinct MI250X", 110);
  ASSERT_NE(gcd.spec, nullptr);
  // One GCD: 110 x 1700 x 1024 / 1000 = 191,488 GFLOP/s F16 MFMA (half of the package's 383.0 TFLOP/s).
  EXPECT_NEAR(gcd.spec->peak(Pipe::Matrix, DataType::F16), 191488.0, 1e-6);
  EXPECT_NEAR(gcd.spec->bandwidth(MemLevel::Hbm), 1638.4, 1e-9);
  EXPECT_EQ(gcd.spec->peak(Pipe::Matrix, DataType::F8), 0.0);  // no F8 on gfx90a
  DeviceMatch mi210 = find_device("gfx90a", "AMD Instinct MI210", 104);
  ASSERT_NE(mi210.spec, nullptr);
  // 104 x 1700 x 1024 / 1000 = 181,043.2 (§4.5: 181.0 TFLOP/s).
  EXPECT_NEAR(mi210.spec->peak(Pipe::Matrix, DataType::F16), 181043.2, 1e-6);
}

TEST(DeviceTable, CuCountDifferenceScalesComputeNotBandwidth) {
  // MI300X in CPX mode: one XCD of 38 CUs per agent -> 38/304 = 0.125.
  DeviceMatch m = find_device("gfx942", "AMD Instinct MI300X", 38);
  ASSERT_NE(m.spec, nullptr);
  EXPECT_DOUBLE_EQ(m.compute_scale, 0.125);
  Ceilings c = resolve_ceilings("gfx942", "AMD Instinct MI300X", m, {});
  EXPECT_NEAR(c.compute_of(kMatF16).value, 1307443.2 * 0.125, 1e-6);
  EXPECT_NEAR(c.bandwidth_of(MemLevel::Hbm).value, 5324.8, 1e-9);
  // An "MI250X/MI250" name with 104 CUs per GCD (an MI250) scales the MI250X GCD entry by 104/110.
  DeviceMatch mi250 = find_device("gfx90a", "AMD Instinct MI250X/MI250", 104);
  ASSERT_NE(mi250.spec, nullptr);
  EXPECT_DOUBLE_EQ(mi250.compute_scale, 104.0 / 110.0);
}

TEST(DeviceTable, ProductAndArchitectureRules) {
  EXPECT_EQ(find_device("gfx942", "AMD Instinct MI325X").spec->key, "mi325x");
  EXPECT_NEAR(find_device("gfx942", "AMD Instinct MI325X").spec->bandwidth(MemLevel::Hbm), 6000, 0);
  EXPECT_EQ(find_device("gfx1030", "AMD Radeon RX 6900 XT").spec->key, "rx6900xt");
  EXPECT_FALSE(find_device("gfx1030", "AMD Radeon RX 6900 XT").spec->roofline_counters);
  EXPECT_EQ(find_device("sm_90", "NVIDIA H100 80GB HBM3").spec->key, "h100_sxm");
  EXPECT_EQ(find_device("sm_90a", "NVIDIA H100 SXM5 80GB").spec->key, "h100_sxm");
  EXPECT_EQ(find_device("sm_90", "NVIDIA H200").spec->key, "h200");
  // Different products of the same chip do not borrow the SXM peaks.
  EXPECT_EQ(find_device("sm_90", "NVIDIA H100 PCIe").spec, nullptr);
  EXPECT_EQ(find_device("sm_90", "NVIDIA H200 NVL").spec, nullptr);
  EXPECT_EQ(find_device("gfx942", "AMD Instinct MI300A").spec, nullptr);
  // No product name: only an unambiguous arch or CU count identifies the device.
  EXPECT_EQ(find_device("gfx942", "", 304).spec, nullptr);  // MI300X and MI325X both have 304 CUs
  EXPECT_EQ(find_device("gfx90a", "", 104).spec->key, "mi210");
  EXPECT_EQ(find_device("gfx1030", "").spec->key, "rx6900xt");
  DeviceMatch none = find_device("gfx1100", "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(none.spec, nullptr);
  EXPECT_NE(none.reason.find("not in the device table"), std::string::npos);
}

TEST(DeviceTable, HopperFiguresFromTheDatasheet) {
  const DeviceSpec* h100 = find_device("sm_90", "NVIDIA H100 80GB HBM3").spec;
  const DeviceSpec* h200 = find_device("sm_90", "NVIDIA H200").spec;
  ASSERT_TRUE(h100 && h200);
  EXPECT_EQ(h100->compute_units, 132u);
  EXPECT_EQ(h100->clock_mhz, 1980u);
  EXPECT_DOUBLE_EQ(h100->bandwidth(MemLevel::Hbm), 3350);
  EXPECT_DOUBLE_EQ(h200->bandwidth(MemLevel::Hbm), 4800);
  // Dense = "with sparsity" / 2: BF16 1979 / 2 = 989.5 TFLOP/s.
  EXPECT_DOUBLE_EQ(h100->peak(Pipe::Matrix, DataType::BF16), 989500);
  EXPECT_DOUBLE_EQ(h200->peak(Pipe::Matrix, DataType::BF16), 989500);
  EXPECT_DOUBLE_EQ(h100->peak(Pipe::Vector, DataType::F32), 67000);
  EXPECT_DOUBLE_EQ(h100->peak(Pipe::Vector, DataType::F64), 34000);
  EXPECT_EQ(h100->bandwidth(MemLevel::L2), 0.0);  // unpublished: unknown, not invented
  EXPECT_EQ(h100->l2_bytes, 50ull * 1024 * 1024);
}

TEST(ComputeClasses, NamesRoundTrip) {
  for (std::size_t i = 0; i < kComputeClassCount; ++i) {
    auto c = ComputeClass::from_index(i);
    EXPECT_EQ(parse_compute_class(compute_class_name(c)), c);
  }
  EXPECT_EQ(compute_class_name(kMatF16), "matrix_f16");
  EXPECT_FALSE(parse_compute_class("matrix_f17"));
  EXPECT_EQ(parse_mem_level("lds"), MemLevel::Lds);
  EXPECT_FALSE(parse_mem_level("dram"));
}

// ---------------------------------------------------------------------------------------------------
// Ceilings: table, empirical, override

TEST(Ceilings, EmpiricalPreferredOverTableAndOverrideOverBoth) {
  EmpiricalCeilings e;
  e.arch = "gfx90a";
  e.product_name = "AMD Instinct MI210";
  e.measured_at = "2026-11-20T10:00:00Z";
  e.bandwidth_gbps[kHbm] = 1389;  // rocm-amdgpu-bench MI210 (§4.5)
  e.gflops[kMatF16.index()] = 165000;
  const DeviceMatch m = find_device("gfx90a", "AMD Instinct MI210", 104);
  Ceilings c = resolve_ceilings("gfx90a", "AMD Instinct MI210", m, {&e, std::nullopt});
  EXPECT_EQ(c.bandwidth_of(MemLevel::Hbm).source, CeilingSource::Empirical);
  EXPECT_DOUBLE_EQ(c.bandwidth_of(MemLevel::Hbm).value, 1389);
  EXPECT_EQ(c.compute_of(kMatF16).source, CeilingSource::Empirical);
  EXPECT_EQ(c.compute_of(kVecF32).source, CeilingSource::Table);  // not measured: the table stays
  EXPECT_EQ(c.bandwidth_of(MemLevel::L2).source, CeilingSource::Table);

  Ceilings o = resolve_ceilings("gfx90a", "AMD Instinct MI210", m, {&e, 1200.0});
  EXPECT_EQ(o.bandwidth_of(MemLevel::Hbm).source, CeilingSource::Override);
  EXPECT_DOUBLE_EQ(o.bandwidth_of(MemLevel::Hbm).value, 1200);
  EXPECT_EQ(o.compute_of(kMatF16).source, CeilingSource::Empirical);
}

TEST(Ceilings, EmpiricalForAnotherDeviceIsNotApplied) {
  EmpiricalCeilings e;
  e.arch = "gfx90a";
  e.bandwidth_gbps[kHbm] = 1389;
  Ceilings c = resolve_ceilings("gfx942", "AMD Instinct MI300X", find_device("gfx942", "AMD Instinct MI300X"), {&e, std::nullopt});
  EXPECT_EQ(c.bandwidth_of(MemLevel::Hbm).source, CeilingSource::Table);
  EXPECT_NEAR(c.bandwidth_of(MemLevel::Hbm).value, 5324.8, 1e-9);
  bool noted = false;
  for (const auto& n : c.notes) noted = noted || n.find("not applied") != std::string::npos;
  EXPECT_TRUE(noted);
  // Same arch, different product: MI300X numbers must not be used for an MI325X.
  e.arch = "gfx942";
  e.product_name = "AMD Instinct MI300X";
  Ceilings d = resolve_ceilings("gfx942", "AMD Instinct MI325X", find_device("gfx942", "AMD Instinct MI325X"), {&e, std::nullopt});
  EXPECT_DOUBLE_EQ(d.bandwidth_of(MemLevel::Hbm).value, 6000);
}

TEST(Ceilings, UnknownDeviceHasOnlyWhatIsGiven) {
  Ceilings c = resolve_ceilings("gfx1100", "RX 7900 XTX", find_device("gfx1100", "RX 7900 XTX"), {nullptr, 960.0});
  EXPECT_EQ(c.bandwidth_of(MemLevel::Hbm).source, CeilingSource::Override);
  EXPECT_FALSE(c.compute_of(kVecF32).known());
  EXPECT_FALSE(c.bandwidth_of(MemLevel::L2).known());
}

TEST(Ceilings, BadOverrideIsAUsageError) {
  const DeviceMatch m = find_device("gfx942", "AMD Instinct MI300X");
  for (double bad : {0.0, -5.0, std::nan(""), static_cast<double>(INFINITY)}) {
    try {
      resolve_ceilings("gfx942", "AMD Instinct MI300X", m, {nullptr, bad});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage);
    }
  }
}

TEST(EmpiricalCeilingsFile, WriteReadRoundTripAndSchema) {
  test::TempDir dir;
  EmpiricalCeilings e;
  e.arch = "gfx942";
  e.product_name = "AMD Instinct MI300X";
  e.measured_at = "2026-11-20T10:00:00Z";
  e.tool = "rocm-amdgpu-bench";
  e.bandwidth_gbps[kHbm] = 4300;
  e.bandwidth_gbps[kL2] = 20000;
  e.gflops[kMatF16.index()] = 900000;
  const std::string path = dir.file("ceilings.json");
  write_empirical_ceilings(path, e);
  EXPECT_EQ(test::validate_against_schema("ceilings", path), "");
  EmpiricalCeilings back = read_empirical_ceilings(path);
  EXPECT_EQ(back.arch, "gfx942");
  EXPECT_EQ(back.product_name, "AMD Instinct MI300X");
  EXPECT_EQ(back.tool, "rocm-amdgpu-bench");
  EXPECT_DOUBLE_EQ(back.bandwidth_gbps[kHbm], 4300);
  EXPECT_DOUBLE_EQ(back.bandwidth_gbps[kL2], 20000);
  EXPECT_DOUBLE_EQ(back.gflops[kMatF16.index()], 900000);
  EXPECT_EQ(back.gflops[kVecF32.index()], 0.0);
}

TEST(EmpiricalCeilingsFile, MalformedDocumentsAreRejectedWithTheField) {
  auto expect_invalid = [](const char* text, const char* needle) {
    try {
      parse_empirical_ceilings(nlohmann::json::parse(text), "c.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::InputInvalid);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid(R"({"device":{"arch":"gfx942"}})", "schema_version");
  expect_invalid(R"({"schema_version":"2.0","device":{"arch":"gfx942"}})", "not supported");
  expect_invalid(R"({"schema_version":"1.0"})", "device");
  expect_invalid(R"({"schema_version":"1.0","device":{}})", "device.arch");
  expect_invalid(R"({"schema_version":"1.0","device":{"arch":"gfx942"},"bandwidth_gbps":{"dram":1}})", "bandwidth_gbps.dram");
  expect_invalid(R"({"schema_version":"1.0","device":{"arch":"gfx942"},"bandwidth_gbps":{"hbm":-1}})", "positive");
  expect_invalid(R"({"schema_version":"1.0","device":{"arch":"gfx942"},"gflops":{"fp32":1}})", "gflops.fp32");
  expect_invalid(R"({"schema_version":"1.0","device":{"arch":"gfx942"},"gflops":{"vector_f32":"fast"}})", "number");
  // A later 1.x minor version is accepted.
  EXPECT_EQ(parse_empirical_ceilings(nlohmann::json::parse(R"({"schema_version":"1.3","device":{"arch":"gfx942"}})"), "c")
                .arch,
            "gfx942");
}

TEST(EmpiricalCeilingsFile, MissingAndNonJsonFiles) {
  test::TempDir dir;
  try {
    read_empirical_ceilings(dir.file("absent.json"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputMissing);
  }
  std::ofstream(dir.file("bad.json")) << "{ not json";
  try {
    read_empirical_ceilings(dir.file("bad.json"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
  }
}

// ---------------------------------------------------------------------------------------------------
// Counter sets and passes

TEST(CounterSets, Gfx942AndGfx90aUseTheirOwnTccNames) {
  auto has = [](const std::vector<std::string>& v, const char* n) { return std::find(v.begin(), v.end(), n) != v.end(); };
  const auto cdna3 = roofline_counter_names(roofline_counter_set("gfx942"));
  EXPECT_TRUE(has(cdna3, "TCC_EA0_RDREQ_sum"));
  EXPECT_TRUE(has(cdna3, "TCC_EA0_WRREQ_64B_sum"));
  EXPECT_TRUE(has(cdna3, "TCC_BUBBLE_sum"));
  EXPECT_TRUE(has(cdna3, "SQ_INSTS_VALU_MFMA_MOPS_F8"));
  EXPECT_FALSE(has(cdna3, "TCC_EA_RDREQ_sum"));
  EXPECT_FALSE(has(cdna3, "TCC_EA0_WRREQ_32B_sum"));  // the first implementation's non-counter
  const auto cdna2 = roofline_counter_names(roofline_counter_set("gfx90a"));
  EXPECT_TRUE(has(cdna2, "TCC_EA_RDREQ_sum"));
  EXPECT_TRUE(has(cdna2, "TCC_EA_RDREQ_32B_sum"));
  EXPECT_TRUE(has(cdna2, "TCC_EA_WRREQ_64B_sum"));
  EXPECT_FALSE(has(cdna2, "TCC_EA0_RDREQ_sum"));
  EXPECT_FALSE(has(cdna2, "TCC_BUBBLE_sum"));
  EXPECT_FALSE(has(cdna2, "SQ_INSTS_VALU_MFMA_MOPS_F8"));
  for (const char* arch : {"gfx940", "gfx941"})
    EXPECT_EQ(roofline_counter_names(roofline_counter_set(arch)), cdna3) << arch;
  const auto cdna4 = roofline_counter_names(roofline_counter_set("gfx950"));
  EXPECT_TRUE(has(cdna4, "SQ_INSTS_VALU_MFMA_MOPS_F6F4"));
  EXPECT_TRUE(has(cdna4, "TCC_EA0_RDREQ_sum"));
}

TEST(CounterSets, RdnaAndUnknownArchitecturesSayWhy) {
  auto has = [](const std::vector<std::string>& v, const char* n) { return std::find(v.begin(), v.end(), n) != v.end(); };
  // gfx10/gfx11 with GL2C request counters: device-memory bytes only, and the limitation says so.
  for (const char* arch : {"gfx1030", "gfx1100"}) {
    auto set = roofline_counter_set(arch);
    EXPECT_EQ(set.family, CounterFamily::AmdRdna) << arch;
    EXPECT_FALSE(set.flop_counters);
    EXPECT_TRUE(set.unavailable_reason.empty());
    EXPECT_NE(set.limitation.find("no FLOP counters"), std::string::npos);
    for (const auto& q : set.quantities) EXPECT_EQ(q.kind, RooflineQuantity::Kind::Bytes) << q.name;
    EXPECT_TRUE(has(roofline_counter_names(set), "GL2C_EA_RDREQ_128B_sum"));
    EXPECT_TRUE(has(roofline_counter_names(set), "GL2C_MC_WRREQ_sum"));
  }
  auto set = roofline_counter_set("gfx1201");  // gfx12: no counter of ours is known there
  EXPECT_EQ(set.family, CounterFamily::AmdRdna);
  EXPECT_TRUE(set.quantities.empty());
  EXPECT_NE(set.unavailable_reason.find("no roofline counters"), std::string::npos);
  EXPECT_EQ(roofline_counter_set("gfx908").family, CounterFamily::None);
  EXPECT_FALSE(roofline_counter_set("gfx908").unavailable_reason.empty());
}

TEST(CounterSets, NcuMetricsForHopperIncludeFp8AndDuration) {
  const auto m = ncu_roofline_metrics("sm_90");
  auto has = [&](const char* n) { return std::find(m.begin(), m.end(), n) != m.end(); };
  EXPECT_EQ(m.front(), "gpu__time_duration.sum");
  EXPECT_TRUE(has("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"));
  EXPECT_TRUE(has("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"));
  EXPECT_TRUE(has("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"));
  EXPECT_TRUE(has("sm__ops_path_tensor_src_fp16.sum"));
  EXPECT_TRUE(has("sm__ops_path_tensor_src_fp8.sum"));
  EXPECT_TRUE(has("dram__bytes_read.sum"));
  EXPECT_TRUE(has("dram__bytes_write.sum"));
  EXPECT_TRUE(has("lts__t_bytes.sum"));
  EXPECT_TRUE(has("l1tex__t_bytes.sum"));
  EXPECT_EQ(std::set<std::string>(m.begin(), m.end()).size(), m.size());  // no duplicates
  const auto ampere = ncu_roofline_metrics("sm_80");
  EXPECT_EQ(std::find(ampere.begin(), ampere.end(), "sm__ops_path_tensor_src_fp8.sum"), ampere.end());
  EXPECT_THROW(ncu_roofline_metrics("gfx942"), Error);
}

TEST(CounterPasses, EveryPassRespectsTheBlockLimitsAndEveryCounterIsRequestedOnce) {
  for (const char* arch : {"gfx942", "gfx90a", "gfx950"}) {
    const auto set = roofline_counter_set(arch);
    const auto passes = split_amd_passes(set);
    std::multiset<std::string> requested;
    for (const auto& pass : passes) {
      std::map<std::string, int> per_block;
      for (const auto& c : pass) {
        requested.insert(c);
        ++per_block[c.substr(0, c.find('_'))];
      }
      for (const auto& [block, n] : per_block) EXPECT_LE(n, amd_block_limit(block + "_X")) << arch << " " << block;
    }
    const auto names = roofline_counter_names(set);
    EXPECT_EQ(requested.size(), names.size()) << arch;
    for (const auto& n : names) EXPECT_EQ(requested.count(n), 1u) << arch << " " << n;
  }
  // gfx942: 20 SQ counters (12 VALU, 6 MFMA... + 2 LDS) need at least 3 passes of 8; first fit gives 3.
  EXPECT_EQ(split_amd_passes(roofline_counter_set("gfx942")).size(), 3u);
}

TEST(CounterPasses, Rocprofv3InputHasOnePmcLinePerPass) {
  const std::string text = rocprofv3_pmc_input("gfx942");
  std::size_t lines = 0;
  for (std::size_t at = text.find("pmc:"); at != std::string::npos; at = text.find("pmc:", at + 1)) ++lines;
  EXPECT_EQ(lines, split_amd_passes(roofline_counter_set("gfx942")).size());
  EXPECT_NE(text.find("pmc: SQ_INSTS_VALU_ADD_F16"), std::string::npos);
  EXPECT_NE(text.find("TCC_EA0_RDREQ_sum"), std::string::npos);
  EXPECT_EQ(text.find("TCC_EA_RDREQ_sum"), std::string::npos);
  EXPECT_THROW(rocprofv3_pmc_input("gfx1201"), Error);
  // RDNA's GL2C limit is unknown: one counter per pass, six runs.
  const auto rdna = split_amd_passes(roofline_counter_set("gfx1030"));
  EXPECT_EQ(rdna.size(), 6u);
  for (const auto& pass : rdna) EXPECT_EQ(pass.size(), 1u);
  EXPECT_EQ(amd_block_limit("GL2C_HIT_sum"), 1);
  EXPECT_THROW(rocprofv3_pmc_input("sm_90"), Error);
  EXPECT_EQ(amd_block_limit("SQ_WAVES"), 8);
  EXPECT_EQ(amd_block_limit("TCC_HIT_sum"), 4);
  EXPECT_EQ(amd_block_limit("TA_BUSY"), 2);
  EXPECT_EQ(amd_block_limit("FOO_BAR"), 0);
}

// ---------------------------------------------------------------------------------------------------
// FLOP and byte formulas, per architecture

TEST(RooflineFormulas, Gfx942WorkedExample) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index k = b.kernel("gemm");
  Index d = b.dispatch(k, gpu, 1'000'000, 10'000);
  all_counters(b, d, "gfx942", kGfx942Example);
  RooflineResult r = compute_roofline(b.trace());
  ASSERT_EQ(r.kernels.size(), 1u);
  const RooflinePoint& p = r.kernels[0].point;
  EXPECT_EQ(p.status, PointStatus::Ok) << (p.reasons.empty() ? "" : p.reasons[0]);
  // vector_f32 = 64 x (100 + 50 + 2*200 + 10) = 64 x 560 = 35,840 FLOP
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kVecF32.index()], 35840);
  // matrix_f16 = 1000 x 512 = 512,000 FLOP
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kMatF16.index()], 512000);
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kVecF16.index()], 0);
  // hbm_rd = 128*200 + 64*(1000 - 200 - 100) + 32*100 = 25,600 + 44,800 + 3,200 = 73,600
  // hbm_wr = 64*300 + 32*(500 - 300) = 19,200 + 6,400 = 25,600; hbm = 99,200 B
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kHbm], 99200);
  // L2 = 64 x (2000 + 400 + 0 + 0) = 153,600 B; LDS = 128 x (300 - 50) = 32,000 B
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kL2], 153600);
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kLds], 32000);
  // Over its own 10,000 ns: 547,840 FLOP -> 54.784 GFLOP/s; 99,200 B -> 9.92 GB/s; AI = 5.52258 FLOP/B
  EXPECT_DOUBLE_EQ(*p.total_gflops, 54.784);
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 9.92);
  EXPECT_NEAR(*p.intensity[kHbm], 547840.0 / 99200.0, 1e-12);
  EXPECT_EQ(p.dominant, kMatF16);  // 51.2 GFLOP/s of MFMA F16 against 3.584 of VALU F32
  // Ridge = 1,307,443.2 / 5,324.8 = 245.54 FLOP/B > 5.52: memory bound; roof = AI x 5324.8.
  EXPECT_NEAR(*p.ridge_point, 1307443.2 / 5324.8, 1e-9);
  EXPECT_EQ(p.bound, Bound::Memory);
  EXPECT_NEAR(*p.roof_gflops, 547840.0 / 99200.0 * 5324.8, 1e-6);
  EXPECT_NEAR(*p.fraction_of_roof, 9.92 / 5324.8, 1e-15);
  EXPECT_FALSE(p.above_roof);
  EXPECT_TRUE(p.missing_counters.empty());
}

TEST(RooflineFormulas, Gfx90aUsesTccEaNamesWithoutBubble) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx90a", "AMD Instinct MI210", 104);
  Index d = b.dispatch(b.kernel("stream"), gpu, 0, 1'000);
  all_counters(b, d, "gfx90a",
               {{"TCC_EA_RDREQ_sum", 1000}, {"TCC_EA_RDREQ_32B_sum", 100}, {"TCC_EA_WRREQ_sum", 500},
                {"TCC_EA_WRREQ_64B_sum", 300}, {"SQ_INSTS_VALU_FMA_F64", 10}});
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Ok);
  // rd = 32*100 + 64*(1000 - 100) = 3,200 + 57,600 = 60,800; wr = 64*300 + 32*200 = 25,600; 86,400 B
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kHbm], 86400);
  // vector_f64 = 64 x 2 x 10 = 1,280 FLOP over 1,000 ns = 1.28 GFLOP/s
  EXPECT_DOUBLE_EQ(*p.gflops[kVecF64.index()], 1.28);
  EXPECT_EQ(p.dominant, kVecF64);
  EXPECT_DOUBLE_EQ(*p.peak_gflops, 22630.4);  // MI210 VALU: 104 x 1700 x 128 / 1000
}

TEST(RooflineFormulas, Gfx942NamesOnGfx90aAreMissingCountersNotZeros) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx90a", "AMD Instinct MI210", 104);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  all_counters(b, d, "gfx942", kGfx942Example);  // the wrong architecture's names
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Incomplete);
  EXPECT_FALSE(p.gbps[kHbm].has_value());
  EXPECT_FALSE(p.roof_gflops.has_value());
  EXPECT_NE(std::find(p.missing_counters.begin(), p.missing_counters.end(), "TCC_EA_RDREQ_sum"), p.missing_counters.end());
}

TEST(RooflineFormulas, UnsuffixedCounterStandsInForTheSumVariant) {
  // rocpd stores a non-derived counter per dimension; rows of one dispatch and counter add up.
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 10'000);
  for (const auto& name : roofline_counter_names(roofline_counter_set("gfx942"))) {
    if (name == "TCC_BUBBLE_sum") continue;
    auto it = kGfx942Example.find(name);
    b.counter(d, name, it == kGfx942Example.end() ? 0.0 : it->second);
  }
  b.counter(d, "TCC_BUBBLE", 120);
  b.counter(d, "TCC_BUBBLE", 80);  // a second dimension row: 120 + 80 = 200
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Ok);
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kHbm], 99200);  // as in the worked example
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 9.92);                 // the duration counted once
}

TEST(RooflineFormulas, NvidiaSassAndTensorCountsWithItsOwnDuration) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("sm_90", "NVIDIA H100 80GB HBM3", 132);
  Index d = b.dispatch(b.kernel("gemm"), gpu, 0, 10'000);  // the trace's timestamps: 10 us
  std::map<std::string, double> v = {{"gpu__time_duration.sum", 5'000},  // ncu's own replay: 5 us
                                     {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1000},
                                     {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 10},
                                     {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 20},
                                     {"sm__ops_path_tensor_src_fp16.sum", 4096},
                                     {"dram__bytes_read.sum", 1000},
                                     {"dram__bytes_write.sum", 500},
                                     {"lts__t_bytes.sum", 3000}};
  all_counters(b, d, "sm_90", v);
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Ok);
  // vector_f32 = 10 + 20 + 2 x 1000 = 2,030 FLOP; tensor f16 = 4,096 (ncu counts an FMA as 2 already)
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kVecF32.index()], 2030);
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kMatF16.index()], 4096);
  EXPECT_DOUBLE_EQ(p.duration_ns, 5000);
  // Rates over ncu's 5,000 ns, not the trace's 10,000: 6,126 / 5,000 = 1.2252 GFLOP/s; 1,500 B -> 0.3 GB/s
  EXPECT_DOUBLE_EQ(*p.total_gflops, 6126.0 / 5000.0);
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 0.3);
  EXPECT_DOUBLE_EQ(*p.gbps[kL2], 0.6);
  EXPECT_EQ(p.dominant, kMatF16);
  EXPECT_DOUBLE_EQ(*p.peak_gflops, 989500);
  EXPECT_DOUBLE_EQ(*p.peak_hbm_gbps, 3350);
}

// ---------------------------------------------------------------------------------------------------
// Scope: every kernel over its own profiled dispatches' time

TEST(RooflineScope, EachKernelUsesItsOwnDispatchesDurations) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index k1 = b.kernel("small"), k2 = b.kernel("long");
  Index a = b.dispatch(k1, gpu, 0, 1'000);
  Index c = b.dispatch(k1, gpu, 2'000, 1'000);
  b.dispatch(k1, gpu, 4'000, 5'000);  // not profiled: no counters, not in the time base
  Index l = b.dispatch(k2, gpu, 10'000, 8'000);
  all_counters(b, a, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  all_counters(b, c, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  all_counters(b, l, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 100}, {"TCC_EA0_RDREQ_sum", 1000}});
  RooflineResult r = compute_roofline(b.trace());
  const auto& small = kernel_named(r, "small");
  const auto& big = kernel_named(r, "long");
  // small: 2 x (64 x 2 x 10) = 2,560 FLOP over 2 x 1,000 ns = 1.28 GFLOP/s (not over 7,000 or 8,000 ns)
  EXPECT_EQ(small.dispatch_count, 3u);
  EXPECT_EQ(small.point.profiled_dispatches, 2u);
  EXPECT_DOUBLE_EQ(small.point.duration_ns, 2000);
  EXPECT_DOUBLE_EQ(*small.point.total_gflops, 1.28);
  // 2 x 64 x 100 = 12,800 B over 2,000 ns = 6.4 GB/s
  EXPECT_DOUBLE_EQ(*small.point.gbps[kHbm], 6.4);
  // long: 12,800 FLOP / 8,000 ns = 1.6 GFLOP/s; 64,000 B / 8,000 ns = 8 GB/s
  EXPECT_DOUBLE_EQ(*big.point.total_gflops, 1.6);
  EXPECT_DOUBLE_EQ(*big.point.gbps[kHbm], 8.0);
  // Ordered by profiled time: long (8,000 ns) before small (2,000 ns).
  EXPECT_EQ(r.kernels[0].name, "long");
}

TEST(RooflineScope, CountersFromTwoPassesAreEachTimedByTheirOwnDispatches) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index k = b.kernel("k");
  Index pass1 = b.dispatch(k, gpu, 0, 1'000);  // FLOP counters only
  Index pass2 = b.dispatch(k, gpu, 5'000, 2'000);  // byte counters only
  for (const auto& name : roofline_counter_names(roofline_counter_set("gfx942"))) {
    const bool flop = name.rfind("SQ_INSTS", 0) == 0;
    double v = 0;
    if (name == "SQ_INSTS_VALU_FMA_F32") v = 100;  // 12,800 FLOP
    if (name == "TCC_EA0_RDREQ_sum") v = 1000;     // 64,000 B
    b.counter(flop ? pass1 : pass2, name, v);
  }
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Ok);
  // 12,800 FLOP / 1,000 ns = 12.8 GFLOP/s; 64,000 B / 2,000 ns = 32 GB/s; AI = 12.8 / 32 = 0.4 FLOP/B
  EXPECT_DOUBLE_EQ(*p.total_gflops, 12.8);
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 32.0);
  EXPECT_DOUBLE_EQ(*p.intensity[kHbm], 0.4);
  EXPECT_DOUBLE_EQ(*p.flops_per_dispatch[kVecF32.index()], 12800);
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kHbm], 64000);
}

TEST(RooflineScope, PerDispatchPointsUseEachDispatchsOwnTime) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index k = b.kernel("k");
  Index a = b.dispatch(k, gpu, 0, 1'000), c = b.dispatch(k, gpu, 2'000, 4'000);
  all_counters(b, a, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  all_counters(b, c, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  RooflineOptions o;
  o.per_dispatch = true;
  const RooflineResult result = compute_roofline(b.trace(), o);
  const auto& kr = result.kernels.at(0);
  ASSERT_EQ(kr.dispatches.size(), 2u);
  // 1,280 FLOP / 1,000 ns = 1.28; / 4,000 ns = 0.32; aggregate 2,560 / 5,000 = 0.512 GFLOP/s
  EXPECT_DOUBLE_EQ(*kr.dispatches[0].point.total_gflops, 1.28);
  EXPECT_DOUBLE_EQ(*kr.dispatches[1].point.total_gflops, 0.32);
  EXPECT_DOUBLE_EQ(*kr.point.total_gflops, 0.512);
  EXPECT_EQ(kr.dispatches[1].dispatch_id, b.trace().dispatches[c].dispatch_id);
}

TEST(RooflineScope, ZeroDurationDispatchesAreLeftOutWithAWarning) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index k = b.kernel("k");
  Index zero = b.dispatch(k, gpu, 0, 0), good = b.dispatch(k, gpu, 10, 1'000);
  all_counters(b, zero, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 1000}});
  all_counters(b, good, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  RooflineResult r = compute_roofline(b.trace());
  EXPECT_EQ(r.kernels.at(0).point.profiled_dispatches, 1u);
  EXPECT_DOUBLE_EQ(*r.kernels.at(0).point.total_gflops, 1.28);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("zero or negative duration"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------------
// Above the roof

namespace {
// A bandwidth-only kernel on an MI300X with the hbm ceiling overridden to 1000 GB/s: 64 B per RDREQ over
// 1,024 ns. RDREQ = 16,800 -> 1,075,200 B / 1,024 ns = 1050 GB/s, exactly 1000 x (1 + 0.05).
RooflinePoint bandwidth_point(double rdreq) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("copy"), gpu, 0, 1'024);
  all_counters(b, d, "gfx942", {{"TCC_EA0_RDREQ_sum", rdreq}});
  RooflineOptions o;
  o.memory_bandwidth_gbps = 1000;
  return compute_roofline(b.trace(), o).kernels.at(0).point;
}
}  // namespace

TEST(AboveRoof, ToleranceBoundary) {
  RooflinePoint below = bandwidth_point(16'799);  // 1049.9375 GB/s
  RooflinePoint at = bandwidth_point(16'800);     // 1050 GB/s: at the tolerance, not above it
  RooflinePoint above = bandwidth_point(16'801);  // 1050.0625 GB/s
  EXPECT_EQ(below.status, PointStatus::Ok);
  EXPECT_EQ(at.status, PointStatus::Ok);
  EXPECT_FALSE(at.above_roof);
  EXPECT_DOUBLE_EQ(*at.gbps[kHbm], 1050);
  EXPECT_DOUBLE_EQ(*at.fraction_of_roof, 1.05);
  EXPECT_EQ(above.status, PointStatus::AboveRoof);
  EXPECT_TRUE(above.above_roof);
  ASSERT_FALSE(above.reasons.empty());
  EXPECT_NE(above.reasons[0].find("hbm"), std::string::npos);
  EXPECT_NE(above.reasons[0].find("measurement error"), std::string::npos);
  EXPECT_NE(above.reasons[0].find("override"), std::string::npos);
  // No FLOPs: a copy kernel sits at intensity 0 on the memory side.
  EXPECT_EQ(below.bound, Bound::Memory);
  EXPECT_FALSE(below.dominant.has_value());
  EXPECT_DOUBLE_EQ(*below.roof_gflops, 0.0);
}

TEST(AboveRoof, ComputeAboveItsPeakIsFlagged) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  // 100,000 GFLOP/s of VALU F32 against its 81,715.2 peak: 1e8 FLOP in 1,000 ns = 64 x 2 x 781,250 FMA.
  all_counters(b, d, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 781'250}, {"TCC_EA0_RDREQ_sum", 1}});
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_DOUBLE_EQ(*p.total_gflops, 100000);
  EXPECT_EQ(p.status, PointStatus::AboveRoof);
  EXPECT_EQ(p.bound, Bound::Compute);
  EXPECT_NE(p.reasons[0].find("vector_f32"), std::string::npos);
}

TEST(AboveRoof, ToleranceIsAnOption) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("copy"), gpu, 0, 1'024);
  all_counters(b, d, "gfx942", {{"TCC_EA0_RDREQ_sum", 16'400}});  // 1,049,600 B / 1,024 ns = 1025 GB/s
  RooflineOptions o;
  o.memory_bandwidth_gbps = 1000;
  o.above_roof_tolerance = 0.0;
  EXPECT_EQ(compute_roofline(b.trace(), o).kernels.at(0).point.status, PointStatus::AboveRoof);
  o.above_roof_tolerance = 0.05;
  EXPECT_EQ(compute_roofline(b.trace(), o).kernels.at(0).point.status, PointStatus::Ok);
}

// ---------------------------------------------------------------------------------------------------
// Unavailable and incomplete

TEST(RooflineAvailability, RdnaPlacesDeviceMemoryBandwidthAndSaysWhatItCannotPlace) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx1030", "AMD Radeon RX 6900 XT", 80);
  Index k = b.kernel("stream");
  // 1000 ns per dispatch: 2000 x 128 B reads + 1000 x 64 B and 500 x 32 B writes = 256000 + 80000 B.
  for (int i = 0; i < 2; ++i) {
    Index d = b.dispatch(k, gpu, 10'000 * i, 1'000);
    b.counters(d, {{"GL2C_EA_RDREQ_32B_sum", 0}, {"GL2C_EA_RDREQ_64B_sum", 0}, {"GL2C_EA_RDREQ_96B_sum", 0},
                   {"GL2C_EA_RDREQ_128B_sum", 2000}, {"GL2C_MC_WRREQ_sum", 1500}, {"GL2C_EA_WRREQ_64B_sum", 1000}});
  }
  RooflineResult r = compute_roofline(b.trace());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_TRUE(r.agents[0].unavailable_reason.empty());
  EXPECT_NE(r.agents[0].limitation.find("no FLOP counters"), std::string::npos);
  const RooflinePoint& p = r.kernels[0].point;
  EXPECT_EQ(p.status, PointStatus::BandwidthOnly);
  EXPECT_STREQ(to_string(p.status), "bandwidth_only");
  ASSERT_TRUE(p.gbps[kHbm]);
  EXPECT_DOUBLE_EQ(*p.bytes_per_dispatch[kHbm], 336000);
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 336);
  EXPECT_DOUBLE_EQ(*p.fraction_of_bandwidth[kHbm], 336.0 / 512);
  EXPECT_NE(p.reasons.at(0).find("FLOP/s, arithmetic intensity, roof and side of the ridge are unknown"), std::string::npos);
  EXPECT_FALSE(p.total_gflops || p.intensity[kHbm] || p.fraction_of_roof || p.roof_gflops);
  EXPECT_EQ(p.bound, Bound::Unknown);
  EXPECT_FALSE(p.gbps[static_cast<std::size_t>(MemLevel::L2)]);
  EXPECT_EQ(roofline_status(b.trace(), r).status, std::string("ok"));

  // gfx1100: the counters exist, the bandwidth ceiling is in no table of ours: incomplete, and it says which.
  test::CounterTraceBuilder b2;
  Index navi31 = b2.agent("gfx1100", "AMD Radeon RX 7900 XTX", 96);
  Index d = b2.dispatch(b2.kernel("stream"), navi31, 0, 1'000);
  b2.counters(d, {{"GL2C_EA_RDREQ_32B_sum", 0}, {"GL2C_EA_RDREQ_64B_sum", 0}, {"GL2C_EA_RDREQ_96B_sum", 0},
                  {"GL2C_EA_RDREQ_128B_sum", 2000}, {"GL2C_MC_WRREQ_sum", 0}, {"GL2C_EA_WRREQ_64B_sum", 0}});
  RooflineResult r2 = compute_roofline(b2.trace());
  EXPECT_EQ(r2.kernels.at(0).point.status, PointStatus::Incomplete);
  bool names_ceiling = false;
  for (const auto& reason : r2.kernels[0].point.reasons) names_ceiling |= reason.find("no device-memory bandwidth ceiling") != std::string::npos;
  EXPECT_TRUE(names_ceiling);
  RooflineOptions o;
  o.memory_bandwidth_gbps = 960;
  EXPECT_EQ(compute_roofline(b2.trace(), o).kernels.at(0).point.status, PointStatus::BandwidthOnly);
}

TEST(RooflineAvailability, RdnaKernelsWithoutKnownCountersAreUnavailableWithAReasonNotZeros) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx1201", "AMD Radeon gfx1201 GPU", 64);
  Index k = b.kernel("k");
  b.dispatch(k, gpu, 0, 1'000);
  b.dispatch(k, gpu, 2'000, 1'000);
  RooflineResult r = compute_roofline(b.trace());
  ASSERT_EQ(r.agents.size(), 1u);
  EXPECT_EQ(r.agents[0].family, CounterFamily::AmdRdna);
  EXPECT_FALSE(r.agents[0].unavailable_reason.empty());
  ASSERT_EQ(r.kernels.size(), 1u);
  const RooflinePoint& p = r.kernels[0].point;
  EXPECT_EQ(p.status, PointStatus::Unavailable);
  EXPECT_EQ(r.kernels[0].dispatch_count, 2u);
  ASSERT_FALSE(p.reasons.empty());
  EXPECT_NE(p.reasons[0].find("gfx1201"), std::string::npos);
  EXPECT_FALSE(p.total_gflops.has_value());
  EXPECT_FALSE(p.gbps[kHbm].has_value());
  EXPECT_FALSE(p.fraction_of_roof.has_value());
}

TEST(RooflineAvailability, MissingFlopCountersMakeThePointIncomplete) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  // Only the HBM pass: no SQ counters at all.
  b.counters(d, {{"TCC_EA0_RDREQ_sum", 10}, {"TCC_EA0_RDREQ_32B_sum", 0}, {"TCC_BUBBLE_sum", 0},
                 {"TCC_EA0_WRREQ_sum", 0}, {"TCC_EA0_WRREQ_64B_sum", 0}});
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Incomplete);
  EXPECT_DOUBLE_EQ(*p.gbps[kHbm], 0.64);
  EXPECT_FALSE(p.total_gflops.has_value());
  EXPECT_FALSE(p.missing_counters.empty());
}

TEST(RooflineAvailability, NegativeDifferenceIsAnInconsistencyNotAQuantity) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  // LDS = 128 x (10 - 50) < 0: the counters disagree.
  all_counters(b, d, "gfx942", {{"SQ_LDS_IDX_ACTIVE", 10}, {"SQ_LDS_BANK_CONFLICT", 50}, {"TCC_EA0_RDREQ_sum", 1}});
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_FALSE(p.gbps[kLds].has_value());
  EXPECT_EQ(p.status, PointStatus::Ok);  // LDS is optional for the point
  bool noted = false;
  for (const auto& reason : p.reasons) noted = noted || reason.find("lds came out negative") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(RooflineAvailability, NoCountersAtAllGivesAWarningAndNoPoints) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  RooflineResult r = compute_roofline(b.trace());
  EXPECT_TRUE(r.kernels.empty());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no hardware counters"), std::string::npos);
}

TEST(RooflineAvailability, UnknownDeviceWithoutCeilingsIsIncompleteButMeasured) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300A", 228);  // not in the table
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1'000);
  all_counters(b, d, "gfx942", {{"SQ_INSTS_VALU_FMA_F32", 10}, {"TCC_EA0_RDREQ_sum", 100}});
  const RooflineResult resultp = compute_roofline(b.trace());
  const RooflinePoint& p = resultp.kernels.at(0).point;
  EXPECT_EQ(p.status, PointStatus::Incomplete);
  EXPECT_DOUBLE_EQ(*p.total_gflops, 1.28);
  EXPECT_EQ(p.bound, Bound::Unknown);
  // With empirical ceilings for it, the point is complete.
  EmpiricalCeilings e;
  e.arch = "gfx942";
  e.product_name = "AMD Instinct MI300A";
  e.bandwidth_gbps[kHbm] = 4000;
  e.gflops[kVecF32.index()] = 60000;
  RooflineOptions o;
  o.empirical = &e;
  const RooflineResult resultq = compute_roofline(b.trace(), o);
  const RooflinePoint& q = resultq.kernels.at(0).point;
  EXPECT_EQ(q.status, PointStatus::Ok);
  EXPECT_EQ(q.bound, Bound::Memory);  // AI = 1.28 / 6.4 = 0.2 < 60000 / 4000 = 15
}

// ---------------------------------------------------------------------------------------------------
// evaluate_counters (the same evaluation without a Trace)

TEST(EvaluateCounters, ComputeBoundSideAndRoof) {
  // sm_90 H100: 1e9 tensor FLOP and 1e6 DRAM bytes over 2,000 ns -> 500,000 GFLOP/s, 500 GB/s,
  // AI = 1000 FLOP/B > ridge 989,500 / 3,350 = 295.4: compute bound; fraction = 500,000 / 989,500.
  auto set = roofline_counter_set("sm_90");
  std::vector<NamedCounterStats> c;
  for (const auto& name : roofline_counter_names(set)) c.push_back({name, {0, 2000, 1}});
  for (auto& x : c) {
    if (x.counter == "sm__ops_path_tensor_src_bf16_dst_fp32.sum") x.stats.sum = 1e9;
    if (x.counter == "dram__bytes_read.sum") x.stats.sum = 1e6;
  }
  const DeviceMatch m = find_device("sm_90", "NVIDIA H100 80GB HBM3");
  RooflinePoint p = evaluate_counters(set, c, resolve_ceilings("sm_90", "NVIDIA H100 80GB HBM3", m, {}));
  EXPECT_EQ(p.status, PointStatus::Ok);
  EXPECT_EQ(p.bound, Bound::Compute);
  EXPECT_DOUBLE_EQ(*p.intensity[kHbm], 1000);
  EXPECT_DOUBLE_EQ(*p.roof_gflops, 989500);
  EXPECT_DOUBLE_EQ(*p.fraction_of_roof, 500000.0 / 989500.0);
  EXPECT_NEAR(*p.ridge_point, 989500.0 / 3350.0, 1e-9);
}

// ---------------------------------------------------------------------------------------------------
// roofline.json

TEST(RooflineDocument, ValidatesAgainstTheSchema) {
  test::CounterTraceBuilder b;
  Index mi300 = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index rdna = b.agent("gfx1201", "AMD Radeon gfx1201 GPU", 64);
  Index k = b.kernel("gemm");
  Index d1 = b.dispatch(k, mi300, 0, 10'000), d2 = b.dispatch(k, mi300, 20'000, 10'000);
  all_counters(b, d1, "gfx942", kGfx942Example);
  all_counters(b, d2, "gfx942", kGfx942Example);
  b.dispatch(b.kernel("gfx1201_kernel"), rdna, 0, 100);
  Index navi21 = b.agent("gfx1030", "AMD Radeon RX 6900 XT", 80);
  Index bw = b.dispatch(b.kernel("rdna_stream"), navi21, 0, 1'000);
  b.counters(bw, {{"GL2C_EA_RDREQ_32B_sum", 0}, {"GL2C_EA_RDREQ_64B_sum", 0}, {"GL2C_EA_RDREQ_96B_sum", 0},
                  {"GL2C_EA_RDREQ_128B_sum", 100}, {"GL2C_MC_WRREQ_sum", 0}, {"GL2C_EA_WRREQ_64B_sum", 0}});
  Index over = b.dispatch(b.kernel("too_fast"), mi300, 50'000, 1);
  all_counters(b, over, "gfx942", {{"TCC_EA0_RDREQ_sum", 1e6}});
  RooflineOptions o;
  o.per_dispatch = true;
  RooflineResult r = compute_roofline(b.trace(), o);
  nlohmann::json doc = roofline_document(b.trace(), r);
  test::TempDir dir;
  const std::string path = dir.file("roofline.json");
  std::ofstream(path) << doc.dump(2);
  EXPECT_EQ(test::validate_against_schema("roofline", path), "");
  EXPECT_EQ(doc["schema_version"], "1.0");
  ASSERT_EQ(doc["devices"].size(), 3u);
  EXPECT_NE(doc["devices"][2]["limitation"].get<std::string>().find("no FLOP counters"), std::string::npos);
  EXPECT_TRUE(doc["devices"][0]["limitation"].is_null());
  EXPECT_EQ(doc["devices"][0]["ceilings"]["bandwidth_gbps"]["hbm"]["source"], "table");
  EXPECT_EQ(doc["devices"][1]["roofline_available"], false);
  bool saw_above = false, saw_unavailable = false, saw_bandwidth_only = false;
  for (const auto& kernel : doc["kernels"]) {
    saw_bandwidth_only = saw_bandwidth_only || kernel["point"]["status"] == "bandwidth_only";
    saw_above = saw_above || kernel["point"]["status"] == "above_roof";
    saw_unavailable = saw_unavailable || kernel["point"]["status"] == "unavailable";
    if (kernel["name"] == "gemm") {
      EXPECT_EQ(kernel["dispatches"].size(), 2u);
      EXPECT_DOUBLE_EQ(kernel["point"]["bytes"]["hbm"]["per_dispatch"].get<double>(), 99200);
    }
  }
  EXPECT_TRUE(saw_above);
  EXPECT_TRUE(saw_unavailable);
  EXPECT_TRUE(saw_bandwidth_only);
}
