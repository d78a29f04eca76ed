#include "collectors/counter_pass.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "collectors/amd/pmc_import.hpp"
#include "collectors/amd/rocprofv3_collector.hpp"
#include "collectors/amd/rocprofv3_json_import.hpp"
#include "store/rocpd_reader.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"

namespace rpl::collectors {

CounterTool parse_counter_tool(const std::string& name) {
  if (name == "auto") return CounterTool::Auto;
  if (name == "ncu") return CounterTool::Ncu;
  if (name == "cupti") return CounterTool::Cupti;
  throw Error(ExitCode::Usage, fmt::format("--counter-tool {}: expected auto, cupti or ncu", name));
}

const char* to_string(CounterTool tool) {
  switch (tool) {
    case CounterTool::Ncu: return "ncu";
    case CounterTool::Cupti: return "cupti";
    case CounterTool::Auto: break;
  }
  return "auto";
}
namespace fs = std::filesystem;
namespace {

void make_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", dir, ec.message()));
}

// Runs the tool; the application's stdout goes to a file, the tool's stderr to `log` unless debugging.
// `argv` defaults to run.command (the in-process pass runs the application itself, with `env`).
void run_tool(CounterPassRun& run, const CounterPassRequest& request, const std::string& log,
              const std::vector<std::pair<std::string, std::string>>& env = {},
              const std::vector<std::string>* argv = nullptr) {
  ProcessSpec spec;
  spec.argv = argv ? *argv : run.command;
  spec.env = env;
  spec.stdout_file = run.stdout_file;
  if (!request.debug) spec.stderr_file = log;
  spec.timeout_s = request.timeout_s;
  log::debug("running: {}", fmt::join(run.command, " "));
  run.process = run_process(spec);
}

// A failed run: the application's failure when the tool says so, else the tool's.
[[noreturn]] void pass_failed(const CounterPassRun& run, const std::string& what) {
  throw Error(ExitCode::ProfilerFailed, fmt::format("the {} counter pass {} ({}); {} ends with:\n{}", run.tool,
                                                    run.process.describe(), what, run.log_file,
                                                    tail_of_file(run.log_file)));
}

void write_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ExitCode::OutputFailed, path + ": write failed");
  });
}

std::string find_rocprofv3() {
  if (auto p = find_executable("rocprofv3")) return *p;
  throw Error(ExitCode::ProfilerFailed,
              "rocprofv3 was not found on PATH: the AMD counter passes need ROCm 7.x's rocprofiler-sdk");
}

// Adds the kernel filter and the application to a rocprofv3 command and runs it (its log shares the
// application's stderr).
void run_rocprofv3(CounterPassRun& run, const CounterPassRequest& request) {
  if (!request.kernel_regex.empty()) {
    run.command.push_back("--kernel-include-regex");
    run.command.push_back(request.kernel_regex);
  }
  run.command.push_back("--");
  run.command.insert(run.command.end(), request.argv.begin(), request.argv.end());
  run_tool(run, request, run.log_file);
}

// Each output's kernel, from the ATT run's own trace (its dispatch ids are the folders').
void name_att_kernels(RocprofAttPass& run) {
  if (run.databases.empty()) return;
  std::map<int64_t, std::string> names;
  rocpd::ReadOptions ro;
  ro.load_api_calls = false;
  try {
    Trace t = rocpd::read_databases(run.databases, ro);
    for (const Dispatch& d : t.dispatches) names[d.dispatch_id] = t.kernel_name(d);
  } catch (const Error& e) {
    run.warnings.push_back(std::string("the ATT run's trace could not be read, kernels are unnamed: ") + e.what());
  }
  for (auto& out : run.outputs)
    if (auto it = names.find(out.dispatch_id); it != names.end()) out.kernel = it->second;
}

}  // namespace

std::string find_ncu() {
  if (const char* env = std::getenv("RPL_NCU"); env && *env) {
    if (auto p = find_executable(env)) return *p;
    throw Error(ExitCode::ProfilerFailed, fmt::format("RPL_NCU={}: not an executable", env));
  }
  if (auto p = find_executable("ncu")) return *p;
  if (auto p = find_executable("/usr/local/cuda/bin/ncu")) return *p;
  throw Error(ExitCode::ProfilerFailed,
              "ncu (Nsight Compute) was not found on PATH or in /usr/local/cuda/bin: the NVIDIA counter pass needs it "
              "(set RPL_NCU to its path)");
}

std::vector<std::string> ncu_unavailable_metrics(const std::string& log) {
  static const std::string marker = "Unable to access the following ";
  std::vector<std::string> names;
  const std::size_t at = log.find(marker);
  if (at == std::string::npos) return names;
  const std::size_t colon = log.find(':', at), end = log.find('\n', at);
  if (colon == std::string::npos || (end != std::string::npos && colon > end)) return names;
  std::istringstream list(log.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1));
  for (std::string name; std::getline(list, name, ',');) {
    name.erase(0, name.find_first_not_of(" \t"));
    while (!name.empty() && (name.back() == '.' || name.back() == ' ' || name.back() == '\r')) name.pop_back();
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// NCCL's kernels are left out of the ncu pass unless the user's --kernel names them: ncu serializes the launches it
// profiles across the job's processes and replays each kernel alone, and a collective's kernel waits for its peers'
// kernels, so a job of more than one rank hangs under it (seen on two H200s, 2026-11-29, and reported to NCCL). Their
// time, bytes and bus bandwidth come from the trace and NCCL's own call records. ncu matches this ECMAScript pattern
// against the demangled name ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "void ncclKernel<...>(...)").
const char* const kNcuSkipsNccl = "^(?!(void )?nccl)";

NcuPass run_ncu_pass(const CounterPassRequest& request, const std::vector<std::string>& metrics) {
  make_dir(request.run_dir);
  NcuPass run;
  run.tool = "ncu";
  run.stdout_file = (fs::path(request.run_dir) / "app.stdout").string();
  run.log_file = (fs::path(request.run_dir) / "ncu.csv").string();
  NcuCommandOptions o;
  o.ncu = find_ncu();
  o.metrics = metrics;
  o.kernel_regex = request.kernel_regex.empty() ? kNcuSkipsNccl : request.kernel_regex;
  o.kernel_name_base = "demangled";
  o.log_file = run.log_file;
  o.application = request.argv;
  run.command = ncu_command_line(o);
  // ncu writes its messages and the CSV to --log-file; its stderr holds only what it prints before that.
  run_tool(run, request, (fs::path(request.run_dir) / "ncu.stderr").string());
  std::vector<std::string> dropped;
  if (!run.process.ok()) {
    // A metric this GPU does not have (NVLink bytes without NVLink, say) fails the whole pass: once more without it.
    dropped = ncu_unavailable_metrics(tail_of_file(run.log_file, 40));
    std::vector<std::string> kept;
    for (const auto& m : metrics)
      if (std::find(dropped.begin(), dropped.end(), m) == dropped.end()) kept.push_back(m);
    if (!dropped.empty() && !kept.empty() && kept.size() < metrics.size()) {
      o.metrics = kept;
      run.command = ncu_command_line(o);
      run_tool(run, request, (fs::path(request.run_dir) / "ncu.stderr").string());
    } else {
      dropped.clear();
    }
  }
  if (!run.process.ok()) {
    // ncu passes the application's exit status through; its own failures print ==ERROR== lines.
    const std::string tail = tail_of_file(run.log_file, 20);
    if (tail.find("==ERROR==") == std::string::npos && tail.find("==PROF==") != std::string::npos)
      throw Error(ExitCode::ApplicationFailed,
                  fmt::format("the application {} under ncu (counter pass); ncu's log {} ends with:\n{}",
                              run.process.describe(), run.log_file, tail));
    pass_failed(run, "ncu failed");
  }
  try {
    run.report = read_ncu_csv(run.log_file);
  } catch (const Error& e) {
    pass_failed(run, std::string("no usable CSV: ") + e.what());
  }
  if (!dropped.empty())
    run.report.warnings.push_back(fmt::format("ncu cannot access {} on this GPU; the counter pass ran again without them",
                                              fmt::join(dropped, ", ")));
  run.samples = {ncu_counter_samples(run.report, metrics, run.tool)};
  return run;
}

std::optional<std::string> find_cupti_counters_library() {
  return find_libexec("librpl_cupti_counters.so", "RPL_CUPTI_COUNTERS");
}

NcuPass run_cupti_counter_pass(const CounterPassRequest& request, const std::vector<std::string>& metrics) {
  if (metrics.empty()) throw Error(ExitCode::Usage, "the CUPTI counter pass needs at least one metric");
  make_dir(request.run_dir);
  const auto library = find_cupti_counters_library();
  if (!library)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("librpl_cupti_counters.so was not found in {} (it is built only where the CUDA toolkit is "
                            "found); set RPL_CUPTI_COUNTERS to its path, or use ncu",
                            libexec_locations()));
  NcuPass run;
  run.tool = "cupti";
  run.stdout_file = (fs::path(request.run_dir) / "app.stdout").string();
  run.log_file = (fs::path(request.run_dir) / "app.stderr").string();
  const fs::path out = fs::path(request.run_dir) / "cupti";
  std::error_code ec;
  fs::remove_all(out, ec);  // our own folder from an earlier profile
  make_dir(out.string());
  run.command = {"CUDA_INJECTION64_PATH=" + *library};
  run.command.insert(run.command.end(), request.argv.begin(), request.argv.end());
  run_tool(run, request, run.log_file,
           {{"CUDA_INJECTION64_PATH", *library},
            {"RPL_COUNTERS_METRICS", fmt::format("{}", fmt::join(metrics, ","))},
            {"RPL_COUNTERS_OUT", out.string()},
            {"RPL_COUNTERS_KERNEL", request.kernel_regex},
            {"RPL_COUNTERS_PER_KERNEL", std::to_string(request.launches_per_kernel)},
            {"RPL_COUNTERS_VERBOSE", request.debug ? "1" : "0"}},
           &request.argv);
  if (!run.process.ok())
    throw Error(ExitCode::ApplicationFailed,
                fmt::format("the application {} in the CUPTI counter pass; its stderr ({}) ends with:\n{}",
                            run.process.describe(), run.log_file, tail_of_file(run.log_file)));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out, ec))
    if (e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    pass_failed(run, fmt::format("librpl_cupti_counters.so wrote no counters-<pid>.csv under {}", out.string()));
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw Error(ExitCode::InputMissing, f.string() + ": cannot read the ncu CSV file");
    NcuReport one = parse_ncu_csv(text.str(), f.string());
    if (run.report.metric_names.empty()) {
      run.report.metric_names = one.metric_names;
      run.report.metric_units = one.metric_units;
    } else if (one.metric_names != run.report.metric_names) {
      pass_failed(run, f.string() + " has other metric columns than the first process's file");
    }
    for (auto& k : one.kernels) {
      k.id = static_cast<int64_t>(run.report.kernels.size());
      run.report.kernels.push_back(std::move(k));
    }
    for (auto& w : one.warnings) run.report.warnings.push_back(std::move(w));
    // The library's own notes (unsupported metrics, dropped ranges) precede the table.
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("==RPL== ", 0) == 0 && line.find("replay pass") == std::string::npos)
        run.report.warnings.push_back(f.filename().string() + ": " + line.substr(8));
  }
  // Nothing measured because CUPTI failed (counters restricted to admins, an unsupported GPU): say why.
  if (run.report.kernels.empty()) {
    std::string why;
    for (const auto& w : run.report.warnings)
      if (w.find("CUPTI_ERROR") != std::string::npos || w.find("failed") != std::string::npos ||
          w.find("rejected") != std::string::npos)
        why += "\n  " + w;
    if (!why.empty()) pass_failed(run, "librpl_cupti_counters.so measured nothing:" + why);
  }
  run.samples = {ncu_counter_samples(run.report, metrics, run.tool)};
  return run;
}

// ROCm 6.x's rocprofv3 writes no rocpd database: its counter passes write JSON, imported into rocpd
// (amd/rocprofv3_json_import.hpp); its ATT output is not imported.
bool writes_rocpd(const CounterPassRequest& request) {
  return rocprofv3_writes_rocpd((fs::path(request.run_dir) / "rocprofv3.help").string());
}

RocprofPmcPass run_rocprof_pmc_pass(const CounterPassRequest& request, const std::string& pmc_input) {
  make_dir(request.run_dir);
  const bool rocpd = writes_rocpd(request);
  if (!rocpd)
    log::info("this rocprofv3 (ROCm 6.x) has no rocpd output: the counter pass writes JSON, imported into rocpd "
              "(unvalidated on AMD hardware)");
  RocprofPmcPass run;
  run.tool = "rocprofv3";
  run.stdout_file = (fs::path(request.run_dir) / "app.stdout").string();
  run.log_file = (fs::path(request.run_dir) / "rocprofv3.log").string();
  run.input_file = (fs::path(request.run_dir) / "counters.txt").string();
  write_text(run.input_file, pmc_input);
  const std::string out_dir = (fs::path(request.run_dir) / "pmc").string();
  std::error_code ec;
  fs::remove_all(out_dir, ec);  // our own folder from an earlier profile
  run.command = {find_rocprofv3(), "-i", run.input_file, "--kernel-trace", "--output-format", rocpd ? "rocpd" : "json",
                 "-d", out_dir};
  run_rocprofv3(run, request);
  // The trace runs of the same application succeeded, so a failure here is most likely the tool's (an
  // unsupported counter, a pass over the block limits); its log shares the application's stderr.
  if (!run.process.ok()) pass_failed(run, "the trace runs of the same command succeeded");
  // One pmc_<N> folder per "pmc:" line, N from 1.
  std::size_t passes = 0;
  std::istringstream lines(pmc_input);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("pmc:", 0) == 0) ++passes;
  for (std::size_t n = 1; n <= passes; ++n) {
    const std::string dir = (fs::path(out_dir) / fmt::format("pmc_{}", n)).string();
    if (!rocpd && fs::is_directory(dir, ec) && !find_rocprofv3_json(dir).empty()) import_rocprofv3_json(dir, "");
    auto dbs = find_rocpd_databases(dir);
    if (dbs.empty())
      pass_failed(run, fmt::format("pass {} of {} wrote no {} under {}", n, passes, rocpd ? "database" : "JSON output", dir));
    run.pass_databases.push_back(std::move(dbs));
  }
  run.application_runs = passes;
  rocpd::ReadOptions ro;
  ro.load_api_calls = false;
  ro.lenient = request.lenient;
  for (std::size_t p = 0; p < run.pass_databases.size(); ++p)
    run.samples.push_back(pmc_counter_samples(rocpd::read_databases(run.pass_databases[p], ro), fmt::format("pmc pass {}", p + 1)));
  return run;
}

RocprofAttPass run_rocprof_att_pass(const CounterPassRequest& request) {
  make_dir(request.run_dir);
  if (!writes_rocpd(request))
    throw Error(ExitCode::Unsupported,
                "the thread trace (--deep) needs rocprofv3's rocpd output (ROCm 7.0 or later); this rocprofv3 "
                "(ROCm 6.x) writes CSV and JSON, and its thread traces are not imported");
  RocprofAttPass run;
  run.tool = "rocprofv3";
  run.stdout_file = (fs::path(request.run_dir) / "app-att.stdout").string();
  run.log_file = (fs::path(request.run_dir) / "rocprofv3-att.log").string();
  run.output_dir = (fs::path(request.run_dir) / "att").string();
  std::error_code ec;
  fs::remove_all(run.output_dir, ec);
  run.command = {find_rocprofv3(), "--att", "--kernel-trace", "--output-format", "rocpd", "-d", run.output_dir};
  run_rocprofv3(run, request);
  if (!run.process.ok()) pass_failed(run, "thread trace");
  if (!fs::is_directory(run.output_dir, ec)) {
    run.diagnosis = "rocprofv3 --att wrote nothing under " + run.output_dir;
    run.warnings.push_back("the ATT run decoded nothing: " + run.diagnosis);
    return run;
  }
  run.databases = find_rocpd_databases(run.output_dir);
  run.outputs = find_att_outputs(run.output_dir);
  name_att_kernels(run);
  if (run.outputs.empty()) {
    run.diagnosis = diagnose_att_root(run.output_dir);
    run.warnings.push_back("the ATT run decoded nothing: " + run.diagnosis);
  }
  return run;
}

}  // namespace rpl::collectors
