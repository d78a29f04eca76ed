#pragma once
// Collective calls (NCCL's profiler plugin, RCCL's API trace) and the GPU links the collector recorded, in
// two tables of our own beside the rocpd tables of the same database (rocpd 3.0 has no table for either):
//
//   rpl_collective_call(id, guid, pid, comm_id TEXT '0x<16 hex>', comm_size, comm_rank, comm_nodes, sequence,
//                       operation, data_type, count, bytes, root, peer, algorithm, protocol, channels,
//                       group_id, stream, start, end, source)
//   rpl_gpu_link(id, guid, gpu_uuid, peer_uuid, kind, links, gb_per_s, source)
//
// `guid` is the rocpd process GUID the rows belong to (rocpd_info_process.guid). rocprofv3's readers ignore
// both tables. Columns and their meaning: model/collective_calls.hpp and docs/multi-gpu.md.
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::sqlite {
class Db;
}

namespace rpl::rocpd {

// Appends the calls and links to the database at `path` (one transaction; the file is unchanged on error),
// attached to its process `guid` (empty: the file's only process). Throws rpl::Error like
// append_device_metrics. Returns the number of calls written.
std::size_t append_collective_calls(const std::string& path, const std::vector<CollectiveCall>& calls,
                                    const std::vector<GpuLink>& links, const std::string& guid = {});

// Reads the rows of process `guid` (and rows without one; every row when `guid` is empty) into trace.collective_calls / gpu_links,
// attached to `process`. Nothing when the tables are absent.
void read_collective_calls(Trace& trace, sqlite::Db& db, const std::string& guid, Index process);

// The calls stored in the database at `path`; 0 when it has no such table. Throws rpl::Error when unreadable.
std::size_t count_collective_calls(const std::string& path);

}  // namespace rpl::rocpd
