#pragma once
// Small, deterministic rocpd traces for tests, written through rocpd::Writer.
//
// The default fixture (FixtureSpec{}) is one process (pid 4242 on "node01") with a CPU agent (id 0) and
// one MI300X GPU agent (id 2), the default queue/stream (id 0) and one queue + stream per user stream
// s = 1..streams (ids s, named "Queue s" / "Stream s"). Host API calls get correlation ids 1, 2, 3, ...
// in submission order; call n runs on the host over [t0 + 10000 n, t0 + 10000 n + 2000) unless noted.
// Submission order:
//   1. copies:      hipMemcpyAsync H2D on the default stream 0; copy 1 over [t0+100000, t0+150000), 1 MiB.
//   2. kernels:     for i in 0..kernels_per_stream-1, for s in 1..streams: hipLaunchKernel, dispatch
//                   id first_dispatch_id + (launch index), symbol 1 ("compute") for even i and 2 ("reduce")
//                   for odd i, start t0 + 200000 + 50000 i + 5000 (s-1), duration 20000 + 1000 s,
//                   grid 1048576 x 1 x 1, workgroup 256 x 1 x 1.
//   3. event_sync:  hipEventRecord(event 0xe1, stream 1); hipStreamWaitEvent(stream 2, 0xe1); then
//                   hipLaunchKernel of symbol 3 (mangled "_Z7consumePf.kd", no display name) on stream 2,
//                   starting 10000 ns after the last stream-1 kernel ends, duration 30000.
//                   gpu_barriers adds the GPU records of the same: SIGNAL on stream 1 over
//                   [last1_end, last1_end + 1000), WAIT on stream 2 over [last1_end + 1000, last1_end + 2000).
//   4. copies:      hipMemcpyAsync D2H on the last user stream: copy 2, 5000 ns after that stream's last
//                   kernel, duration 40000, 1 MiB.
//   5. host_sync:   hipStreamSynchronize(stream = 0x0, written without extdata: the default stream), then
//                   hipDeviceSynchronize, which returns 1000 ns after the last GPU activity ends.
// counters: SQ_WAVES (pmc 7) and TCC_HIT (pmc 9) on agent 2 for every dispatch, each as two rows:
// SQ_WAVES 8192 + 8192 (= 1048576 / 64 waves), TCC_HIT 100 + 10 * (dispatch_id).
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/rocpd_writer.hpp"

namespace rpl::test {

struct FixtureSpec {
  std::string file_name = "fixture_results.db";
  std::string guid = "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b";  // empty: a fresh UUIDv7
  int64_t pid = 4242;
  std::string hostname = "node01";
  int streams = 2;
  int kernels_per_stream = 3;
  TimeNs t0 = 1'000'000'000;
  int64_t first_dispatch_id = 1;
  bool copies = true;
  bool event_sync = true;  // needs streams >= 2
  bool gpu_barriers = true;
  bool host_sync = true;
  bool counters = true;
};

// Every row the fixture writes, in the order it writes them; tests compare what they read against it.
struct FixtureRows {
  std::string guid;
  rocpd::NodeRow node;
  rocpd::ProcessRow process;
  std::vector<rocpd::ThreadRow> threads;
  std::vector<rocpd::AgentRow> agents;
  std::vector<std::pair<int64_t, std::string>> queues, streams;
  struct CodeObject {
    int64_t id, agent_id;
    std::string uri;
  };
  std::vector<CodeObject> code_objects;
  std::vector<rocpd::KernelSymbolRow> symbols;
  std::vector<rocpd::DispatchRow> dispatches;
  std::vector<rocpd::MemoryCopyRow> copies;
  std::vector<rocpd::RegionRow> regions;
  std::vector<rocpd::EventOperationRow> event_operations;
  std::vector<rocpd::PmcInfoRow> pmc_info;
  std::vector<rocpd::PmcValueRow> pmc_values;
};

FixtureRows fixture_rows(const FixtureSpec& spec = {});
// Appends an NVTX / ROCTx range (a region of category MARKER_CORE_API, no correlation id) on thread `tid`.
void add_marker_range(FixtureRows& rows, int64_t tid, const std::string& name, TimeNs start, TimeNs end);
// Appends the counters `names` on agent 2 (pmc ids 100, 101, ...) and, for each dispatch for which `value` gives
// a value, a row per counter; the counters in `split` are written as two rows of half the value each (a reader
// must sum them). A dispatch for which `value` gives nullopt gets no counter row.
void add_counters(FixtureRows& rows, const std::vector<std::string>& names,
                  const std::function<std::optional<double>(const rocpd::DispatchRow&, const std::string&)>& value,
                  const std::set<std::string>& split = {});
// Writes the rows through rocpd::Writer (finish() included) to `path`.
void write_fixture(const FixtureRows& rows, const std::string& path);
// fixture_rows + write_fixture into dir / spec.file_name; returns the path.
std::string make_fixture_db(const std::filesystem::path& dir, const FixtureSpec& spec = {});
// What rocpd's merge tool gives for two processes: every table of `a` and `b` copied under the suffixes _p1 and
// _p2 (which the reader does not recognise) behind un-suffixed UNION ALL views, into a new database `merged`.
void write_merged_views(const std::string& merged, const std::string& a, const std::string& b);

}  // namespace rpl::test
