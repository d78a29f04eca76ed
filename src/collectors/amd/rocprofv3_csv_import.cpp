#include "collectors/amd/rocprofv3_csv_import.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "store/rocpd_writer.hpp"
#include "support/csv.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::collectors {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSuffixes[] = {"agent_info.csv",       "kernel_trace.csv",    "memory_copy_trace.csv",
                                     "hip_api_trace.csv",    "hsa_api_trace.csv",   "marker_api_trace.csv",
                                     "rccl_api_trace.csv"};
constexpr const char* kApiSuffixes[] = {"hip_api_trace.csv", "hsa_api_trace.csv", "marker_api_trace.csv",
                                        "rccl_api_trace.csv"};

// One CSV file: its header's columns by name, its rows.
class Table {
 public:
  explicit Table(std::string path) : path_(std::move(path)) {
    auto rows = split_csv(read_input_file(path_, "rocprofv3 CSV file"));
    if (rows.empty()) return;
    for (std::size_t i = 0; i < rows[0].size(); ++i) columns_[rows[0][i]] = i;
    rows_.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
  }
  std::size_t size() const { return rows_.size(); }
  bool has(const std::string& column) const { return columns_.count(column) > 0; }

  const std::string& text(std::size_t row, const std::string& column) const {
    static const std::string kEmpty;
    auto it = columns_.find(column);
    if (it == columns_.end()) return kEmpty;
    return it->second < rows_[row].size() ? rows_[row][it->second] : kEmpty;
  }
  // A required integer column: a missing column or a value that is not an integer names the file and line.
  int64_t number(std::size_t row, const std::string& column) const {
    if (!has(column))
      throw Error(ExitCode::InputCorrupt, fmt::format("{}: no column '{}' (not a rocprofv3 CSV file of a known layout)",
                                                      path_, column));
    return parse(row, column);
  }
  // An optional integer column: `fallback` when the layout has no such column.
  int64_t number_or(std::size_t row, const std::string& column, int64_t fallback) const {
    return has(column) ? parse(row, column) : fallback;
  }

 private:
  int64_t parse(std::size_t row, const std::string& column) const {
    const std::string& s = text(row, column);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size())
      throw Error(ExitCode::InputCorrupt,
                  fmt::format("{}:{}: column '{}' is '{}', not an integer", path_, row + 2, column, s));
    return v;
  }

  std::string path_;
  std::map<std::string, std::size_t> columns_;
  std::vector<std::vector<std::string>> rows_;
};

std::optional<Table> open(const CsvProcessFiles& f, const char* suffix) {
  const fs::path p = fs::path(f.folder) / (f.prefix + suffix);
  std::error_code ec;
  if (!fs::exists(p, ec)) return std::nullopt;
  return Table(p.string());
}

// agent_info.csv columns and the agent extdata keys the rocpd reader takes the hardware limits from.
constexpr std::pair<const char*, const char*> kAgentFields[] = {
    {"Cu_Count", "cu_count"},           {"Simd_Per_Cu", "simd_per_cu"},
    {"Max_Waves_Per_Simd", "max_waves_per_simd"}, {"Wave_Front_Size", "wave_front_size"},
    {"Lds_Size_In_Kb", "lds_size_in_kb"}, {"Max_Engine_Clk_Fcompute", "max_engine_clk_fcompute"},
    {"Gfx_Target_Version", "gfx_target_version"}};

uint32_t u32(int64_t v) { return v < 0 ? 0u : static_cast<uint32_t>(std::min<int64_t>(v, UINT32_MAX)); }

// Agents from agent_info.csv, and the two spellings of an agent in the trace files: its node id ("4", ROCm
// 6.2 / 6.3) and "Agent N" (N its logical node id, ROCm 6.4+ with the default --agent-index).
class Agents {
 public:
  Agents(rocpd::Writer& w, const std::optional<Table>& info) : w_(w) {
    if (!info) return;
    int64_t gpus = 0;
    for (std::size_t r = 0; r < info->size(); ++r) {
      rocpd::AgentRow a;
      a.id = next_id_++;
      a.is_gpu = info->text(r, "Agent_Type") != "CPU";
      a.absolute_index = info->number(r, "Node_Id");
      a.logical_index = info->number_or(r, "Logical_Node_Id", a.absolute_index);
      a.type_index = a.is_gpu ? gpus++ : 0;
      a.name = info->text(r, "Name");
      a.model_name = info->text(r, "Model_Name");
      a.vendor_name = info->text(r, "Vendor_Name");
      a.product_name = info->text(r, "Product_Name");
      std::string extdata;
      for (const auto& [column, key] : kAgentFields) {
        const int64_t v = info->number_or(r, column, 0);
        if (v > 0) extdata += fmt::format("{}\"{}\":{}", extdata.empty() ? "" : ",", key, v);
      }
      a.extdata_json = "{" + extdata + "}";
      by_node_[a.absolute_index] = a.id;
      by_logical_[a.logical_index] = a.id;
      w_.add_agent(a);
    }
  }

  // The rocpd agent id of a trace file's agent field; an agent agent_info.csv did not list gets a row of
  // its own (GPU, name unknown), so the trace still reads.
  int64_t of(const std::string& field) {
    const bool indexed = field.rfind("Agent ", 0) == 0;
    const std::string digits = indexed ? field.substr(6) : field;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) n = -1;
    auto& map = indexed ? by_logical_ : by_node_;
    if (auto it = map.find(n); it != map.end()) return it->second;
    rocpd::AgentRow a;
    a.id = next_id_++;
    a.absolute_index = a.logical_index = n;
    a.name = "unknown";
    w_.add_agent(a);
    map[n] = a.id;
    return a.id;
  }

 private:
  rocpd::Writer& w_;
  int64_t next_id_ = 1;
  std::map<int64_t, int64_t> by_node_, by_logical_;
};

// The process id: the prefix's digits ("12345_"), else the API files' Process_Id, else 0.
int64_t process_id(const CsvProcessFiles& f, const std::vector<Table>& api) {
  int64_t pid = 0;
  const std::string digits = f.prefix.substr(0, f.prefix.find('_'));
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return pid;
  for (const auto& t : api)
    if (t.size() > 0 && t.has("Process_Id")) return t.number(0, "Process_Id");
  return 0;
}

}  // namespace

std::vector<CsvProcessFiles> find_rocprofv3_csv(const std::string& dir) {
  std::set<std::pair<std::string, std::string>> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string name = it->path().filename().string();
    for (const char* suffix : kSuffixes)
      if (name.ends_with(suffix) && std::string_view(suffix) != "agent_info.csv")
        found.insert({it->path().parent_path().string(), name.substr(0, name.size() - std::string_view(suffix).size())});
  }
  std::vector<CsvProcessFiles> out;
  for (const auto& [folder, prefix] : found) out.push_back({folder, prefix});
  return out;
}

void import_rocprofv3_csv(const CsvProcessFiles& f, const std::string& database) {
  const auto kernels = open(f, "kernel_trace.csv");
  const auto copies = open(f, "memory_copy_trace.csv");
  std::vector<Table> api;
  for (const char* suffix : kApiSuffixes)
    if (auto t = open(f, suffix)) api.push_back(std::move(*t));
  std::size_t records = (kernels ? kernels->size() : 0) + (copies ? copies->size() : 0);
  for (const auto& t : api) records += t.size();
  const std::string what = (fs::path(f.folder) / (f.prefix + "*.csv")).string();
  if (records == 0)
    throw Error(ExitCode::InputEmpty, fmt::format("{}: no kernel, copy or API record to import", what));

  rocpd::NodeRow node;
  rocpd::ProcessRow proc;
  proc.pid = process_id(f, api);
  proc.command = "(imported from rocprofv3 CSV)";
  TimeNs first = INT64_MAX, last = 0;
  auto span = [&](TimeNs s, TimeNs e) {
    first = std::min(first, s);
    last = std::max(last, e);
  };
  // Threads, queues and streams first: the writer's rows refer to them.
  std::set<int64_t> threads, queues, streams = {0};
  if (kernels)
    for (std::size_t r = 0; r < kernels->size(); ++r) {
      threads.insert(kernels->number_or(r, "Thread_Id", 0));
      queues.insert(kernels->number(r, "Queue_Id"));
      streams.insert(kernels->number_or(r, "Stream_Id", 0));
      span(kernels->number(r, "Start_Timestamp"), kernels->number(r, "End_Timestamp"));
    }
  if (copies)
    for (std::size_t r = 0; r < copies->size(); ++r) {
      streams.insert(copies->number_or(r, "Stream_Id", 0));
      span(copies->number(r, "Start_Timestamp"), copies->number(r, "End_Timestamp"));
    }
  for (const auto& t : api)
    for (std::size_t r = 0; r < t.size(); ++r) {
      threads.insert(t.number(r, "Thread_Id"));
      span(t.number(r, "Start_Timestamp"), t.number(r, "End_Timestamp"));
    }
  proc.init = proc.start = first;
  proc.end = proc.fini = last;

  rocpd::Writer w(database, node, proc);
  Agents agents(w, open(f, "agent_info.csv"));
  for (int64_t tid : threads) w.add_thread({tid, "", first, last});
  for (int64_t q : queues) w.add_queue(q, fmt::format("Queue {}", q));
  for (int64_t s : streams) w.add_stream(s, s == 0 ? "Default Stream" : fmt::format("Stream {}", s));

  if (kernels) {
    std::set<int64_t> symbols;
    const bool has_dispatch_ids = kernels->has("Dispatch_Id");
    for (std::size_t r = 0; r < kernels->size(); ++r) {
      const int64_t kernel_id = kernels->number(r, "Kernel_Id");
      const uint32_t lds = u32(kernels->number_or(r, "Group_Segment_Size", kernels->number_or(r, "LDS_Block_Size", 0)));
      const uint32_t scratch =
          u32(kernels->number_or(r, "Private_Segment_Size", kernels->number_or(r, "Scratch_Size", 0)));
      if (symbols.insert(kernel_id).second) {
        rocpd::KernelSymbolRow s;
        s.id = kernel_id;
        s.kernel_name = s.display_name = kernels->text(r, "Kernel_Name");
        s.group_segment_size = lds;
        s.private_segment_size = scratch;
        s.arch_vgpr_count = u32(kernels->number_or(r, "VGPR_Count", 0));
        s.accum_vgpr_count = u32(kernels->number_or(r, "Accum_VGPR_Count", 0));
        s.sgpr_count = u32(kernels->number_or(r, "SGPR_Count", 0));
        w.add_kernel_symbol(s);
      }
      rocpd::DispatchRow d;
      d.dispatch_id = has_dispatch_ids ? kernels->number(r, "Dispatch_Id") : static_cast<int64_t>(r + 1);
      d.tid = kernels->number_or(r, "Thread_Id", 0);
      d.agent_id = agents.of(kernels->text(r, "Agent_Id"));
      d.kernel_id = kernel_id;
      d.queue_id = kernels->number(r, "Queue_Id");
      d.stream_id = kernels->number_or(r, "Stream_Id", 0);
      d.start = kernels->number(r, "Start_Timestamp");
      d.end = kernels->number(r, "End_Timestamp");
      d.private_segment_size = scratch;
      d.group_segment_size = lds;
      const char* axes[] = {"X", "Y", "Z"};
      for (int a = 0; a < 3; ++a) {
        d.workgroup[a] = u32(kernels->number_or(r, fmt::format("Workgroup_Size_{}", axes[a]), 1));
        d.grid[a] = u32(kernels->number_or(r, fmt::format("Grid_Size_{}", axes[a]), 1));
      }
      d.correlation_id = kernels->number_or(r, "Correlation_Id", 0);
      w.add_dispatch(d);
    }
  }
  if (copies)
    for (std::size_t r = 0; r < copies->size(); ++r) {
      rocpd::MemoryCopyRow c;
      c.id = static_cast<int64_t>(r + 1);
      c.start = copies->number(r, "Start_Timestamp");
      c.end = copies->number(r, "End_Timestamp");
      c.kind = copies->text(r, "Direction");  // MEMORY_COPY_HOST_TO_DEVICE, ... (rocprofv3's operation names)
      c.src_agent_id = agents.of(copies->text(r, "Source_Agent_Id"));
      c.dst_agent_id = agents.of(copies->text(r, "Destination_Agent_Id"));
      c.stream_id = copies->number_or(r, "Stream_Id", 0);
      c.correlation_id = copies->number_or(r, "Correlation_Id", 0);
      w.add_memory_copy(c);
    }
  for (const auto& t : api)
    for (std::size_t r = 0; r < t.size(); ++r) {
      rocpd::RegionRow region;
      region.tid = t.number(r, "Thread_Id");
      region.start = t.number(r, "Start_Timestamp");
      region.end = t.number(r, "End_Timestamp");
      region.name = t.text(r, "Function");
      region.category = t.text(r, "Domain");
      region.correlation_id = t.number_or(r, "Correlation_Id", 0);
      w.add_region(region);
    }
  w.finish();
}

std::vector<std::string> import_rocprofv3_csv_dir(const std::string& dir, const std::string& output_dir) {
  const auto sets = find_rocprofv3_csv(dir);
  if (sets.empty())
    throw Error(ExitCode::InputMissing,
                fmt::format("{}: no rocprofv3 CSV file (*kernel_trace.csv, *memory_copy_trace.csv, *_api_trace.csv) "
                            "under this folder",
                            dir));
  std::vector<std::string> out;
  for (const auto& set : sets) {
    const fs::path folder = (fs::path(output_dir) / fs::relative(set.folder, dir)).lexically_normal();
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", folder.string(), ec.message()));
    // "<pid>_results.db", as rocprofv3 of ROCm 7.x names its databases (find_rocpd_databases looks for that).
    std::string stem = set.prefix.empty() ? "rocprofv3_" : set.prefix;
    if (!stem.ends_with('_')) stem += '_';
    const std::string db = (folder / (stem + "results.db")).string();
    import_rocprofv3_csv(set, db);
    out.push_back(db);
  }
  return out;
}

}  // namespace rpl::collectors
