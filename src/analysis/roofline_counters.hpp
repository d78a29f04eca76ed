#pragma once
// Which hardware counters a roofline needs, per architecture, and the linear formulas that turn them into
// FLOPs per compute class and bytes per memory level. This is the one place the names live: the
// collectors ask it what to request (rocprofv3 -i input with one pmc: line per pass; the ncu --metrics
// list), and the roofline evaluates the same formulas over the values that come back.
//
// Every formula is a linear combination of counters (sum of coefficient x counter). Linearity is what
// lets the roofline apply a formula to per-counter rates measured over different replay passes.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/device_specs.hpp"

namespace rpl::analysis {

enum class CounterFamily : uint8_t {
  None,       // unknown architecture
  AmdCdna2,   // gfx90a: TCC_EA_* names, no TCC_BUBBLE, no F8 MFMA
  AmdCdna3,   // gfx940, gfx941, gfx942: TCC_EA0_* names, TCC_BUBBLE (128 B reads), F8 MFMA
  AmdCdna4,   // gfx950: as CDNA3 plus the F6F4 MFMA counter
  AmdRdna,    // gfx10xx, gfx11xx, gfx12xx: no FLOP counters
  Nvidia,     // sm_XX: ncu metrics
};
const char* to_string(CounterFamily f);  // "amd_cdna2", ..., "nvidia", "none"

struct CounterTerm {
  std::string_view counter;
  double coefficient;
};

struct RooflineQuantity {
  enum class Kind : uint8_t { Flops, Bytes };
  Kind kind = Kind::Flops;
  ComputeClass compute{};             // Kind::Flops
  MemLevel level = MemLevel::Hbm;     // Kind::Bytes (several quantities may add up to one level)
  std::string_view name;              // "vector_f32", "hbm_read", ...
  std::span<const CounterTerm> terms;
};

struct RooflineCounterSet {
  CounterFamily family = CounterFamily::None;
  std::span<const RooflineQuantity> quantities;
  // A counter that holds the dispatch's own duration in ns (ncu's gpu__time_duration.sum), used instead
  // of the dispatch's timestamps so that counters and time come from the same replay. Empty on AMD,
  // where a counter run's dispatch records carry that run's own timestamps.
  std::string_view duration_counter;
  std::string unavailable_reason;     // non-empty: no roofline counters on this architecture
  // false (RDNA): byte counters only; the point is "bandwidth_only" and `limitation` says what it cannot place.
  bool flop_counters = true;
  std::string limitation;
};

CounterFamily counter_family(std::string_view arch);
// The set for `arch` (normalised internally). RDNA with GL2C counters (gfx1010, gfx1030-1032, gfx1100-1102):
// device-memory bytes only (flop_counters false). Other RDNA and unknown architectures: no quantities, and
// unavailable_reason says why.
RooflineCounterSet roofline_counter_set(std::string_view arch);

// Distinct counter / metric names the set needs, in first-use order (plus the duration counter).
std::vector<std::string> roofline_counter_names(const RooflineCounterSet& set);

// AMD: splits counters into passes under the per-block limits of one pass (reference §4.1/§3.2:
// SQ 8, TA 2, TD 2, TCP 4, TCC 4, CPC 2, CPF 2, SPI 6, GRBM 2, GDS 4). The counters of one quantity are
// kept in one pass where they fit (first fit, in table order). The block is the name's prefix up to the
// first '_'. RDNA's GL2C, whose limit no reference gives: one per pass. Throws rpl::Error(Usage) for a counter of an unknown block.
int amd_block_limit(std::string_view counter);  // 0 = unknown block
std::string_view amd_counter_block(std::string_view counter);  // "SQ" of "SQ_WAVES"
std::vector<std::vector<std::string>> split_amd_passes(const RooflineCounterSet& set);
// rocprofv3 -i text: comment lines, then one "pmc: A B C" line per pass.
std::string rocprofv3_pmc_input(std::string_view arch);

// NVIDIA: the ncu --metrics list for the roofline (comma-separated when joined). ncu itself groups metrics
// into replay passes; measured with ncu 2025.3.1 on an H100 and an H200 (profiler__replayer_passes, each
// set with gpu__time_duration.sum): this set takes 8 passes, the deep-analysis set (deep_analysis.hpp) 9,
// both together 15. By part: the 9 SASS op counts 3, the byte counters 1, the tensor counters 7 (fp16 3,
// int8 3, bf16 / tf32 / fp64 / fp8 1 each). The tensor instruction counts (sm__inst_executed_pipe_tensor_op_*)
// take 1 pass but give instructions, not FLOPs (the FLOPs per instruction depend on the MMA shape), so they
// are not used.
std::vector<std::string> ncu_roofline_metrics(std::string_view arch);

}  // namespace rpl::analysis
