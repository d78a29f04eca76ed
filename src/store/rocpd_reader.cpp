#include "store/rocpd_reader.hpp"
#include "support/demangle.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <nlohmann/json.hpp>

#include "store/rocpd_counters_read.hpp"
#include "store/rocpd_collective_calls.hpp"
#include "store/rocpd_device_metrics.hpp"
#include "store/rocpd_set_reader.hpp"
#include "store/sqlite_db.hpp"
#include "store/sync_calls.hpp"
#include "store/uuid.hpp"
#include "model/trace_append.hpp"
#include "support/ordered_parallel.hpp"
#include "support/checked_math.hpp"
#include "support/errors.hpp"
#include "support/json_integer.hpp"
#include "support/log.hpp"

namespace rpl::rocpd {

namespace detail {
namespace {

uint32_t json_u32(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  const std::optional<int64_t> v = json_integer<int64_t>(*it);
  return v ? to_u32(*v) : 0;
}

}  // namespace

std::string SetReader::metadata_guid() {
  Columns meta = columns("metadata");
  if (!meta.has("tag") || !meta.has("value")) return {};
  Stmt s(db_, fmt::format("SELECT value FROM \"{}\" WHERE tag = 'guid'", meta.table()));
  return s.step() ? std::string(s.text(0)) : std::string();
}

std::string SetReader::fallback_guid() {
  std::string g = metadata_guid();
  if (!g.empty()) return g;
  if (set_.suffix.size() == 37) {
    g = set_.suffix.substr(1);
    std::replace(g.begin(), g.end(), '_', '-');
    if (is_uuid_text(g)) return g;
  }
  // No GUID anywhere: derive a stable one from the file name, so that reading twice still collides.
  return format_uuid_v7(0, 0, std::hash<std::string>{}(db_.path() + set_.suffix));
}

std::vector<ProcessRowInfo> SetReader::read_processes() {
  Columns p = columns("info_process");
  Columns n = columns("info_node");
  std::vector<ProcessRowInfo> out;
  if (p.exists()) {
    std::string node_join, hostname = "NULL";
    if (n.exists() && p.has("nid") && n.has("id")) {
      node_join = fmt::format(" LEFT JOIN \"{}\" N ON N.id = P.nid{}", n.table(),
                              p.has("guid") && n.has("guid") ? " AND N.guid = P.guid" : "");
      hostname = n("N", "hostname");
    }
    Stmt s(db_, fmt::format("SELECT {}, {}, {}, {}, {}, {}, {}, {} FROM \"{}\" P{} ORDER BY P.rowid", p("P", "guid"),
                            p("P", "pid"), p("P", "ppid"), p("P", "start"), p("P", "end"), p("P", "command"), hostname,
                            p("P", "extdata"), p.table(), node_join));
    while (s.step()) {
      ProcessRowInfo info;
      info.guid = s.text(0);
      if (std::any_of(out.begin(), out.end(), [&](const auto& o) { return o.guid == info.guid; })) continue;
      info.pid = s.i64(1);
      info.ppid = s.i64(2);
      // Process times are informational: anything but an in-range integer reads as "not known" (0).
      auto time_or_zero = [&](int col) {
        return s.type(col) == SQLITE_INTEGER && s.i64(col) >= 0 && s.i64(col) <= kMaxTimeNs ? s.i64(col) : 0;
      };
      info.start = time_or_zero(3);
      info.end = time_or_zero(4);
      info.command = s.text(5);
      info.hostname = s.text(6);
      if (s.type(7) == SQLITE_TEXT) info.rank = rank_identity_from_json(s.text(7));
      out.push_back(std::move(info));
    }
  }
  if (out.empty()) out.emplace_back();  // no process row: the tables still belong to one process
  if (out.size() == 1 && out[0].guid.empty()) out[0].guid = fallback_guid();
  return out;
}

void SetReader::read_process(const ProcessRowInfo& info) {
  guid_ = info.guid;
  for (const Process& existing : trace_.processes)
    if (existing.guid == guid_)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: process {} was already read from {} (the same trace given twice?)", db_.path(),
                              guid_, existing.source_file));
  process_ = static_cast<Index>(trace_.processes.size());
  Process& p = trace_.processes.emplace_back();
  p.guid = guid_;
  p.source_file = db_.path();
  p.pid = info.pid;
  p.ppid = info.ppid;
  p.hostname = info.hostname;
  p.command = info.command;
  p.start = info.start;
  p.end = info.end;
  p.rank = info.rank;

  agents_ = {}, queues_ = {}, streams_ = {}, symbols_ = {}, strings_ = {}, threads_ = {}, sync_names_ = {};
  event_ = columns("event");
  if (event_.exists()) event_.require(db_, {"id"});
  read_strings();
  read_agents();
  read_queues_and_streams();
  read_threads();
  read_symbols();
  std::size_t first_dispatch = trace_.dispatches.size();
  read_dispatches();
  read_counters(trace_, db_, CounterReadScope{&set_, filter_ ? guid_ : std::string(), first_dispatch, options_.lenient});
  read_device_metrics(trace_, db_, set_, filter_ ? guid_ : std::string());
  read_collective_calls(trace_, db_, filter_ ? guid_ : std::string(), process_);
  read_copies();
  read_regions();
  read_event_operations();
}

void SetReader::read_strings() {
  Columns c = columns("string");
  if (!c.exists()) return;
  c.require(db_, {"id", "string"});
  Stmt s(db_, fmt::format("SELECT id, string FROM \"{}\" S WHERE 1{}", c.table(), guid_and(c, "S")));
  bind_guid(s);
  while (s.step()) {
    int64_t id = s.i64(0);
    std::string_view text = s.text(1);
    strings_.add(id, trace_.strings.intern(text));
    if (auto kind = classify_sync_call(text)) sync_names_.add(id, *kind);
  }
  strings_.finalize();
  sync_names_.finalize();
}

void SetReader::read_agents() {
  Columns c = columns("info_agent");
  if (!c.exists()) return;
  c.require(db_, {"id"});
  Stmt s(db_, fmt::format("SELECT A.id, {}, {}, {}, {}, {}, {}, {}, {} FROM \"{}\" A WHERE 1{}", c("A", "type"),
                          c("A", "absolute_index"), c("A", "logical_index"), c("A", "name"), c("A", "product_name"),
                          c("A", "user_name"), c("A", "vendor_name"), c("A", "extdata"), c.table(), guid_and(c, "A")));
  bind_guid(s);
  while (s.step()) {
    Agent a;
    a.process = process_;
    a.rocpd_id = s.i64(0);
    a.is_gpu = s.text(1) == "GPU";
    a.absolute_index = s.is_null(2) ? -1 : s.i64(2);
    a.logical_index = s.is_null(3) ? -1 : s.i64(3);
    a.name = s.text(4);
    a.product_name = s.is_null(5) ? s.text(6) : s.text(5);
    a.vendor_name = s.text(7);
    std::string_view extdata = s.text(8);
    if (!extdata.empty()) {
      auto j = nlohmann::json::parse(extdata, nullptr, /*allow_exceptions=*/false);
      if (j.is_object()) {
        a.cu_count = json_u32(j, "cu_count");
        a.simd_per_cu = json_u32(j, "simd_per_cu");
        a.max_waves_per_simd = json_u32(j, "max_waves_per_simd");
        a.wave_front_size = json_u32(j, "wave_front_size");
        a.lds_size_kb = json_u32(j, "lds_size_in_kb");
        a.max_clock_mhz = json_u32(j, "max_engine_clk_fcompute");
        a.gfx_target_version = json_u32(j, "gfx_target_version");
        if (auto u = j.find("uuid"); u != j.end() && u->is_string()) a.uuid = u->get<std::string>();
      } else {
        log::warn("{}: agent {} has extdata that is not a JSON object; its hardware limits are unknown", db_.path(),
                  a.rocpd_id);
      }
    }
    agents_.add(a.rocpd_id, static_cast<Index>(trace_.agents.size()));
    trace_.agents.push_back(std::move(a));
  }
  agents_.finalize();
}

void SetReader::read_queues_and_streams() {
  auto read_named = [&](std::string_view base, auto& table, IdMap<Index>& map) {
    Columns c = columns(base);
    if (!c.exists()) return;
    c.require(db_, {"id"});
    Stmt s(db_, fmt::format("SELECT X.id, {} FROM \"{}\" X WHERE 1{}", c("X", "name"), c.table(), guid_and(c, "X")));
    bind_guid(s);
    while (s.step()) {
      auto& row = table.emplace_back();
      row.process = process_;
      row.rocpd_id = s.i64(0);
      row.name = s.text(1);
      map.add(row.rocpd_id, static_cast<Index>(table.size() - 1));
    }
    map.finalize();
  };
  read_named("info_queue", trace_.queues, queues_);
  read_named("info_stream", trace_.streams, streams_);
}

void SetReader::read_threads() {
  Columns c = columns("info_thread");
  if (!c.exists() || !c.has("id") || !c.has("tid")) return;
  Stmt s(db_, fmt::format("SELECT T.id, T.tid FROM \"{}\" T WHERE 1{}", c.table(), guid_and(c, "T")));
  bind_guid(s);
  while (s.step()) threads_.add(s.i64(0), to_u32(s.i64(1)));
  threads_.finalize();
}

void SetReader::read_symbols() {
  Columns c = columns("info_kernel_symbol");
  if (!c.exists()) return;
  c.require(db_, {"id"});
  Stmt s(db_, fmt::format("SELECT K.id, {}, {}, {}, {}, {}, {}, {}, {}, {} FROM \"{}\" K WHERE 1{}",
                          c("K", "code_object_id"), c("K", "kernel_name"), c("K", "display_name"),
                          c("K", "kernarg_segment_size"), c("K", "group_segment_size"), c("K", "private_segment_size"),
                          c("K", "sgpr_count"), c("K", "arch_vgpr_count"), c("K", "accum_vgpr_count"), c.table(),
                          guid_and(c, "K")));
  bind_guid(s);
  while (s.step()) {
    KernelSymbol k;
    k.process = process_;
    k.rocpd_id = s.i64(0);
    k.code_object_id = s.i64(1);
    std::string_view mangled = s.text(2);
    std::string_view display = s.text(3);
    std::string demangled;
    if (display.empty()) {
      // Only the mangled name: demangle it, without the code-object descriptor suffix.
      std::string_view base = mangled;
      if (base.ends_with(".kd")) base.remove_suffix(3);
      display = demangled = demangle(std::string(base));
    }
    std::string placeholder;
    if (display.empty()) display = placeholder = fmt::format("kernel_{}", k.rocpd_id);
    k.mangled_name = trace_.strings.intern(mangled);
    k.display_name = trace_.strings.intern(display);
    k.kernarg_size = to_u32(s.i64(4));
    k.static_lds_bytes = to_u32(s.i64(5));
    k.private_segment_bytes = to_u32(s.i64(6));
    k.sgpr_count = to_u32(s.i64(7));
    k.arch_vgpr_count = to_u32(s.i64(8));
    k.accum_vgpr_count = to_u32(s.i64(9));
    symbols_.add(k.rocpd_id, static_cast<Index>(trace_.symbols.size()));
    trace_.symbols.push_back(k);
  }
  symbols_.finalize();
}

// A dispatch whose kernel symbol row is missing keeps a placeholder symbol rather than being dropped.
Index SetReader::symbol_for(int64_t kernel_id) {
  if (const Index* i = symbols_.find(kernel_id)) return *i;
  KernelSymbol k;
  k.process = process_;
  k.rocpd_id = kernel_id;
  k.display_name = trace_.strings.intern(fmt::format("unknown_kernel_{}", kernel_id));
  Index index = static_cast<Index>(trace_.symbols.size());
  trace_.symbols.push_back(k);
  symbols_.insert(kernel_id, index);
  log::warn("{}: kernel symbol {} is missing; its dispatches are named unknown_kernel_{}", db_.path(), kernel_id,
            kernel_id);
  return index;
}

namespace {

const char* sqlite_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
  }
}

// What a non-integer value is, for the message: its type and, for REAL, the number.
std::string describe_value(const Stmt& s, int col) {
  int type = s.type(col);
  if (type == SQLITE_FLOAT) return fmt::format("REAL {}", s.f64(col));
  return sqlite_type_name(type);
}

}  // namespace

bool SetReader::reject_record(std::string_view what, int64_t id, const std::string& problem) {
  std::string message = fmt::format("{}: {} {} of process {} {}", db_.path(), what, id, guid_, problem);
  if (!options_.lenient) throw Error(ExitCode::InputInvalid, message + " (--lenient drops such records)");
  if (dropped_++ < 10) log::warn("{}; dropped", message);
  return false;
}

bool SetReader::read_integer(std::string_view what, int64_t id, std::string_view column, const Stmt& s, int col,
                             int64_t min, int64_t max, int64_t& out) {
  if (s.type(col) != SQLITE_INTEGER)
    return reject_record(what, id, fmt::format("has a {} that is not an integer ({})", column, describe_value(s, col)));
  out = s.i64(col);
  if (out < min || out > max)
    return reject_record(what, id, fmt::format("has {} {}, outside {}..{}", column, out, min, max));
  return true;
}

bool SetReader::read_interval(std::string_view what, int64_t id, const Stmt& s, int start_col, TimeNs& start,
                              TimeNs& end) {
  if (!checked_integer(what, id, "start", s, start_col, 0, kMaxTimeNs, kNullIsInvalid, start) ||
      !checked_integer(what, id, "end", s, start_col + 1, 0, kMaxTimeNs, kNullIsInvalid, end))
    return false;
  if (end >= start) return true;
  return reject_record(what, id, fmt::format("ends before it starts (start {} ns, end {} ns)", start, end));
}

void SetReader::read_dispatches() {
  Columns k = columns("kernel_dispatch");
  if (!k.exists()) return;
  k.require(db_, {"dispatch_id", "agent_id", "kernel_id", "start", "end"});
  reserve_for(k, trace_.dispatches);
  const std::size_t first = trace_.dispatches.size();
  std::optional<bool> increasing = read_dispatches_from_file(k);
  if (!increasing) increasing = read_dispatches_through_sql(k);
  if (*increasing) return;  // strictly increasing ids (the usual case) cannot repeat
  std::vector<int64_t> ids;
  ids.reserve(trace_.dispatches.size() - first);
  for (std::size_t i = first; i < trace_.dispatches.size(); ++i) ids.push_back(trace_.dispatches.dispatch_id_of(i));
  std::sort(ids.begin(), ids.end());
  auto dup = std::adjacent_find(ids.begin(), ids.end());
  if (dup != ids.end())
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: dispatch id {} appears more than once in process {}", db_.path(), *dup, guid_));
}

bool SetReader::read_dispatches_through_sql(const Columns& k) {
  // NULL where NULL and 0 mean the same to the model (tid, stack id: 0 = unknown) reads as 0 (as
  // sqlite3_column_int64 reads it); sizes default to 0 and dimensions to 1 below. No IFNULL in the SQL: this
  // loop runs once per dispatch (issue 32).
  std::string sql = fmt::format(
      "SELECT K.dispatch_id, {}, K.agent_id, K.kernel_id, {}, {}, K.start, K.\"end\", {}, {}, {}, {}, {}, {}, {}, {}, "
      "{} FROM \"{}\" K{} WHERE 1{}",
      k("K", "tid"), k("K", "queue_id"), k("K", "stream_id"), k("K", "private_segment_size"),
      k("K", "group_segment_size"), k("K", "workgroup_size_x"), k("K", "workgroup_size_y"),
      k("K", "workgroup_size_z"), k("K", "grid_size_x"), k("K", "grid_size_y"), k("K", "grid_size_z"),
      event_column(k, "stack_id"), k.table(), event_join(k, "K"), guid_and(k, "K"));
  Stmt s(db_, sql);
  bind_guid(s);

  const std::size_t first = trace_.dispatches.size();
  bool increasing = true;
  int64_t previous = 0;
  while (s.step()) {
    progress_.tick();
    Dispatch d;
    d.dispatch_id = s.cell(0).i64();
    if (!read_interval("dispatch", d.dispatch_id, s, 6, d.start, d.end)) continue;
    // Sizes and dimensions as the model holds them (32-bit); a dimension of 0 launches nothing.
    int64_t sizes[2], dims[6];
    bool valid =
        checked_integer("dispatch", d.dispatch_id, "private_segment_size", s, 8, 0, 0xffffffffLL, 0, sizes[0]) &&
        checked_integer("dispatch", d.dispatch_id, "group_segment_size", s, 9, 0, 0xffffffffLL, 0, sizes[1]);
    for (int i = 0; i < 6 && valid; ++i)
      valid = checked_integer("dispatch", d.dispatch_id, kDimensionColumns[i], s, 10 + i, 1, 0xffffffffLL, 1, dims[i]);
    if (!valid) continue;
    if (trace_.dispatches.size() > first && d.dispatch_id <= previous) increasing = false;
    previous = d.dispatch_id;
    const Stmt::Cell queue = s.cell(4), stream = s.cell(5);
    set_launch(d, s.cell(1).i64(), s.cell(2).i64(), s.cell(3).i64(), queue.is_null() ? std::nullopt : std::optional(queue.i64()),
               stream.is_null() ? std::nullopt : std::optional(stream.i64()), sizes, dims);
    d.correlation_id = s.cell(16).i64();
    trace_.dispatches.push_back(d);
  }
  return increasing;
}

void SetReader::set_launch(Dispatch& d, int64_t tid, int64_t agent, int64_t kernel, std::optional<int64_t> queue,
                           std::optional<int64_t> stream, const int64_t (&sizes)[2], const int64_t (&dims)[6]) {
  d.process = process_;
  d.thread = thread_for(tid);
  d.agent = lookup(agents_, agent);
  d.symbol = symbol_for(kernel);
  d.queue = queue ? lookup(queues_, *queue) : kNoIndex;
  d.stream = stream ? lookup(streams_, *stream) : kNoIndex;
  d.scratch_bytes = static_cast<uint32_t>(sizes[0]);
  d.lds_bytes = static_cast<uint32_t>(sizes[1]);
  for (int i = 0; i < 3; ++i) {
    d.block[i] = static_cast<uint32_t>(dims[i]);
    d.grid[i] = static_cast<uint32_t>(dims[3 + i]);
  }
}

void SetReader::read_copies() {
  Columns m = columns("memory_copy");
  if (!m.exists()) return;
  m.require(db_, {"id", "start", "end"});
  std::string sql = fmt::format(
      "SELECT M.id, {}, M.start, M.\"end\", {}, {}, {}, IFNULL({}, 0), {}, {}, {} FROM \"{}\" M{} WHERE 1{}", m("M", "tid"),
      m("M", "name_id"), m("M", "dst_agent_id"), m("M", "src_agent_id"), m("M", "size", "0"), m("M", "queue_id"),
      m("M", "stream_id"), event_column(m, "stack_id"), m.table(), event_join(m, "M"), guid_and(m, "M"));
  Stmt s(db_, sql);
  bind_guid(s);
  reserve_for(m, trace_.copies);
  while (s.step()) {
    progress_.tick();
    MemoryCopy c;
    c.copy_id = s.i64(0);
    int64_t bytes = 0;
    if (!read_interval("memory copy", c.copy_id, s, 2, c.start, c.end) ||
        !read_integer("memory copy", c.copy_id, "size", s, 7, 0, std::numeric_limits<int64_t>::max(), bytes))
      continue;
    c.process = process_;
    c.thread = s.is_null(1) ? 0 : thread_for(s.i64(1));
    const Index* kind = s.is_null(4) ? nullptr : strings_.find(s.i64(4));
    c.kind = kind ? *kind : 0;
    c.dst_agent = s.is_null(5) ? kNoIndex : lookup(agents_, s.i64(5));
    c.src_agent = s.is_null(6) ? kNoIndex : lookup(agents_, s.i64(6));
    c.bytes = static_cast<uint64_t>(bytes);
    c.queue = s.is_null(8) ? kNoIndex : lookup(queues_, s.i64(8));
    c.stream = s.is_null(9) ? kNoIndex : lookup(streams_, s.i64(9));
    c.correlation_id = s.i64(10);
    trace_.copies.push_back(c);
  }
}


}  // namespace detail

namespace {

using detail::Progress;
using detail::SetReader;

// Sizes of every table before a read, so that a failed read leaves the trace as it was.
struct TraceMark {
  std::size_t processes, agents, queues, streams, symbols, dispatches, copies, api_calls, sync_ops, counters, device_metrics, collective_calls, gpu_links;
  explicit TraceMark(const Trace& t)
      : processes(t.processes.size()), agents(t.agents.size()), queues(t.queues.size()), streams(t.streams.size()),
        symbols(t.symbols.size()), dispatches(t.dispatches.size()), copies(t.copies.size()),
        api_calls(t.api_calls.size()), sync_ops(t.sync_ops.size()), counters(t.counters.size()),
        device_metrics(t.device_metrics.size()), collective_calls(t.collective_calls.size()),
        gpu_links(t.gpu_links.size()) {}
  void restore(Trace& t) const {
    t.processes.resize(processes), t.agents.resize(agents), t.queues.resize(queues), t.streams.resize(streams);
    t.symbols.resize(symbols), t.dispatches.resize(dispatches), t.copies.resize(copies);
    t.api_calls.resize(api_calls), t.sync_ops.resize(sync_ops), t.counters.resize(counters);
    t.device_metrics.resize(device_metrics);
    t.collective_calls.resize(collective_calls), t.gpu_links.resize(gpu_links);
  }
};

}  // namespace

void read_database(Trace& trace, const std::string& path, const ReadOptions& options) {
  check_input_file(path);
  TraceMark mark(trace);
  try {
    std::unique_ptr<sqlite::Db> db = open_readonly(path);
    std::vector<TableSet> sets = find_table_sets(*db);
    Progress progress{options, path};
    for (const TableSet& set : sets) SetReader(trace, *db, set, options, progress).read();
    if (options.progress) options.progress(path, progress.rows);
  } catch (...) {
    mark.restore(trace);
    throw;
  }
}

namespace {

// Several databases at once, each into its own trace, appended in the order given. A database whose process was
// already read, or whose read failed, is read again into the merged trace on this thread: the error and the
// warnings before it are then those of reading one database after the other.
void read_in_parallel(Trace& trace, const std::vector<std::string>& paths, const ReadOptions& options) {
  struct Read {
    Trace trace;
    ReadOptions::ScanCounts counts;
  };
  std::vector<std::atomic<std::size_t>> rows(paths.size());
  std::size_t merged = 0;
  auto report = [&] {
    if (!options.progress) return;
    std::size_t total = 0;
    for (const auto& r : rows) total += r.load(std::memory_order_relaxed);
    options.progress(fmt::format("{} of {} databases, {} at a time", merged, paths.size(), options.jobs), total);
  };
  ordered_parallel<Read>(
      paths.size(), options.jobs,
      [&](std::size_t i) {
        Read r;
        ReadOptions one = options;
        one.scan_counts = options.scan_counts ? &r.counts : nullptr;
        one.progress = [&rows, i](std::string_view, std::size_t n) {
          // A failed database ahead of this one stops the run: this read's result would be discarded.
          if (parallel_stop_requested()) throw Error(ExitCode::Internal, "stopped: another database failed");
          rows[i].store(n, std::memory_order_relaxed);
        };
        const double cpu = thread_cpu_seconds();
        read_database(r.trace, paths[i], one);
        log::debug("{}: read in {:.3f} s CPU on its thread", paths[i], thread_cpu_seconds() - cpu);
        return r;
      },
      [&](std::size_t i, Read&& r) {
        const bool read_before = std::any_of(r.trace.processes.begin(), r.trace.processes.end(), [&](const Process& p) {
          return std::any_of(trace.processes.begin(), trace.processes.end(),
                             [&](const Process& q) { return q.guid == p.guid; });
        });
        if (read_before) {
          read_database(trace, paths[i], options);  // throws "already read", as one after the other does
        } else if (i == 0) {
          trace = std::move(r.trace);
        } else {
          const double cpu = thread_cpu_seconds();
          append_trace(trace, std::move(r.trace));
          log::debug("{}: merged in {:.3f} s CPU", paths[i], thread_cpu_seconds() - cpu);
        }
        if (options.scan_counts) {
          options.scan_counts->from_file += r.counts.from_file;
          options.scan_counts->through_sql += r.counts.through_sql;
          if (r.counts.through_sql > 0) options.scan_counts->why_sql = r.counts.why_sql;
        }
        merged = i + 1;
        report();
      },
      report);
}

}  // namespace

Trace read_databases(const std::vector<std::string>& paths, const ReadOptions& options) {
  Trace trace;
  if (options.jobs > 1 && paths.size() > 1)
    read_in_parallel(trace, paths, options);
  else
    for (const std::string& path : paths) read_database(trace, path, options);
  if (trace.empty()) {
    std::string names;
    for (const std::string& p : paths) names += (names.empty() ? "" : ", ") + p;
    throw Error(ExitCode::InputEmpty,
                fmt::format("{}: no kernel dispatches and no memory copies in the trace", names.empty() ? "(no input)" : names));
  }
  return trace;
}

}  // namespace rpl::rocpd
