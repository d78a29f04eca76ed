#include "collectors/amd/rocprofv3_json_import.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"
#include "support/json_integer.hpp"
#include "support/log.hpp"

namespace rpl::collectors {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

// One process of the document, with the file's name for every message about it.
class JsonProcessReader {
 public:
  JsonProcessReader(const json& process, std::string where) : p_(process), where_(std::move(where)) {
    if (!p_.is_object()) fail("a process entry that is not an object");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: {} (not rocprofv3's JSON output, --output-format json)", where_, what));
  }
  // The array at `key` of `object` (empty when the key is absent: older versions lack some sections).
  const json& array(const json& object, const char* key, const std::string& what) const {
    static const json kNone = json::array();
    if (!object.is_object() || !object.contains(key)) return kNone;
    const json& a = object[key];
    if (!a.is_array()) fail(fmt::format("{}.{} is not an array", what, key));
    return a;
  }
  // A required integer field of `record` (`what` names the record in messages).
  int64_t integer(const json& record, const char* key, const std::string& what) const {
    if (!record.is_object() || !record.contains(key)) fail(fmt::format("{}: no field '{}'", what, key));
    // Handles are addresses: unsigned 64-bit values beyond int64 keep their bits.
    if (record[key].is_number_unsigned()) return static_cast<int64_t>(record[key].get<uint64_t>());
    if (auto v = json_integer<int64_t>(record[key])) return *v;
    fail(fmt::format("{}: field '{}' is {}, not an integer", what, key, record[key].dump()));
  }
  int64_t integer_or(const json& record, const char* key, int64_t fallback, const std::string& what) const {
    return record.is_object() && record.contains(key) ? integer(record, key, what) : fallback;
  }
  // {"handle": N} fields (agent_id, queue_id, counter_id, ...).
  int64_t handle(const json& record, const char* key, const std::string& what) const {
    if (!record.is_object() || !record.contains(key)) fail(fmt::format("{}: no field '{}'", what, key));
    return integer(record[key], "handle", fmt::format("{}.{}", what, key));
  }
  std::string text(const json& record, const char* key) const {
    return record.is_object() && record.contains(key) && record[key].is_string() ? record[key].get<std::string>() : "";
  }
  const json& section(const char* key) const {
    static const json kNone = json::object();
    return p_.contains(key) && p_[key].is_object() ? p_[key] : kNone;
  }
  const json& root() const { return p_; }
  const std::string& where() const { return where_; }

 private:
  const json& p_;
  std::string where_;
};

// strings.buffer_records: the name of each record kind and of its operations, both indexed by number
// (rocprofiler-sdk's name_info, written in enum order with empty entries for holes).
class BufferNames {
 public:
  explicit BufferNames(const JsonProcessReader& r) {
    for (const json& k : r.array(r.section("strings"), "buffer_records", "strings")) {
      Kind kind;
      kind.name = r.text(k, "kind");
      for (const json& op : r.array(k, "operations", "strings.buffer_records[]"))
        kind.operations.push_back(op.is_string() ? op.get<std::string>() : "");
      kinds_.push_back(std::move(kind));
    }
  }
  std::string kind(int64_t k) const {
    return k >= 0 && static_cast<std::size_t>(k) < kinds_.size() && !kinds_[k].name.empty() ? kinds_[k].name
                                                                                           : fmt::format("KIND_{}", k);
  }
  std::string operation(int64_t k, int64_t op) const {
    if (k >= 0 && static_cast<std::size_t>(k) < kinds_.size()) {
      const auto& ops = kinds_[k].operations;
      if (op >= 0 && static_cast<std::size_t>(op) < ops.size() && !ops[op].empty()) return ops[op];
    }
    return fmt::format("{}_OPERATION_{}", kind(k), op);
  }

 private:
  struct Kind {
    std::string name;
    std::vector<std::string> operations;
  };
  std::vector<Kind> kinds_;
};

// Agents by their rocprofiler handle; rocpd ids from 1. rocpd keeps the agent's whole JSON as its extdata,
// as rocprofv3's own rocpd output does (the reader takes cu_count, wave_front_size, ... from there).
class JsonAgents {
 public:
  JsonAgents(rocpd::Writer& w, const JsonProcessReader& r) : w_(w) {
    int64_t gpus = 0;
    for (const json& agent : r.array(r.root(), "agents", "process")) {
      rocpd::AgentRow a;
      a.id = next_id_++;
      a.is_gpu = r.integer(agent, "type", "agents[]") == 2;  // rocprofiler_agent_type_t: 1 CPU, 2 GPU
      a.absolute_index = r.integer_or(agent, "node_id", a.id - 1, "agents[]");
      a.logical_index = r.integer_or(agent, "logical_node_id", a.absolute_index, "agents[]");
      a.type_index = a.is_gpu ? gpus++ : 0;
      a.name = r.text(agent, "name");
      a.model_name = r.text(agent, "model_name");
      a.vendor_name = r.text(agent, "vendor_name");
      a.product_name = r.text(agent, "product_name");
      a.extdata_json = agent.dump(-1, ' ', false, json::error_handler_t::replace);
      by_handle_[r.handle(agent, "id", "agents[]")] = a.id;
      w_.add_agent(a);
    }
  }
  // An agent no entry of "agents" describes gets a row of its own (GPU, name unknown), so the trace reads.
  int64_t of(int64_t handle) {
    if (auto it = by_handle_.find(handle); it != by_handle_.end()) return it->second;
    rocpd::AgentRow a;
    a.id = next_id_++;
    a.absolute_index = a.logical_index = a.id - 1;
    a.name = "unknown";
    w_.add_agent(a);
    return by_handle_[handle] = a.id;
  }

 private:
  rocpd::Writer& w_;
  int64_t next_id_ = 1;
  std::map<int64_t, int64_t> by_handle_;
};

// Queue and stream handles are addresses: rocpd gets small ids, 0 kept for the null handle.
class SmallIds {
 public:
  int64_t of(int64_t handle) {
    if (handle == 0) return 0;
    return ids_.try_emplace(handle, static_cast<int64_t>(ids_.size()) + 1).first->second;
  }

 private:
  std::map<int64_t, int64_t> ids_;
};

uint32_t to_u32(int64_t v) { return v < 0 ? 0u : static_cast<uint32_t>(std::min<int64_t>(v, UINT32_MAX)); }

// The trace sections imported as API regions: every buffer_records key ending in "_api".
bool is_api_section(const std::string& key) { return key.size() > 4 && key.ends_with("_api"); }

std::string command_of(const json& metadata) {
  if (!metadata.is_object() || !metadata.contains("command")) return "(imported from rocprofv3 JSON)";
  const json& c = metadata["command"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array())
    for (const json& a : c)
      if (a.is_string()) out += (out.empty() ? "" : " ") + a.get<std::string>();
  return out.empty() ? "(imported from rocprofv3 JSON)" : out;
}

void import_process(const JsonProcessReader& r, const std::string& database) {
  const json& buffers = r.section("buffer_records");
  const json& dispatches = r.array(buffers, "kernel_dispatch", "buffer_records");
  const json& copies = r.array(buffers, "memory_copy", "buffer_records");
  const json& scratch = r.array(buffers, "scratch_memory", "buffer_records");
  std::vector<std::pair<std::string, const json*>> api;
  for (const auto& [key, value] : buffers.items())
    if (is_api_section(key)) api.emplace_back(key, &r.array(buffers, key.c_str(), "buffer_records"));
  std::size_t records = dispatches.size() + copies.size();
  for (const auto& [key, rows] : api) records += rows->size();
  if (records == 0)
    throw Error(ExitCode::InputEmpty, fmt::format("{}: no kernel, copy or API record to import", r.where()));

  const json& metadata = r.section("metadata");
  rocpd::NodeRow node;
  rocpd::ProcessRow proc;
  proc.pid = r.integer(metadata, "pid", "metadata");
  proc.command = command_of(metadata);
  TimeNs first = INT64_MAX, last = 0;
  std::set<int64_t> threads;
  auto timed = [&](const json& rec, const std::string& what) {
    const TimeNs s = r.integer(rec, "start_timestamp", what), e = r.integer(rec, "end_timestamp", what);
    first = std::min(first, s);
    last = std::max(last, e);
    threads.insert(r.integer_or(rec, "thread_id", 0, what));
    return std::pair{s, e};
  };
  for (const json* section : {&dispatches, &copies, &scratch})
    for (const json& rec : *section) timed(rec, "a record");
  for (const auto& [key, rows] : api)
    for (const json& rec : *rows) timed(rec, key);
  proc.init = r.integer_or(metadata, "init_time", first, "metadata");
  proc.fini = r.integer_or(metadata, "fini_time", last, "metadata");
  proc.start = first;
  proc.end = last;

  rocpd::Writer w(database, node, proc);
  JsonAgents agents(w, r);
  const BufferNames names(r);
  SmallIds queues, streams;
  for (int64_t tid : threads) w.add_thread({tid, "", first, last});
  std::set<int64_t> code_objects;
  for (const json& co : r.array(r.root(), "code_objects", "process")) {
    const int64_t id = r.integer(co, "code_object_id", "code_objects[]");
    const int64_t agent = co.contains("rocp_agent") ? agents.of(r.handle(co, "rocp_agent", "code_objects[]")) : 0;
    if (code_objects.insert(id).second) w.add_code_object(id, agent, r.text(co, "uri"));
  }
  // ROCm 6.2-6.4's kernel symbols carry no register counts; a counter-collection record of the kernel does.
  std::map<int64_t, std::pair<int64_t, int64_t>> registers;  // kernel id -> (arch VGPRs, SGPRs)
  const json& counter_records = r.array(r.section("callback_records"), "counter_collection", "callback_records");
  for (const json& rec : counter_records) {
    const json& info = rec.value("dispatch_data", json::object()).value("dispatch_info", json::object());
    const std::string what = "callback_records.counter_collection[]";
    registers.try_emplace(r.integer(info, "kernel_id", what), r.integer_or(rec, "arch_vgpr_count", 0, what),
                          r.integer_or(rec, "sgpr_count", 0, what));
  }
  std::set<int64_t> kernels;
  for (const json& k : r.array(r.root(), "kernel_symbols", "process")) {
    const std::string what = "kernel_symbols[]";
    rocpd::KernelSymbolRow s;
    s.id = r.integer(k, "kernel_id", what);
    s.code_object_id = r.integer_or(k, "code_object_id", 0, what);
    s.kernel_name = r.text(k, "kernel_name");
    for (const char* key : {"demangled_kernel_name", "formatted_kernel_name", "kernel_name"})
      if (s.display_name.empty()) s.display_name = r.text(k, key);
    s.kernarg_segment_size = to_u32(r.integer_or(k, "kernarg_segment_size", 0, what));
    s.group_segment_size = to_u32(r.integer_or(k, "group_segment_size", 0, what));
    s.private_segment_size = to_u32(r.integer_or(k, "private_segment_size", 0, what));
    s.sgpr_count = to_u32(r.integer_or(k, "sgpr_count", 0, what));
    s.arch_vgpr_count = to_u32(r.integer_or(k, "arch_vgpr_count", 0, what));
    s.accum_vgpr_count = to_u32(r.integer_or(k, "accum_vgpr_count", 0, what));
    if (auto it = registers.find(s.id); it != registers.end() && s.arch_vgpr_count == 0 && s.sgpr_count == 0) {
      s.arch_vgpr_count = to_u32(it->second.first);
      s.sgpr_count = to_u32(it->second.second);
    }
    if (kernels.insert(s.id).second) w.add_kernel_symbol(s);
  }

  std::set<int64_t> traced_dispatches;
  for (const json& rec : dispatches) {
    const std::string what = "buffer_records.kernel_dispatch[]";
    const json& info = rec.contains("dispatch_info") ? rec["dispatch_info"] : json();
    rocpd::DispatchRow d;
    std::tie(d.start, d.end) = timed(rec, what);
    d.tid = r.integer_or(rec, "thread_id", 0, what);
    d.correlation_id = r.integer(rec.contains("correlation_id") ? rec["correlation_id"] : json(), "internal", what);
    d.dispatch_id = r.integer(info, "dispatch_id", what + ".dispatch_info");
    d.kernel_id = r.integer(info, "kernel_id", what + ".dispatch_info");
    if (!kernels.count(d.kernel_id))
      r.fail(fmt::format("dispatch {} runs kernel {}, which kernel_symbols does not define", d.dispatch_id, d.kernel_id));
    d.agent_id = agents.of(r.handle(info, "agent_id", what));
    d.queue_id = queues.of(r.handle(info, "queue_id", what));
    d.stream_id = info.contains("stream_id") ? streams.of(r.handle(info, "stream_id", what)) : 0;
    d.private_segment_size = to_u32(r.integer_or(info, "private_segment_size", 0, what));
    d.group_segment_size = to_u32(r.integer_or(info, "group_segment_size", 0, what));
    const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      d.workgroup[a] = to_u32(r.integer_or(info.value("workgroup_size", json::object()), axes[a], 1, what));
      d.grid[a] = to_u32(r.integer_or(info.value("grid_size", json::object()), axes[a], 1, what));
    }
    if (!traced_dispatches.insert(d.dispatch_id).second)
      r.fail(fmt::format("dispatch {} is recorded twice", d.dispatch_id));
    w.add_dispatch(d);
  }
  int64_t copy_id = 0;
  for (const json& rec : copies) {
    const std::string what = "buffer_records.memory_copy[]";
    rocpd::MemoryCopyRow c;
    c.id = ++copy_id;
    std::tie(c.start, c.end) = timed(rec, what);
    c.tid = r.integer_or(rec, "thread_id", 0, what);
    c.kind = names.operation(r.integer(rec, "kind", what), r.integer(rec, "operation", what));
    c.src_agent_id = agents.of(r.handle(rec, "src_agent_id", what));
    c.dst_agent_id = agents.of(r.handle(rec, "dst_agent_id", what));
    c.size = static_cast<uint64_t>(std::max<int64_t>(0, r.integer_or(rec, "bytes", 0, what)));
    c.stream_id = rec.contains("stream_id") ? streams.of(r.handle(rec, "stream_id", what)) : 0;
    c.correlation_id = r.integer_or(rec.value("correlation_id", json::object()), "internal", 0, what);
    w.add_memory_copy(c);
  }
  // ROCTx messages by the correlation id of their push or mark (strings.marker_api).
  std::map<int64_t, std::string> messages;
  for (const json& m : r.array(r.section("strings"), "marker_api", "strings"))
    messages[r.integer(m, "key", "strings.marker_api[]")] = r.text(m, "value");
  for (const auto& [key, rows] : api)
    for (const json& rec : *rows) {
      rocpd::RegionRow region;
      std::tie(region.start, region.end) = timed(rec, key);
      region.tid = r.integer_or(rec, "thread_id", 0, key);
      const int64_t kind = r.integer(rec, "kind", key);
      region.category = names.kind(kind);
      region.correlation_id = r.integer_or(rec.value("correlation_id", json::object()), "internal", 0, key);
      const auto message = messages.find(region.correlation_id);
      region.name = key == "marker_api" && message != messages.end() ? message->second
                                                                     : names.operation(kind, r.integer(rec, "operation", key));
      w.add_region(region);
    }
  for (const json& rec : scratch) {
    const std::string what = "buffer_records.scratch_memory[]";
    rocpd::MemoryAllocationRow a;
    std::tie(a.start, a.end) = timed(rec, what);
    a.tid = r.integer_or(rec, "thread_id", 0, what);
    a.agent_id = agents.of(r.handle(rec, "agent_id", what));
    if (rec.contains("queue_id")) a.queue_id = queues.of(r.handle(rec, "queue_id", what));
    const std::string op = names.operation(r.integer(rec, "kind", what), r.integer(rec, "operation", what));
    a.type = op.ends_with("FREE") ? "FREE" : op.ends_with("RECLAIM") ? "RECLAIM" : "ALLOC";
    a.size = static_cast<uint64_t>(std::max<int64_t>(0, r.integer_or(rec, "allocation_size", 0, what)));
    a.extdata_json = fmt::format("{{\"flags\":{}}}", r.integer_or(rec, "flags", 0, what));
    a.correlation_id = r.integer_or(rec.value("correlation_id", json::object()), "internal", 0, what);
    w.add_memory_allocation(a);
  }

  // Counter values (callback_records.counter_collection): summed per dispatch and counter by the reader, as
  // rocprofv3 writes one record per instance. Only for dispatches this trace has: a counter run without the
  // kernel trace has no times to place them at.
  std::map<int64_t, const json*> counters;
  for (const json& c : r.array(r.root(), "counters", "process")) counters[r.handle(c, "id", "counters[]")] = &c;
  std::set<int64_t> described;
  std::size_t without_dispatch = 0;
  for (const json& rec : counter_records) {
    const std::string what = "callback_records.counter_collection[]";
    const json& data = rec.value("dispatch_data", json::object());
    const int64_t dispatch = r.integer(data.value("dispatch_info", json::object()), "dispatch_id", what);
    if (!traced_dispatches.count(dispatch)) {
      ++without_dispatch;
      continue;
    }
    for (const json& v : r.array(rec, "records", what)) {
      const int64_t id = r.handle(v, "counter_id", what);
      if (!v.contains("value") || !v["value"].is_number()) r.fail(fmt::format("{}: a counter value that is not a number", what));
      const auto c = counters.find(id);
      if (c == counters.end()) r.fail(fmt::format("{}: counter {} is not among \"counters\"", what, id));
      if (described.insert(id).second)
        w.add_pmc_info({id, agents.of(r.handle(*c->second, "agent_id", "counters[]")), r.text(*c->second, "name"),
                        r.text(*c->second, "description"), r.text(*c->second, "block")});
      w.add_pmc_value({dispatch, id, v["value"].get<double>()});
    }
  }
  if (without_dispatch > 0)
    log::warn("{}: {} counter records belong to dispatches the kernel trace does not have (trace with "
              "--kernel-trace in the same run); not imported",
              r.where(), without_dispatch);
  w.finish();
}

}  // namespace

std::vector<std::string> find_rocprofv3_json(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().filename().string().ends_with("results.json"))
      out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> import_rocprofv3_json_file(const std::string& file, const std::string& output_folder) {
  json doc;
  try {
    doc = json::parse(read_input_file(file, "rocprofv3 JSON output"));
  } catch (const json::exception& e) {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: not JSON: {}", file, e.what()));
  }
  if (!doc.is_object() || !doc.contains("rocprofiler-sdk-tool"))
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: no \"rocprofiler-sdk-tool\" entry (not rocprofv3's JSON "
                                                    "output, --output-format json)", file));
  // One element per process; a single object is read as one process.
  const json& tool = doc["rocprofiler-sdk-tool"];
  std::vector<const json*> processes;
  if (tool.is_array())
    for (const json& p : tool) processes.push_back(&p);
  else
    processes.push_back(&tool);
  std::vector<std::string> out;
  std::set<std::string> written;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const JsonProcessReader r(*processes[i], fmt::format("{} (process {})", file, i + 1));
    const int64_t pid = r.integer(r.section("metadata"), "pid", "metadata");
    std::string db = (fs::path(output_folder) / fmt::format("{}_results.db", pid)).string();
    if (!written.insert(db).second) db = (fs::path(output_folder) / fmt::format("{}_{}_results.db", pid, i + 1)).string();
    try {
      import_process(r, db);
    } catch (const json::exception& e) {  // a section of the wrong JSON type where an object was expected
      r.fail(e.what());
    }
    out.push_back(db);
  }
  return out;
}

std::vector<std::string> import_rocprofv3_json(const std::string& path, const std::string& output_dir) {
  const auto files = find_rocprofv3_json(path);
  if (files.empty())
    throw Error(ExitCode::InputMissing,
                fmt::format("{}: no rocprofv3 JSON output (*results.json) here", path));
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  std::vector<std::string> out;
  for (const auto& file : files) {
    fs::path target = fs::path(file).parent_path();
    if (!output_dir.empty())
      target = folder ? (fs::path(output_dir) / fs::relative(target, path)).lexically_normal() : fs::path(output_dir);
    fs::create_directories(target, ec);
    if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", target.string(), ec.message()));
    for (auto& db : import_rocprofv3_json_file(file, target.string())) out.push_back(std::move(db));
  }
  return out;
}

}  // namespace rpl::collectors
