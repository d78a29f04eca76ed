#pragma once
// What a replay runner found and measured, as the versioned JSON document `rocm-perf replay --json` prints
// (schemas/replay.schema.json). Vendor-neutral: every runner (CUDA, HSA) fills the same structure; the CLI
// prints the document or a text summary of it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "capture/replay_compare.hpp"
#include "capture/replay_settings.hpp"

namespace rpl::capture {

inline constexpr const char* kReplaySchemaVersion = "1.0";

// One reserved virtual-address range (captured regions merged and widened to the allocation granularity).
struct RangeReport {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string status;  // "exact", "relocated" (the driver returned another address), "failed"
  uint64_t got = 0;    // relocated: where the driver put it
  std::string error;   // failed: the driver's error
};

struct RegionReport {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  std::string kind, symbol;
  // "exact" / "relocated" / "failed" (its range's status), or for module variables "loader" (placed by the
  // code-object loader, restored by name; replay_address says where).
  std::string status;
  uint64_t replay_address = 0;
};

struct RegionDifference {
  uint64_t id = 0, address = 0, size = 0;
  std::string kind, symbol;
  RegionVerdict verdict;  // status "nondeterministic" or "mismatch"; bytes, magnitudes (capture/replay_compare.hpp)
};

struct Verification {
  std::string status = "skipped";  // "match", "nondeterministic", "mismatch", "skipped"
  std::string reason;              // skipped: why
  unsigned replays = 0;            // replays of the code from the captured state compared (--verify-replays)
  uint64_t regions_compared = 0, bytes_compared = 0, bytes_differing = 0;
  uint64_t nondeterministic_bytes = 0, mismatched_bytes = 0;
  std::vector<RegionDifference> differing;
};

struct TimeStats {
  double mean_ns = 0, median_ns = 0, min_ns = 0, max_ns = 0;
  std::vector<double> per_iteration_ns;
};
TimeStats time_stats(std::vector<double> samples);

// How the timed launches get their starting state (capture/replay_runner.cpp: run_full_vm).
struct RestorePolicy {
  bool between_launches = true;  // false: the kernel's result was shown not to depend on what it overwrites
  std::string reason;
  uint64_t regions = 0, bytes = 0;                // restored before each timed launch
  uint64_t filled_regions = 0, filled_bytes = 0;  // of those, restored by a fill (the before-state is one repeated word)
};

struct ReplayReport {
  ReplayMode mode = ReplayMode::FullVm;
  std::string capture_dir, platform, device_name, runner;
  KernelIdentity kernel;
  Geometry geometry;
  std::string code_object_path;  // "" = the captured one
  uint64_t granularity = 0;            // mappings are multiples of it
  uint64_t reservation_alignment = 0;  // reservations are aligned to it (capture/reservation_plan.hpp)
  std::vector<RangeReport> ranges;     // one per reservation
  std::vector<RegionReport> regions;
  // full-vm
  unsigned iterations = 0;
  bool recopy = true;
  CacheState cache = CacheState::Warm;
  std::string restore_source;  // "device" (pristine copies in device memory) or "host"
  RestorePolicy restores;
  std::string cache_preparation;  // what happens before each timed launch, in words (capture/replay_runner.cpp)
  double warmup_ms_requested = 0;  // untimed launches first, until this much time has passed (clocks at steady state)
  unsigned warmup_launches = 0;
  double warmup_wall_ns = 0;
  TimeStats gpu_time;
  double setup_wall_ns = 0, iterations_wall_ns = 0, total_wall_ns = 0;
  Verification verification;

  bool all_exact() const;
};

nlohmann::json to_json(const ReplayReport& r);

// The terminal summary of a replay document is report::replay_summary_text (report/replay_summary.hpp).

// Throws rpl::Error(VerificationMismatch) saying how many bytes in how many regions differ, when the
// verification found a mismatch (not when the differences are nondeterministic); the report is complete by
// then (the runners write it before exiting).
void throw_if_mismatch(const ReplayReport& r);

}  // namespace rpl::capture
