#include "optimize/real_environment.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "analysis/device_specs.hpp"
#include "app/capture.hpp"
#include "app/profile.hpp"
#include "app/replay_batch.hpp"
#include "capture/manifest.hpp"
#include "optimize/source_model.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/process.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;

namespace {

// The GPU the profile ran on, with its peaks (the device table, scaled as the roofline scales them).
std::optional<nlohmann::json> gpu_facts(const analysis::RooflineResult& roofline) {
  if (roofline.agents.empty()) return std::nullopt;
  const auto& agent = roofline.agents.front();
  nlohmann::json g = {{"name", agent.product_name}, {"arch", agent.arch}};
  analysis::DeviceMatch d = analysis::find_device(agent.arch, agent.product_name);
  if (!d.spec) return g;
  g["vendor"] = d.spec->vendor == analysis::Vendor::Amd ? "amd" : "nvidia";
  g["sm_count"] = d.spec->compute_units;
  g["peak_bandwidth_gbps"] = d.spec->bandwidth(analysis::MemLevel::Hbm);
  g["peak_fp32_gflops"] = d.spec->peak(analysis::Pipe::Vector, analysis::DataType::F32) * d.compute_scale;
  nlohmann::json peaks = nlohmann::json::object();
  auto add = [&](const char* name, analysis::Pipe p, analysis::DataType t) {
    double v = d.spec->peak(p, t) * d.compute_scale;
    if (v > 0) peaks[name] = v;
  };
  add("FP32", analysis::Pipe::Vector, analysis::DataType::F32);
  add("FP64", analysis::Pipe::Vector, analysis::DataType::F64);
  add("FP16 matrix", analysis::Pipe::Matrix, analysis::DataType::F16);
  add("BF16 matrix", analysis::Pipe::Matrix, analysis::DataType::BF16);
  g["peak_gflops"] = peaks;
  return g;
}

}  // namespace

CommandOutcome RealEnvironment::run_logged(const std::vector<std::string>& argv, const std::string& log_name) {
  fs::create_directories(o_.log_dir);
  std::string log = (fs::path(o_.log_dir) / fmt::format("{:03d}-{}.log", ++log_counter_, log_name)).string();
  ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_file = log;
  spec.stderr_file = log + ".stderr";
  spec.timeout_s = o_.timeout_s;
  CommandOutcome out;
  try {
    ProcessResult r = run_process(spec);
    out.ok = r.ok();
    out.status = r.describe();
  } catch (const Error& e) {
    out.status = e.what();
  }
  out.messages = tail_of_file(log + ".stderr", 40);
  std::string so = tail_of_file(log, 10);
  if (!out.ok && !so.empty()) out.messages += (out.messages.empty() ? "" : "\n") + so;
  return out;
}

CommandOutcome RealEnvironment::build(const std::string& command) { return run_logged({"/bin/sh", "-c", command}, "build"); }

ProfileOutcome RealEnvironment::profile(unsigned runs, const std::string& output_dir, bool roofline_counters) {
  app::ProfileOptions po;
  po.argv = o_.app;
  po.runs = runs;
  po.output_dir = output_dir;
  po.timeout_s = o_.timeout_s;
  po.roofline = roofline_counters;
  if (roofline_counters) po.counter_launches = 3;  // FLOPs per launch: a few launches per kernel are enough
  app::ProfileResults r = app::run_profile(po);
  ProfileOutcome out;
  out.output_dir = output_dir;
  for (const auto& run : r.runs) out.runtime_per_run_ns.push_back(run.runtime_ns);
  if (r.analysis) {
    for (const auto& c : r.analysis->dag.contributions)
      out.ranking.push_back({{"name", c.name}, {"time_on_path_ns", c.time_on_path_ns}, {"fraction_of_path", c.fraction_of_path},
                             {"dispatches_on_path", c.dispatches_on_path}});
    nlohmann::json kernels = nlohmann::json::array();
    // kernels off the critical path still count (ranked after those on it)
    for (const auto& k : r.analysis->stats.kernels) {
      bool ranked = false;
      for (const auto& c : out.ranking) ranked = ranked || c["name"] == k.name;
      if (!ranked) out.ranking.push_back({{"name", k.name}, {"time_on_path_ns", 0.0}, {"fraction_of_path", 0.0}});
    }
    for (const auto& k : r.analysis->stats.kernels) {
      nlohmann::json entry = {{"name", k.name}, {"launches", k.durations.count}, {"total_ns", k.durations.total_ns},
                              {"median_ns", k.durations.median_ns}, {"share_of_gpu_time", k.share_of_gpu_time}};
      // The most threads per block of any profiled launch (every shape, not the first few the report lists): a
      // candidate's new launch bounds must admit it, not only the captured launches'.
      uint64_t most_threads = 0;
      for (const auto& s : k.shapes) most_threads = std::max<uint64_t>(most_threads, uint64_t(s.block[0]) * s.block[1] * s.block[2]);
      if (most_threads > 0) entry["most_threads_per_block_launched"] = most_threads;
      for (const auto& kr : r.analysis->roofline.kernels)
        if (kr.name == k.name)
          if (auto sol = compute_speed_of_light_ns(kr.point)) {
            entry["flops_per_launch"] = *kr.point.flops_per_dispatch[kr.point.dominant->index()];
            entry["peak_gflops"] = *kr.point.peak_gflops;
            entry["speed_of_light_compute_ns"] = *sol;
          }
      kernels.push_back(entry);
    }
    // analysis.json's facts per kernel (roofline point and bound, bottleneck labels with evidence, occupancy and
    // limiter, launch shapes, share of the critical path, counters' deep analysis), for the proposers
    report::ReportOptions ro;
    ro.top = r.analysis->stats.kernels.size();
    ro.html = false;
    nlohmann::json ranked = report::analysis_document(*r.analysis, ro).value("ranking", nlohmann::json::object())
                                .value("kernels", nlohmann::json::array());
    for (auto& entry : kernels)
      for (const auto& k : ranked)
        if (k.value("name", "") == entry.value("name", ""))
          for (const auto& [key, v] : k.items())
            if (!entry.contains(key) && key != "rank" && key != "runtime_kernel") entry[key] = v;
    out.analysis = {{"kernels", kernels}};
    if (auto gpu = gpu_facts(r.analysis->roofline)) out.analysis["gpu"] = *gpu;
    if (r.counter_failure) out.analysis["counter_failure"] = *r.counter_failure;
  }
  if (out.ranking.empty())
    for (const auto& k : r.kernels_across_runs)
      out.ranking.push_back({{"name", k.name}, {"time_on_path_ns", k.total_per_run.mean_ns}, {"fraction_of_path", 0}});
  return out;
}

bool RealEnvironment::capture(const std::string& regex, uint64_t dispatch, const std::string& dir, std::string& why) {
  app::CaptureOptions co;
  co.argv = o_.app;
  co.kernel_regex = regex;
  co.dispatch = dispatch;
  co.output_dir = dir;
  co.exit_after_capture = true;
  co.timeout_s = o_.timeout_s;
  try {
    fs::remove_all(dir);
    app::CaptureResults r = app::run_capture(co);
    arch_ = r.manifest.device_arch;
    return true;
  } catch (const Error& e) {
    why = e.what();
    return false;
  }
}

std::vector<std::string> RealEnvironment::compile_command(const std::string& platform, const std::string& arch,
                                                          const std::string& compiler, const std::vector<std::string>& flags,
                                                          const std::vector<std::string>& include_dirs,
                                                          const std::string& source, const std::string& output) {
  std::vector<std::string> argv;
  std::string include = "-I" + fs::absolute(source).parent_path().string();
  if (platform == "rocm") {
    argv = {compiler.empty() ? "hipcc" : compiler, "--genco", "--offload-arch=" + arch};
  } else {
    argv = {compiler.empty() ? "nvcc" : compiler, "-cubin", "-arch=" + arch};
  }
  if (flags.empty()) argv.push_back("-O3");
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const auto& d : include_dirs) argv.push_back("-I" + d);
  argv.insert(argv.end(), {include, "-o", output, source});
  return argv;
}

std::vector<std::string> RealEnvironment::parser_flags() const { return parser_flags_from_compile_flags(o_.compile_flags); }

CommandOutcome RealEnvironment::compile(const std::string& source, const std::string& output, const std::string& capture_dir) {
  capture::Manifest m = capture::read_manifest(capture_dir);
  auto argv = compile_command(m.platform, m.device_arch, o_.compiler, o_.compile_flags, o_.include_dirs, source, output);
  // nvcc keeps the PTX it generated beside the code object: the binary gates read clock reads and inline-asm
  // exits there (the SASS too when the toolkit has cuobjdump)
  if (fs::path(argv.front()).filename() == "nvcc") {
    fs::path keep = output + ".keep";
    fs::remove_all(keep);
    fs::create_directories(keep);
    argv.insert(argv.end() - 3, {"--keep", "--keep-dir", keep.string()});
  }
  return run_logged(argv, "compile");
}

std::optional<collectors::CodeObjectFacts> RealEnvironment::inspect(const std::string& code_object) {
  std::string ptx;
  std::error_code ec;
  fs::path keep = code_object + ".keep";
  if (fs::is_directory(keep, ec))
    for (const auto& e : fs::directory_iterator(keep, ec))
      if (e.path().extension() == ".ptx") ptx = e.path().string();
  return collectors::read_code_object_facts(code_object, ptx);
}

namespace {

ReplayOutcome from_app(const app::ReplayOutcome& r) {
  ReplayOutcome out;
  if (r.document.contains("gpu_time_ns")) out.median_ns = r.document["gpu_time_ns"].value("median", 0.0);
  if (r.document.contains("wall_time_ns")) out.wall_s = r.document["wall_time_ns"].value("total", 0.0) / 1e9;
  // Derived captures carry no after snapshot; a mismatch can only come from a captured one (performance runs)
  out.ok = r.exit_code == 0 || r.exit_code == to_int(ExitCode::VerificationMismatch);
  if (!out.ok) out.error = fmt::format("replay exit code {}", r.exit_code);
  return out;
}

}  // namespace

app::ReplayOptions RealEnvironment::replay_options(const ReplayJob& j) const {
  app::ReplayOptions ro;
  ro.capture_dir = j.capture_dir;
  ro.code_object = j.code_object;
  ro.dump_dir = j.dump_dir;
  ro.iterations = j.iterations;
  ro.verify_replays = j.verify_replays;
  ro.timeout_s = o_.timeout_s > 0 ? o_.timeout_s : 120;
  return ro;
}

std::vector<ReplayOutcome> RealEnvironment::replay_batch(const std::vector<ReplayJob>& jobs) {
  std::vector<app::ReplayOptions> options;
  for (const ReplayJob& j : jobs) options.push_back(replay_options(j));
  std::vector<ReplayOutcome> out(jobs.size());
  for (auto& o : out) o.ran = false;
  try {
    std::vector<app::ReplayJobOutcome> done = app::run_replay_batch(options);
    for (std::size_t i = 0; i < done.size(); ++i) {
      if (done[i].status == app::ReplayJobOutcome::Status::Done) out[i] = from_app(done[i].outcome);
      else if (done[i].status == app::ReplayJobOutcome::Status::Failed) out[i] = {false, done[i].error, 0, "", true};
    }
  } catch (const Error& e) {
    log::warn("replaying {} jobs in one process failed ({}); each is replayed alone", jobs.size(), e.what());
  }
  return out;
}

ReplayOutcome RealEnvironment::replay(const std::string& capture_dir, const std::string& code_object, const std::string& dump_dir,
                                      unsigned iterations) {
  ReplayOutcome out;
  try {
    out = from_app(app::run_replay(replay_options({capture_dir, code_object, dump_dir, iterations})));
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

std::optional<double> compute_speed_of_light_ns(const analysis::RooflinePoint& p) {
  if (!p.dominant || !p.peak_gflops || *p.peak_gflops <= 0) return std::nullopt;
  const auto& flops = p.flops_per_dispatch[p.dominant->index()];
  if (!flops || *flops <= 0) return std::nullopt;
  return *flops / *p.peak_gflops;  // FLOP / (GFLOP/s = FLOP/ns) = ns
}

double RealEnvironment::peak_bandwidth_gbps(const std::string& device_name) {
  analysis::DeviceMatch d = analysis::find_device(arch_, device_name);
  return d.spec ? d.spec->bandwidth(analysis::MemLevel::Hbm) : 0;
}

}  // namespace rpl::optimize
