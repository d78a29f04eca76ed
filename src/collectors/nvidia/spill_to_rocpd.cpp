#include "collectors/nvidia/spill_to_rocpd.hpp"
#include "support/demangle.hpp"

#include <fmt/core.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "collectors/nvidia/nccl_profile_file.hpp"
#include "collectors/nvidia/spill_correlation.hpp"
#include "collectors/nvidia/spill_file.hpp"
#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::collectors {
namespace {

namespace fs = std::filesystem;
using spill::SpillContents;

constexpr int64_t kCpuAgentId = 0;
int64_t gpu_agent_id(uint32_t device_id) { return int64_t{device_id} + 1; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "model name" and "vendor_id" of the first CPU in /proc/cpuinfo.
std::pair<std::string, std::string> cpu_model_and_vendor() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, vendor;
  auto value = [](const std::string& l) {
    auto colon = l.find(':');
    if (colon == std::string::npos) return std::string();
    auto v = l.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  };
  while (std::getline(in, line) && (model.empty() || vendor.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = value(line);
    if (vendor.empty() && line.rfind("vendor_id", 0) == 0) vendor = value(line);
  }
  return {model.empty() ? "CPU" : model, vendor};
}

// HSA grid sizes are work-items in 32 bits; CUDA's gridDim*blockDim can exceed that.
uint32_t work_items(int32_t blocks, int32_t threads, bool& saturated) {
  uint64_t n = uint64_t(std::max(blocks, 0)) * uint64_t(std::max(threads, 0));
  if (n > std::numeric_limits<uint32_t>::max()) {
    saturated = true;
    return std::numeric_limits<uint32_t>::max();
  }
  return static_cast<uint32_t>(n);
}

const char* copy_kind_name(const spill::CopyRecord& c) {
  using K = spill::CuptiCopyKind;
  if (c.op == static_cast<uint8_t>(spill::CopyOp::Memset)) return "MEMORY_FILL";
  switch (static_cast<K>(c.copy_kind)) {
    case K::HtoD:
    case K::HtoA: return "MEMORY_COPY_HOST_TO_DEVICE";
    case K::DtoH:
    case K::AtoH: return "MEMORY_COPY_DEVICE_TO_HOST";
    case K::HtoH: return "MEMORY_COPY_HOST_TO_HOST";
    case K::DtoD:
    case K::AtoA:
    case K::AtoD:
    case K::DtoA:
    case K::PtoP: return "MEMORY_COPY_DEVICE_TO_DEVICE";
    default: return "MEMORY_COPY_NONE";
  }
}

// Source and destination agents of a copy (host side = the CPU agent).
std::pair<int64_t, int64_t> copy_agents(const spill::CopyRecord& c) {
  using K = spill::CuptiCopyKind;
  int64_t gpu = gpu_agent_id(c.device_id);
  if (c.op == static_cast<uint8_t>(spill::CopyOp::PeerMemcpy)) {
    int64_t src = c.src_device_id != spill::kInvalidId32 ? gpu_agent_id(c.src_device_id) : gpu;
    int64_t dst = c.dst_device_id != spill::kInvalidId32 ? gpu_agent_id(c.dst_device_id) : gpu;
    return {src, dst};
  }
  if (c.op == static_cast<uint8_t>(spill::CopyOp::Memset)) return {gpu, gpu};
  switch (static_cast<K>(c.copy_kind)) {
    case K::HtoD:
    case K::HtoA: return {kCpuAgentId, gpu};
    case K::DtoH:
    case K::AtoH: return {gpu, kCpuAgentId};
    case K::HtoH: return {kCpuAgentId, kCpuAgentId};
    default: return {gpu, gpu};
  }
}

std::string gpu_extdata(const spill::DeviceRecord& d, const std::string& name) {
  // simd_per_cu: an SM has 4 processing blocks (sub-partitions) since Volta, each issuing one warp a cycle.
  constexpr uint32_t kPartitionsPerSm = 4;
  nlohmann::json j = {
      {"cu_count", d.sm_count},
      {"simd_per_cu", kPartitionsPerSm},
      {"wave_front_size", d.warp_size},
      {"max_waves_per_cu", d.max_warps_per_sm},
      {"max_waves_per_simd", d.max_warps_per_sm / kPartitionsPerSm},
      {"lds_size_in_kb", d.shared_bytes_per_sm / 1024},
      {"max_engine_clk_fcompute", d.core_clock_khz / 1000},
      {"workgroup_max_size", d.max_threads_per_block},
      {"local_mem_size", d.global_memory_bytes},
      {"max_blocks_per_cu", d.max_blocks_per_sm},
      {"registers_per_cu", d.registers_per_sm},
      {"registers_per_workgroup", d.registers_per_block},
      {"lds_per_workgroup_bytes", d.shared_bytes_per_block},
      {"l2_cache_bytes", d.l2_bytes},
      {"memory_bandwidth_kbps", d.global_memory_bandwidth_kbps},
      {"num_copy_engines", d.memcpy_engines},
      {"compute_capability", fmt::format("{}.{}", d.compute_major, d.compute_minor)},
      {"gpu_index", d.device_id},
      {"name", name},
      {"vendor_name", "NVIDIA"},
      {"product_name", name},
  };
  if (std::any_of(std::begin(d.uuid), std::end(d.uuid), [](uint8_t b) { return b != 0; })) {
    std::string u = "GPU-";  // as nvidia-smi -L prints it
    for (int b = 0; b < 16; ++b) {
      if (b == 4 || b == 6 || b == 8 || b == 10) u += '-';
      u += fmt::format("{:02x}", d.uuid[b]);
    }
    j["uuid"] = u;
  }
  return j.dump();
}

struct SymbolKey {
  uint32_t name_id;
  uint32_t registers;
  int32_t static_shared;
  uint32_t local;
  bool operator==(const SymbolKey&) const = default;
};
struct SymbolKeyHash {
  std::size_t operator()(const SymbolKey& k) const {
    uint64_t h = (uint64_t{k.name_id} << 32) ^ (uint64_t{k.registers} << 16) ^ uint64_t(uint32_t(k.static_shared)) ^
                 (uint64_t{k.local} << 40);
    return std::hash<uint64_t>{}(h);
  }
};

// The machine the process ran on: /etc/machine-id, uname, and the hostname the process recorded.
rocpd::NodeRow host_node_row(const SpillContents& s) {
  rocpd::NodeRow n;
  std::string machine = read_first_line("/etc/machine-id");
  if (!machine.empty()) n.machine_id = machine;
  if (s.process) n.hostname = s.string(s.process->hostname_id);
  utsname u{};
  if (uname(&u) == 0) {
    if (n.hostname.empty()) n.hostname = u.nodename;
    n.system_name = u.sysname;
    n.release = u.release;
    n.version = u.version;
    n.hardware_name = u.machine;
  }
  return n;
}

// The last timestamp in the spill: the process end when no footer was written (crash).
int64_t last_timestamp(const SpillContents& s) {
  int64_t last = s.header.init_ns;
  for (const auto& k : s.kernels) last = std::max(last, k.end);
  for (const auto& c : s.copies) last = std::max(last, c.end);
  for (const auto& a : s.api_calls) last = std::max(last, a.end);
  for (const auto& y : s.syncs) last = std::max(last, y.end);
  return last;
}

std::string spill_name(const SpillContents& s) { return fmt::format("spill of pid {}", s.header.pid); }

rocpd::AgentRow cpu_agent_row() {
  auto [model, vendor] = cpu_model_and_vendor();
  rocpd::AgentRow cpu;
  cpu.id = kCpuAgentId;
  cpu.is_gpu = false;
  cpu.name = cpu.model_name = cpu.product_name = model;
  cpu.vendor_name = vendor;
  return cpu;
}

// Every CUDA device a record names, ascending.
std::vector<uint32_t> devices_named(const SpillContents& s) {
  std::vector<uint32_t> devices;
  auto note = [&](uint32_t d) {
    if (d != spill::kInvalidId32 && std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
  };
  for (const auto& d : s.devices) note(d.device_id);
  for (const auto& k : s.kernels) note(k.device_id);
  for (const auto& c : s.copies) {
    note(c.device_id);
    note(c.src_device_id);
    note(c.dst_device_id);
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

// The agent of CUDA device `d`, with the properties its device record gives (none, said, without one).
rocpd::AgentRow gpu_agent_row(const SpillContents& s, uint32_t d) {
  rocpd::AgentRow a;
  a.id = gpu_agent_id(d);
  a.is_gpu = true;
  a.absolute_index = gpu_agent_id(d);
  a.logical_index = a.type_index = d;
  a.vendor_name = "NVIDIA";
  auto rec = std::find_if(s.devices.begin(), s.devices.end(), [d](const auto& r) { return r.device_id == d; });
  if (rec != s.devices.end()) {
    std::string product = s.string(rec->name_id);
    a.name = fmt::format("sm_{}{}", rec->compute_major, rec->compute_minor);
    a.model_name = a.product_name = product;
    a.extdata_json = gpu_extdata(*rec, product);
  } else {
    a.name = "sm_unknown";
    a.product_name = a.model_name = fmt::format("CUDA device {}", d);
    log::warn("{}: no device record for CUDA device {}; its agent has no properties", spill_name(s), d);
  }
  return a;
}

// Every stream's name by id, ascending: the recorded streams, each context's NULL stream, and every stream
// a record names.
std::map<uint32_t, std::string> stream_names(const SpillContents& s) {
  std::map<uint32_t, std::string> names;
  for (const auto& st : s.streams) {
    auto flag = static_cast<spill::StreamFlag>(st.flag);
    names[st.stream_id] = flag == spill::StreamFlag::NonBlocking ? fmt::format("Stream {} (non-blocking)", st.stream_id)
                          : flag == spill::StreamFlag::Null     ? "Default Stream"
                                                                : fmt::format("Stream {}", st.stream_id);
  }
  // The NULL (legacy default) stream of each context is named so; CUPTI gives it an id like any other.
  for (const auto& c : s.contexts) names[c.null_stream_id] = "Default Stream";
  auto note = [&](uint32_t id) {
    if (id != spill::kInvalidId32) names.try_emplace(id, fmt::format("Stream {}", id));
  };
  for (const auto& k : s.kernels) note(k.stream_id);
  for (const auto& c : s.copies) note(c.stream_id);
  for (const auto& y : s.syncs) note(y.stream_id);
  for (const auto& e : s.event_records) note(e.stream_id);
  return names;
}

rocpd::KernelSymbolRow kernel_symbol_row(const SpillContents& s, const spill::KernelRecord& k, int64_t id) {
  rocpd::KernelSymbolRow sym;
  sym.id = id;
  sym.kernel_name = s.string(k.name_id);
  sym.display_name = demangle(sym.kernel_name);
  sym.group_segment_size = static_cast<uint32_t>(std::max(k.static_shared_bytes, 0));
  sym.private_segment_size = k.local_bytes_per_thread;
  sym.arch_vgpr_count = k.registers_per_thread;
  return sym;
}

const char* sync_api_name(uint32_t type) {
  switch (static_cast<spill::SyncType>(type)) {
    case spill::SyncType::EventSynchronize: return "cudaEventSynchronize";
    case spill::SyncType::StreamWaitEvent: return "cudaStreamWaitEvent";
    case spill::SyncType::StreamSynchronize: return "cudaStreamSynchronize";
    case spill::SyncType::ContextSynchronize: return "cudaDeviceSynchronize";
    default: return "cudaSynchronize";
  }
}

// What the conversion left out or made up, said once at the end.
struct LeftOut {
  std::size_t untimed_kernels = 0;  // no timestamps, or end before start
  std::size_t untimed_copies = 0;
  std::size_t orphan_event_records = 0;  // cudaEventRecord records without a traced API call
  std::size_t graph_kernels = 0;         // (not left out: counted for the debug summary)
  std::size_t synthesized_regions = 0;   // sync records without a traced API call, given a region
};

void warn_about_what_was_left_out(const SpillContents& s, const LeftOut& n) {
  if (n.untimed_kernels || n.untimed_copies)
    log::warn("{}: dropped {} kernels and {} copies without valid timestamps (still running at exit?)", spill_name(s),
              n.untimed_kernels, n.untimed_copies);
  if (n.orphan_event_records)
    log::warn("{}: {} cudaEventRecord records had no traced API call and were left out", spill_name(s),
              n.orphan_event_records);
  if (s.footer && s.footer->dropped_records) log::warn("{}: CUPTI dropped {} records", spill_name(s), s.footer->dropped_records);
  log::debug("{}: {} kernels ({} from graphs), {} copies, {} API calls, {} synthesized sync regions", spill_name(s),
             s.kernels.size(), n.graph_kernels, s.copies.size(), s.api_calls.size(), n.synthesized_regions);
}

// One spill into one rocpd database, table by table; timestamps shifted onto the trace clock.
class Converter {
 public:
  Converter(const SpillContents& s, std::string db_path) : s_(s), db_path_(std::move(db_path)), index_(s) {}

  void run() {
    rocpd::Writer w(db_path_, host_node_row(s_), process_row());
    write_threads(w);
    write_agents(w);
    write_streams(w);
    write_kernels(w);
    write_copies(w);
    write_api_call_regions(w);
    write_untraced_sync_regions(w);
    count_orphan_event_records();
    w.finish();
    warn_about_what_was_left_out(s_, left_out_);
  }

 private:
  TimeNs t(int64_t ns) const { return ns + s_.header.clock_offset_ns; }

  rocpd::ProcessRow process_row() const {
    rocpd::ProcessRow p;
    p.pid = s_.header.pid;
    p.ppid = s_.header.ppid;
    p.init = p.start = t(s_.process ? s_.process->start_ns : s_.header.init_ns);
    p.end = p.fini = t(s_.footer ? s_.footer->end_ns : last_timestamp(s_));
    if (s_.process) p.command = s_.string(s_.process->command_id);
    if (s_.launch_env) p.extdata_json = s_.string(s_.launch_env->rank_json_id);
    return p;
  }

  // Threads span their API calls; the main thread is always there.
  void write_threads(rocpd::Writer& w) const {
    struct Span {
      TimeNs start, end;
    };
    std::map<uint32_t, Span> threads;
    threads[static_cast<uint32_t>(s_.header.pid)] = Span{t(s_.header.init_ns), t(s_.header.init_ns)};
    for (const auto& a : s_.api_calls) {
      if (a.thread_id == 0) continue;  // a marker whose thread CUPTI did not name: written on the main thread
      auto [it, inserted] = threads.try_emplace(a.thread_id, Span{t(a.start), t(a.end)});
      it->second.start = std::min(it->second.start, t(a.start));
      it->second.end = std::max(it->second.end, t(a.end));
    }
    for (const auto& [tid, span] : threads) {
      rocpd::ThreadRow row;
      row.tid = tid;
      row.start = span.start;
      row.end = span.end;
      w.add_thread(row);
    }
  }

  void write_agents(rocpd::Writer& w) const {
    w.add_agent(cpu_agent_row());
    for (uint32_t d : devices_named(s_)) w.add_agent(gpu_agent_row(s_, d));
  }

  void write_streams(rocpd::Writer& w) const {
    for (const auto& [id, name] : stream_names(s_)) {
      w.add_stream(id, name);
      w.add_queue(id, name);
    }
  }

  // Kernels with valid timestamps, by start (then correlation id); the others are counted.
  std::vector<uint32_t> timed_kernels_in_start_order() {
    std::vector<uint32_t> order;
    order.reserve(s_.kernels.size());
    for (uint32_t i = 0; i < s_.kernels.size(); ++i) {
      const auto& k = s_.kernels[i];
      if ((k.start == 0 && k.end == 0) || k.end < k.start) ++left_out_.untimed_kernels;
      else order.push_back(i);
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const auto& x = s_.kernels[a];
      const auto& y = s_.kernels[b];
      return x.start != y.start ? x.start < y.start : x.correlation_id < y.correlation_id;
    });
    return order;
  }

  rocpd::DispatchRow dispatch_row(const spill::KernelRecord& k, int64_t dispatch_id, int64_t symbol_id,
                                  bool& saturated) const {
    rocpd::DispatchRow d;
    d.dispatch_id = dispatch_id;
    d.tid = index_.thread_of(k.correlation_id);
    d.agent_id = gpu_agent_id(k.device_id);
    d.kernel_id = symbol_id;
    d.queue_id = d.stream_id = k.stream_id;
    d.start = t(k.start);
    d.end = t(k.end);
    d.private_segment_size = k.local_bytes_per_thread;
    d.group_segment_size = static_cast<uint32_t>(std::max(k.static_shared_bytes, 0) + std::max(k.dynamic_shared_bytes, 0));
    for (int a = 0; a < 3; ++a) {
      d.workgroup[a] = static_cast<uint32_t>(std::max(k.block[a], 0));
      d.grid[a] = work_items(k.grid[a], k.block[a], saturated);
    }
    d.correlation_id = k.correlation_id;
    return d;
  }

  // One kernel symbol per (name, registers, static shared, local memory), written before its first dispatch.
  void write_kernels(rocpd::Writer& w) {
    std::unordered_map<SymbolKey, int64_t, SymbolKeyHash> symbols;
    int64_t dispatch_id = 0;
    bool saturated = false;
    for (uint32_t i : timed_kernels_in_start_order()) {
      const auto& k = s_.kernels[i];
      SymbolKey key{k.name_id, k.registers_per_thread, k.static_shared_bytes, k.local_bytes_per_thread};
      auto [it, inserted] = symbols.try_emplace(key, static_cast<int64_t>(symbols.size() + 1));
      if (inserted) w.add_kernel_symbol(kernel_symbol_row(s_, k, it->second));
      w.add_dispatch(dispatch_row(k, ++dispatch_id, it->second, saturated));
      if (k.graph_node_id != 0) ++left_out_.graph_kernels;
    }
    if (saturated) log::warn("{}: a grid exceeded 2^32 work-items in one dimension; stored saturated", spill_name(s_));
  }

  rocpd::MemoryCopyRow copy_row(const spill::CopyRecord& c, int64_t id) const {
    rocpd::MemoryCopyRow row;
    row.id = id;
    uint32_t corr = index_.copy_correlation(c);
    row.tid = index_.thread_of(corr);
    row.start = t(c.start);
    row.end = t(c.end);
    row.kind = copy_kind_name(c);
    auto [src, dst] = copy_agents(c);
    row.src_agent_id = src;
    row.dst_agent_id = dst;
    row.size = c.bytes;
    row.stream_id = c.stream_id;
    row.correlation_id = corr;
    return row;
  }

  void write_copies(rocpd::Writer& w) {
    int64_t id = 0;
    for (const auto& c : s_.copies) {
      if ((c.start == 0 && c.end == 0) || c.end < c.start) ++left_out_.untimed_copies;
      else w.add_memory_copy(copy_row(c, ++id));
    }
  }

  // An NVTX range as rocprofv3 stores a ROCTx range: a region in the MARKER_CORE_API category named by the
  // range's message.
  rocpd::RegionRow marker_region(const spill::ApiRecord& a) const {
    rocpd::RegionRow r;
    r.tid = a.thread_id ? a.thread_id : static_cast<int64_t>(s_.header.pid);
    r.start = t(a.start);
    r.end = t(a.end);
    r.name = s_.string(a.name_id);
    r.category = "MARKER_CORE_API";
    return r;
  }

  // Every traced runtime and driver API call, and the NVTX ranges. Sync args go to the outer call only, so a
  // runtime call and the driver call inside it make one sync op.
  void write_api_call_regions(rocpd::Writer& w) const {
    std::unordered_map<uint32_t, std::string> names;  // name_id -> normalized
    for (uint32_t i = 0; i < s_.api_calls.size(); ++i) {
      const auto& a = s_.api_calls[i];
      if (a.domain == uint8_t(spill::ApiDomain::Marker)) {
        w.add_region(marker_region(a));
        continue;
      }
      auto n = names.find(a.name_id);
      if (n == names.end()) n = names.emplace(a.name_id, normalize_cuda_api_name(s_.string(a.name_id))).first;
      rocpd::RegionRow r;
      r.tid = a.thread_id;
      r.start = t(a.start);
      r.end = t(a.end);
      r.name = n->second;
      r.category = a.domain == uint8_t(spill::ApiDomain::Driver) ? "CUDA_DRIVER_API" : "CUDA_RUNTIME_API";
      r.correlation_id = a.correlation_id;
      if (index_.is_outer_call(a.correlation_id, i)) r.args = index_.sync_args(a.correlation_id);
      w.add_region(r);
    }
  }

  // Synchronisation records whose API call was not traced still create dependencies: each gets a region
  // on the main thread.
  void write_untraced_sync_regions(rocpd::Writer& w) {
    for (const auto& y : s_.syncs) {
      if (index_.has_api_call(y.correlation_id)) continue;
      rocpd::RegionRow r;
      r.tid = static_cast<int64_t>(s_.header.pid);
      r.start = t(y.start);
      r.end = t(y.end);
      r.name = sync_api_name(y.type);
      r.category = "CUDA_RUNTIME_API";
      r.correlation_id = y.correlation_id;
      r.args = index_.sync_args(y.correlation_id);
      w.add_region(r);
      ++left_out_.synthesized_regions;
    }
  }

  void count_orphan_event_records() {
    for (const auto& e : s_.event_records)
      if (!index_.has_api_call(e.correlation_id)) ++left_out_.orphan_event_records;
  }

  const SpillContents& s_;
  std::string db_path_;
  const SpillCorrelationIndex index_;
  LeftOut left_out_;
};

bool process_alive(int64_t pid) {
  if (pid <= 0 || pid == getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::string normalize_cuda_api_name(std::string_view name) {
  std::string s(name);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view suffix : {"_ptsz", "_ptds"}) {
      if (ends_with(s, suffix)) {
        s.resize(s.size() - suffix.size());
        changed = true;
      }
    }
    // "_v" followed by digits only
    auto v = s.rfind("_v");
    if (v != std::string::npos && v + 2 < s.size() &&
        std::all_of(s.begin() + static_cast<std::ptrdiff_t>(v) + 2, s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      s.resize(v);
      changed = true;
    }
  }
  if (s.rfind("__cu", 0) == 0) s.erase(0, 2);
  return s;
}

bool is_cuda_dependency_api(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset",
                                                   "cuLaunch",   "cuGraphLaunch",   "cuMemcpy",   "cuMemset"};
  static constexpr std::string_view kNames[] = {
      "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaEventSynchronize",
      "cudaEventRecord",       "cudaEventRecordWithFlags", "cudaStreamWaitEvent",
      "cuStreamSynchronize",   "cuCtxSynchronize",      "cuEventSynchronize",    "cuEventRecord",
      "cuEventRecordWithFlags", "cuStreamWaitEvent"};
  for (auto p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::string spill_path_for(const std::string& trace_dir, const std::string& hostname, int64_t pid) {
  return (fs::path(trace_dir.empty() ? "." : trace_dir) / hostname / fmt::format("{}{}", pid, spill::kSpillExtension))
      .string();
}

namespace {

std::string convert_contents(const SpillContents& contents, const std::string& spill_path,
                             const SpillConvertOptions& options) {
  std::string db = options.db_path;
  if (db.empty())
    db = (fs::path(spill_path).parent_path() / fmt::format("{}_results.db", contents.header.pid)).string();
  if (contents.truncated)
    log::warn("{}: the spill ends inside a record (the process died while writing); converting what is whole",
              spill_path);
  if (!contents.footer)
    log::warn("{}: the process (pid {}) ended without a clean exit; records still in CUPTI's buffers are lost",
              spill_path, contents.header.pid);
  Converter(contents, db).run();
  // What our NCCL profiler plugin recorded in the same process, and the topology `profile` recorded.
  attach_nccl_records(db, fs::path(spill_path).parent_path().string(), contents.header.pid);
  if (options.remove_spill) {
    std::error_code ec;
    fs::remove(spill_path, ec);
    if (ec) log::warn("{}: converted, but could not remove it: {}", spill_path, ec.message());
  }
  return db;
}

}  // namespace

std::string convert_spill(const std::string& spill_path, const SpillConvertOptions& options) {
  return convert_contents(spill::read_spill(spill_path), spill_path, options);
}

std::vector<std::string> convert_leftover_spills(const std::string& dir) {
  std::vector<std::string> spills;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && ends_with(it->path().string(), spill::kSpillExtension))
      spills.push_back(it->path().string());
  std::sort(spills.begin(), spills.end());
  std::vector<std::string> dbs;
  for (const auto& path : spills) {
    try {
      SpillContents contents = spill::read_spill(path);
      if (!contents.footer && process_alive(contents.header.pid)) {
        log::warn("{}: process {} is still running; its spill is left alone", path, contents.header.pid);
        continue;
      }
      dbs.push_back(convert_contents(contents, path, {}));
    } catch (const Error& e) {
      log::warn("not converted: {}", e.what());
    }
  }
  return dbs;
}

}  // namespace rpl::collectors
