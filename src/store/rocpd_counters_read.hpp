#pragma once
// Hardware counter values of one process's table set (rocpd_pmc_event joined to rocpd_info_pmc and to the
// dispatch through the shared event id) into Trace::counters. Rows of the same dispatch and counter are
// summed, as rocprofv3's counters_collection view does (one row per counter instance or dimension).
// SPM samples (3.0.3's sample_id IS NOT NULL) are not dispatch counters and are skipped.
#include <string>

#include "model/trace.hpp"
#include "store/rocpd_input.hpp"

namespace rpl::rocpd {

struct CounterReadScope {
  const TableSet* set = nullptr;
  // Non-empty when several processes share the tables: only rows with this guid.
  std::string guid;
  // The process's dispatches are trace.dispatches[first_dispatch, end): ids are looked up there.
  std::size_t first_dispatch = 0;
  // Drop invalid counter values with a warning instead of failing.
  bool lenient = false;
};

// Returns the number of counter samples added. A set without the pmc tables, or with empty ones, adds
// nothing and costs two cheap queries.
std::size_t read_counters(Trace& trace, sqlite::Db& db, const CounterReadScope& scope);

}  // namespace rpl::rocpd
