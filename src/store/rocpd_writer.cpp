#include "store/rocpd_writer.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "store/batch_insert.hpp"
#include "store/rocpd_schema.hpp"
#include "store/sqlite_db.hpp"
#include "store/uuid.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {

namespace {

using sqlite::Stmt;

// String -> rocpd_string id, looked up by string_view without building a std::string per row.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIds = std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>>;

// Ids that rows refer to, so that finish() can add the entity rows the caller did not add
// (rocpd's views INNER JOIN threads and queues; a missing row would hide the dispatch from them).
class IdSet {
 public:
  void insert(int64_t id) {
    if (has_last_ && id == last_) return;
    ids_.insert(id);
    last_ = id;
    has_last_ = true;
  }
  bool contains(int64_t id) const { return ids_.count(id) != 0; }
  std::vector<int64_t> sorted() const {
    std::vector<int64_t> v(ids_.begin(), ids_.end());
    std::sort(v.begin(), v.end());
    return v;
  }

 private:
  std::unordered_set<int64_t> ids_;
  int64_t last_ = 0;
  bool has_last_ = false;
};

void bind_text_or_null(Stmt& s, int index, std::string_view text) {
  if (text.empty())
    s.bind_null(index);  // rocprofv3 writes empty strings as NULL
  else
    s.bind(index, text);
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

struct Writer::Impl {
  std::string path;
  std::string partial_path;
  std::string guid;
  NodeRow node;
  ProcessRow process;
  std::unique_ptr<sqlite::Db> db;
  bool finished = false;

  // Entity rows (few) go straight in; record rows (many) through batched multi-row inserts.
  std::unique_ptr<Stmt> insert_string, insert_thread, insert_agent, insert_queue, insert_stream, insert_code_object,
      insert_kernel_symbol, insert_pmc_info, find_dispatch_event, insert_allocation;
  std::unique_ptr<sqlite::BatchInsert> events, dispatches, copies, regions, args, event_operations, pmc_events;

  StringIds strings;
  int64_t empty_string_id = 0;
  int64_t kernel_dispatch_category = 0;
  int64_t memory_copy_category = 0;
  int64_t event_operation_category = 0;
  int64_t next_event_id = 1;
  int64_t next_region_id = 1;
  int64_t next_arg_id = 1;
  int64_t next_event_operation_id = 1;
  int64_t next_pmc_event_id = 1;
  int64_t last_pmc_dispatch = -1, last_pmc_event = 0;
  int64_t last_dispatch_id = -1, last_dispatch_event = 0;

  IdSet added_threads, added_queues, added_streams, added_code_objects;
  IdSet used_threads, used_queues, used_streams, used_code_objects;

  std::string table(std::string_view name) const { return fmt::format("rocpd_{}{}", name, schema::table_suffix(guid)); }

  std::unique_ptr<Stmt> prepare(std::string_view name, std::string_view columns, int count) {
    std::string params;
    for (int i = 0; i < count; ++i) params += i ? ",?" : "?";
    return std::make_unique<Stmt>(*db, fmt::format("INSERT INTO {} ({}) VALUES ({})", table(name), columns, params));
  }
  std::unique_ptr<sqlite::BatchInsert> batch(std::string_view name, const std::string& columns, int count) {
    return std::make_unique<sqlite::BatchInsert>(*db, table(name), columns, count);
  }

  ~Impl() {
    if (finished) return;
    close_statements();
    db.reset();  // closes the connection before the file goes
    std::error_code ec;
    std::filesystem::remove(partial_path, ec);
  }

  void close_statements() {
    for (auto* s : {&insert_string, &insert_thread, &insert_agent, &insert_queue, &insert_stream, &insert_code_object,
                    &insert_kernel_symbol, &insert_pmc_info, &find_dispatch_event, &insert_allocation})
      s->reset();
    for (auto* b : {&events, &dispatches, &copies, &regions, &args, &event_operations, &pmc_events}) b->reset();
  }
  void flush_batches() {
    for (auto* b : {&events, &dispatches, &copies, &regions, &args, &event_operations, &pmc_events}) (*b)->flush();
  }

  void open();
  void write_header();
  int64_t string_id(std::string_view s);
  int64_t add_event(int64_t category, int64_t stack_id, int64_t parent_stack_id);
  void add_missing_entities();
};

void Writer::Impl::open() {
  std::error_code ec;
  std::filesystem::remove(partial_path, ec);  // a stale partial file of an earlier, interrupted run
  // NOFOLLOW: a symlink planted at the partial name after the remove above is refused, never written through.
  db = std::make_unique<sqlite::Db>(partial_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                                    partial_path, sqlite::kWriting);
  // The partial file is private until finish() renames it: no journal, no fsync, no locking. Foreign keys
  // stay unenforced (SQLite's default) for speed; finish() adds the entity rows that rows refer to.
  db->exec(
      "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
      "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384;");
  db->exec(schema::tables_sql(guid));
  db->exec("BEGIN");

  insert_string = prepare("string", "id, string", 2);
  events = batch("event", "id, category_id, stack_id, parent_stack_id, correlation_id", 5);
  insert_thread = prepare("info_thread", "id, nid, ppid, pid, tid, name, start, \"end\"", 8);
  insert_agent = prepare("info_agent",
                         "id, nid, pid, type, absolute_index, logical_index, type_index, uuid, name, model_name, "
                         "vendor_name, product_name, user_name, extdata",
                         14);
  insert_queue = prepare("info_queue", "id, nid, pid, name", 4);
  insert_stream = prepare("info_stream", "id, nid, pid, name", 4);
  insert_code_object = prepare("info_code_object", "id, nid, pid, agent_id, uri", 5);
  insert_kernel_symbol = prepare("info_kernel_symbol",
                                 "id, nid, pid, code_object_id, kernel_name, display_name, kernarg_segment_size, "
                                 "group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, "
                                 "accum_vgpr_count, extdata",
                                 13);
  dispatches = batch("kernel_dispatch",
                            "id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, \"end\", "
                            "private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
                            "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id",
                            21);
  copies = batch("memory_copy",
                        "id, nid, pid, tid, start, \"end\", name_id, dst_agent_id, dst_address, src_agent_id, "
                        "src_address, size, queue_id, stream_id, region_name_id, event_id",
                        16);
  regions = batch("region", "id, nid, pid, tid, start, \"end\", name_id, event_id", 8);
  args = batch("arg", "id, event_id, position, type, name, value, extdata", 7);
  event_operations = batch("event_operation",
                                   "id, nid, pid, tid, agent_id, event_obj, type_id, issue_id, queue_id, stream_id, "
                                   "start, \"end\", type, event_id",
                                   14);
  insert_pmc_info = prepare("info_pmc",
                            "id, nid, pid, agent_id, target_arch, name, symbol, description, component, value_type, "
                            "block, expression, is_constant, is_derived",
                            14);
  pmc_events = batch("pmc_event", "id, event_id, pmc_id, value", 4);
  insert_allocation = prepare("memory_allocate",
                              "nid, pid, tid, agent_id, type, level, start, \"end\", address, size, queue_id, event_id, "
                              "extdata",
                              13);
  find_dispatch_event =
      std::make_unique<Stmt>(*db, fmt::format("SELECT event_id FROM {} WHERE id = ?", table("kernel_dispatch")));
}

void Writer::Impl::write_header() {
  // '' first, so that it gets id 1 as in rocprofv3's files.
  empty_string_id = string_id("");
  kernel_dispatch_category = string_id("KERNEL_DISPATCH");
  memory_copy_category = string_id("MEMORY_COPY");

  Stmt meta(*db, fmt::format("INSERT INTO {} (tag, value) VALUES (?, ?)", table("metadata")));
  const std::pair<std::string_view, std::string> rows[] = {
      {"schema_version", "3"}, {"uuid", schema::table_suffix(guid)}, {"guid", guid}};
  for (const auto& [tag, value] : rows) {
    meta.bind(1, tag);
    meta.bind(2, value);
    meta.run();
  }

  Stmt n(*db, fmt::format("INSERT INTO {} (id, hash, machine_id, system_name, hostname, release, version, "
                          "hardware_name) VALUES (?,?,?,?,?,?,?,?)",
                          table("info_node")));
  n.bind(1, node.id);
  n.bind(2, node.id);
  n.bind(3, node.machine_id.empty() ? std::string_view("unknown") : std::string_view(node.machine_id));
  bind_text_or_null(n, 4, node.system_name);
  bind_text_or_null(n, 5, node.hostname);
  bind_text_or_null(n, 6, node.release);
  bind_text_or_null(n, 7, node.version);
  bind_text_or_null(n, 8, node.hardware_name);
  n.run();

  // rocprofv3 uses the OS pid as the process row id; every pid column refers to it.
  const std::string extdata = process.extdata_json.empty() ? std::string("{}") : process.extdata_json;
  if (!nlohmann::json::accept(extdata))
    throw Error(ExitCode::Internal, fmt::format("extdata of process {} is not JSON: {}", process.pid, extdata));
  Stmt p(*db, fmt::format("INSERT INTO {} (id, nid, ppid, pid, init, fini, start, \"end\", command, extdata) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?)",
                          table("info_process")));
  p.bind(1, process.pid);
  p.bind(2, node.id);
  p.bind(3, process.ppid);
  p.bind(4, process.pid);
  p.bind(5, process.init);
  p.bind(6, process.fini);
  p.bind(7, process.start);
  p.bind(8, process.end);
  bind_text_or_null(p, 9, process.command);
  p.bind(10, std::string_view(extdata));
  p.run();
}

int64_t Writer::Impl::string_id(std::string_view s) {
  auto it = strings.find(s);
  if (it != strings.end()) return it->second;
  int64_t id = static_cast<int64_t>(strings.size()) + 1;
  insert_string->bind(1, id);
  insert_string->bind(2, s);  // '' stays '' here: the string table is NOT NULL
  insert_string->run();
  strings.emplace(std::string(s), id);
  return id;
}

int64_t Writer::Impl::add_event(int64_t category, int64_t stack_id, int64_t parent_stack_id) {
  int64_t id = next_event_id++;
  events->add(id).add(category).add(stack_id).add(parent_stack_id).add(int64_t{0});  // no external correlation id
  events->end_row();
  return id;
}

void Writer::Impl::add_missing_entities() {
  for (int64_t tid : used_threads.sorted()) {
    if (added_threads.contains(tid)) continue;
    Stmt& s = *insert_thread;
    s.bind(1, tid);
    s.bind(2, node.id);
    s.bind(3, process.ppid);
    s.bind(4, process.pid);
    s.bind(5, tid);
    s.bind_null(6);
    s.bind_null(7);
    s.bind_null(8);
    s.run();
  }
  // rocprofv3's names for queues and streams it saw: "Default Queue" for handle 0, else "Queue <n>".
  auto add_named = [&](IdSet& used, IdSet& added, Stmt& s, std::string_view noun) {
    for (int64_t id : used.sorted()) {
      if (added.contains(id)) continue;
      s.bind(1, id);
      s.bind(2, node.id);
      s.bind(3, process.pid);
      s.bind(4, id == 0 ? fmt::format("Default {}", noun) : fmt::format("{} {}", noun, id));
      s.run();
    }
  };
  add_named(used_queues, added_queues, *insert_queue, "Queue");
  add_named(used_streams, added_streams, *insert_stream, "Stream");
  for (int64_t id : used_code_objects.sorted()) {
    if (added_code_objects.contains(id)) continue;
    Stmt& s = *insert_code_object;
    s.bind(1, id);
    s.bind(2, node.id);
    s.bind(3, process.pid);
    s.bind_null(4);
    s.bind_null(5);
    s.run();
  }
}

Writer::Writer(std::string path, const NodeRow& node, const ProcessRow& process, std::string guid)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->partial_path = impl_->path + ".partial";
  impl_->node = node;
  impl_->process = process;
  impl_->guid = guid.empty() ? make_uuid_v7() : lowercase(std::move(guid));
  if (!is_uuid_text(impl_->guid))
    throw Error(ExitCode::Internal,
                fmt::format("{}: process GUID \"{}\" is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
                            impl_->path, impl_->guid));
  impl_->open();
  impl_->write_header();
}

// Without finish(), ~Impl removes the partial file; <path> is never touched.
Writer::~Writer() = default;

const std::string& Writer::guid() const { return impl_->guid; }

void Writer::add_thread(const ThreadRow& row) {
  Impl& m = *impl_;
  Stmt& s = *m.insert_thread;
  s.bind(1, row.tid);
  s.bind(2, m.node.id);
  s.bind(3, m.process.ppid);
  s.bind(4, m.process.pid);
  s.bind(5, row.tid);
  bind_text_or_null(s, 6, row.name);
  s.bind(7, row.start);
  s.bind(8, row.end);
  s.run();
  m.added_threads.insert(row.tid);
}

void Writer::add_agent(const AgentRow& row) {
  Impl& m = *impl_;
  const std::string& extdata = row.extdata_json.empty() ? std::string("{}") : row.extdata_json;
  if (!nlohmann::json::accept(extdata))
    throw Error(ExitCode::Internal, fmt::format("{}: extdata of agent {} is not JSON: {}", m.path, row.id, extdata));
  Stmt& s = *m.insert_agent;
  s.bind(1, row.id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  s.bind(4, std::string_view(row.is_gpu ? "GPU" : "CPU"));
  s.bind(5, row.absolute_index);
  s.bind(6, row.logical_index);
  s.bind(7, row.type_index);
  s.bind_null(8);
  bind_text_or_null(s, 9, row.name);
  bind_text_or_null(s, 10, row.model_name);
  bind_text_or_null(s, 11, row.vendor_name);
  bind_text_or_null(s, 12, row.product_name);
  bind_text_or_null(s, 13, row.product_name);  // user_name: rocprofv3 writes the product name here
  s.bind(14, std::string_view(extdata));
  s.run();
}

void Writer::add_queue(int64_t id, const std::string& name) {
  Impl& m = *impl_;
  Stmt& s = *m.insert_queue;
  s.bind(1, id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  bind_text_or_null(s, 4, name);
  s.run();
  m.added_queues.insert(id);
}

void Writer::add_stream(int64_t id, const std::string& name) {
  Impl& m = *impl_;
  Stmt& s = *m.insert_stream;
  s.bind(1, id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  bind_text_or_null(s, 4, name);
  s.run();
  m.added_streams.insert(id);
}

void Writer::add_code_object(int64_t id, int64_t agent_id, const std::string& uri) {
  Impl& m = *impl_;
  Stmt& s = *m.insert_code_object;
  s.bind(1, id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  s.bind(4, agent_id);
  bind_text_or_null(s, 5, uri);
  s.run();
  m.added_code_objects.insert(id);
}

void Writer::add_kernel_symbol(const KernelSymbolRow& row) {
  Impl& m = *impl_;
  nlohmann::json extdata = {{"kernel_id", row.id}, {"code_object_id", row.code_object_id}};
  if (!row.display_name.empty()) extdata["formatted_kernel_name"] = row.display_name;
  std::string extdata_text = extdata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Stmt& s = *m.insert_kernel_symbol;
  s.bind(1, row.id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  s.bind(4, row.code_object_id);
  bind_text_or_null(s, 5, row.kernel_name);
  bind_text_or_null(s, 6, row.display_name);
  s.bind(7, int64_t{row.kernarg_segment_size});
  s.bind(8, int64_t{row.group_segment_size});
  s.bind(9, int64_t{row.private_segment_size});
  s.bind(10, int64_t{row.sgpr_count});
  s.bind(11, int64_t{row.arch_vgpr_count});
  s.bind(12, int64_t{row.accum_vgpr_count});
  s.bind(13, std::string_view(extdata_text));
  s.run();
  m.used_code_objects.insert(row.code_object_id);
}

void Writer::add_dispatch(const DispatchRow& row) {
  Impl& m = *impl_;
  // The dispatch's own event: stack_id is the correlation id shared with the launching API call.
  int64_t event_id = m.add_event(m.kernel_dispatch_category, row.correlation_id, row.correlation_id);
  sqlite::BatchInsert& b = *m.dispatches;
  b.add(row.dispatch_id);  // rocprofv3: rocpd_kernel_dispatch.id = dispatch_id
  b.add(m.node.id).add(m.process.pid).add(row.tid).add(row.agent_id).add(row.kernel_id).add(row.dispatch_id);
  b.add(row.queue_id).add(row.stream_id).add(row.start).add(row.end);
  b.add(int64_t{row.private_segment_size}).add(int64_t{row.group_segment_size});
  b.add(int64_t{row.workgroup[0]}).add(int64_t{row.workgroup[1]}).add(int64_t{row.workgroup[2]});
  b.add(int64_t{row.grid[0]}).add(int64_t{row.grid[1]}).add(int64_t{row.grid[2]});
  b.add(m.empty_string_id);  // no ROCTx rename: the '' string, as rocprofv3 writes
  b.add(event_id);
  b.end_row();
  m.last_dispatch_id = row.dispatch_id;
  m.last_dispatch_event = event_id;
  m.used_threads.insert(row.tid);
  m.used_queues.insert(row.queue_id);
  m.used_streams.insert(row.stream_id);
}

void Writer::add_memory_copy(const MemoryCopyRow& row) {
  Impl& m = *impl_;
  int64_t event_id = m.add_event(m.memory_copy_category, row.correlation_id, row.correlation_id);
  int64_t kind_id = m.string_id(row.kind);
  sqlite::BatchInsert& b = *m.copies;
  b.add(row.id).add(m.node.id).add(m.process.pid).add(row.tid).add(row.start).add(row.end).add(kind_id);
  // Addresses and sizes are unsigned; SQLite integers are signed 64-bit (same bits).
  b.add(row.dst_agent_id).add(static_cast<int64_t>(row.dst_address));
  b.add(row.src_agent_id).add(static_cast<int64_t>(row.src_address));
  b.add(static_cast<int64_t>(row.size));
  if (row.queue_id < 0)
    b.add_null();
  else
    b.add(row.queue_id);
  b.add(row.stream_id).add(m.empty_string_id).add(event_id);
  b.end_row();
  m.used_threads.insert(row.tid);
  m.used_streams.insert(row.stream_id);
  if (row.queue_id >= 0) m.used_queues.insert(row.queue_id);
}

void Writer::add_memory_allocation(const MemoryAllocationRow& row) {
  Impl& m = *impl_;
  const int64_t event_id = m.add_event(m.string_id(row.category), row.correlation_id, 0);
  Stmt& s = *m.insert_allocation;
  s.bind(1, m.node.id);
  s.bind(2, m.process.pid);
  s.bind(3, row.tid);
  s.bind(4, row.agent_id);
  s.bind(5, std::string_view(row.type));
  s.bind(6, std::string_view(row.level));
  s.bind(7, row.start);
  s.bind(8, row.end);
  s.bind(9, static_cast<int64_t>(row.address));
  s.bind(10, static_cast<int64_t>(row.size));
  if (row.queue_id < 0)
    s.bind_null(11);
  else
    s.bind(11, row.queue_id);
  s.bind(12, event_id);
  s.bind(13, std::string_view(row.extdata_json.empty() ? "{}" : row.extdata_json));
  s.run();
  m.used_threads.insert(row.tid);
  if (row.queue_id >= 0) m.used_queues.insert(row.queue_id);
}

void Writer::add_region(const RegionRow& row) {
  Impl& m = *impl_;
  int64_t event_id = m.add_event(m.string_id(row.category), row.correlation_id, 0);
  int64_t name_id = m.string_id(row.name);
  m.regions->add(m.next_region_id++).add(m.node.id).add(m.process.pid).add(row.tid).add(row.start).add(row.end);
  m.regions->add(name_id).add(event_id);
  m.regions->end_row();
  m.used_threads.insert(row.tid);

  int64_t position = 0;
  for (const ArgRow& arg : row.args) {
    m.args->add(m.next_arg_id++).add(event_id).add(position++).add(arg.type).add(arg.name);
    m.args->add_text_or_null(arg.value);
    m.args->add(arg.extdata_json.empty() ? std::string_view("{}") : std::string_view(arg.extdata_json));
    m.args->end_row();
  }
}

void Writer::add_event_operation(const EventOperationRow& row) {
  Impl& m = *impl_;
  if (m.event_operation_category == 0) m.event_operation_category = m.string_id("EVENT_OPERATION");
  int64_t event_id = m.add_event(m.event_operation_category, row.correlation_id, row.correlation_id);
  sqlite::BatchInsert& b = *m.event_operations;
  b.add(m.next_event_operation_id++).add(m.node.id).add(m.process.pid).add(row.tid).add(row.agent_id);
  b.add(static_cast<int64_t>(row.event_obj));
  b.add(int64_t{0}).add(int64_t{0});  // type_id, issue_id: meaning undocumented
  b.add(row.queue_id).add(row.stream_id).add(row.start).add(row.end);
  b.add(std::string_view(row.is_wait ? "WAIT" : "SIGNAL")).add(event_id);
  b.end_row();
  m.used_threads.insert(row.tid);
  m.used_queues.insert(row.queue_id);
  m.used_streams.insert(row.stream_id);
}

void Writer::add_pmc_info(const PmcInfoRow& row) {
  Impl& m = *impl_;
  Stmt& s = *m.insert_pmc_info;
  s.bind(1, row.id);
  s.bind(2, m.node.id);
  s.bind(3, m.process.pid);
  s.bind(4, row.agent_id);
  s.bind(5, std::string_view("GPU"));
  s.bind(6, std::string_view(row.name));
  s.bind(7, std::string_view(row.name));  // symbol: rocprofv3 writes the counter name
  bind_text_or_null(s, 8, row.description);
  s.bind(9, std::string_view("rocm"));
  s.bind(10, std::string_view("ABS"));
  bind_text_or_null(s, 11, row.block);
  s.bind(12, std::string_view(""));
  s.bind(13, int64_t{0});
  s.bind(14, int64_t{0});
  s.run();
}

void Writer::add_pmc_value(const PmcValueRow& row) {
  Impl& m = *impl_;
  if (row.dispatch_id == m.last_dispatch_id) {  // the usual case: values follow their dispatch
    m.last_pmc_dispatch = row.dispatch_id;
    m.last_pmc_event = m.last_dispatch_event;
  } else if (row.dispatch_id != m.last_pmc_dispatch) {
    m.dispatches->flush();  // the dispatch may still be buffered
    Stmt& q = *m.find_dispatch_event;
    q.bind(1, row.dispatch_id);
    bool found = q.step();
    int64_t event_id = found ? q.i64(0) : 0;
    q.reset();
    if (!found)
      throw Error(ExitCode::Internal,
                  fmt::format("{}: counter value for dispatch {} that was not added before it", m.path, row.dispatch_id));
    m.last_pmc_dispatch = row.dispatch_id;
    m.last_pmc_event = event_id;
  }
  m.pmc_events->add(m.next_pmc_event_id++).add(m.last_pmc_event).add(row.pmc_id).add(row.value);
  m.pmc_events->end_row();
}

void Writer::finish() {
  Impl& m = *impl_;
  if (m.finished) return;
  m.flush_batches();
  m.add_missing_entities();
  m.db->exec("COMMIT");
  m.db->exec("BEGIN; " + schema::passthrough_views_sql(m.guid) + schema::data_views_sql() + " COMMIT;");
  m.close_statements();  // statements must be finalized before the connection can close
  m.db->close();
  m.db.reset();
  std::error_code ec;
  std::filesystem::rename(m.partial_path, m.path, ec);
  if (ec)
    throw Error(ExitCode::OutputFailed,
                fmt::format("{}: cannot move the finished database into place: {}", m.path, ec.message()));
  m.finished = true;
}

}  // namespace rpl::rocpd
