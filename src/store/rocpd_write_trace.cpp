// write_process: one process of an in-memory Trace written back as a rocpd database.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <unordered_map>

#include "store/rocpd_writer.hpp"

#include "store/rocpd_collective_calls.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {

namespace {

// Host-API sync ops are written as the argument rows of their API call (a region); this key finds the
// call a sync op came from.
struct CallKey {
  int64_t correlation_id;
  TimeNs start;
  uint32_t thread;
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  std::size_t operator()(const CallKey& k) const {
    return std::hash<int64_t>{}(k.correlation_id) ^ (std::hash<int64_t>{}(k.start) * 31) ^ k.thread;
  }
};

std::string_view hip_name_of(SyncKind kind) {
  switch (kind) {
    case SyncKind::EventRecord: return "hipEventRecord";
    case SyncKind::StreamWaitEvent: return "hipStreamWaitEvent";
    case SyncKind::StreamSynchronize: return "hipStreamSynchronize";
    case SyncKind::EventSynchronize: return "hipEventSynchronize";
    case SyncKind::DeviceSynchronize: return "hipDeviceSynchronize";
  }
  return "hipDeviceSynchronize";
}

std::string agent_extdata(const Agent& a) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&j](const char* key, uint32_t value) {
    if (value != 0) j[key] = value;
  };
  put("cu_count", a.cu_count);
  put("simd_per_cu", a.simd_per_cu);
  put("max_waves_per_simd", a.max_waves_per_simd);
  put("wave_front_size", a.wave_front_size);
  put("lds_size_in_kb", a.lds_size_kb);
  put("max_engine_clk_fcompute", a.max_clock_mhz);
  put("gfx_target_version", a.gfx_target_version);
  return j.dump();
}

// write_process's steps: the process's rows of each table, in the order the writer wants them.
class ProcessWriter {
 public:
  ProcessWriter(const Trace& trace, Index process, const std::string& path)
      : trace_(trace), process_(process), w_(path, node_row(trace.processes[process]), process_row(trace.processes[process]),
                                             trace.processes[process].guid) {}

  void write() {
    write_agents();
    write_queues_and_streams();
    write_kernel_symbols();
    write_dispatches();
    write_counters();
    write_copies();
    write_api_calls_and_syncs();
    w_.finish();
  }

 private:
  static NodeRow node_row(const Process& proc) {
    NodeRow node;
    node.hostname = proc.hostname;
    if (!proc.hostname.empty()) node.machine_id = proc.hostname;
    return node;
  }
  static ProcessRow process_row(const Process& proc) {
    ProcessRow prow;
    prow.pid = proc.pid;
    prow.ppid = proc.ppid;
    prow.init = prow.start = proc.start;
    prow.fini = prow.end = proc.end;
    prow.command = proc.command;
    return prow;
  }
  int64_t agent_id(Index i) const { return i == kNoIndex ? int64_t{0} : trace_.agents[i].rocpd_id; }
  int64_t queue_id(Index i) const { return i == kNoIndex ? int64_t{0} : trace_.queues[i].rocpd_id; }
  int64_t stream_id(Index i) const { return i == kNoIndex ? int64_t{0} : trace_.streams[i].rocpd_id; }

  void write_agents() {
    bool have_gpu = false;
    for (const Agent& a : trace_.agents) {
      if (a.process != process_) continue;
      if (a.is_gpu && !have_gpu) first_gpu_ = a.rocpd_id, have_gpu = true;
      AgentRow row;
      row.id = a.rocpd_id;
      row.is_gpu = a.is_gpu;
      row.absolute_index = a.absolute_index;
      row.logical_index = a.logical_index;
      row.name = a.name;
      row.vendor_name = a.vendor_name;
      row.product_name = a.product_name;
      row.extdata_json = agent_extdata(a);
      w_.add_agent(row);
    }
  }

  void write_queues_and_streams() {
    for (const Queue& q : trace_.queues)
      if (q.process == process_) w_.add_queue(q.rocpd_id, q.name);
    for (const Stream& s : trace_.streams)
      if (s.process == process_) w_.add_stream(s.rocpd_id, s.name);
  }

  // The code objects the symbols name (on the first GPU), then the symbols.
  void write_kernel_symbols() {
    std::set<int64_t> code_objects;
    for (const KernelSymbol& k : trace_.symbols)
      if (k.process == process_) code_objects.insert(k.code_object_id);
    for (int64_t id : code_objects) w_.add_code_object(id, first_gpu_, "");
    for (const KernelSymbol& k : trace_.symbols) {
      if (k.process != process_) continue;
      KernelSymbolRow row;
      row.id = k.rocpd_id;
      row.code_object_id = k.code_object_id;
      row.kernel_name = trace_.strings.at(k.mangled_name);
      row.display_name = trace_.strings.at(k.display_name);
      row.kernarg_segment_size = k.kernarg_size;
      row.group_segment_size = k.static_lds_bytes;
      row.private_segment_size = k.private_segment_bytes;
      row.sgpr_count = k.sgpr_count;
      row.arch_vgpr_count = k.arch_vgpr_count;
      row.accum_vgpr_count = k.accum_vgpr_count;
      w_.add_kernel_symbol(row);
    }
  }

  void write_dispatches() {
    for (const Dispatch& d : trace_.dispatches) {
      if (d.process != process_) continue;
      DispatchRow row;
      row.dispatch_id = d.dispatch_id;
      row.tid = d.thread;
      row.agent_id = agent_id(d.agent);
      row.kernel_id = d.symbol == kNoIndex ? 0 : trace_.symbols[d.symbol].rocpd_id;
      row.queue_id = queue_id(d.queue);
      row.stream_id = stream_id(d.stream);
      row.start = d.start;
      row.end = d.end;
      row.private_segment_size = d.scratch_bytes;
      row.group_segment_size = d.lds_bytes;
      for (int i = 0; i < 3; ++i) row.workgroup[i] = d.block[i], row.grid[i] = d.grid[i];
      row.correlation_id = d.correlation_id;
      w_.add_dispatch(row);
    }
  }

  // One rocpd_info_pmc row per (agent, counter name), the values after all dispatches.
  void write_counters() {
    std::map<std::pair<int64_t, Index>, int64_t> pmc_ids;
    for (const CounterSample& c : trace_.counters) {
      if (c.dispatch >= trace_.dispatches.size() || trace_.dispatches[c.dispatch].process != process_) continue;
      const Dispatch& d = trace_.dispatches[c.dispatch];
      auto [it, added] = pmc_ids.try_emplace({agent_id(d.agent), c.counter}, static_cast<int64_t>(pmc_ids.size() + 1));
      if (added) w_.add_pmc_info({it->second, agent_id(d.agent), trace_.strings.at(c.counter), "", ""});
      w_.add_pmc_value({d.dispatch_id, it->second, c.value});
    }
  }

  void write_copies() {
    for (const MemoryCopy& c : trace_.copies) {
      if (c.process != process_) continue;
      MemoryCopyRow row;
      row.id = c.copy_id;
      row.tid = c.thread;
      row.start = c.start;
      row.end = c.end;
      row.kind = trace_.strings.at(c.kind);
      row.dst_agent_id = agent_id(c.dst_agent);
      row.src_agent_id = agent_id(c.src_agent);
      row.size = c.bytes;
      row.stream_id = stream_id(c.stream);
      row.queue_id = c.queue == kNoIndex ? -1 : trace_.queues[c.queue].rocpd_id;
      row.correlation_id = c.correlation_id;
      w_.add_memory_copy(row);
    }
  }

  // A host sync op's "stream" and "event" arguments, as its API call carries them.
  std::vector<ArgRow> sync_args(const SyncOp& op) const {
    std::vector<ArgRow> args;
    if (op.stream != kNoIndex) {
      int64_t id = trace_.streams[op.stream].rocpd_id;
      args.push_back({"hipStream_t", "stream", fmt::format("0x{:x}", id), fmt::format("{{\"stream_id\": {}}}", id)});
    }
    if (op.kind == SyncKind::EventRecord || op.kind == SyncKind::StreamWaitEvent ||
        op.kind == SyncKind::EventSynchronize)
      args.push_back({"hipEvent_t", "event", fmt::format("0x{:x}", op.event), "{}"});
    return args;
  }

  // Host sync ops become the "stream"/"event" args of their API call (or a region of their own when the
  // call is absent); GPU barriers go to rocpd_event_operation.
  void write_api_calls_and_syncs() {
    std::unordered_map<CallKey, const SyncOp*, CallKeyHash> host_syncs;
    for (const SyncOp& op : trace_.sync_ops)
      if (op.process == process_ && op.source == SyncSource::HostApi)
        host_syncs.emplace(CallKey{op.correlation_id, op.start, op.thread}, &op);
    for (const ApiCall& call : trace_.api_calls) {
      if (call.process != process_) continue;
      RegionRow row;
      row.tid = call.thread;
      row.start = call.start;
      row.end = call.end;
      row.name = trace_.strings.at(call.name);
      row.category = trace_.strings.at(call.category);
      row.correlation_id = call.correlation_id;
      auto it = host_syncs.find(CallKey{call.correlation_id, call.start, call.thread});
      if (it != host_syncs.end()) {
        row.args = sync_args(*it->second);
        host_syncs.erase(it);
      }
      w_.add_region(row);
    }
    for (const SyncOp& op : trace_.sync_ops) {
      if (op.process != process_) continue;
      if (op.source == SyncSource::HostApi) {
        if (!host_syncs.count(CallKey{op.correlation_id, op.start, op.thread})) continue;  // written with its call
        RegionRow row;
        row.tid = op.thread;
        row.start = op.start;
        row.end = op.end;
        row.name = hip_name_of(op.kind);
        row.category = "HIP_RUNTIME_API_EXT";
        row.correlation_id = op.correlation_id;
        row.args = sync_args(op);
        w_.add_region(row);
      } else {
        EventOperationRow row;
        row.tid = op.thread;
        row.agent_id = first_gpu_;
        row.event_obj = op.event;
        row.stream_id = stream_id(op.stream);
        row.start = op.start;
        row.end = op.end;
        row.is_wait = op.kind == SyncKind::StreamWaitEvent;
        row.correlation_id = op.correlation_id;
        w_.add_event_operation(row);
      }
    }
  }

  const Trace& trace_;
  const Index process_;
  Writer w_;
  int64_t first_gpu_ = 0;
};

}  // namespace

void write_process(const Trace& trace, Index process, const std::string& path) {
  if (process >= trace.processes.size())
    throw Error(ExitCode::Internal, fmt::format("{}: no process {} in the trace", path, process));
  ProcessWriter(trace, process, path).write();
  std::vector<CollectiveCall> calls;
  std::vector<GpuLink> links;
  for (const CollectiveCall& c : trace.collective_calls)
    if (c.process == process) calls.push_back(c);
  for (const GpuLink& l : trace.gpu_links)
    if (l.process == process) links.push_back(l);
  if (!calls.empty() || !links.empty()) append_collective_calls(path, calls, links);
}

}  // namespace rpl::rocpd
