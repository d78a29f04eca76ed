#pragma once
// Hardware counter values in rocpd databases: rocpd_info_pmc (one row per counter and agent) and
// rocpd_pmc_event (one row per value, attached to a dispatch through its rocpd_event id).
//
// - Reading (read_counters, called by the rocpd reader for every process): rows of the same dispatch and
//   counter name are summed, as the counters_collection view does (rocprofv3 writes one row per counter
//   dimension / instance). SPM samples (3.0.3 sample_id NOT NULL) are not dispatch counters and are
//   skipped. A database without the pmc tables simply has no counters.
// - Appending (append_counters): adds counter values measured in another run (ncu, a rocprofv3 --pmc
//   pass) to a database that already holds the dispatches, so that `rocm-perf analyze` finds them there.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/trace.hpp"
#include "store/rocpd_input.hpp"

namespace rpl::rocpd {

// One counter value of one dispatch, for append_counters.
struct CounterValue {
  int64_t dispatch_id = 0;  // rocpd_kernel_dispatch.dispatch_id of the dispatch it was measured on
  std::string counter;      // rocprofv3 counter name ("SQ_INSTS_VALU_FMA_F32") or ncu metric name
  double value = 0;
};

struct AppendCountersResult {
  std::size_t values_written = 0;    // rocpd_pmc_event rows added
  std::size_t counters_added = 0;    // rocpd_info_pmc rows added (counter names new to an agent)
};

// Appends `values` to the rocpd database at `path` (written by rocm-perf's collectors or by rocprofv3):
// - each value becomes one rocpd_pmc_event row on its dispatch's event; several values of the same
//   dispatch and counter add up when read (as rocprofv3's dimension rows do);
// - a counter name is registered once per agent in rocpd_info_pmc (existing rows of the same name and
//   agent are reused); the agent is each dispatch's own (rocpd_kernel_dispatch.agent_id).
// `guid` picks the process when the file holds several (empty: the file must hold exactly one).
// All or nothing: one transaction, rolled back on any error. Throws rpl::Error: InputMissing /
// InputCorrupt / InputNotRocpd for the file, InputInvalid naming a dispatch id that is not in the
// process (or has no event row to attach to), Usage when `guid` is needed or names no process,
// OutputFailed when the file cannot be written.
AppendCountersResult append_counters(const std::string& path, std::span<const CounterValue> values,
                                     const std::string& guid = {});

// Reader side, for rocpd_reader.cpp: appends the counters of one process (`guid` non-null: only rows of
// that guid, for tables shared by several processes) to trace.counters. The process's dispatches are
// trace.dispatches[first_dispatch, end); values of dispatches not among them (dropped as invalid, or
// missing) are skipped with a warning.
void read_counters(Trace& trace, sqlite::Db& db, const TableSet& set, const std::string* guid,
                   std::size_t first_dispatch);

}  // namespace rpl::rocpd
