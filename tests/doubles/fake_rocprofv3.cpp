// TEST DOUBLE — not AMD's rocprofv3. A stand-in with the same command-line contract
// (`rocprofv3 [options] -- APP [ARGS]`, output under -d DIR as DIR/<hostname>/<pid>_results.db), used by
// the tests of `rocm-perf profile` on machines without ROCm. It runs the application for real, then
// writes a schema-faithful rocpd database through our writer.
//
// Controlled by environment variables:
//   FAKE_ROCPROFV3_MODE       ok (default) | fail (exit 1, write nothing) | no-output (run the app, write
//                             nothing) | crash-app-db (write the database even though the app failed)
//   FAKE_ROCPROFV3_KERNELS    "name:count:duration_ns;..." (names may contain commas) (default "vecAdd(float*, float*, int):3:16000")
//   FAKE_ROCPROFV3_PROCESSES  databases to write, as if the app had started children (default 1)
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

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

void write_db(const std::string& dir, int64_t pid, const std::vector<KernelSpec>& kernels) {
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
  rpl::rocpd::AgentRow gpu;
  gpu.id = 1;
  gpu.name = "gfx90a";
  gpu.product_name = "AMD Instinct MI210";
  gpu.vendor_name = "AMD";
  gpu.extdata_json = R"({"cu_count":104,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"lds_size_in_kb":64,"max_engine_clk_fcompute":1700})";
  w.add_agent(gpu);
  w.add_queue(1, "Queue 0");
  w.add_stream(0, "Default Stream");
  int64_t t = 1'000'000'000, id = 1;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    rpl::rocpd::KernelSymbolRow s;
    s.id = static_cast<int64_t>(k + 1);
    s.kernel_name = fmt::format("_Z{}k{}", k, k);
    s.display_name = kernels[k].name;
    s.arch_vgpr_count = 32;
    s.sgpr_count = 16;
    w.add_kernel_symbol(s);
    for (int i = 0; i < kernels[k].count; ++i) {
      rpl::rocpd::DispatchRow d;
      d.dispatch_id = id;
      d.correlation_id = id++;
      d.agent_id = 1;
      d.kernel_id = s.id;
      d.queue_id = 1;
      d.stream_id = 0;
      d.start = t;
      d.end = t + kernels[k].duration;
      t = d.end + 5000;
      d.workgroup[0] = 256;
      d.grid[0] = 256 * 1024;
      w.add_dispatch(d);
    }
  }
  w.finish();
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = env_or("FAKE_ROCPROFV3_MODE", "ok");
  std::string out_dir = ".";
  std::vector<std::string> app;
  bool kernel_trace = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      app.assign(argv + i + 1, argv + argc);
      break;
    }
    if (a == "-d" && i + 1 < argc) out_dir = argv[++i];
    else if (a == "--output-format" && i + 1 < argc) ++i;
    else if (a == "--kernel-trace") kernel_trace = true;
    else if (a == "--memory-copy-trace" || a == "--hip-runtime-trace") {
    } else {
      fmt::print(stderr, "fake rocprofv3: unrecognized argument '{}'\n", a);
      return 2;
    }
  }
  if (app.empty()) {
    fmt::print(stderr, "fake rocprofv3: missing -- APP\n");
    return 2;
  }
  if (mode == "fail") {
    fmt::print(stderr, "fake rocprofv3: simulated profiler failure\n");
    return 1;
  }
  rpl::ProcessSpec spec;
  spec.argv = app;
  rpl::ProcessResult r = rpl::run_process(spec);
  bool write = kernel_trace && mode != "no-output" && (r.ok() || mode == "crash-app-db");
  if (write) {
    auto kernels = parse_kernels(env_or("FAKE_ROCPROFV3_KERNELS", "vecAdd(float*, float*, int):3:16000"));
    int processes = std::stoi(env_or("FAKE_ROCPROFV3_PROCESSES", "1"));
    for (int p = 0; p < processes; ++p) write_db(out_dir, 100000 + getpid() * 10 + p, kernels);
  }
  return r.signal ? 128 + r.signal : r.exit_code;
}
