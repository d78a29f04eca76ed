#include "app/replay_batch.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include "capture/manifest.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

// The runner's status file: one {"job": i, "exit": code} line per finished job.
std::map<std::size_t, int> read_status(const std::string& path) {
  std::map<std::size_t, int> exits;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("job") && j.contains("exit")) exits[j["job"].get<std::size_t>()] = j["exit"].get<int>();
  }
  return exits;
}

}  // namespace

std::vector<ReplayJobOutcome> run_replay_batch(const std::vector<ReplayOptions>& jobs) {
  std::vector<ReplayJobOutcome> out(jobs.size());
  if (jobs.empty()) return out;
  // Each capture is checked once (paths, zstd, sizes, checksums) before the runner touches the GPU.
  std::map<std::string, capture::Manifest> checked;
  for (const auto& j : jobs) {
    if (checked.count(j.capture_dir)) continue;
    capture::Manifest m = capture::read_manifest(j.capture_dir);
    capture::verify_capture(j.capture_dir, m);
    checked.emplace(j.capture_dir, std::move(m));
  }
  for (const auto& [dir, m] : checked)
    if (m.platform != "cuda") return out;  // only the CUDA runner replays batches: every job NotRun
  const ReplayOptions& first = jobs.front();
  if (first.mode != capture::ReplayMode::FullVm) return out;
  const std::string runner = replay_runner_path("cuda");

  // Jobs on captures of the same address layout run one after another: the runner keeps one layout's ranges
  // from job to job (a derived input shares its capture's layout; another launch's capture has its own).
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::map<std::string, std::size_t> layout_rank;  // the layout key -> when it first appears
  auto layout_of = [&](std::size_t i) {
    std::string key;
    for (const auto& r : checked.at(jobs[i].capture_dir).regions) key += fmt::format("{:x}+{:x};", r.address, r.size);
    return layout_rank.emplace(key, layout_rank.size()).first->second;
  };
  std::vector<std::size_t> rank(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) rank[i] = layout_of(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });

  nlohmann::json doc = {{"jobs", nlohmann::json::array()}};
  std::vector<std::string> results(jobs.size());
  double timeout_s = 0;
  for (std::size_t i : order) {
    const ReplayOptions& j = jobs[i];
    results[i] = replay_temporary_file("rocm-perf-replay");
    doc["jobs"].push_back({{"capture_dir", j.capture_dir}, {"code_object", j.code_object}, {"dump_dir", j.dump_dir},
                           {"iterations", j.iterations}, {"verify_replays", j.verify_replays}, {"result", results[i]}});
    timeout_s = (timeout_s < 0 || j.timeout_s <= 0) ? -1 : timeout_s + j.timeout_s;  // one without a limit: none
  }
  const std::string jobs_file = replay_temporary_file("rocm-perf-replay-jobs");
  const std::string status_file = replay_temporary_file("rocm-perf-replay-status");
  {
    std::ofstream f(jobs_file);
    f << doc.dump();
    if (!f) throw Error(ExitCode::OutputFailed, fmt::format("cannot write the replay jobs file {}", jobs_file));
  }
  ProcessSpec spec;
  spec.argv = {runner, "full-vm", "--jobs", jobs_file, "--status", status_file};
  const std::vector<std::string> timing = replay_timing_args(first);  // each job's own verify_replays wins
  spec.argv.insert(spec.argv.end(), timing.begin(), timing.end());
  if (!first.recopy) spec.argv.push_back("--no-recopy");
  spec.stdout_to_stderr = true;
  spec.timeout_s = timeout_s > 0 ? timeout_s : 0;
  ProcessResult p = run_process(spec);
  const std::map<std::size_t, int> exits = read_status(status_file);
  for (const std::string& f : {jobs_file, status_file}) fs::remove(f);

  // A runner killed or timed out died in the first job without a status; one that exited early (no batch form,
  // unreadable jobs file) ran nothing, and those jobs stay NotRun.
  bool blamed = !(p.timed_out || p.signal);
  for (std::size_t n = 0; n < order.size(); ++n) {  // n: the job's place in the batch; i: in the caller's list
    const std::size_t i = order[n];
    ReplayJobOutcome& o = out[i];
    nlohmann::json document;
    {
      std::ifstream in(results[i]);
      document = nlohmann::json::parse(in, nullptr, false);  // discarded (not an object) when empty
    }
    fs::remove(results[i]);
    auto it = exits.find(n);
    if (it == exits.end()) {
      if (!blamed) {
        blamed = true;
        o.status = ReplayJobOutcome::Status::Failed;
        o.error = fmt::format("the replay runner {} {} (in a batch, on job {} of {})", runner, p.describe(), n + 1, jobs.size());
      }
      continue;  // NotRun
    }
    const int code = it->second;
    if (code == to_int(ExitCode::AddressRelocation)) continue;  // a fresh process may have the range: NotRun
    o.outcome.exit_code = code;
    if (document.is_object()) o.outcome.document = std::move(document);
    if (replay_exit_documented(code) && o.outcome.document.is_object()) {
      o.status = ReplayJobOutcome::Status::Done;
      continue;
    }
    o.status = ReplayJobOutcome::Status::Failed;
    o.error_code = replay_runner_error(code);
    o.error = fmt::format("the replay runner {} exited with status {}", runner, code);
  }
  return out;
}

}  // namespace rpl::app
