#include "report/rocprof_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "report/library_trace.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::report {

const char* const kKernelTraceHeader =
    R"("Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",)"
    R"("Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count",)"
    R"("Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X",)"
    R"("Grid_Size_Y","Grid_Size_Z")";
const char* const kMemoryCopyTraceHeader =
    R"("Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id",)"
    R"("Start_Timestamp","End_Timestamp")";
const char* const kCounterCollectionHeader =
    R"("Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id",)"
    R"("Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",)"
    R"("Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp")";
const char* const kApiTraceHeader =
    R"("Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp")";

namespace {

namespace fs = std::filesystem;
using Buffer = fmt::memory_buffer;

// rocprofv3 rounds the kernel's group segment up to the LDS allocation block (128 dwords).
constexpr uint64_t kLdsBlockBytes = 512;

// A string field as rocprofv3 writes it: in double quotes. A quote inside is doubled (RFC 4180); rocprofv3
// would write it bare, but no kernel, API or copy name it records contains one.
void quoted(Buffer& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

class Writer {
 public:
  Writer(const Trace& t, const RocprofCsvOptions& o) : t_(t), o_(o) {}

  std::vector<std::string> write_all() {
    std::error_code ec;
    fs::create_directories(o_.output_dir, ec);
    if (ec)
      throw Error(ExitCode::OutputFailed, fmt::format("{}: cannot create the output folder: {}", o_.output_dir, ec.message()));
    std::vector<std::string> prefixes = process_prefixes();
    for (Index p = 0; p < t_.processes.size(); ++p) write_process(p, prefixes[p]);
    if (t_.processes.empty()) write_process(kNoIndex, o_.prefix);
    return written_;
  }

 private:
  // One set of files per process, as rocprofv3 writes (its default name is the pid); a single process
  // gets the plain names.
  std::vector<std::string> process_prefixes() const {
    std::vector<std::string> out(t_.processes.size(), o_.prefix);
    if (t_.processes.size() < 2) return out;
    std::map<int64_t, int> seen;
    for (const Process& p : t_.processes) ++seen[p.pid];
    std::map<int64_t, int> used;
    for (std::size_t i = 0; i < out.size(); ++i) {
      int64_t pid = t_.processes[i].pid;
      std::string id = seen[pid] > 1 ? fmt::format("{}.{}", pid, used[pid]++) : std::to_string(pid);
      out[i] = o_.prefix.empty() ? id : o_.prefix + "_" + id;
    }
    return out;
  }

  std::string path_of(const std::string& prefix, std::string_view stem) const {
    std::string name = prefix.empty() ? fmt::format("{}.csv", stem) : fmt::format("{}_{}.csv", prefix, stem);
    return (fs::path(o_.output_dir) / name).string();
  }

  // Writes `header` and one row per index through `row`, in pieces of about 1 MiB, so that a file of
  // millions of rows is never held in memory. Nothing is written for no rows (as rocprofv3).
  void write_rows(const std::string& prefix, std::string_view stem, const char* header,
                  const std::vector<std::size_t>& indices, const std::function<void(Buffer&, std::size_t)>& row) {
    if (indices.empty()) return;
    const std::string path = path_of(prefix, stem);
    write_file_atomically(path, [&](std::FILE* f) {
      Buffer out;
      fmt::format_to(std::back_inserter(out), "{}\n", header);
      for (std::size_t i : indices) {
        row(out, i);
        if (out.size() >= (1u << 20)) {
          std::fwrite(out.data(), 1, out.size(), f);
          out.clear();
        }
      }
      std::fwrite(out.data(), 1, out.size(), f);
    });
    written_.push_back(path);
  }

  // Indices of the records of process `p`, in start order (end descending on ties), as `rocpd convert`.
  template <typename Records>
  std::vector<std::size_t> ordered(const Records& records, Index p) const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < records.size(); ++i)
      if (records[i].process == p) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return records[a].start != records[b].start ? records[a].start < records[b].start : records[a].end > records[b].end;
    });
    return order;
  }

  void agent(Buffer& out, Index a) const {
    if (a == kNoIndex || a >= t_.agents.size()) return;  // unknown: an empty field
    const Agent& agent = t_.agents[a];
    int64_t n = o_.agent_index == AgentIndex::Absolute ? agent.absolute_index : agent.logical_index;
    quoted(out, fmt::format("Agent {}", n));
  }

  int64_t queue_id(Index q) const { return q == kNoIndex || q >= t_.queues.size() ? 0 : t_.queues[q].rocpd_id; }
  int64_t stream_id(Index s) const { return s == kNoIndex || s >= t_.streams.size() ? 0 : t_.streams[s].rocpd_id; }

  void write_process(Index p, const std::string& prefix) {
    write_kernels(p, prefix);
    write_counters(p, prefix);
    write_copies(p, prefix);
    write_api_calls(p, prefix);
    write_library_calls(p, prefix);
  }

  // library_trace.csv (the madengine guide's; not a rocprofv3 file): the library calls the markers name and the
  // libraries' API logs list, as profile writes it.
  void write_library_calls(Index p, const std::string& prefix) {
    if (!library_calls_)
      library_calls_ = o_.logged_calls.empty() ? analysis::library_calls(t_) : library_calls_with_logged(t_, o_.logged_calls);
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < library_calls_->size(); ++i)
      if ((*library_calls_)[i].process == p) rows.push_back(i);
    write_rows(prefix, "library_trace", kLibraryTraceHeader, rows, [&](Buffer& out, std::size_t i) {
      const std::string row = library_trace_row(t_, (*library_calls_)[i]);
      out.append(row.data(), row.data() + row.size());
    });
  }

  const KernelSymbol& symbol_of(const Dispatch& d) const {
    static const KernelSymbol kNoSymbol{};
    return d.symbol < t_.symbols.size() ? t_.symbols[d.symbol] : kNoSymbol;
  }
  static uint64_t lds_block_bytes(const KernelSymbol& s) {
    return (uint64_t(s.static_lds_bytes) + kLdsBlockBytes - 1) / kLdsBlockBytes * kLdsBlockBytes;
  }

  // counter_collection.csv: one row per (dispatch, counter), dispatches in start order, counters by name.
  // Values as rocprofv3 prints doubles: 6 decimals from 1 up, otherwise 8 significant digits in scientific form.
  void write_counters(Index p, const std::string& prefix) {
    if (t_.counters.empty()) return;
    std::vector<std::vector<std::size_t>> by_dispatch(t_.dispatches.size());
    for (std::size_t i = 0; i < t_.counters.size(); ++i)
      if (t_.counters[i].dispatch < t_.dispatches.size()) by_dispatch[t_.counters[i].dispatch].push_back(i);
    std::vector<std::size_t> rows;
    for (std::size_t di : ordered(t_.dispatches, p)) {
      std::vector<std::size_t>& samples = by_dispatch[di];
      std::sort(samples.begin(), samples.end(), [&](std::size_t a, std::size_t b) {
        return t_.strings.at(t_.counters[a].counter) < t_.strings.at(t_.counters[b].counter);
      });
      rows.insert(rows.end(), samples.begin(), samples.end());
    }
    const int64_t pid = pid_of(p);
    write_rows(prefix, "counter_collection", kCounterCollectionHeader, rows, [&](Buffer& out, std::size_t ci) {
      const CounterSample& c = t_.counters[ci];
      const Dispatch& d = t_.dispatches[c.dispatch];
      const KernelSymbol& s = symbol_of(d);
      fmt::format_to(std::back_inserter(out), "{},{},", d.correlation_id, d.dispatch_id);
      agent(out, d.agent);
      fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},", queue_id(d.queue), pid, d.thread,
                     uint64_t(d.grid[0]) * d.grid[1] * d.grid[2], s.rocpd_id);
      quoted(out, t_.strings.at(s.display_name));
      fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},{},", uint64_t(d.block[0]) * d.block[1] * d.block[2],
                     lds_block_bytes(s), d.scratch_bytes, s.arch_vgpr_count, s.accum_vgpr_count, s.sgpr_count);
      quoted(out, t_.strings.at(c.counter));
      if (c.value >= 1)
        fmt::format_to(std::back_inserter(out), ",{:.6f}", c.value);
      else
        fmt::format_to(std::back_inserter(out), ",{:.8e}", c.value);
      fmt::format_to(std::back_inserter(out), ",{},{}\n", d.start, d.end);
    });
  }

  void write_kernels(Index p, const std::string& prefix) {
    write_rows(prefix, "kernel_trace", kKernelTraceHeader, ordered(t_.dispatches, p), [&](Buffer& out, std::size_t i) {
      const Dispatch& d = t_.dispatches[i];
      const KernelSymbol& s = symbol_of(d);
      quoted(out, "KERNEL_DISPATCH");
      out.push_back(',');
      agent(out, d.agent);
      fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},", queue_id(d.queue), stream_id(d.stream), d.thread,
                     d.dispatch_id, s.rocpd_id);
      quoted(out, t_.strings.at(s.display_name));
      fmt::format_to(std::back_inserter(out), ",{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", d.correlation_id,
                     d.start, d.end, lds_block_bytes(s), d.scratch_bytes, s.arch_vgpr_count, s.accum_vgpr_count,
                     s.sgpr_count, d.block[0], d.block[1], d.block[2], d.grid[0], d.grid[1], d.grid[2]);
    });
  }

  // Copies to memory_copy_trace.csv; fills (CUDA memsets; rocprofv3 records none) to memory_fill_trace.csv
  // with the same columns, so that a Direction other than MEMORY_COPY_* never surprises a rocprofv3 script.
  void write_copies(Index p, const std::string& prefix) {
    std::vector<std::size_t> copies, fills;
    for (std::size_t i : ordered(t_.copies, p)) (is_fill(t_.copies[i]) ? fills : copies).push_back(i);
    auto row = [&](Buffer& out, std::size_t i) {
      const MemoryCopy& c = t_.copies[i];
      quoted(out, is_fill(c) ? "MEMORY_FILL" : "MEMORY_COPY");
      out.push_back(',');
      quoted(out, t_.strings.at(c.kind));
      fmt::format_to(std::back_inserter(out), ",{},", stream_id(c.stream));
      agent(out, c.src_agent);
      out.push_back(',');
      agent(out, c.dst_agent);
      fmt::format_to(std::back_inserter(out), ",{},{},{}\n", c.correlation_id, c.start, c.end);
    };
    write_rows(prefix, "memory_copy_trace", kMemoryCopyTraceHeader, copies, row);
    write_rows(prefix, "memory_fill_trace", kMemoryCopyTraceHeader, fills, row);
  }
  bool is_fill(const MemoryCopy& c) const { return t_.strings.at(c.kind).rfind("MEMORY_COPY", 0) != 0; }

  void write_api_calls(Index p, const std::string& prefix) {
    std::map<std::string, std::vector<std::size_t>> files;  // by file stem
    for (std::size_t i : ordered(t_.api_calls, p))
      files[api_trace_file_stem(t_.strings.at(t_.api_calls[i].category))].push_back(i);
    const int64_t pid = pid_of(p);
    for (const auto& [stem, rows] : files)
      write_rows(prefix, stem, kApiTraceHeader, rows, [&](Buffer& out, std::size_t i) {
        const ApiCall& a = t_.api_calls[i];
        quoted(out, t_.strings.at(a.category));
        out.push_back(',');
        quoted(out, t_.strings.at(a.name));
        fmt::format_to(std::back_inserter(out), ",{},{},{},{},{}\n", pid, a.thread, a.correlation_id, a.start, a.end);
      });
  }

  int64_t pid_of(Index p) const { return p < t_.processes.size() ? t_.processes[p].pid : 0; }

  const Trace& t_;
  const RocprofCsvOptions& o_;
  std::optional<std::vector<analysis::LibraryCall>> library_calls_;
  std::vector<std::string> written_;
};

}  // namespace

std::string api_trace_file_stem(std::string_view category) {
  std::string_view family = category.substr(0, category.find('_'));
  std::string stem;
  for (char c : family) stem.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (stem.empty()) stem = "other";
  return stem + "_api_trace";
}

std::vector<std::string> write_rocprof_csv(const Trace& trace, const RocprofCsvOptions& options) {
  return Writer(trace, options).write_all();
}

}  // namespace rpl::report
