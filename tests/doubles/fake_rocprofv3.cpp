// TEST DOUBLE — not AMD's rocprofv3. A stand-in with the same command-line contract
// (`rocprofv3 [options] -- APP [ARGS]`, output under -d DIR as DIR/<hostname>/<pid>_results.db), used by
// the tests of `rocm-perf profile` on machines without ROCm. It runs the application for real, then
// writes a schema-faithful rocpd database through our writer.
//
// Controlled by environment variables:
//   FAKE_ROCPROFV3_MODE       ok (default) | fail (exit 1, write nothing) | no-output (run the app, write
//                             nothing) | crash-app-db (write the database even though the app failed) |
//                             fail-counters (counter runs with -i fail) | att-undecoded (see --att below)
//   FAKE_ROCPROFV3_ARGV_LOG   append each command line's options to this file
// Accepts the trace options rocm-perf's presets use (--hip-trace, --hsa-trace, --marker-trace, --rccl-trace,
// --output-format with several formats; with pftrace it also writes a placeholder .pftrace).
// Library markers: with --marker-trace and HIPBLASLT_ENABLE_MARKER=1 in its environment (hipBLASLt's switch),
// each launch gets a "hipblasLtMatmul" MARKER_CORE_API region around its hipLaunchKernel region (thread 7).
// rocBLAS: with ROCBLAS_LAYER=4 and ROCBLAS_LOG_PROFILE_PATH in its environment (rocBLAS's profile logging) and
// FAKE_ROCPROFV3_ROCBLAS_CALLS="function:count;...", the run writes that log as rocBLAS would at the app's exit.
// Scratch memory: with --scratch-memory-trace every dispatch needs 512 bytes of scratch per work-item, each
// kernel's first launch follows a 4 MiB SCRATCH ALLOC row (6 us, agent 1, queue 1, flags 1) and a RECLAIM row
// ends the run (rocpd_memory_allocate, event category SCRATCH_MEMORY).
//   FAKE_ROCPROFV3_KERNELS    "name:count:duration_ns;..." (names may contain commas) (default "vecAdd(float*, float*, int):3:16000")
//   FAKE_ROCPROFV3_PROCESSES  databases to write, as if the app had started children (default 1)
//   FAKE_ROCPROFV3_ARCH       the GPU agent's architecture: gfx90a (default, MI210), gfx942 (MI300X), gfx1030,
//                             gfx1100
//   FAKE_ROCPROFV3_VERSION    7.0 (default: --output-format rocpd) | 6.2 | 6.3: ROCm 6.x's rocprofv3, whose --help
//                             lists csv, json, pftrace, otf2 (no rocpd), which refuses rocpd, and which writes with
//                             `--output-format csv` DIR/<hostname>/<pid>_{agent_info,kernel_trace,memory_copy_trace,
//                             hip_api_trace}.csv in that version's layout (rocprofiler-sdk's generateCSV.cpp at the
//                             rocm-6.2.0 tag; 6.3 adds Thread_Id and Dispatch_Id to kernel_trace.csv)
// `--help` prints the output-format line of the version's help (and is not logged).
//
// Counter runs (`-i FILE` with "pmc:" lines, as rocprofv3 ROCm 7.x): the application runs once per pmc line
// and each run writes DIR/pmc_<N>/<hostname>/<pid>_results.db holding the dispatches (timestamps of that run,
// shifted and 10 % longer, as counter collection serialises) and, for dispatches whose kernel name matches
// --kernel-include-regex (default all), one rocpd_info_pmc row per counter and TWO rocpd_pmc_event rows per
// (dispatch, counter) holding half the value each (rocprofv3 writes one row per counter dimension; readers
// must sum them). A counter's per-dispatch value is 1000 unless FAKE_ROCPROFV3_COUNTER_VALUES says
// "NAME=value;NAME=value". FAKE_ROCPROFV3_COUNTER_KERNELS replaces FAKE_ROCPROFV3_KERNELS in counter runs
// (to simulate a run that launches differently). With FAKE_ROCPROFV3_VERSION 6.x the runs write
// DIR/pmc_<N>/<hostname>/<pid>_results.json instead (--output-format json; see write_json_counters), and nothing
// for other formats.
// Thread trace (`--att`): DIR/<hostname>/<pid>_results.db plus, for the first dispatch of each matching
// kernel, a decoded ui_output_agent_1_dispatch_<id>/ folder (code.json, occupancy.json, one wave file) and its
// stats_*.csv, shaped as rocprofv3's att tool writes them. FAKE_ROCPROFV3_MODE=att-undecoded writes only a raw
// .att file, as when the decoder library is missing.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/rocpd_writer.hpp"
#include "support/process.hpp"

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct KernelSpec {
  std::string name;
  int count;
  int64_t duration;
};

std::vector<KernelSpec> parse_kernels(const std::string& spec) {
  std::vector<KernelSpec> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto c2 = item.rfind(':');
    auto c1 = item.rfind(':', c2 - 1);
    out.push_back({item.substr(0, c1), std::stoi(item.substr(c1 + 1, c2 - c1 - 1)), std::stoll(item.substr(c2 + 1))});
  }
  return out;
}

struct Agent {
  std::string arch, product, extdata;
};

Agent agent_for(const std::string& arch) {
  if (arch == "gfx942")
    return {arch, "AMD Instinct MI300X",
            R"({"cu_count":304,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"lds_size_in_kb":64,"max_engine_clk_fcompute":2100})"};
  if (arch == "gfx1030")
    return {arch, "AMD Radeon RX 6900 XT",
            R"({"cu_count":80,"simd_per_cu":2,"max_waves_per_simd":16,"wave_front_size":32,"lds_size_in_kb":64,"max_engine_clk_fcompute":2250})"};
  if (arch == "gfx1100")
    return {arch, "AMD Radeon RX 7900 XTX",
            R"({"cu_count":96,"simd_per_cu":2,"max_waves_per_simd":16,"wave_front_size":32,"lds_size_in_kb":64,"max_engine_clk_fcompute":2500})"};
  return {"gfx90a", "AMD Instinct MI210",
          R"({"cu_count":104,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"lds_size_in_kb":64,"max_engine_clk_fcompute":1700})"};
}

struct CounterSpec {
  std::vector<std::string> names;              // this pass's counters; empty: a trace run
  std::map<std::string, double> values;        // per-dispatch values; default 1000
  std::optional<std::regex> include;           // kernels whose dispatches get counters
};

// What a trace run records besides dispatches (the options and the library environment it saw).
struct TraceExtras {
  bool library_markers = false;  // --marker-trace with HIPBLASLT_ENABLE_MARKER=1: a hipblasLtMatmul range per launch
  bool scratch = false;          // --scratch-memory-trace: scratch ALLOC / FREE rows around each kernel
};

struct DispatchInfo {
  int64_t id;
  std::string kernel;
};

// Writes DIR/<hostname>/<pid>_results.db; returns the dispatches written.
std::vector<DispatchInfo> write_db(const std::string& dir, int64_t pid, const std::vector<KernelSpec>& kernels,
                                   const CounterSpec& counters, const TraceExtras& extras = {}) {
  char host[256] = "host";
  gethostname(host, sizeof host);
  std::filesystem::create_directories(std::filesystem::path(dir) / host);
  std::string path = (std::filesystem::path(dir) / host / fmt::format("{}_results.db", pid)).string();
  rpl::rocpd::NodeRow node;
  node.hostname = host;
  rpl::rocpd::ProcessRow proc;
  proc.pid = pid;
  proc.command = "app";
  rpl::rocpd::Writer w(path, node, proc);
  const Agent agent = agent_for(env_or("FAKE_ROCPROFV3_ARCH", "gfx90a"));
  rpl::rocpd::AgentRow gpu;
  gpu.id = 1;
  gpu.name = agent.arch;
  gpu.product_name = agent.product;
  gpu.vendor_name = "AMD";
  gpu.extdata_json = agent.extdata;
  w.add_agent(gpu);
  w.add_queue(1, "Queue 0");
  w.add_stream(0, "Default Stream");
  for (std::size_t c = 0; c < counters.names.size(); ++c) {
    const std::string& name = counters.names[c];
    w.add_pmc_info({static_cast<int64_t>(100 + c), 1, name, "fake counter", name.substr(0, name.find('_'))});
  }
  const bool counting = !counters.names.empty();
  std::vector<DispatchInfo> written;
  int64_t t = counting ? 2'000'000'000 : 1'000'000'000, id = 1;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    rpl::rocpd::KernelSymbolRow s;
    s.id = static_cast<int64_t>(k + 1);
    s.kernel_name = fmt::format("_Z{}k{}", k, k);
    s.display_name = kernels[k].name;
    s.arch_vgpr_count = 32;
    s.sgpr_count = 16;
    w.add_kernel_symbol(s);
    const bool counted = counting && (!counters.include || std::regex_search(kernels[k].name, *counters.include));
    for (int i = 0; i < kernels[k].count; ++i) {
      rpl::rocpd::DispatchRow d;
      d.dispatch_id = id;
      d.correlation_id = id++;
      d.agent_id = 1;
      d.kernel_id = s.id;
      d.queue_id = 1;
      d.stream_id = 0;
      d.start = t;
      d.end = t + (counting ? kernels[k].duration * 11 / 10 : kernels[k].duration);
      t = d.end + 5000;
      d.workgroup[0] = 256;
      d.grid[0] = 256 * 1024;
      if (extras.scratch) {
        // the kernel spills 512 bytes per work-item; its first launch makes the runtime allocate the queue's
        // scratch (4 MiB), which the dispatch waits for
        d.private_segment_size = 512;
        if (i == 0) {
          rpl::rocpd::MemoryAllocationRow alloc;
          alloc.tid = 7;
          alloc.agent_id = 1;
          alloc.queue_id = 1;
          alloc.start = d.start - 8000;
          alloc.end = d.start - 2000;
          alloc.address = 0x7f0000000000 + k * 0x400000;
          alloc.size = 4 << 20;
          alloc.extdata_json = R"({"flags": 1})";
          w.add_memory_allocation(alloc);
        }
      }
      w.add_dispatch(d);
      written.push_back({d.dispatch_id, kernels[k].name});
      if (extras.library_markers) {
        // hipBLASLt's ROCTx range around its call, and the launch inside it (same thread, the dispatch's
        // correlation id), as rocprofv3 --marker-trace --hip-runtime-trace records them
        rpl::rocpd::RegionRow marker{7, d.start - 4000, d.start - 1000, "hipblasLtMatmul", "MARKER_CORE_API", 0, {}};
        rpl::rocpd::RegionRow launch{7, d.start - 3000, d.start - 2000, "hipLaunchKernel", "HIP_RUNTIME_API_EXT",
                                     d.correlation_id, {}};
        w.add_region(marker);
        w.add_region(launch);
      }
      if (!counted) continue;
      for (std::size_t c = 0; c < counters.names.size(); ++c) {
        auto it = counters.values.find(counters.names[c]);
        const double v = it == counters.values.end() ? 1000.0 : it->second;
        for (int dim = 0; dim < 2; ++dim) w.add_pmc_value({d.dispatch_id, static_cast<int64_t>(100 + c), v / 2});
      }
    }
  }
  if (extras.scratch) {  // the runtime gives the scratch back at the end
    rpl::rocpd::MemoryAllocationRow reclaim;
    reclaim.tid = 7;
    reclaim.agent_id = 1;
    reclaim.queue_id = 1;
    reclaim.type = "RECLAIM";
    reclaim.start = t;
    reclaim.end = t + 1000;
    w.add_memory_allocation(reclaim);
  }
  w.finish();
  return written;
}

// A ROCm 6.x counter run's output: DIR/<hostname>/<pid>_results.json in rocprofv3's --output-format json layout
// (rocprofiler-sdk's generateJSON.cpp at rocm-6.2.0: record kinds and operations as numbers into
// strings.buffer_records, KERNEL_DISPATCH = 11; kernel symbols without register counts, which the counter records
// carry), the same dispatches, times and values as write_db writes for a counter run.
void write_json_counters(const std::string& dir, int64_t pid, const std::vector<KernelSpec>& kernels,
                         const CounterSpec& counters) {
  using nlohmann::json;
  char host[256] = "host";
  gethostname(host, sizeof host);
  const Agent agent = agent_for(env_or("FAKE_ROCPROFV3_ARCH", "gfx90a"));
  const int64_t gpu = 0x5581a0001000, queue = 0x7f3a00002000;
  json a = json::parse(agent.extdata);
  a.update({{"size", 440}, {"id", {{"handle", gpu}}}, {"type", 2}, {"name", agent.arch}, {"product_name", agent.product},
            {"vendor_name", "AMD"}, {"node_id", 1}, {"logical_node_id", 1}, {"capability", json::object()}});
  json names = json::array();
  for (int k = 0; k <= 11; ++k) names.push_back({{"kind", k == 11 ? "KERNEL_DISPATCH" : ""}, {"operations", json::array()}});
  json doc = {{"metadata", {{"pid", pid}, {"init_time", 1'900'000'000}, {"fini_time", 2'900'000'000}}},
              {"agents", json::array({a})}, {"counters", json::array()}, {"code_objects", json::array()},
              {"kernel_symbols", json::array()}, {"strings", {{"buffer_records", names}, {"marker_api", json::array()}}},
              {"callback_records", {{"counter_collection", json::array()}}},
              {"buffer_records", {{"kernel_dispatch", json::array()}, {"hip_api", json::array()}}}};
  for (std::size_t c = 0; c < counters.names.size(); ++c)
    doc["counters"].push_back({{"agent_id", {{"handle", gpu}}}, {"id", {{"handle", 100 + c}}}, {"is_constant", 0},
                               {"is_derived", 0}, {"name", counters.names[c]}, {"description", "fake counter"},
                               {"block", counters.names[c].substr(0, counters.names[c].find('_'))},
                               {"expression", ""}, {"dimension_ids", json::array()}});
  int64_t t = 2'000'000'000, id = 1;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    doc["kernel_symbols"].push_back({{"kernel_id", k + 1}, {"code_object_id", 1}, {"kernel_name", fmt::format("_Z{}k{}", k, k)},
                                     {"demangled_kernel_name", kernels[k].name}, {"group_segment_size", 0},
                                     {"private_segment_size", 0}});
    const bool counted = !counters.include || std::regex_search(kernels[k].name, *counters.include);
    for (int i = 0; i < kernels[k].count; ++i, ++id) {
      const json info = {{"size", 72}, {"agent_id", {{"handle", gpu}}}, {"queue_id", {{"handle", queue}}},
                         {"kernel_id", k + 1}, {"dispatch_id", id}, {"private_segment_size", 0}, {"group_segment_size", 0},
                         {"workgroup_size", {{"x", 256}, {"y", 1}, {"z", 1}}}, {"grid_size", {{"x", 256 * 1024}, {"y", 1}, {"z", 1}}}};
      const int64_t end = t + kernels[k].duration * 11 / 10;
      doc["buffer_records"]["kernel_dispatch"].push_back(
          {{"size", 120}, {"kind", 11}, {"operation", 0}, {"thread_id", pid}, {"correlation_id", {{"internal", id}, {"external", 0}}},
           {"start_timestamp", t}, {"end_timestamp", end}, {"dispatch_info", info}});
      t = end + 5000;
      if (!counted) continue;
      json records = json::array();
      for (std::size_t c = 0; c < counters.names.size(); ++c) {
        auto it = counters.values.find(counters.names[c]);
        const double v = it == counters.values.end() ? 1000.0 : it->second;
        for (int dim = 0; dim < 2; ++dim) records.push_back({{"counter_id", {{"handle", 100 + c}}}, {"value", v / 2}});
      }
      doc["callback_records"]["counter_collection"].push_back(
          {{"dispatch_data", {{"size", 64}, {"correlation_id", {{"internal", id}, {"external", 0}}}, {"dispatch_info", info}}},
           {"records", records}, {"thread_id", pid}, {"arch_vgpr_count", 32}, {"sgpr_count", 16}, {"lds_block_size_v", 0}});
    }
  }
  std::filesystem::create_directories(std::filesystem::path(dir) / host);
  std::ofstream(std::filesystem::path(dir) / host / fmt::format("{}_results.json", pid))
      << json{{"rocprofiler-sdk-tool", json::array({doc})}}.dump(1);
}

std::map<std::string, double> parse_values(const std::string& spec) {
  std::map<std::string, double> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto eq = item.find('=');
    if (eq != std::string::npos) out[item.substr(0, eq)] = std::stod(item.substr(eq + 1));
  }
  return out;
}

// The "pmc:" lines of a rocprofv3 text input file, one counter list per pass.
std::vector<std::vector<std::string>> read_pmc_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    fmt::print(stderr, "fake rocprofv3: cannot read input file {}\n", path);
    std::exit(2);
  }
  std::vector<std::vector<std::string>> passes;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pmc:", 0) != 0) continue;
    std::stringstream words(line.substr(4));
    passes.emplace_back();
    for (std::string w; words >> w;) passes.back().push_back(w);
  }
  return passes;
}

void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// A decoded thread trace of one dispatch, shaped like rocprofv3's att tool output.
void write_att_dispatch(const std::filesystem::path& dir, const DispatchInfo& d) {
  const std::string name = fmt::format("ui_output_agent_1_dispatch_{}", d.id);
  std::filesystem::create_directories(dir / name);
  write_text(dir / name / "code.json",
             R"J({"code": [["v_fma_f32 v1, v2, v3", 0, 1, "", 1, 4096, 1000, 4000, 1500, 200],)J"
             R"J( ["global_load_dword v1, v[2:3], off", 0, 2, "", 1, 4104, 500, 30000, 20000, 100],)J"
             R"J( ["s_waitcnt vmcnt(0)", 0, 3, "", 1, 4112, 500, 25000, 24000, 0],)J"
             R"J( ["s_cbranch_scc1 4", 0, 4, "", 1, 4116, 500, 1000, 200, 0],)J"
             R"J( ["s_endpgm", 0, 5, "", 1, 4120, 100, 100, 0, 0]],)J"
             R"J( "version": "fake", "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"})J");
  write_text(dir / name / "occupancy.json",
             R"J({"0": [[0, 0, 0, 0, 1, 0], [0, 0, 1, 0, 1, 0], [800, 0, 1, 0, 0, 0], [1000, 0, 0, 0, 0, 0]],)J"
             R"J( "dispatches": {"0": ")J" + d.kernel + R"J("}, "version": "3.0.0"})J");
  write_text(dir / name / "se0_sm0_sl0_wv0.json",
             R"J({"name": "SE0", "duration": 1000, "wave": {"cu": 0, "id": 0, "simd": 0, "slot": 0, "begin": 0,)J"
             R"J( "end": 1000, "instructions": [[0, 0, 900, 10, 2], [100, 0, 600, 10, 3]],)J"
             R"J( "timeline": [[2, 300], [3, 500], [4, 200]]}})J");
  write_text(dir / ("stats_" + name + ".csv"), "CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n");
}


// ROCm 6.x's CSV output of one process (see FAKE_ROCPROFV3_VERSION above). Strings in double quotes, numbers
// bare, headers quoted, as rocprofiler-sdk's csv encoder writes them.
void write_csv(const std::string& dir, int64_t pid, const std::vector<KernelSpec>& kernels, const std::string& version) {
  char host[256] = "host";
  gethostname(host, sizeof host);
  const auto folder = std::filesystem::path(dir) / host;
  std::filesystem::create_directories(folder);
  auto file = [&](const char* suffix) { return std::ofstream(folder / fmt::format("{}_{}", pid, suffix)); };
  const Agent agent = agent_for(env_or("FAKE_ROCPROFV3_ARCH", "gfx90a"));
  const bool v63 = version != "6.2";
  {
    auto f = file("agent_info.csv");
    f << R"("Node_Id","Logical_Node_Id","Agent_Type","Cpu_Cores_Count","Simd_Count","Cpu_Core_Id_Base","Simd_Id_Base",)"
         R"("Max_Waves_Per_Simd","Lds_Size_In_Kb","Gds_Size_In_Kb","Num_Gws","Wave_Front_Size","Num_Xcc","Cu_Count",)"
         R"("Array_Count","Num_Shader_Banks","Simd_Arrays_Per_Engine","Cu_Per_Simd_Array","Simd_Per_Cu",)"
         R"("Max_Slots_Scratch_Cu","Gfx_Target_Version","Vendor_Id","Device_Id","Location_Id","Domain",)"
         R"("Drm_Render_Minor","Num_Sdma_Engines","Num_Sdma_Xgmi_Engines","Num_Sdma_Queues_Per_Engine","Num_Cp_Queues",)"
         R"("Max_Engine_Clk_Ccompute","Max_Engine_Clk_Fcompute","Sdma_Fw_Version","Fw_Version","Capability",)"
         R"("Cu_Per_Engine","Max_Waves_Per_Cu","Family_Id","Workgroup_Max_Size","Grid_Max_Size","Local_Mem_Size",)"
         R"("Hive_Id","Gpu_Id","Workgroup_Max_Dim_X","Workgroup_Max_Dim_Y","Workgroup_Max_Dim_Z","Grid_Max_Dim_X",)"
         R"("Grid_Max_Dim_Y","Grid_Max_Dim_Z","Name","Vendor_Name","Product_Name","Model_Name")" "\n";
    // A CPU agent (node 0) and the GPU (node 1), as the KFD topology lists them.
    f << R"(0,0,"CPU",32,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4098,0,0,0,0,0,0,0,0,3000,0,0,0,0,0,0,23,0,0,0,0,0,0,0,0,0,0,0,0,"AMD EPYC","CPU","AMD EPYC","")" "\n";
    const auto x = nlohmann::json::parse(agent.extdata);  // the same hardware as the rocpd database's agent
    const int cus = x["cu_count"], simds = x["simd_per_cu"], waves = x["max_waves_per_simd"];
    const int target = agent.arch == "gfx942" ? 90402 : agent.arch == "gfx1030" ? 100300 : agent.arch == "gfx1100" ? 110000 : 90010;
    f << fmt::format(R"(1,1,"GPU",0,{},0,0,{},64,0,0,{},1,{},0,0,0,0,{},0,{},4098,29704,0,0,128,2,0,8,24,800,{},0,0,0,0,{},0,1024,0,0,0,0,1024,1024,1024,0,0,0,"{}","AMD","{}","")" "\n",
                     cus * simds, waves, x["wave_front_size"].get<int>(), cus, simds, target,
                     x["max_engine_clk_fcompute"].get<int>(), simds * waves, agent.arch, agent.product);
  }
  auto kt = file("kernel_trace.csv");
  kt << (v63 ? R"("Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",)"
             : R"("Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id",)")
     << R"("Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",)"
        R"("Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z")" "\n";
  auto api = file("hip_api_trace.csv");
  api << R"("Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp")" "\n";
  auto mc = file("memory_copy_trace.csv");
  mc << R"("Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp",)"
        R"("End_Timestamp")" "\n";
  int64_t t = 1'000'000'000, id = 1;
  const int64_t tid = pid + 1;
  // one host-to-device copy first, as an application uploading its inputs
  api << fmt::format(R"("HIP_RUNTIME_API","hipMemcpy",{},{},{},{},{})" "\n", pid, tid, id, t, t + 9000);
  mc << fmt::format(R"("MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,{},{},{})" "\n", id, t + 1000, t + 8000);
  t += 10000;
  ++id;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    for (int i = 0; i < kernels[k].count; ++i) {
      api << fmt::format(R"("HIP_RUNTIME_API","hipLaunchKernel",{},{},{},{},{})" "\n", pid, tid, id, t - 3000, t - 1000);
      const std::string ids = v63 ? fmt::format("{},{},", tid, id - 1) : "";
      kt << fmt::format(R"("KERNEL_DISPATCH",1,1,{}{},"{}",{},{},{},0,0,256,1,1,262144,1,1)" "\n", ids, k + 1,
                        kernels[k].name, id, t, t + kernels[k].duration);
      t += kernels[k].duration + 5000;
      ++id;
    }
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = env_or("FAKE_ROCPROFV3_MODE", "ok");
  std::string out_dir = ".", input_file;
  std::optional<std::regex> include;
  std::vector<std::string> app;
  bool kernel_trace = false, att = false, markers = false, scratch = false;
  std::vector<std::string> output_formats;
  const std::string version = env_or("FAKE_ROCPROFV3_VERSION", "7.0");
  const bool rocm6 = version.rfind("6.", 0) == 0;
  if (argc == 2 && std::string(argv[1]) == "--help") {
    fmt::print("  -f {{{}}} [...], --output-format ...\n", rocm6 ? "csv,json,pftrace,otf2" : "csv,json,pftrace,otf2,rocpd");
    return 0;
  }
  // FAKE_ROCPROFV3_ARGV_LOG: append each command line (options only) to this file, so tests can check
  // what rocm-perf asked for.
  if (const char* log = std::getenv("FAKE_ROCPROFV3_ARGV_LOG")) {
    std::ofstream out(log, std::ios::app);
    for (int i = 1; i < argc && std::string(argv[i]) != "--"; ++i) out << (i > 1 ? " " : "") << argv[i];
    out << "\n";
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      app.assign(argv + i + 1, argv + argc);
      break;
    }
    if (a == "-d" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--output-format") {
      // One or more formats (rocpd, pftrace, csv, ...) up to the next option.
      while (i + 1 < argc && argv[i + 1][0] != '-') output_formats.push_back(argv[++i]);
    }
    else if (a == "-i" && i + 1 < argc) input_file = argv[++i];
    else if (a == "--kernel-include-regex" && i + 1 < argc) include.emplace(argv[++i]);
    else if (a == "--kernel-trace") kernel_trace = true;
    else if (a == "--marker-trace") markers = true;
    else if (a == "--scratch-memory-trace") scratch = true;
    else if (a == "--att") att = true;
    else if (a == "--memory-copy-trace" || a == "--hip-runtime-trace" || a == "--hip-trace" || a == "--hsa-trace" ||
             a == "--rccl-trace") {
    } else {
      fmt::print(stderr, "fake rocprofv3: unrecognized argument '{}'\n", a);
      return 2;
    }
  }
  if (app.empty()) {
    fmt::print(stderr, "fake rocprofv3: missing -- APP\n");
    return 2;
  }
  const bool csv = std::find(output_formats.begin(), output_formats.end(), "csv") != output_formats.end();
  const bool json_output = std::find(output_formats.begin(), output_formats.end(), "json") != output_formats.end();
  if (rocm6 && std::find(output_formats.begin(), output_formats.end(), "rocpd") != output_formats.end()) {
    fmt::print(stderr, "rocprofv3: error: argument -f/--output-format: invalid choice: 'rocpd'\n");
    return 2;
  }
  if (mode == "fail") {
    fmt::print(stderr, "fake rocprofv3: simulated profiler failure\n");
    return 1;
  }
  const auto kernels = parse_kernels(env_or("FAKE_ROCPROFV3_KERNELS", "vecAdd(float*, float*, int):3:16000"));
  const int processes = std::stoi(env_or("FAKE_ROCPROFV3_PROCESSES", "1"));
  auto run_app = [&] {
    rpl::ProcessSpec spec;
    spec.argv = app;
    return rpl::run_process(spec);
  };

  if (!input_file.empty()) {  // counter collection: one application run per pmc line
    if (mode == "fail-counters") {
      fmt::print(stderr, "fake rocprofv3: simulated counter collection failure (counter not supported)\n");
      return 1;
    }
    const auto passes = read_pmc_input(input_file);
    const auto counter_kernels = parse_kernels(env_or("FAKE_ROCPROFV3_COUNTER_KERNELS", env_or("FAKE_ROCPROFV3_KERNELS", "vecAdd(float*, float*, int):3:16000")));
    CounterSpec spec;
    spec.values = parse_values(env_or("FAKE_ROCPROFV3_COUNTER_VALUES", ""));
    spec.include = include;
    for (std::size_t n = 0; n < passes.size(); ++n) {
      rpl::ProcessResult r = run_app();
      if (!r.ok()) return r.signal ? 128 + r.signal : r.exit_code;
      if (mode == "no-output") continue;
      spec.names = passes[n];
      const std::string dir = (std::filesystem::path(out_dir) / fmt::format("pmc_{}", n + 1)).string();
      for (int p = 0; p < processes; ++p) {
        if (rocm6 && json_output) write_json_counters(dir, 200000 + getpid() * 10 + p, counter_kernels, spec);
        else if (!rocm6) write_db(dir, 200000 + getpid() * 10 + p, counter_kernels, spec);
      }
    }
    return 0;
  }

  rpl::ProcessResult r = run_app();
  // rocBLAS in the application: with ROCBLAS_LAYER=4 it writes its profile log at exit (FAKE_ROCPROFV3_ROCBLAS_CALLS
  // "function:count;...": what the application called; rocBLAS's documented line format).
  if (const std::string calls = env_or("FAKE_ROCPROFV3_ROCBLAS_CALLS", ""), path = env_or("ROCBLAS_LOG_PROFILE_PATH", "");
      !calls.empty() && !path.empty() && env_or("ROCBLAS_LAYER", "") == "4") {
    std::ofstream log(path);
    std::stringstream items(calls);
    for (std::string item; std::getline(items, item, ';');)
      log << fmt::format("- {{ rocblas_function: \"{}\", atomics_mode: atomics_allowed, transA: 'N', transB: 'T', "
                         "M: 128, N: 256, K: 64, alpha: 1.0, lda: 128, beta: 0.0, ldb: 256, ldc: 128, call_count: {} }}\n",
                         item.substr(0, item.rfind(':')), item.substr(item.rfind(':') + 1));
  }
  bool write = kernel_trace && mode != "no-output" && (r.ok() || mode == "crash-app-db");
  if (write) {
    for (int p = 0; p < processes; ++p) {
      if (rocm6) {
        if (csv) write_csv(out_dir, 100000 + getpid() * 10 + p, kernels, version);
        continue;
      }
      TraceExtras extras;
      extras.library_markers = markers && env_or("HIPBLASLT_ENABLE_MARKER", "") == "1";
      extras.scratch = scratch;
      auto written = write_db(out_dir, 100000 + getpid() * 10 + p, kernels, {}, extras);
      if (std::find(output_formats.begin(), output_formats.end(), "pftrace") != output_formats.end()) {
        char host[256] = "host";
        gethostname(host, sizeof host);
        write_text(std::filesystem::path(out_dir) / host / fmt::format("{}_results.pftrace", getpid()), "fake");
      }
      if (!att) continue;
      char host[256] = "host";
      gethostname(host, sizeof host);
      const auto dir = std::filesystem::path(out_dir) / host;
      std::map<std::string, bool> seen;
      for (const auto& d : written) {
        if (include && !std::regex_search(d.kernel, *include)) continue;
        if (seen[d.kernel]) continue;  // ATT traces the first dispatch of each kernel
        seen[d.kernel] = true;
        if (mode == "att-undecoded") write_text(dir / fmt::format("{}_1_shader_engine_0_{}.att", getpid(), d.id), "raw");
        else write_att_dispatch(dir, d);
      }
    }
  }
  return r.signal ? 128 + r.signal : r.exit_code;
}
