#pragma once
// What the GPU present can count, as `rocm-perf counters list` shows it: the collectors list it (AMD's
// rocprofv3-avail, NVIDIA's CUPTI metric enumeration, collectors/counter_catalog.hpp), the reports render it.
#include <string>
#include <vector>

namespace rpl {

struct CounterInfo {
  std::string name;
  std::string type;         // NVIDIA: counter, ratio, throughput; AMD: empty
  std::string unit;         // NVIDIA: the dimension unit (bytes, cycles, ...); AMD: empty
  std::string description;  // NVIDIA: CUPTI's; AMD: empty (list --pmc prints names only)
  std::vector<std::string> submetrics;  // NVIDIA: ".sum", ".avg.per_second", ...
};

struct DeviceCounters {
  std::string vendor;  // "amd" or "nvidia"
  std::string tool;    // "rocprofv3-avail" or "cupti"
  int device = 0;      // the logical device index asked for
  std::string arch;    // gfx942, sm_90
  std::string chip;    // NVIDIA's chip name (GH100); AMD: the arch again
  std::vector<CounterInfo> counters;
};

}  // namespace rpl
