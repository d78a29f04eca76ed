#include "app/pc_sampling.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "collectors/amd/rocprof_pc_sampling.hpp"
#include "collectors/nvidia/pc_sampling_files.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"
#include "support/process.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> files_matching(const std::string& dir, std::string_view prefix, std::string_view suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.starts_with(prefix) && name.ends_with(suffix)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

ProcessResult run(const PcSamplingOptions& o, std::vector<std::string> argv,
                  std::vector<std::pair<std::string, std::string>> env) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.stdout_file = (fs::path(o.run_dir) / "app.stdout").string();
  if (!o.debug) spec.stderr_file = (fs::path(o.run_dir) / "app.stderr").string();
  spec.timeout_s = o.timeout_s;
  ProcessResult r = run_process(spec);
  if (!r.ok())
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("the PC-sampling run of {} {}{}", o.argv[0], r.describe(),
                            o.debug ? std::string() : "; its stderr ends with:\n" + tail_of_file(*spec.stderr_file)));
  return r;
}

// nvdisasm from PATH, CUDA_HOME or the default toolkit location.
std::optional<std::string> find_nvdisasm() {
  if (auto p = find_executable("nvdisasm")) return p;
  for (const char* root : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"})
    if (root && fs::exists(fs::path(root) / "bin" / "nvdisasm")) return (fs::path(root) / "bin" / "nvdisasm").string();
  return std::nullopt;
}

std::vector<PcSampleRecord> nvidia(const PcSamplingOptions& o, PcSamplingResult& result) {
  auto library = find_libexec("librpl_pc_sampling.so", "RPL_PC_SAMPLING_LIBRARY");
  if (!library)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("--pc-sampling: librpl_pc_sampling.so was not found in {} (it is built only where CUPTI "
                            "is found); set RPL_PC_SAMPLING_LIBRARY to its path",
                            libexec_locations()));
  std::vector<std::pair<std::string, std::string>> env = {{"CUDA_INJECTION64_PATH", *library},
                                                          {"RPL_PC_SAMPLING_DIR", o.run_dir}};
  if (o.debug) env.emplace_back("RPL_PC_SAMPLING_VERBOSE", "1");
  run(o, o.argv, env);
  result.method = "cupti-pc-sampling (continuous)";
  std::vector<PcSampleRecord> records;
  for (const fs::path& csv : files_matching(o.run_dir, "pc_samples_", ".csv")) {
    auto part = collectors::parse_pc_samples_csv(read_input_file(csv.string(), "PC samples"), csv.string());
    records.insert(records.end(), part.begin(), part.end());
  }
  auto nvdisasm = find_nvdisasm();
  if (!nvdisasm) {
    log::warn("--pc-sampling: nvdisasm (CUDA toolkit) was not found: instructions are shown by offset only");
    return records;
  }
  result.disassembler = *nvdisasm;
  for (const fs::path& cubin : files_matching(o.run_dir, "cubin_", ".cubin")) {
    const std::string stem = cubin.stem().string();  // cubin_<crc>
    const uint64_t crc = std::strtoull(stem.c_str() + 6, nullptr, 10);
    bool sampled = false;
    for (const auto& r : records) sampled = sampled || r.module == crc;
    if (!sampled) continue;  // only the cubins that have samples are disassembled
    ProcessSpec spec;
    spec.argv = {*nvdisasm, cubin.string()};
    const std::string listing = (fs::path(cubin).replace_extension(".sass")).string();
    spec.stdout_file = listing;
    spec.stderr_file = listing + ".log";
    ProcessResult r = run_process(spec);
    if (!r.ok()) {
      log::warn("--pc-sampling: nvdisasm {} {}; its instructions are shown by offset only", cubin.string(), r.describe());
      continue;
    }
    collectors::attach_sass(records, crc, collectors::parse_nvdisasm_listing(read_input_file(listing, "nvdisasm listing")));
  }
  return records;
}

std::vector<PcSampleRecord> amd(const PcSamplingOptions& o, PcSamplingResult& result) {
  auto rocprofv3 = find_executable("rocprofv3");
  if (!rocprofv3)
    throw Error(ExitCode::ProfilerFailed, "--pc-sampling on ROCm needs rocprofv3 (ROCm 7) on PATH; it was not found");
  std::vector<std::string> argv = {*rocprofv3};
  for (auto& a : collectors::rocprofv3_pc_sampling_options(o.amd_interval_us)) argv.push_back(a);
  for (auto& a : std::vector<std::string>{"-d", o.run_dir, "-o", "pc", "--"}) argv.push_back(a);
  argv.insert(argv.end(), o.argv.begin(), o.argv.end());
  run(o, argv, {});
  result.method = "rocprofv3 host_trap";
  result.validated_on_hardware = false;
  std::string kernel_trace;
  for (const fs::path& kt : files_matching(o.run_dir, "", "kernel_trace.csv"))
    kernel_trace += read_input_file(kt.string(), "rocprofv3 kernel trace");
  std::vector<PcSampleRecord> records;
  for (const char* kind : {"pc_sampling_host_trap.csv", "pc_sampling_stochastic.csv"})
    for (const fs::path& csv : files_matching(o.run_dir, "", kind)) {
      auto part = collectors::parse_rocprof_pc_sampling(read_input_file(csv.string(), "rocprofv3 PC samples"),
                                                        kernel_trace, csv.string());
      records.insert(records.end(), part.begin(), part.end());
    }
  return records;
}

}  // namespace

PcSamplingResult run_pc_sampling(const PcSamplingOptions& o) {
  std::error_code ec;
  fs::remove_all(o.run_dir, ec);  // only our own pass directory from an earlier profile
  fs::create_directories(o.run_dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", o.run_dir, ec.message()));
  PcSamplingResult result;
  result.run_dir = o.run_dir;
  std::vector<PcSampleRecord> records = o.platform == platform::Kind::Cuda ? nvidia(o, result) : amd(o, result);
  for (const auto& r : records) result.total_samples += r.samples;
  if (result.total_samples == 0)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("--pc-sampling: the run produced no PC samples (see {}); did the application launch "
                            "kernels long enough to be sampled?",
                            o.run_dir));
  result.kernels = analysis::pc_hotspots(records, o.top);
  return result;
}

}  // namespace rpl::app
