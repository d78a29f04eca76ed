#include "analysis/run_stability.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace rpl::analysis {

bool RunToRun::unstable() const {
  if (runs < kMinRunsForStability) return false;
  return runtime.stability == Stability::Unstable || !unstable_kernels.empty();
}

RunToRun run_to_run(const DurationStats& runtime, std::size_t runs, const std::vector<KernelRunToRun>& kernels,
                    std::vector<std::string> warnings) {
  RunToRun r;
  r.runs = runs;
  r.runtime = runtime;
  r.warnings = std::move(warnings);
  for (const auto& k : kernels)
    if (k.total_per_run.stability == Stability::Unstable) r.unstable_kernels.push_back(k);
  std::stable_sort(r.unstable_kernels.begin(), r.unstable_kernels.end(),
                   [](const KernelRunToRun& a, const KernelRunToRun& b) { return a.total_per_run.cv > b.total_per_run.cv; });
  return r;
}

std::vector<std::string> device_state_warnings(const std::vector<std::vector<DeviceMetricSummary>>& per_run,
                                               std::optional<double> utilization_before_first_run_pct) {
  std::vector<std::string> out;
  if (utilization_before_first_run_pct && *utilization_before_first_run_pct > kBusyBeforeRunPct)
    out.push_back(fmt::format("the GPU was {:.0f}% busy in the sample taken before the first run started: another "
                              "process is probably using it, and its work shares the GPU with the measured runs",
                              *utilization_before_first_run_pct));
  // Clocks: the widest spread within one run, per device, reported once.
  struct Spread {
    int device = 0;
    std::string name;
    double min = 0, max = 0;
    std::size_t run = 0;
  };
  std::vector<Spread> worst;
  for (std::size_t r = 0; r < per_run.size(); ++r)
    for (const auto& d : per_run[r]) {
      if (!d.min_sm_clock_mhz || !d.max_sm_clock_mhz || *d.max_sm_clock_mhz <= 0) continue;
      const double spread = (*d.max_sm_clock_mhz - *d.min_sm_clock_mhz) / *d.max_sm_clock_mhz;
      if (spread <= kClockSpreadWarning) continue;
      auto it = std::find_if(worst.begin(), worst.end(), [&](const Spread& s) { return s.device == d.device; });
      if (it == worst.end()) worst.push_back({d.device, d.device_name, *d.min_sm_clock_mhz, *d.max_sm_clock_mhz, r + 1});
      else if (*d.max_sm_clock_mhz - *d.min_sm_clock_mhz > it->max - it->min)
        *it = {d.device, d.device_name, *d.min_sm_clock_mhz, *d.max_sm_clock_mhz, r + 1};
    }
  for (const auto& s : worst)
    out.push_back(fmt::format("device {} ({}): the shader clock moved between {:.0f} and {:.0f} MHz within run {}: the "
                              "clocks are not locked, so timings follow boost and thermal state",
                              s.device, s.name, s.min, s.max, s.run));
  return out;
}

std::string instability_remedy() {
  return "to steady the timings: lock the clocks (NVIDIA: nvidia-smi -lgc MIN,MAX; AMD: amd-smi set -g N -l "
         "stable_std), keep other processes off the GPU, warm up before measuring, and raise --runs; see "
         "docs/reproducibility.md";
}

}  // namespace rpl::analysis
