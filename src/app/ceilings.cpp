#include "app/ceilings.hpp"

#include <fmt/core.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "rpl/version.hpp"
#include "support/errors.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"
#include "support/process.hpp"
#include "support/temp_file.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

constexpr const char* kBenchName = "rpl_ceilings_bench";
// The benchmark's exit status for "no usable CUDA device" (ceilings_bench.cu); ours is ExitCode::NoDevice.
constexpr int kBenchNoDevice = 3;

// "key=value key=value ... name=rest of the line": `name` is last and may hold spaces.
std::string field(std::string_view line, std::string_view key) {
  const std::string tag = " " + std::string(key) + "=";
  std::size_t at = (" " + std::string(line)).find(tag);
  if (at == std::string::npos) return {};
  at += tag.size() - 1;  // into `line` (the leading space was added)
  if (key == "name") return std::string(line.substr(at));
  std::size_t end = line.find(' ', at);
  return std::string(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
}

double positive_number(const std::string& text, std::string_view what, const std::string& source) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v <= 0)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("{}: {} '{}' is not a positive number", source, what, text));
  return v;
}

std::string iso8601_utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string find_bench(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (auto found = find_libexec(kBenchName, "RPL_CEILINGS_BENCH")) return *found;
  throw Error(ExitCode::ProfilerFailed,
              fmt::format("the ceilings benchmark {} was not found in {}: it is built only where nvcc (the CUDA "
                          "toolkit) is found; set RPL_CEILINGS_BENCH or --bench to its path",
                          kBenchName, libexec_locations()));
}

}  // namespace

CeilingsResult parse_ceilings_bench_output(std::string_view text, const std::string& source) {
  CeilingsResult r;
  bool device_seen = false;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RPL_DEVICE ", 0) == 0) {
      device_seen = true;
      r.ceilings.arch = analysis::normalize_arch(field(line, "arch"));
      r.ceilings.product_name = field(line, "name");
      r.device_index = std::atoi(field(line, "index").c_str());
      r.sms = std::atoi(field(line, "sms").c_str());
      r.clock_mhz = std::atoi(field(line, "clock_mhz").c_str());
      if (r.ceilings.arch.empty())
        throw Error(ExitCode::ProfilerFailed, source + ": the RPL_DEVICE line names no arch: " + line);
    } else if (line.rfind("RPL_CEILING ", 0) == 0) {
      CeilingMeasurement m;
      m.key = field(line, "key");
      m.value = positive_number(field(line, "value"), "value of " + m.key, source);
      m.best_ms = positive_number(field(line, "best_ms"), "best_ms of " + m.key, source);
      m.reps = std::atoi(field(line, "reps").c_str());
      if (auto level = analysis::parse_mem_level(m.key))
        r.ceilings.bandwidth_gbps[static_cast<std::size_t>(*level)] = m.value;
      else if (auto cls = analysis::parse_compute_class(m.key))
        r.ceilings.gflops[cls->index()] = m.value;
      else
        throw Error(ExitCode::ProfilerFailed,
                    fmt::format("{}: '{}' is neither a memory level nor a compute class", source, m.key));
      r.measurements.push_back(std::move(m));
    }
  }
  if (!device_seen) throw Error(ExitCode::ProfilerFailed, source + ": no RPL_DEVICE line: not the ceilings benchmark's output");
  if (r.measurements.empty()) throw Error(ExitCode::ProfilerFailed, source + ": the benchmark measured nothing");
  return r;
}

void compare_with_table(CeilingsResult& r) {
  const auto match = analysis::find_device(r.ceilings.arch, r.ceilings.product_name, static_cast<uint32_t>(r.sms));
  if (!match.spec) {
    r.notes.push_back("no built-in table entry for this device (" + match.reason + "): nothing to compare with");
    return;
  }
  for (auto& m : r.measurements) {
    double table = 0;
    if (auto level = analysis::parse_mem_level(m.key)) table = match.spec->bandwidth(*level);
    else if (auto cls = analysis::parse_compute_class(m.key)) table = match.spec->peak(cls->pipe, cls->type) * match.compute_scale;
    if (table <= 0) continue;
    m.table_value = table;
    const double ratio = m.value / table;
    if (ratio > 1.05)
      r.notes.push_back(fmt::format("{}: measured {:.0f} is {:.0f}% of the table's {:.0f} for {}: above the published "
                                    "peak (a higher clock than the table assumes, or a measurement error)",
                                    m.key, m.value, 100 * ratio, table, match.spec->key));
    else if (ratio < 0.7)
      r.notes.push_back(fmt::format("{}: measured {:.0f} is only {:.0f}% of the table's {:.0f} for {}{}", m.key, m.value,
                                    100 * ratio, table, match.spec->key,
                                    m.key.rfind("matrix_", 0) == 0
                                        ? ": the benchmark uses warp-level mma.sync (wmma), which does not reach the "
                                          "peak that warpgroup MMA (wgmma) reaches on Hopper; kernels that use wgmma "
                                          "may show above this roof"
                                        : ""));
  }
}

CeilingsResult measure_ceilings(const CeilingsOptions& o) {
  if (o.reps < 1) throw Error(ExitCode::Usage, "--reps must be at least 1");
  if (o.device < 0) throw Error(ExitCode::Usage, "--device must not be negative");
  const std::string bench = find_bench(o.bench);
  std::error_code ec;
  const fs::path dir = temporary_directory() / fmt::format("rocm-perf-ceilings-{}", ::getpid());
  fs::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  ProcessSpec spec;
  spec.argv = {bench, "--device", std::to_string(o.device), "--reps", std::to_string(o.reps)};
  spec.stdout_file = (dir / "bench.stdout").string();
  spec.stderr_file = (dir / "bench.stderr").string();
  spec.timeout_s = o.timeout_s;
  log::info("measuring ceilings with {} (device {}, best of {})", bench, o.device, o.reps);
  const ProcessResult p = run_process(spec);
  const std::string err_tail = tail_of_file(*spec.stderr_file);
  std::string out_text;
  {
    std::FILE* f = std::fopen(spec.stdout_file->c_str(), "rb");
    if (f) {
      char buf[4096];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out_text.append(buf, n);
      std::fclose(f);
    }
  }
  fs::remove_all(dir, ec);
  if (p.signal == 0 && p.exit_code == kBenchNoDevice)
    throw Error(ExitCode::NoDevice,
                fmt::format("no usable NVIDIA GPU for the ceilings benchmark: {}\nThe benchmark is CUDA-only; on AMD "
                            "GPUs no benchmark is provided and the roofline uses the built-in device table (or a "
                            "ceilings file you write from rocm-amdgpu-bench results).",
                            err_tail.empty() ? p.describe() : err_tail));
  if (!p.ok())
    throw Error(ExitCode::ProfilerFailed, fmt::format("the ceilings benchmark {} {}; its stderr ends with:\n{}", bench,
                                                      p.describe(), err_tail));
  CeilingsResult r = parse_ceilings_bench_output(out_text, bench);
  r.bench = bench;
  r.ceilings.measured_at = iso8601_utc_now();
  r.ceilings.tool = fmt::format("rocm-perf {} ceilings ({}, best of {})", kVersion, kBenchName, o.reps);
  compare_with_table(r);
  return r;
}

}  // namespace rpl::app
