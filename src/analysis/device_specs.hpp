#pragma once
// Roofline ceilings: a built-in table of device peaks (compute per pipe and precision, bandwidth per
// memory level, L2 size, clocks), empirical ceilings measured on the machine (a versioned JSON file that
// takes precedence over the table), and a command-line override of the device-memory bandwidth.
// Every table number's source is stated in device_specs.cpp. Pure data and pure functions.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace rpl::analysis {

// --- Compute classes: (pipe, data type) -------------------------------------------------------------

enum class Pipe : uint8_t { Vector, Matrix };  // Matrix = AMD MFMA / NVIDIA tensor cores
enum class DataType : uint8_t { F64, F32, TF32, F16, BF16, F8, F6F4, I8 };
inline constexpr std::size_t kDataTypeCount = 8;
inline constexpr std::size_t kComputeClassCount = 2 * kDataTypeCount;

struct ComputeClass {
  Pipe pipe = Pipe::Vector;
  DataType type = DataType::F32;
  constexpr std::size_t index() const {
    return static_cast<std::size_t>(pipe) * kDataTypeCount + static_cast<std::size_t>(type);
  }
  static constexpr ComputeClass from_index(std::size_t i) {
    return {static_cast<Pipe>(i / kDataTypeCount), static_cast<DataType>(i % kDataTypeCount)};
  }
  friend constexpr bool operator==(ComputeClass, ComputeClass) = default;
};
// "vector_f32", "matrix_bf16", "matrix_i8" (I8 is integer operations, reported with the FLOPs).
std::string compute_class_name(ComputeClass c);
std::optional<ComputeClass> parse_compute_class(std::string_view name);

// --- Memory levels ----------------------------------------------------------------------------------

// Hbm: device memory (HBM; GDDR6 on the RX 6900 XT; DRAM in ncu's names). Lds: AMD LDS / NVIDIA shared
// memory.
enum class MemLevel : uint8_t { Hbm, L2, L1, Lds };
inline constexpr std::size_t kMemLevelCount = 4;
const char* mem_level_name(MemLevel level);  // "hbm", "l2", "l1", "lds"
std::optional<MemLevel> parse_mem_level(std::string_view name);

// --- The device table -------------------------------------------------------------------------------

enum class Vendor : uint8_t { Amd, Nvidia };

struct DeviceSpec {
  std::string_view key;           // "mi300x", "h100_sxm", ...
  std::string_view product;       // "AMD Instinct MI300X", "NVIDIA H100 SXM5 80GB"
  Vendor vendor = Vendor::Amd;
  std::string_view arch;          // "gfx942", "sm_90"
  uint32_t compute_units = 0;     // CUs (AMD, per agent) or SMs
  uint32_t clock_mhz = 0;         // peak engine clock the compute peaks are derived at
  uint32_t wave_size = 64;
  uint64_t l2_bytes = 0;
  uint64_t llc_bytes = 0;         // AMD Infinity Cache / MALL; 0 = none
  uint64_t memory_bytes = 0;
  bool roofline_counters = true;  // false: the architecture has no FLOP counters (gfx10/gfx11)
  std::array<double, kMemLevelCount> bandwidth_gbps{};   // GB/s (1e9 B/s); 0 = unknown
  std::array<double, kComputeClassCount> peak_gflops{};  // GFLOP/s (GOP/s for I8); 0 = none or unknown
  std::string_view note;          // what one agent of this product is, and what is uncertain

  constexpr double peak(Pipe p, DataType t) const { return peak_gflops[ComputeClass{p, t}.index()]; }
  constexpr double bandwidth(MemLevel l) const { return bandwidth_gbps[static_cast<std::size_t>(l)]; }
};

// MI300X, MI325X, MI250X (one GCD = one agent), MI210, RX 6900 XT, H100 SXM, H200 (SXM).
std::span<const DeviceSpec> device_table();

// "gfx942:sramecc+:xnack-" -> "gfx942"; "sm_90a" -> "sm_90"; lower case.
std::string normalize_arch(std::string_view arch);

struct DeviceMatch {
  const DeviceSpec* spec = nullptr;  // nullptr: no table entry fits (reason says why)
  // Compute peaks are scaled by agent CUs / table CUs when the agent reports a different CU count
  // (a partitioned MI300X in CPX mode, an MI250 behind an "MI250X/MI250" name). Bandwidths are not.
  double compute_scale = 1.0;
  std::string reason;                // how it matched, or why nothing did
};

// Matches on the architecture and the product name (case-insensitive substrings; see the .cpp for the
// exact rules); cu_count (0 = unknown) disambiguates products that share an architecture.
DeviceMatch find_device(std::string_view arch, std::string_view product_name, uint32_t cu_count = 0);

// --- Ceilings actually used -------------------------------------------------------------------------

enum class CeilingSource : uint8_t { None, Table, Empirical, Override };
const char* to_string(CeilingSource s);  // "none", "table", "empirical", "override"

struct Ceiling {
  double value = 0;  // GB/s or GFLOP/s; 0 when source is None
  CeilingSource source = CeilingSource::None;
  bool known() const { return source != CeilingSource::None && value > 0; }
};

struct Ceilings {
  std::string arch;          // normalized
  std::string product_name;  // the agent's
  std::string table_key;     // the DeviceSpec used, empty if none
  std::array<Ceiling, kMemLevelCount> bandwidth{};
  std::array<Ceiling, kComputeClassCount> compute{};
  std::vector<std::string> notes;  // how each source was chosen, what was not applied and why

  const Ceiling& bandwidth_of(MemLevel l) const { return bandwidth[static_cast<std::size_t>(l)]; }
  const Ceiling& compute_of(ComputeClass c) const { return compute[c.index()]; }
};

// Empirical ceilings (schemas/ceilings.schema.json): measured by a micro-benchmark (rocm-amdgpu-bench,
// ERT, our own), preferred over the table for every value they contain. The file is read and written by
// app/ceilings_file.hpp.
inline constexpr const char* kCeilingsSchemaVersion = "1.0";

struct EmpiricalCeilings {
  std::string schema_version = kCeilingsSchemaVersion;
  std::string arch;          // required
  std::string product_name;  // optional; when both sides name a product they must match
  std::string measured_at;   // ISO 8601, as written by the measuring tool
  std::string tool;          // optional: what measured them
  std::array<double, kMemLevelCount> bandwidth_gbps{};   // 0 = not measured
  std::array<double, kComputeClassCount> gflops{};       // 0 = not measured
};

struct CeilingOptions {
  const EmpiricalCeilings* empirical = nullptr;       // applied only to a matching device
  std::optional<double> memory_bandwidth_gbps;        // --memory-bandwidth-gbps: overrides the hbm ceiling
};

// Table values (scaled by match.compute_scale), then empirical values of a matching device, then the
// override. Throws rpl::Error(Usage) for a non-positive or non-finite override.
Ceilings resolve_ceilings(std::string_view arch, std::string_view product_name, const DeviceMatch& match,
                          const CeilingOptions& options);

nlohmann::json to_json(const Ceilings& ceilings);

}  // namespace rpl::analysis
