#pragma once
// What the GPU present can count (`rocm-perf counters list`, and the check of `profile --counters` before
// anything runs):
// - AMD: `rocprofv3-avail [-d N] list --pmc` (ROCm 7.x), its agent blocks parsed.
// - NVIDIA: rpl_cupti_metrics (collectors/nvidia/metrics_list), the CUPTI profiler host API's metric
//   enumeration (base metrics and their submetrics); a full metric name is checked by the range profiler's
//   configuration itself.
// The parsers are separate from the runs so that tests feed them recorded output.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/device_counters.hpp"
#include "platform/platform.hpp"

namespace rpl::collectors {

// The list's types are the model's (model/device_counters.hpp), so that reports render it without this layer.
using rpl::CounterInfo;
using rpl::DeviceCounters;

// `rocprofv3-avail list --pmc` output: one block per agent ("GPU : N", "Name : gfxNNN", "PMC :" followed by
// the counter names, whitespace-separated, possibly over several lines). Throws rpl::Error(ProfilerFailed)
// when no agent block is found.
std::vector<DeviceCounters> parse_rocprofv3_avail(std::string_view text);
// rpl_cupti_metrics' "device"/"chip" and "metric" records (format in its source). Throws
// rpl::Error(ProfilerFailed) when there is no device line.
DeviceCounters parse_cupti_metric_list(std::string_view text);
// rpl_cupti_metrics check: the names it reported "unsupported".
std::vector<std::string> parse_cupti_check(std::string_view text);

// Runs the vendor's tool for `device`. Throws rpl::Error(ProfilerFailed) naming the tool when it is missing
// or fails, (Usage) when the device does not exist.
DeviceCounters list_device_counters(platform::Kind kind, int device);

struct CounterCheck {
  std::string arch;                      // of the device checked
  std::vector<std::string> unsupported;  // in the order asked
};
// Which of `names` the device cannot count. AMD: names absent from the list (a ":device=N" qualifier is
// ignored); NVIDIA: names the CUPTI range profiler's configuration rejects. Throws as list_device_counters.
CounterCheck check_device_counters(platform::Kind kind, int device, const std::vector<std::string>& names);

// rpl_cupti_metrics: RPL_CUPTI_METRICS, else beside rocm-perf (or ../lib/rocm-perf).
std::optional<std::string> find_cupti_metrics_tool();

}  // namespace rpl::collectors
