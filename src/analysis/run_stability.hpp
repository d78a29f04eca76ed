#pragma once
// Run-to-run stability of `profile --runs N`, and the device state that makes timings irreproducible
// (docs/reproducibility.md): from the device monitor, clocks that moved during a run (not locked) and a GPU
// already busy before the first run started (another process). Pure.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/device_power.hpp"
#include "analysis/kernel_stats.hpp"

namespace rpl::analysis {

// The SM (shader) clock moving by more than this share of its maximum within one run: clocks not locked.
inline constexpr double kClockSpreadWarning = 0.05;
// GPU utilisation in the sample taken before the first run started, percent: something else was running.
inline constexpr double kBusyBeforeRunPct = 5.0;
// At least this many runs before the run-to-run CV is a finding (fewer give no usable spread).
inline constexpr std::size_t kMinRunsForStability = 3;

struct KernelRunToRun {
  std::string name;
  DurationStats total_per_run;  // the kernel's total time in each run
};

struct RunToRun {
  std::size_t runs = 0;
  DurationStats runtime;                        // the runtime of each run
  std::vector<KernelRunToRun> unstable_kernels;  // total per run classed unstable (CV > 0.10), by CV descending
  std::vector<std::string> warnings;            // device-state warnings (device_state_warnings)
  // The runtime or a kernel varies beyond "moderate" over at least kMinRunsForStability runs.
  bool unstable() const;
};

// `kernels`: every kernel's total per run. Keeps the unstable ones.
RunToRun run_to_run(const DurationStats& runtime, std::size_t runs, const std::vector<KernelRunToRun>& kernels,
                    std::vector<std::string> warnings);

// Warnings from the device monitor's per-run summaries (`per_run[i]`: the devices of run i + 1) and the GPU
// utilisation (percent, the busiest device) in the sample taken before the first run's application started.
std::vector<std::string> device_state_warnings(const std::vector<std::vector<DeviceMetricSummary>>& per_run,
                                               std::optional<double> utilization_before_first_run_pct);

// What to do about unstable timings, in one line (docs/reproducibility.md has the checklist).
std::string instability_remedy();

}  // namespace rpl::analysis
