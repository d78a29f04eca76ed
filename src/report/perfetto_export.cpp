#include "report/perfetto_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "analysis/cross_stream_edges.hpp"
#include "report/work_lanes.hpp"
#include "support/atomic_file.hpp"

namespace rpl::report {
namespace {

using analysis::NodeKind;
using analysis::NodeRef;


// `ns` as microseconds with exactly 3 decimals: 1234567 -> 1234.567, -5 -> -0.005.
void append_us(fmt::memory_buffer& buf, int64_t ns) {
  uint64_t magnitude = ns < 0 ? uint64_t(0) - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) buf.push_back('-');
  fmt::format_to(std::back_inserter(buf), "{}.{:03}", magnitude / 1000, magnitude % 1000);
}

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// JSON-encoded names, escaped once per distinct string however many slices use them.
class EscapedNames {
 public:
  explicit EscapedNames(const Trace& t) : trace_(t), cache_(t.strings.size()), done_(t.strings.size(), 0) {}
  const std::string& of(NodeRef n) {
    Index id = n.kind == NodeKind::Dispatch ? trace_.symbols[trace_.dispatches[n.index].symbol].display_name
                                            : trace_.copies[n.index].kind;
    if (!done_[id]) {
      cache_[id] = json_string(trace_.strings.at(id));
      done_[id] = 1;
    }
    return cache_[id];
  }

 private:
  const Trace& trace_;
  std::vector<std::string> cache_;
  std::vector<uint8_t> done_;
};

class Exporter {
 public:
  Exporter(JsonStream& out, const app::AnalyzeResults& r, const PerfettoOptions& options)
      : out_(out), r_(r), t_(r.trace), options_(options), lanes_(t_), table_(t_), names_(t_) {}

  void write() {
    origin_ = trace_origin(t_);
    index_path();
    out_.begin_object();
    out_.key("displayTimeUnit");
    out_.value(std::string_view("ns"));
    out_.key("otherData");
    out_.value(nlohmann::json{{"generator", "rocm-perf export perfetto"},
                              {"trace_start_ns", std::to_string(origin_)},
                              {"time_unit", "microseconds since trace_start_ns"},
                              {"dag_ordering", r_.dag.ordering}});
    out_.key("traceEvents");
    out_.begin_array();
    write_lanes();
    if (options_.critical_path_track) write_critical_path();
    if (options_.flows) write_flows();
    write_device_metrics();
    out_.end_array();
    out_.end_object();
    out_.flush();
  }

 private:
  void index_path() {
    std::size_t nodes = t_.dispatches.size() + t_.copies.size();
    path_position_.assign(nodes, kNotOnPath);
    for (std::size_t i = 0; i < r_.dag.path.size(); ++i)
      path_position_[table_.slot(r_.dag.path[i])] = static_cast<int32_t>(i);
    // Slack per node, where the DAG result has it.
    if (!r_.dag.nodes.empty() && r_.dag.slack.size() == r_.dag.nodes.size()) {
      slack_.assign(nodes, -1);
      for (std::size_t i = 0; i < r_.dag.nodes.size(); ++i) slack_[table_.slot(r_.dag.nodes[i])] = r_.dag.slack[i];
    }
    tid_.assign(nodes, 0);
  }

  void metadata(const char* what, int64_t pid, int64_t tid, const nlohmann::json& args) {
    nlohmann::json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", args}};
    if (tid >= 0) e["tid"] = tid;
    out_.value(e);
  }

  // One "X" slice. `track_label` (JSON-encoded) is set on the critical-path track, where slices come from
  // every stream.
  void slice(NodeRef n, int64_t pid, int64_t tid, const std::string* track_label) {
    TimeNs start = node_start(t_, n), end = std::max(node_end(t_, n), start);
    buf_.clear();
    fmt::format_to(std::back_inserter(buf_), R"({{"ph":"X","pid":{},"tid":{},"ts":)", pid, tid);
    append_us(buf_, start - origin_);
    append(R"(,"dur":)");
    append_us(buf_, end - start);
    append(R"(,"name":)");
    append(names_.of(n));
    if (n.kind == NodeKind::Dispatch) {
      const Dispatch& d = t_.dispatches[n.index];
      fmt::format_to(std::back_inserter(buf_),
                     R"(,"cat":"dispatch","args":{{"dispatch_id":{},"correlation_id":{},"grid":[{},{},{}],)"
                     R"("block":[{},{},{}])",
                     d.dispatch_id, d.correlation_id, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1],
                     d.block[2]);
    } else {
      const MemoryCopy& c = t_.copies[n.index];
      fmt::format_to(std::back_inserter(buf_), R"(,"cat":"copy","args":{{"copy_id":{},"correlation_id":{},"bytes":{})",
                     c.copy_id, c.correlation_id, c.bytes);
    }
    std::size_t slot = table_.slot(n);
    if (!slack_.empty() && slack_[slot] >= 0) {
      append(R"(,"slack_us":)");
      append_us(buf_, slack_[slot]);
    }
    if (path_position_[slot] != kNotOnPath) append(R"(,"critical_path":true)");
    if (track_label) {
      append(R"(,"stream":)");
      append(*track_label);
    }
    append("}}");
    out_.raw(std::string_view(buf_.data(), buf_.size()));
  }

  void write_lanes() {
    const auto& lanes = lanes_.lanes();
    std::vector<int64_t> next_tid(t_.processes.size() + 1, 1);
    Index last_process = kNoIndex - 1;
    for (std::size_t li = 0; li < lanes.size(); ++li) {
      const WorkLane& lane = lanes[li];
      int64_t pid = pid_of(lane.process);
      if (lane.process != last_process) {
        last_process = lane.process;
        metadata("process_name", pid, -1, {{"name", process_label(t_, lane.process)}});
        metadata("process_sort_index", pid, -1, {{"sort_index", pid}});
      }
      // Slices first (sub-tracks are known only once the lane is placed), then the track names.
      int64_t& tid_counter = next_tid[std::min<std::size_t>(lane.process, t_.processes.size())];
      const int64_t first_tid = tid_counter;
      SubTracks subtracks;
      for (NodeRef n : lane.nodes) {
        TimeNs start = node_start(t_, n);
        std::size_t k = subtracks.place(start, std::max(node_end(t_, n), start));
        int64_t tid = first_tid + static_cast<int64_t>(k);
        tid_[table_.slot(n)] = static_cast<uint32_t>(tid);
        slice(n, pid, tid, nullptr);
      }
      tid_counter += static_cast<int64_t>(std::max<std::size_t>(subtracks.count(), 1));
      for (std::size_t k = 0; k < std::max<std::size_t>(subtracks.count(), 1); ++k) {
        std::string name = k == 0 ? lane.label : fmt::format("{} · overlap {}", lane.label, k);
        metadata("thread_name", pid, first_tid + static_cast<int64_t>(k), {{"name", name}});
        metadata("thread_sort_index", pid, first_tid + static_cast<int64_t>(k),
                 {{"sort_index", first_tid + static_cast<int64_t>(k)}});
      }
    }
  }

  int64_t pid_of(Index process) const {
    return process == kNoIndex ? static_cast<int64_t>(t_.processes.size()) + 1 : static_cast<int64_t>(process) + 1;
  }

  void write_critical_path() {
    if (r_.dag.path.empty()) return;
    const int64_t pid = static_cast<int64_t>(t_.processes.size()) + 2;
    metadata("process_name", pid, -1, {{"name", "Critical path"}});
    metadata("process_sort_index", pid, -1, {{"sort_index", -1}});  // above the processes
    std::vector<std::string> lane_labels;
    for (const WorkLane& lane : lanes_.lanes())
      lane_labels.push_back(json_string(fmt::format("{} / {}", process_label(t_, lane.process), lane.label)));
    SubTracks subtracks;
    for (NodeRef n : r_.dag.path) {
      TimeNs start = node_start(t_, n);
      std::size_t k = subtracks.place(start, std::max(node_end(t_, n), start));
      slice(n, pid, 1 + static_cast<int64_t>(k), &lane_labels[lanes_.lane_of(n)]);
    }
    for (std::size_t k = 0; k < std::max<std::size_t>(subtracks.count(), 1); ++k)
      metadata("thread_name", pid, 1 + static_cast<int64_t>(k),
               {{"name", k == 0 ? std::string("critical path") : fmt::format("critical path · overlap {}", k)}});
  }

  // Flow binding: "s" binds to the slice enclosing its timestamp, "f" with bp:"e" likewise; both are put
  // at the middle of their slice so that ties with neighbouring slices' boundaries cannot mis-bind.
  void flow_point(char ph, uint64_t id, const char* name, bool on_path, NodeRef n) {
    TimeNs start = node_start(t_, n), end = std::max(node_end(t_, n), start);
    buf_.clear();
    fmt::format_to(std::back_inserter(buf_), R"({{"ph":"{}","id":{},"cat":"dependency","name":"{}{}","pid":{},"tid":{},"ts":)",
                   ph, id, name, on_path ? " (critical path)" : "", pid_of(process_of(n)), tid_[table_.slot(n)]);
    append_us(buf_, start + (end - start) / 2 - origin_);
    append(ph == 'f' ? R"(,"bp":"e"})" : "}");
    out_.raw(std::string_view(buf_.data(), buf_.size()));
  }

  Index process_of(NodeRef n) const { return lanes_.lanes()[lanes_.lane_of(n)].process; }

  void write_flows() {
    uint64_t id = 0;
    for (const analysis::DagEdge& e : analysis::recorded_cross_stream_edges(t_)) {
      int32_t from = path_position_[table_.slot(e.from)], to = path_position_[table_.slot(e.to)];
      bool on_path = from != kNotOnPath && to == from + 1;
      ++id;
      flow_point('s', id, analysis::to_string(e.kind), on_path, e.from);
      flow_point('f', id, analysis::to_string(e.kind), on_path, e.to);
    }
  }

  // --monitor-device samples: one process per device holding one counter track per metric ("C" events,
  // which Perfetto draws as counter tracks), on the same time origin as the slices.
  void write_device_metrics() {
    std::vector<int> seen;
    for (const DeviceMetricSeries& series : t_.device_metrics) {
      const int64_t pid = static_cast<int64_t>(t_.processes.size()) + 3 + series.device;
      if (std::find(seen.begin(), seen.end(), series.device) == seen.end()) {
        seen.push_back(series.device);
        metadata("process_name", pid, -1,
                 {{"name", fmt::format("GPU {} {} ({})", series.device, series.device_name, series.source)}});
      }
      const std::string name = json_string(fmt::format("{} ({})", series.metric, series.unit));
      for (std::size_t i = 0; i < series.times.size() && i < series.values.size(); ++i) {
        buf_.clear();
        fmt::format_to(std::back_inserter(buf_), R"({{"ph":"C","pid":{},"name":{},"ts":)", pid, name);
        append_us(buf_, series.times[i] - origin_);
        fmt::format_to(std::back_inserter(buf_), R"(,"args":{{"value":{}}}}})", series.values[i]);
        out_.raw(std::string_view(buf_.data(), buf_.size()));
      }
    }
  }

  void append(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }

  JsonStream& out_;
  const app::AnalyzeResults& r_;
  const Trace& t_;
  PerfettoOptions options_;
  WorkLanes lanes_;
  NodeSlots table_;
  EscapedNames names_;
  TimeNs origin_ = 0;
  std::vector<int32_t> path_position_;  // per node: index in dag.path, or kNotOnPath
  std::vector<TimeNs> slack_;           // per node; empty when the DAG result has none
  std::vector<uint32_t> tid_;           // per node: the track it was placed on
  fmt::memory_buffer buf_;
};

}  // namespace

void write_perfetto_trace(JsonStream& out, const app::AnalyzeResults& r, const PerfettoOptions& options) {
  Exporter(out, r, options).write();
}

void write_perfetto_file(const std::string& path, const app::AnalyzeResults& r, const PerfettoOptions& options) {
  write_file_atomically(path, [&](std::FILE* f) {
    JsonStream out(f);
    write_perfetto_trace(out, r, options);
    out.flush();
  });
}

}  // namespace rpl::report
