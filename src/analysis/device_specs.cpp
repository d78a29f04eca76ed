// The device table, device lookup and the resolution of the ceilings a roofline uses.
//
// Sources. AMD: rocprof-compute's peak formulas, FLOPS/clock/CU from the ROCm GPU-architecture docs, machine
// values from rocprof-compute's sysinfo (as the project's AMD profiling-stack notes summarise them).
// Every AMD compute peak is derived here as CUs x MHz x FLOPs-per-clock-per-CU.
// NVIDIA: the H100 SXM and H200 product datasheets (dense figures = the "with sparsity" figures / 2), the
// H100 whitepaper where the datasheet is silent, and values read on this workplace's H100 by ncu 2025.3.1
// (device__attribute_*: 132 SMs, max GPU clock 1,980,000 kHz, L2 52,428,800 B, memory clock 2,619,000 kHz,
// 5120-bit bus).
#include "analysis/device_specs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/errors.hpp"

namespace rpl::analysis {
namespace {

constexpr const char* kDataTypeNames[kDataTypeCount] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "f6f4", "i8"};
constexpr const char* kMemLevelNames[kMemLevelCount] = {"hbm", "l2", "l1", "lds"};

constexpr uint64_t kMiB = 1024ull * 1024;
constexpr uint64_t kGiB = 1024ull * kMiB;

// Peak in GFLOP/s (or GB/s) of `cus` units at `mhz` doing `per_clock` per unit per clock.
constexpr double per_clock(uint32_t cus, uint32_t mhz, double per_clock_per_cu) {
  return static_cast<double>(cus) * mhz * per_clock_per_cu / 1000.0;
}

constexpr void set(DeviceSpec& d, Pipe p, DataType t, double gflops) { d.peak_gflops[ComputeClass{p, t}.index()] = gflops; }
constexpr void set(DeviceSpec& d, MemLevel l, double gbps) { d.bandwidth_gbps[static_cast<std::size_t>(l)] = gbps; }

// CDNA vector peaks: the counters count a packed instruction (v_pk_fma_f32/f16) once, x64 lanes, x2 for
// FMA (§4.2), so the measured VALU FLOPs can reach only the non-packed rate: 64 lanes x 2 = 128 FLOPs per
// clock per CU for F16, F32 and F64 alike (rocprof-compute's "VALU FLOPs" peak, §4.4). The packed rates
// (2x for F32 and F16) are hardware facts the counters cannot show, so they are not ceilings here.
constexpr void set_cdna_vector(DeviceSpec& d) {
  for (DataType t : {DataType::F64, DataType::F32, DataType::F16})
    set(d, Pipe::Vector, t, per_clock(d.compute_units, d.clock_mhz, 128));
}

// CDNA memory levels (§4.4): vL1D = sclk/1000 x B/clk x CU, L2 = sclk/1000 x B/clk x L2 channels,
// LDS = sclk x CU x 0.128 (128 B/clk/CU), HBM = mclk/1000 x 32 B x HBM channels.
constexpr void set_cdna_memory(DeviceSpec& d, double l1_bytes_per_clk, double l2_bytes_per_clk, uint32_t l2_channels,
                               double hbm_gbps) {
  const double ghz = d.clock_mhz / 1000.0;
  set(d, MemLevel::L1, ghz * l1_bytes_per_clk * d.compute_units);
  set(d, MemLevel::L2, ghz * l2_bytes_per_clk * l2_channels);
  set(d, MemLevel::Lds, per_clock(d.compute_units, d.clock_mhz, 128));
  set(d, MemLevel::Hbm, hbm_gbps);
}

// MI300X (gfx942): 304 CUs (8 XCD x 38), 2100 MHz (§4.4 sysinfo and §4.5 table).
// Matrix FLOPs/clk/CU (§4.5, ROCm mi300.md): F64 256, F32 256, TF32 1024, F16/BF16 2048, F8 4096,
// INT8 4096. Check (§4.5): 304 x 2.1e9 x 2048 = 1307.4 TFLOP/s.
// HBM: 1300 MHz x 32 B x 128 channels = 5324.8 GB/s (§4.4, rocprof-compute's $hbmBandwidth).
// L2: 128 channels (16/XCD) x 128 B/clk; vL1D 128 B/clk/CU (gfx942 column of §4.4). L2 4 MiB per XCD =
// 32 MiB; Infinity Cache 256 MiB; 192 GiB HBM3 (§4.5).
constexpr DeviceSpec mi300_family(std::string_view key, std::string_view product, double hbm_gbps, uint64_t memory,
                                  std::string_view note) {
  DeviceSpec d{};
  d.key = key;
  d.product = product;
  d.vendor = Vendor::Amd;
  d.arch = "gfx942";
  d.compute_units = 304;
  d.clock_mhz = 2100;
  d.wave_size = 64;
  d.l2_bytes = 32 * kMiB;
  d.llc_bytes = 256 * kMiB;
  d.memory_bytes = memory;
  set_cdna_vector(d);
  set(d, Pipe::Matrix, DataType::F64, per_clock(304, 2100, 256));
  set(d, Pipe::Matrix, DataType::F32, per_clock(304, 2100, 256));
  set(d, Pipe::Matrix, DataType::TF32, per_clock(304, 2100, 1024));
  set(d, Pipe::Matrix, DataType::F16, per_clock(304, 2100, 2048));
  set(d, Pipe::Matrix, DataType::BF16, per_clock(304, 2100, 2048));
  set(d, Pipe::Matrix, DataType::F8, per_clock(304, 2100, 4096));
  set(d, Pipe::Matrix, DataType::I8, per_clock(304, 2100, 4096));
  set_cdna_memory(d, 128, 128, 128, hbm_gbps);
  d.note = note;
  return d;
}

// MI250X (gfx90a): the package is 2 GCDs x 110 CUs, and each GCD is its own agent (HIP device), so the
// table holds ONE GCD: 110 CUs, 1700 MHz, 8 MiB L2, 64 GiB HBM2e at 1600 MHz x 32 B x 32 channels =
// 1638.4 GB/s (§4.5: "3.2768 TB/s (1.6384/GCD)", "16 MiB (8 MiB/GCD)"). Matrix FLOPs/clk/CU (§4.5, ROCm
// mi250.md): F64 256, F32 256, F16/BF16/INT8 1024; no TF32 or F8. Package check (§4.5): 220 x 1.7e9 x
// 1024 = 383.0 TFLOP/s, i.e. 191.5 per GCD. gfx90a memory levels: vL1D 64 B/clk/CU, L2 64 B/clk x 32
// channels (§4.4, gfx90a column).
constexpr DeviceSpec mi250x_gcd() {
  DeviceSpec d{};
  d.key = "mi250x";
  d.product = "AMD Instinct MI250X (one GCD)";
  d.vendor = Vendor::Amd;
  d.arch = "gfx90a";
  d.compute_units = 110;
  d.clock_mhz = 1700;
  d.wave_size = 64;
  d.l2_bytes = 8 * kMiB;
  d.memory_bytes = 64 * kGiB;
  set_cdna_vector(d);
  set(d, Pipe::Matrix, DataType::F64, per_clock(110, 1700, 256));
  set(d, Pipe::Matrix, DataType::F32, per_clock(110, 1700, 256));
  set(d, Pipe::Matrix, DataType::F16, per_clock(110, 1700, 1024));
  set(d, Pipe::Matrix, DataType::BF16, per_clock(110, 1700, 1024));
  set(d, Pipe::Matrix, DataType::I8, per_clock(110, 1700, 1024));
  set_cdna_memory(d, 64, 64, 32, 1638.4);
  d.note = "one GCD (one agent) of the two-GCD package; package figures are twice these";
  return d;
}

// MI210 (gfx90a): 104 CUs, 1700 MHz, 8 MiB L2, 64 GiB HBM2e at 1600 MHz x 32 B x 32 channels = 1638.4
// GB/s (§4.4 sysinfo "MI200" row, §4.5). Check (§4.5): 104 x 1.7e9 x 1024 = 181.0 TFLOP/s.
constexpr DeviceSpec mi210() {
  DeviceSpec d{};
  d.key = "mi210";
  d.product = "AMD Instinct MI210";
  d.vendor = Vendor::Amd;
  d.arch = "gfx90a";
  d.compute_units = 104;
  d.clock_mhz = 1700;
  d.wave_size = 64;
  d.l2_bytes = 8 * kMiB;
  d.memory_bytes = 64 * kGiB;
  set_cdna_vector(d);
  set(d, Pipe::Matrix, DataType::F64, per_clock(104, 1700, 256));
  set(d, Pipe::Matrix, DataType::F32, per_clock(104, 1700, 256));
  set(d, Pipe::Matrix, DataType::F16, per_clock(104, 1700, 1024));
  set(d, Pipe::Matrix, DataType::BF16, per_clock(104, 1700, 1024));
  set(d, Pipe::Matrix, DataType::I8, per_clock(104, 1700, 1024));
  set_cdna_memory(d, 64, 64, 32, 1638.4);
  d.note = "empirical ceilings measured by rocm-amdgpu-bench are far lower (HBM ~1389 GB/s, MFMA F16 ~165 TFLOP/s, §4.5)";
  return d;
}

// RX 6900 XT (gfx1030, RDNA2): 80 CUs, 2250 MHz boost, wave32 by default (§4.5). FP32 = 80 x 64 lanes x 2
// x 2.25e9 = 23.04 TFLOP/s (§4.5 derivation); FP16 46.08 (packed, §4.5 "derived"); FP64 1/16 rate =
// 1.44. No matrix cores. 16 GiB GDDR6 on a 256-bit bus: 512 GB/s. L2 4 MiB, Infinity Cache 128 MiB. The
// SQ_INSTS_VALU_* FLOP counters are not defined for gfx1030 (§4.1), hence roofline_counters = false (the
// counter roofline places only the device-memory bandwidth, from GL2C requests).
constexpr DeviceSpec rx6900xt() {
  DeviceSpec d{};
  d.key = "rx6900xt";
  d.product = "AMD Radeon RX 6900 XT";
  d.vendor = Vendor::Amd;
  d.arch = "gfx1030";
  d.compute_units = 80;
  d.clock_mhz = 2250;
  d.wave_size = 32;
  d.l2_bytes = 4 * kMiB;
  d.llc_bytes = 128 * kMiB;
  d.memory_bytes = 16 * kGiB;
  d.roofline_counters = false;
  set(d, Pipe::Vector, DataType::F32, per_clock(80, 2250, 128));
  set(d, Pipe::Vector, DataType::F16, per_clock(80, 2250, 256));
  set(d, Pipe::Vector, DataType::F64, per_clock(80, 2250, 128.0 / 16));
  set(d, MemLevel::Hbm, 512);
  d.note = "RDNA2: no FLOP counters, so the counter roofline places only the device-memory bandwidth (GL2C requests, "
           "which include Infinity Cache hits); the table also serves occupancy and reports";
  return d;
}

// NVIDIA H100 SXM5 80GB (sm_90). Datasheet (nvidia.com H100 datasheet, SXM column): FP64 34 TFLOP/s,
// FP64 Tensor 67, FP32 67, TF32 Tensor 989*, BF16/FP16 Tensor 1979*, FP8 Tensor 3958*, INT8 Tensor 3958*
// TOPS (* = with sparsity: dense is half), memory 80 GB HBM3 at 3.35 TB/s. Cross-checks:
// - 132 SMs x 128 FP32 lanes x 2 x 1.98 GHz = 66.9 TFLOP/s (FP32); x 64 FP64 lanes = 33.5 (the datasheet
//   rounds to 34; we keep the datasheet figure).
// - Dense FP16 tensor 989.4 = 132 x 4096 FLOPs/clk/SM x 1.83 GHz: the tensor figures correspond to 1830
//   MHz, not the 1980 MHz boost clock (UNCERTAIN which clock the datasheet used; at 1980 MHz the rate
//   would be 1070 TFLOP/s). Measured here: a bf16 8192^3 GEMM ran at 798 TFLOP/s (KINDS.md), 81 % of 989.5.
// - 3.35 TB/s = 2.619 GHz memory clock x 2 (DDR) x 5120 bit / 8 = 3352 GB/s (ncu device attributes).
// - FP16 non-tensor 133.8 TFLOP/s is the H100 whitepaper figure (2 x FP32, HFMA2); whether ncu's
//   op_hfma counts an HFMA2 as one thread instruction or two is UNVERIFIED, so measured vector-f16 FLOPs
//   may be a lower bound; the ceiling is the hardware's (an upper bound, never a false "above the roof").
// - Shared memory ("lds"): 32 banks x 4 B = 128 B/clk/SM x 132 x 1.98 GHz = 33.5 TB/s (derived, UNCERTAIN:
//   not a published figure). L1 and L2 bandwidths are not published: 0 (unknown; use empirical ceilings).
// - L2 50 MiB (52,428,800 B read by ncu on this workplace's H100 80GB HBM3).
constexpr DeviceSpec hopper(std::string_view key, std::string_view product, double hbm_gbps, uint64_t l2, uint64_t memory,
                            std::string_view note) {
  DeviceSpec d{};
  d.key = key;
  d.product = product;
  d.vendor = Vendor::Nvidia;
  d.arch = "sm_90";
  d.compute_units = 132;
  d.clock_mhz = 1980;
  d.wave_size = 32;
  d.l2_bytes = l2;
  d.memory_bytes = memory;
  set(d, Pipe::Vector, DataType::F64, 34'000);
  set(d, Pipe::Vector, DataType::F32, 67'000);
  set(d, Pipe::Vector, DataType::F16, 133'800);
  set(d, Pipe::Matrix, DataType::F64, 67'000);
  set(d, Pipe::Matrix, DataType::TF32, 989'000 / 2.0);
  set(d, Pipe::Matrix, DataType::F16, 1'979'000 / 2.0);
  set(d, Pipe::Matrix, DataType::BF16, 1'979'000 / 2.0);
  set(d, Pipe::Matrix, DataType::F8, 3'958'000 / 2.0);
  set(d, Pipe::Matrix, DataType::I8, 3'958'000 / 2.0);
  set(d, MemLevel::Hbm, hbm_gbps);
  set(d, MemLevel::Lds, per_clock(132, 1980, 128));
  d.note = note;
  return d;
}

constexpr std::array<DeviceSpec, 7> kDevices = {
    mi300_family("mi300x", "AMD Instinct MI300X", 5324.8, 192 * kGiB,
                 "SPX mode (one agent = 8 XCDs); in CPX mode each XCD is an agent and compute scales by CUs"),
    // MI325X (gfx942): the same compute die as MI300X (304 CUs, 2100 MHz, same peaks, §4.5 table), with
    // 256 GiB HBM3E at 6.0 TB/s (§4.5 table, AMD datasheet figure; the memory clock behind it is not in
    // the reference, so the HBM figure is the rounded datasheet one).
    mi300_family("mi325x", "AMD Instinct MI325X", 6000, 256 * kGiB, "HBM 6.0 TB/s is the datasheet's rounded figure"),
    mi250x_gcd(),
    mi210(),
    rx6900xt(),
    hopper("h100_sxm", "NVIDIA H100 SXM5 80GB", 3350, 50 * kMiB, 80 * kGiB,
           "tensor peaks are the datasheet's dense figures (sparsity / 2); L1/L2 bandwidth unpublished"),
    // H200 (SXM): the same GH100 chip and clocks as H100 SXM, so the same compute figures (H200 datasheet:
    // FP64 34, FP64 Tensor 67, FP32 67, TF32 989*, BF16/FP16 1979*, FP8/INT8 3958*), with 141 GB HBM3e at
    // 4.8 TB/s. L2: UNCERTAIN. The brief says 50 MB; PyTorch on an H200 of this workplace reported 60 MB
    // (KINDS.md, 2026-10-28), which we take as 60 MiB.
    hopper("h200", "NVIDIA H200 (SXM)", 4800, 60 * kMiB, 141 * kGiB,
           "same compute as H100 SXM; L2 size reported as 60 MB on this workplace's H200 (unverified)"),
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(const std::string& haystack_lower, std::string_view needle_lower) {
  return haystack_lower.find(needle_lower) != std::string::npos;
}

const DeviceSpec* by_key(std::string_view key) {
  for (const auto& d : kDevices)
    if (d.key == key) return &d;
  return nullptr;
}

// Product-name rules. Each returns the table key or "" (no product match).
std::string_view product_key(const std::string& arch, const std::string& p) {
  if (arch == "gfx942") {
    if (contains(p, "mi325x")) return "mi325x";
    if (contains(p, "mi300x")) return "mi300x";
  } else if (arch == "gfx90a") {
    // ROCm names both MI250X and MI250 "AMD Instinct MI250X/MI250" on some versions; the CU count
    // (110 vs 104 per GCD) tells them apart via compute_scale.
    if (contains(p, "mi250")) return "mi250x";
    if (contains(p, "mi210")) return "mi210";
  } else if (arch == "gfx1030") {
    if (contains(p, "6900 xt") || contains(p, "6900xt")) return "rx6900xt";
  } else if (arch == "sm_90") {
    // H100 PCIe (114 SMs, 2.0 TB/s) and H100/H200 NVL (lower power limits, other clocks) are different
    // products with other peaks: they do not match.
    const bool other_form = contains(p, "pcie") || contains(p, "nvl");
    if (contains(p, "h200") && !other_form) return "h200";
    if (contains(p, "h100") && !other_form && (contains(p, "sxm") || contains(p, "hbm3"))) return "h100_sxm";
  }
  return "";
}

std::string fmt_num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::string compute_class_name(ComputeClass c) {
  return std::string(c.pipe == Pipe::Vector ? "vector_" : "matrix_") + kDataTypeNames[static_cast<std::size_t>(c.type)];
}

std::optional<ComputeClass> parse_compute_class(std::string_view name) {
  for (std::size_t i = 0; i < kComputeClassCount; ++i)
    if (compute_class_name(ComputeClass::from_index(i)) == name) return ComputeClass::from_index(i);
  return std::nullopt;
}

const char* mem_level_name(MemLevel level) { return kMemLevelNames[static_cast<std::size_t>(level)]; }

std::optional<MemLevel> parse_mem_level(std::string_view name) {
  for (std::size_t i = 0; i < kMemLevelCount; ++i)
    if (name == kMemLevelNames[i]) return static_cast<MemLevel>(i);
  return std::nullopt;
}

std::span<const DeviceSpec> device_table() { return kDevices; }

std::string normalize_arch(std::string_view arch) {
  std::string a = lower(arch.substr(0, arch.find(':')));
  while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back()))) a.pop_back();
  // sm_90a / sm_100a: the "a" (architecture-specific features) suffix is the same chip.
  if (a.rfind("sm_", 0) == 0 && a.size() > 3 && std::isalpha(static_cast<unsigned char>(a.back()))) a.pop_back();
  return a;
}

DeviceMatch find_device(std::string_view arch_in, std::string_view product_name, uint32_t cu_count) {
  DeviceMatch m;
  const std::string arch = normalize_arch(arch_in);
  const std::string product = lower(product_name);
  std::vector<const DeviceSpec*> same_arch;
  for (const auto& d : kDevices)
    if (d.arch == arch) same_arch.push_back(&d);
  if (same_arch.empty()) {
    m.reason = "architecture '" + arch + "' is not in the device table; give empirical ceilings (--ceilings)";
    return m;
  }
  std::string_view key = product_key(arch, product);
  if (!key.empty()) {
    m.spec = by_key(key);
    m.reason = "matched '" + std::string(m.spec->key) + "' by architecture and product name";
  } else if (!product.empty()) {
    m.reason = "product '" + std::string(product_name) + "' (" + arch +
               ") is not in the device table; give empirical ceilings (--ceilings)";
    return m;
  } else {
    // No product name: only an unambiguous architecture (or CU count) identifies the device.
    std::vector<const DeviceSpec*> fits;
    for (const auto* d : same_arch)
      if (cu_count == 0 || d->compute_units == cu_count) fits.push_back(d);
    if (fits.size() != 1) {
      m.reason = "no product name, and architecture '" + arch + "'" +
                 (cu_count ? " with " + std::to_string(cu_count) + " CUs" : std::string()) +
                 " does not identify one table entry";
      return m;
    }
    m.spec = fits.front();
    m.reason = "matched '" + std::string(m.spec->key) + "' by architecture" + (cu_count ? " and CU count" : "") +
               " (no product name)";
  }
  if (cu_count != 0 && cu_count != m.spec->compute_units) {
    m.compute_scale = static_cast<double>(cu_count) / m.spec->compute_units;
    m.reason += "; the agent has " + std::to_string(cu_count) + " compute units, the table " +
                std::to_string(m.spec->compute_units) + ": compute peaks scaled by " + fmt_num(m.compute_scale) +
                ", bandwidths not (a partition shares the device memory)";
  }
  return m;
}

const char* to_string(CeilingSource s) {
  switch (s) {
    case CeilingSource::None: return "none";
    case CeilingSource::Table: return "table";
    case CeilingSource::Empirical: return "empirical";
    case CeilingSource::Override: return "override";
  }
  return "none";
}

Ceilings resolve_ceilings(std::string_view arch, std::string_view product_name, const DeviceMatch& match,
                          const CeilingOptions& options) {
  Ceilings c;
  c.arch = normalize_arch(arch);
  c.product_name = std::string(product_name);
  if (match.spec) {
    c.table_key = std::string(match.spec->key);
    for (std::size_t i = 0; i < kMemLevelCount; ++i)
      if (match.spec->bandwidth_gbps[i] > 0) c.bandwidth[i] = {match.spec->bandwidth_gbps[i], CeilingSource::Table};
    for (std::size_t i = 0; i < kComputeClassCount; ++i)
      if (match.spec->peak_gflops[i] > 0)
        c.compute[i] = {match.spec->peak_gflops[i] * match.compute_scale, CeilingSource::Table};
  }
  c.notes.push_back("table: " + match.reason);

  if (const EmpiricalCeilings* e = options.empirical) {
    const std::string e_arch = normalize_arch(e->arch);
    const bool products_named = !e->product_name.empty() && !product_name.empty();
    if (e_arch != c.arch) {
      c.notes.push_back("empirical ceilings not applied: they were measured on " + e_arch + ", this agent is " + c.arch);
    } else if (products_named && lower(e->product_name) != lower(product_name)) {
      c.notes.push_back("empirical ceilings not applied: they were measured on '" + e->product_name +
                        "', this agent is '" + std::string(product_name) + "'");
    } else {
      for (std::size_t i = 0; i < kMemLevelCount; ++i)
        if (e->bandwidth_gbps[i] > 0) c.bandwidth[i] = {e->bandwidth_gbps[i], CeilingSource::Empirical};
      for (std::size_t i = 0; i < kComputeClassCount; ++i)
        if (e->gflops[i] > 0) c.compute[i] = {e->gflops[i], CeilingSource::Empirical};
      c.notes.push_back("empirical ceilings applied (measured " + (e->measured_at.empty() ? "at an unknown time" : "at " + e->measured_at) +
                        (e->tool.empty() ? "" : " by " + e->tool) + ")");
    }
  }

  if (options.memory_bandwidth_gbps) {
    const double v = *options.memory_bandwidth_gbps;
    if (!std::isfinite(v) || v <= 0)
      throw Error(ExitCode::Usage, "--memory-bandwidth-gbps must be a positive number, got " + fmt_num(v));
    c.bandwidth[static_cast<std::size_t>(MemLevel::Hbm)] = {v, CeilingSource::Override};
    c.notes.push_back("hbm bandwidth overridden to " + fmt_num(v) + " GB/s (--memory-bandwidth-gbps)");
  }
  return c;
}

nlohmann::json to_json(const Ceilings& c) {
  auto ceiling = [](const Ceiling& x) {
    return nlohmann::json{{"value", x.known() ? nlohmann::json(x.value) : nlohmann::json(nullptr)},
                          {"source", to_string(x.source)}};
  };
  nlohmann::json bw = nlohmann::json::object();
  for (std::size_t i = 0; i < kMemLevelCount; ++i)
    if (c.bandwidth[i].known()) bw[kMemLevelNames[i]] = ceiling(c.bandwidth[i]);
  nlohmann::json fl = nlohmann::json::object();
  for (std::size_t i = 0; i < kComputeClassCount; ++i)
    if (c.compute[i].known()) fl[compute_class_name(ComputeClass::from_index(i))] = ceiling(c.compute[i]);
  return {{"arch", c.arch},
          {"product_name", c.product_name},
          {"table_entry", c.table_key.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.table_key)},
          {"bandwidth_gbps", std::move(bw)},
          {"gflops", std::move(fl)},
          {"notes", c.notes}};
}

}  // namespace rpl::analysis
