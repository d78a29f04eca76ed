// write_process: one process of an in-memory Trace written back as a rocpd database.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <unordered_map>

#include "store/rocpd_writer.hpp"
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

}  // namespace

void write_process(const Trace& trace, Index process, const std::string& path) {
  if (process >= trace.processes.size())
    throw Error(ExitCode::Internal, fmt::format("{}: no process {} in the trace", path, process));
  const Process& proc = trace.processes[process];

  NodeRow node;
  node.hostname = proc.hostname;
  if (!proc.hostname.empty()) node.machine_id = proc.hostname;
  ProcessRow prow;
  prow.pid = proc.pid;
  prow.ppid = proc.ppid;
  prow.init = prow.start = proc.start;
  prow.fini = prow.end = proc.end;
  prow.command = proc.command;
  Writer w(path, node, prow, proc.guid);

  auto agent_id = [&](Index i) { return i == kNoIndex ? int64_t{0} : trace.agents[i].rocpd_id; };
  auto queue_id = [&](Index i) { return i == kNoIndex ? int64_t{0} : trace.queues[i].rocpd_id; };
  auto stream_id = [&](Index i) { return i == kNoIndex ? int64_t{0} : trace.streams[i].rocpd_id; };

  int64_t first_gpu = 0;
  bool have_gpu = false;
  for (const Agent& a : trace.agents) {
    if (a.process != process) continue;
    if (a.is_gpu && !have_gpu) first_gpu = a.rocpd_id, have_gpu = true;
    AgentRow row;
    row.id = a.rocpd_id;
    row.is_gpu = a.is_gpu;
    row.absolute_index = a.absolute_index;
    row.logical_index = a.logical_index;
    row.name = a.name;
    row.vendor_name = a.vendor_name;
    row.product_name = a.product_name;
    row.extdata_json = agent_extdata(a);
    w.add_agent(row);
  }
  for (const Queue& q : trace.queues)
    if (q.process == process) w.add_queue(q.rocpd_id, q.name);
  for (const Stream& s : trace.streams)
    if (s.process == process) w.add_stream(s.rocpd_id, s.name);

  std::set<int64_t> code_objects;
  for (const KernelSymbol& k : trace.symbols)
    if (k.process == process) code_objects.insert(k.code_object_id);
  for (int64_t id : code_objects) w.add_code_object(id, first_gpu, "");
  for (const KernelSymbol& k : trace.symbols) {
    if (k.process != process) continue;
    KernelSymbolRow row;
    row.id = k.rocpd_id;
    row.code_object_id = k.code_object_id;
    row.kernel_name = trace.strings.at(k.mangled_name);
    row.display_name = trace.strings.at(k.display_name);
    row.kernarg_segment_size = k.kernarg_size;
    row.group_segment_size = k.static_lds_bytes;
    row.private_segment_size = k.private_segment_bytes;
    row.sgpr_count = k.sgpr_count;
    row.arch_vgpr_count = k.arch_vgpr_count;
    row.accum_vgpr_count = k.accum_vgpr_count;
    w.add_kernel_symbol(row);
  }

  for (const Dispatch& d : trace.dispatches) {
    if (d.process != process) continue;
    DispatchRow row;
    row.dispatch_id = d.dispatch_id;
    row.tid = d.thread;
    row.agent_id = agent_id(d.agent);
    row.kernel_id = d.symbol == kNoIndex ? 0 : trace.symbols[d.symbol].rocpd_id;
    row.queue_id = queue_id(d.queue);
    row.stream_id = stream_id(d.stream);
    row.start = d.start;
    row.end = d.end;
    row.private_segment_size = d.scratch_bytes;
    row.group_segment_size = d.lds_bytes;
    for (int i = 0; i < 3; ++i) row.workgroup[i] = d.block[i], row.grid[i] = d.grid[i];
    row.correlation_id = d.correlation_id;
    w.add_dispatch(row);
  }
  // Counters: one rocpd_info_pmc row per (agent, counter name), the values after all dispatches.
  std::map<std::pair<int64_t, Index>, int64_t> pmc_ids;
  for (const CounterSample& c : trace.counters) {
    if (c.dispatch >= trace.dispatches.size() || trace.dispatches[c.dispatch].process != process) continue;
    const Dispatch& d = trace.dispatches[c.dispatch];
    auto [it, added] = pmc_ids.try_emplace({agent_id(d.agent), c.counter}, static_cast<int64_t>(pmc_ids.size() + 1));
    if (added) w.add_pmc_info({it->second, agent_id(d.agent), trace.strings.at(c.counter), "", ""});
    w.add_pmc_value({d.dispatch_id, it->second, c.value});
  }
  for (const MemoryCopy& c : trace.copies) {
    if (c.process != process) continue;
    MemoryCopyRow row;
    row.id = c.copy_id;
    row.tid = c.thread;
    row.start = c.start;
    row.end = c.end;
    row.kind = trace.strings.at(c.kind);
    row.dst_agent_id = agent_id(c.dst_agent);
    row.src_agent_id = agent_id(c.src_agent);
    row.size = c.bytes;
    row.stream_id = stream_id(c.stream);
    row.queue_id = c.queue == kNoIndex ? -1 : trace.queues[c.queue].rocpd_id;
    row.correlation_id = c.correlation_id;
    w.add_memory_copy(row);
  }

  // Host sync ops become the "stream"/"event" args of their API call; GPU barriers go to
  // rocpd_event_operation.
  auto sync_args = [&](const SyncOp& op) {
    std::vector<ArgRow> args;
    if (op.stream != kNoIndex) {
      int64_t id = trace.streams[op.stream].rocpd_id;
      args.push_back({"hipStream_t", "stream", fmt::format("0x{:x}", id), fmt::format("{{\"stream_id\": {}}}", id)});
    }
    if (op.kind == SyncKind::EventRecord || op.kind == SyncKind::StreamWaitEvent ||
        op.kind == SyncKind::EventSynchronize)
      args.push_back({"hipEvent_t", "event", fmt::format("0x{:x}", op.event), "{}"});
    return args;
  };
  std::unordered_map<CallKey, const SyncOp*, CallKeyHash> host_syncs;
  for (const SyncOp& op : trace.sync_ops)
    if (op.process == process && op.source == SyncSource::HostApi)
      host_syncs.emplace(CallKey{op.correlation_id, op.start, op.thread}, &op);

  for (const ApiCall& call : trace.api_calls) {
    if (call.process != process) continue;
    RegionRow row;
    row.tid = call.thread;
    row.start = call.start;
    row.end = call.end;
    row.name = trace.strings.at(call.name);
    row.category = trace.strings.at(call.category);
    row.correlation_id = call.correlation_id;
    auto it = host_syncs.find(CallKey{call.correlation_id, call.start, call.thread});
    if (it != host_syncs.end()) {
      row.args = sync_args(*it->second);
      host_syncs.erase(it);
    }
    w.add_region(row);
  }
  for (const SyncOp& op : trace.sync_ops) {
    if (op.process != process) continue;
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
      w.add_region(row);
    } else {
      EventOperationRow row;
      row.tid = op.thread;
      row.agent_id = first_gpu;
      row.event_obj = op.event;
      row.stream_id = stream_id(op.stream);
      row.start = op.start;
      row.end = op.end;
      row.is_wait = op.kind == SyncKind::StreamWaitEvent;
      row.correlation_id = op.correlation_id;
      w.add_event_operation(row);
    }
  }
  w.finish();
}

}  // namespace rpl::rocpd
