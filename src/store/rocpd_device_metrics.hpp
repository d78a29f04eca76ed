#pragma once
// Device metrics sampled over time (model/device_metrics.hpp) in a rocpd database, in the tables rocpd
// 3.0 has for sampled values: one rocpd_track per (device, metric), named by a rocpd_string
// "rpl_device_metric:<metric>" and described in its extdata
//   {"rpl_device_metric": {"device": 0, "device_name": "...", "metric": "power", "unit": "W", "source": "nvml"}},
// and one rocpd_sample per reading on that track, with its timestamp (ns, CLOCK_BOOTTIME) and its value in
// extdata {"value": 251.3}. rocprofv3's own readers see them as samples of a track; rocm-perf reads them
// back into Trace::device_metrics. See docs/device-monitor.md.
#include <string>
#include <vector>

#include "model/trace.hpp"
#include "store/rocpd_input.hpp"

namespace rpl::rocpd {

// Appends `series` to the database at `path` (one transaction; the file is unchanged on error), on the
// tracks of the process `guid` (empty: the file's only process, else its first). Throws rpl::Error like
// append_counters (rocpd_counters_append.hpp). Returns the number of samples written.
std::size_t append_device_metrics(const std::string& path, const std::vector<DeviceMetricSeries>& series,
                                  const std::string& guid = {});

// Reads the device-metric tracks of one table set into trace.device_metrics; other tracks and samples
// (rocprofv3's markers) are left alone. Returns the number of series added.
std::size_t read_device_metrics(Trace& trace, sqlite::Db& db, const TableSet& set, const std::string& guid);

}  // namespace rpl::rocpd
