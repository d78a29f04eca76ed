#pragma once
// Appending hardware counter values to an existing rocpd database: counter values measured in another run
// (ncu, a rocprofv3 --pmc pass) are stored beside the dispatches they were measured on, so that
// `rocm-perf analyze` (rocpd_counters_read.hpp) and AMD's counters_collection view find them there.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace rpl::rocpd {

// One counter value of one dispatch.
struct CounterValue {
  int64_t dispatch_id = 0;  // rocpd_kernel_dispatch.dispatch_id of the dispatch it was measured on
  std::string counter;      // rocprofv3 counter name ("SQ_INSTS_VALU_FMA_F32") or ncu metric name
  double value = 0;
};

struct AppendCountersResult {
  std::size_t values_written = 0;  // rocpd_pmc_event rows added
  std::size_t counters_added = 0;  // rocpd_info_pmc rows added (counter names new to an agent)
};

// Appends `values` to the rocpd database at `path` (written by rocm-perf's collectors or by rocprofv3):
// - each value becomes one rocpd_pmc_event row on its dispatch's event (rocpd_kernel_dispatch.event_id);
//   several values of the same dispatch and counter add up when read, as rocprofv3's dimension rows do;
// - a counter name is registered once per agent in rocpd_info_pmc (an existing row of the same name and
//   agent is reused); the agent is each dispatch's own (rocpd_kernel_dispatch.agent_id), so the caller
//   never names one.
// `guid` picks the process when the file holds several (empty: the file must hold exactly one).
// All or nothing: one transaction, rolled back on any error, so a failed call leaves the file as it was.
// Throws rpl::Error: InputMissing / InputCorrupt / InputNotRocpd for the file; InputInvalid naming a
// dispatch id that is not in the process (or has no event to attach to) or a non-finite value; Usage when
// `guid` is needed or names no process of the file; OutputFailed when the file cannot be written.
AppendCountersResult append_counters(const std::string& path, std::span<const CounterValue> values,
                                     const std::string& guid = {});

}  // namespace rpl::rocpd
