// The host API calls (rocpd_region) and the synchronisation operations that create dependencies: the
// sync calls' stream/event arguments (rocpd_arg) and the GPU barrier records (rocpd_event_operation).
#include <fmt/core.h>

#include "store/rocpd_set_reader.hpp"
#include "store/sync_calls.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::rocpd::detail {

// The stream an API call's "stream" argument names: by the rocpd stream id in extdata (rocprofv3 writes
// {"stream_id": N}), else by the value (a null handle is the default stream, rocpd id 0).
Index SetReader::stream_for_arg(bool has_extdata_id, int64_t extdata_id, std::string_view value) {
  if (has_extdata_id) return lookup(streams_, extdata_id);
  std::optional<uint64_t> handle = parse_handle(value);
  if (handle) return lookup(streams_, static_cast<int64_t>(*handle));
  for (std::size_t i = 0; i < trace_.streams.size(); ++i)
    if (trace_.streams[i].process == process_ && trace_.streams[i].name == value) return static_cast<Index>(i);
  return kNoIndex;
}

std::vector<SyncCallArgs> SetReader::read_sync_args(const Columns& region, const std::string& sync_name_ids) {
  std::vector<SyncCallArgs> out;
  Columns a = columns("arg");
  if (!a.exists() || !a.has("event_id") || !a.has("name") || !region.has("event_id")) return out;
  std::string stream_id =
      a.has("extdata") ? "CASE WHEN json_valid(A.extdata) THEN json_extract(A.extdata, '$.stream_id') END" : "NULL";
  Stmt s(db_, fmt::format("SELECT A.event_id, A.name, {}, {} FROM \"{}\" A "
                          "WHERE A.name IN ('stream', 'hStream', 'event', 'hEvent'){} AND A.event_id IN "
                          "(SELECT R.event_id FROM \"{}\" R WHERE R.name_id IN ({}){}) ORDER BY A.event_id",
                          a("A", "value"), stream_id, a.table(), guid_and(a, "A"), region.table(), sync_name_ids,
                          guid_and(region, "R")));
  bind_guid(s);
  while (s.step()) {
    int64_t event_id = s.i64(0);
    if (out.empty() || out.back().event_id != event_id) out.push_back({event_id});
    SyncCallArgs& args = out.back();
    std::string_view name = s.text(1);
    std::string_view value = s.text(2);
    if (is_stream_arg(name)) {
      args.has_stream = true;
      args.stream = stream_for_arg(!s.is_null(3), s.i64(3), value);
    } else if (auto handle = parse_handle(value)) {
      args.event = *handle;
    }
  }
  return out;
}

void SetReader::read_regions() {
  Columns r = columns("region");
  if (!r.exists()) return;
  r.require(db_, {"start", "end", "name_id"});

  std::string sync_ids;  // rocpd_string ids of dependency-creating API names, as an SQL list
  for (const auto& [id, kind] : sync_names_.entries()) sync_ids += fmt::format("{}{}", sync_ids.empty() ? "" : ",", id);
  if (!options_.load_api_calls && sync_ids.empty()) return;

  std::vector<SyncCallArgs> args;
  if (!sync_ids.empty()) args = read_sync_args(r, sync_ids);

  std::string only_sync = options_.load_api_calls ? std::string() : fmt::format(" AND R.name_id IN ({})", sync_ids);
  std::string sql = fmt::format("SELECT {}, {}, R.start, R.\"end\", R.name_id, {}, {}, {} FROM \"{}\" R{} WHERE 1{}{}",
                                r("R", "id", "0"), r("R", "tid"), r("R", "event_id"), event_column(r, "category_id"),
                                event_column(r, "stack_id"), r.table(), event_join(r, "R"), guid_and(r, "R"),
                                only_sync);
  Stmt s(db_, sql);
  bind_guid(s);
  if (options_.load_api_calls) reserve_for(r, trace_.api_calls);
  while (s.step()) {
    progress_.tick();
    int64_t name_id = s.i64(4);
    // rocprofv3 uses the internal correlation id as the region id, and as the event's stack_id.
    int64_t correlation = s.is_null(7) ? s.i64(0) : s.i64(7);
    uint32_t thread = s.is_null(1) ? 0 : thread_for(s.i64(1));
    TimeNs start = 0, end = 0;
    if (!read_interval("API call", s.i64(0), s, 2, start, end)) continue;
    if (options_.load_api_calls) {
      ApiCall call;
      call.start = start;
      call.end = end;
      call.correlation_id = correlation;
      call.process = process_;
      call.thread = thread;
      const Index* name = strings_.find(name_id);
      call.name = name ? *name : 0;
      const Index* category = s.is_null(6) ? nullptr : strings_.find(s.i64(6));
      call.category = category ? *category : 0;
      trace_.api_calls.push_back(call);
    }
    const SyncKind* kind = sync_names_.empty() ? nullptr : sync_names_.find(name_id);
    if (!kind) continue;
    SyncOp op;
    op.kind = *kind;
    op.source = SyncSource::HostApi;
    op.process = process_;
    op.thread = thread;
    op.correlation_id = correlation;
    op.start = start;
    op.end = end;
    int64_t event_id = s.i64(5);
    auto it = std::lower_bound(args.begin(), args.end(), event_id,
                               [](const SyncCallArgs& a, int64_t key) { return a.event_id < key; });
    if (!s.is_null(5) && it != args.end() && it->event_id == event_id) {
      op.stream = it->stream;
      op.event = it->event;
    }
    if (op.kind == SyncKind::DeviceSynchronize) op.stream = kNoIndex, op.event = 0;
    if (op.kind == SyncKind::EventSynchronize) op.stream = kNoIndex;
    trace_.sync_ops.push_back(op);
  }
}

void SetReader::read_event_operations() {
  Columns o = columns("event_operation");  // schema 3.0.1+
  if (!o.exists()) return;
  o.require(db_, {"event_obj", "start", "end", "type"});
  Stmt s(db_, fmt::format("SELECT {}, O.event_obj, {}, O.start, O.\"end\", O.type, {} FROM \"{}\" O{} WHERE 1{}",
                          o("O", "tid"), o("O", "stream_id"), event_column(o, "stack_id"), o.table(),
                          event_join(o, "O"), guid_and(o, "O")));
  bind_guid(s);
  while (s.step()) {
    progress_.tick();
    std::string_view type = s.text(5);
    if (type != "SIGNAL" && type != "WAIT") continue;
    SyncOp op;
    op.kind = type == "WAIT" ? SyncKind::StreamWaitEvent : SyncKind::EventRecord;
    op.source = SyncSource::GpuBarrier;
    op.process = process_;
    op.thread = s.is_null(0) ? 0 : thread_for(s.i64(0));
    op.event = static_cast<uint64_t>(s.i64(1));
    op.stream = s.is_null(2) ? kNoIndex : lookup(streams_, s.i64(2));
    if (!read_interval("event operation", s.i64(1), s, 3, op.start, op.end)) continue;
    op.correlation_id = s.i64(6);
    trace_.sync_ops.push_back(op);
  }
}

}  // namespace rpl::rocpd::detail
