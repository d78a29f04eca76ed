#include "capture/replay_runner.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <vector>

#include "capture/blob.hpp"
#include "capture/element_types.hpp"
#include "capture/replay_cache_state.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::capture {
namespace {

[[noreturn]] void usage(const char* runner, const std::string& why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy] "
               "[--code-object PATH] [--dump-dir DIR] [--cache warm|cold] [--verify-replays N] [--warmup-ms MS]\n"
               "       %s full-vm --jobs FILE --status FILE [the options above, shared by every job]\n",
               runner, why.c_str(), runner, runner);
  std::exit(to_int(ExitCode::Usage));
}

}  // namespace

ReplayRunnerOptions parse_replay_runner_args(int argc, char** argv, const char* runner) {
  ReplayRunnerOptions o;
  if (argc < 2) usage(runner, "no mode");
  const std::optional<ReplayMode> mode = parse_replay_mode(argv[1]);
  if (!mode) usage(runner, std::string("unknown mode ") + argv[1]);
  o.mode = *mode;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(runner, arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--capture-dir") {
      o.capture_dir = value();
    } else if (arg == "--result") {
      o.result_file = value();
    } else if (arg == "--iterations") {
      const std::string v = value();
      const auto n = number_within(v, 1u, 1000000u);
      if (!n) usage(runner, "--iterations " + v + ": expected 1 to 1000000");
      o.iterations = *n;
    } else if (arg == "--no-recopy") {
      o.recopy = false;
    } else if (arg == "--code-object") {
      o.code_object = value();
    } else if (arg == "--dump-dir") {
      o.dump_dir = value();
    } else if (arg == "--cache") {
      const std::string v = value();
      const std::optional<CacheState> cache = parse_cache_state(v);
      if (!cache) usage(runner, "--cache " + v + ": expected warm or cold");
      o.cache = *cache;
    } else if (arg == "--warmup-ms") {
      const std::string v = value();
      const auto ms = number_within(v, 0.0, 60000.0);
      if (!ms) usage(runner, "--warmup-ms " + v + ": expected 0 to 60000");
      o.warmup_ms = *ms;
    } else if (arg == "--verify-replays") {
      const std::string v = value();
      const auto n = number_within(v, 0u, 100u);
      if (!n) usage(runner, "--verify-replays " + v + ": expected 0 (none: timing only) to 100");
      o.verify_replays = *n;
    } else if (arg == "--jobs") {
      o.jobs_file = value();
    } else if (arg == "--status") {
      o.status_file = value();
    } else {
      usage(runner, "unknown argument " + arg);
    }
  }
  if (!o.jobs_file.empty()) {
    if (o.mode != ReplayMode::FullVm) usage(runner, "--jobs needs the full-vm mode");
    if (o.status_file.empty()) usage(runner, "--jobs needs --status");
  } else if (o.capture_dir.empty()) {
    usage(runner, "--capture-dir is required");
  }
  try {
    o.knobs = replay_knobs_from_environment();
  } catch (const Error& e) {  // before any GPU work: the variable and its value, exit 2
    std::fprintf(stderr, "%s: %s\n", runner, e.what());
    std::exit(to_int(e.code()));
  }
  return o;
}

int run_replay_runner(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                      const std::function<void(ReplayReport&)>& replay) {
  ReplayReport report;
  report.mode = options.mode;
  report.runner = argv0;
  report.cache = options.cache;
  int code = 0;
  try {
    replay(report);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", runner, e.what());
    code = to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", runner, e.what());
    code = to_int(ExitCode::Internal);
  }
  // A document exists once the manifest was read (the kernel is known).
  if (!options.result_file.empty() && !report.kernel.mangled_name.empty()) {
    try {
      const std::string text = to_json(report).dump(1);
      write_file_atomically(options.result_file, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
    } catch (const Error& e) {
      std::fprintf(stderr, "%s: %s\n", runner, e.what());
      if (code == 0) code = to_int(e.code());
    }
  }
  return code;
}

std::vector<ReplayRunnerOptions> read_replay_jobs(const ReplayRunnerOptions& base) {
  const std::string& path = base.jobs_file;
  std::ifstream in(path);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("cannot read the replay jobs file {}", path));
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
    throw Error(ExitCode::InputInvalid, fmt::format("{}: not a replay jobs document (an object with a \"jobs\" array)", path));
  std::vector<ReplayRunnerOptions> jobs;
  for (const auto& j : doc["jobs"]) {
    ReplayRunnerOptions o = base;
    o.jobs_file.clear();
    o.status_file.clear();
    o.in_batch = true;
    try {
      o.capture_dir = j.at("capture_dir").get<std::string>();
      o.code_object = j.value("code_object", std::string());
      o.dump_dir = j.value("dump_dir", std::string());
      o.result_file = j.at("result").get<std::string>();
      o.iterations = j.value("iterations", 1u);
      o.verify_replays = j.value("verify_replays", base.verify_replays);
    } catch (const nlohmann::json::exception& e) {
      throw Error(ExitCode::InputInvalid, fmt::format("{}: job {}: {}", path, jobs.size(), e.what()));
    }
    if (o.capture_dir.empty() || o.result_file.empty() || o.iterations < 1)
      throw Error(ExitCode::InputInvalid, fmt::format("{}: job {} needs a capture_dir, a result and iterations >= 1", path, jobs.size()));
    jobs.push_back(std::move(o));
  }
  return jobs;
}

bool batch_continues_after(int exit_code) {
  switch (ExitCode(exit_code)) {
    case ExitCode::Ok:
    case ExitCode::InputMissing:
    case ExitCode::InputInvalid:
    case ExitCode::AddressRelocation:
    case ExitCode::VerificationMismatch:
      return true;
    default:  // a launch or synchronisation failure may leave the context unusable: later jobs get a fresh process
      return false;
  }
}

int run_replay_batch(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                     const std::function<void(const ReplayRunnerOptions&, ReplayReport&)>& replay) {
  std::vector<ReplayRunnerOptions> jobs;
  std::FILE* status = nullptr;
  try {
    jobs = read_replay_jobs(options);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", runner, e.what());
    return to_int(e.code());
  }
  status = std::fopen(options.status_file.c_str(), "w");
  if (!status) {
    std::fprintf(stderr, "%s: cannot write the batch status file %s\n", runner, options.status_file.c_str());
    return to_int(ExitCode::OutputFailed);
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string who = fmt::format("{} (batch job {} of {})", runner, i + 1, jobs.size());  // names the job in messages
    const int code = run_replay_runner(jobs[i], who.c_str(), argv0, [&](ReplayReport& report) { replay(jobs[i], report); });
    // One line per job as it ends, flushed: a batch killed midway still tells which jobs finished.
    std::fprintf(status, "{\"job\": %zu, \"exit\": %d}\n", i, code);
    std::fflush(status);
    if (!batch_continues_after(code)) break;
  }
  std::fclose(status);
  return 0;
}

void RepeatedWord::add(const std::byte* data, std::size_t n) {
  for (std::size_t k = 0; k < n && repeated_; ++k, ++seen_) {
    if (seen_ < 4) pattern_[seen_] = data[k];
    else if (data[k] != pattern_[seen_ % 4]) repeated_ = false;
  }
}

std::optional<uint32_t> RepeatedWord::word() const {
  if (!repeated_ || seen_ == 0 || seen_ % 4 != 0) return std::nullopt;
  uint32_t w = 0;
  std::memcpy(&w, pattern_, 4);
  return w;
}

std::vector<bool> written_regions(const Manifest& m) {
  std::vector<bool> written(m.regions.size(), false);
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const Region& g = m.regions[i];
    written[i] = g.before && (!g.after || g.after->size != g.before->size || g.after->xxh64 != g.before->xxh64);
  }
  return written;
}

Verification verify_replays(const std::filesystem::path& capture_dir, const Manifest& m,
                            const std::vector<std::vector<std::vector<std::byte>>>& replays) {
  Verification v;
  v.status = "match";
  v.replays = unsigned(replays.size());
  std::vector<std::span<const std::byte>> spans;
  // Element types from the kernel's signature where it has one (extern "C" kernels: inferred).
  const std::vector<Element> elements = replays.empty() ? std::vector<Element>{} : comparison_elements(capture_dir, m);
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const Region& g = m.regions[i];
    if (!g.after || replays.empty()) continue;
    // An empty replay of a non-empty region stands for "equal to the after-snapshot" (read_results).
    RegionVerdict verdict;
    if (g.size == 0 || std::any_of(replays.begin(), replays.end(), [&](const auto& r) { return !r.at(i).empty(); })) {
      const std::vector<std::byte> expected = read_blob(capture_dir, *g.after);
      spans.clear();
      for (const auto& r : replays) spans.emplace_back(r.at(i).empty() ? std::span<const std::byte>(expected) : r.at(i));
      verdict = classify_region(expected, spans, elements[i]);
    }
    ++v.regions_compared;
    v.bytes_compared += g.size;
    v.bytes_differing += verdict.bytes_differing;
    v.nondeterministic_bytes += verdict.nondeterministic_bytes;
    v.mismatched_bytes += verdict.mismatched_bytes;
    v.status = worse_status(v.status, verdict.status);
    if (verdict.status != "match") v.differing.push_back({g.id, g.address, g.size, g.kind, g.symbol, std::move(verdict)});
  }
  if (v.regions_compared == 0) {
    v.status = "skipped";
    v.reason = "the capture holds no after-snapshot";
  }
  return v;
}

namespace {

// Every region with an after-snapshot, read back (the others stay empty). A region the kernel does not write
// that still equals its after-snapshot (same checksum) is dropped to an empty vector: most of a large capture
// is read-only input, and N replays of it need not sit in host memory.
std::vector<std::vector<std::byte>> read_results(const Manifest& m, ReplayDevice& device, const std::vector<bool>& written) {
  std::vector<std::vector<std::byte>> out(m.regions.size());
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const Region& g = m.regions[i];
    if (!g.after) continue;
    out[i].resize(g.size);
    if (out[i].empty()) continue;
    device.read_back(i, 0, out[i].data(), out[i].size());
    if (!written[i] && g.after->size == g.size && blob_checksum(out[i]) == g.after->xxh64) {
      out[i].clear();
      out[i].shrink_to_fit();
    }
  }
  return out;
}

double since_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t).count();
}

// The pages of region i that the kernel writes: where its before-snapshot differs from the after-snapshot or
// from a verification replay. Empty (restore it whole) without both snapshots, or for a region over 1 GiB
// (two host copies of it would be needed).
std::vector<ByteRange> written_ranges(const std::filesystem::path& capture_dir, const Manifest& m, std::size_t i,
                                      const std::vector<std::vector<std::vector<std::byte>>>& replays) {
  const Region& g = m.regions[i];
  if (!g.before || !g.after || g.size > (uint64_t{1} << 30)) return {};
  const std::vector<std::byte> before = read_blob(capture_dir, *g.before), after = read_blob(capture_dir, *g.after);
  if (before.size() != g.size) return {};
  std::vector<std::span<const std::byte>> results = {after};
  for (const auto& r : replays) results.emplace_back(r.at(i));
  std::vector<ByteRange> pages = differing_pages(before, results);
  if (pages.empty()) pages.push_back({0, g.size});  // flagged as written, yet equal: restore it whole
  return pages;
}

std::string cache_preparation_text(CacheState cache, WarmStyle warm_style, bool cold_code, bool restore_each,
                                   const std::vector<RegionRange>& read_set) {
  const std::string restore = restore_each ? "what the kernel writes restored" : "nothing restored";
  if (cache == CacheState::Cold)
    return fmt::format("{}, then L2 flushed{}", restore, cold_code ? " and the instruction caches evicted" : "");
  if (warm_style == WarmStyle::BackToBack) return fmt::format("back to back after an untimed launch, {}", restore);
  uint64_t bytes = 0;
  for (const RegionRange& r : read_set) bytes += r.range.size;
  return fmt::format("L2 flushed, {}, then {} byte(s) in {} range(s) the parameters point to{} read in, as if just "
                     "written by a producer kernel",
                     restore, bytes, read_set.size(),
                     warm_style == WarmStyle::InputsOutputs ? " (what it writes too)" : "");
}

// Restoring what a kernel writes before every timed launch is needed only when its result depends on what it
// overwrites (an accumulation, a counter). When one more launch, on the last verification replay's output,
// gives the same bytes again, it does not: the timed launches then run back to back like the application's,
// without copies that would displace the kernel's inputs from the cache. Otherwise each written region is
// restored, by a fill where its before-state is one repeated word (device.restores_by_fill).
RestorePolicy restore_policy(const ReplayRunnerOptions& o, const Manifest& m, ReplayDevice& device,
                             const std::vector<bool>& written, const std::vector<uint64_t>& restore_bytes,
                             const std::vector<std::vector<std::vector<std::byte>>>& replays,
                             const Verification& verification) {
  RestorePolicy p;
  if (!o.recopy) {
    p.between_launches = false;
    p.reason = "--no-recopy: each launch starts from the previous one's memory";
    return p;
  }
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    if (!written[i] || !m.regions[i].before) continue;
    ++p.regions, p.bytes += restore_bytes[i];
    if (device.restores_by_fill(i)) ++p.filled_regions, p.filled_bytes += restore_bytes[i];
  }
  if (p.regions == 0) {
    p.between_launches = false;
    p.reason = "the kernel writes no region that has a before-snapshot";
    return p;
  }
  if (replays.empty() || verification.status != "match") {
    p.reason = replays.empty() ? "no verification replay to test whether the result depends on what the kernel overwrites"
                               : "the verification replays were not bit-exact, so a relaunch cannot show independence";
    return p;
  }
  device.launch();  // on the last replay's output, nothing restored
  if (read_results(m, device, written) == replays.back()) {
    p.between_launches = false;
    p.reason = "a launch on the kernel's own output gave the same bytes, so its result does not depend on what it "
               "overwrites: launches back to back, as in the application";
    return p;
  }
  p.reason = "a launch on the kernel's own output gives other bytes (it reads what it writes)";
  return p;
}

// Restores copy only the pages the kernel writes: per region, those pages (given to the device) and the bytes a
// restore copies.
struct RestorePages {
  std::vector<std::vector<ByteRange>> pages;
  std::vector<uint64_t> bytes;
};

RestorePages restore_pages(const std::filesystem::path& capture_dir, const Manifest& m, const std::vector<bool>& written,
                           const std::vector<std::vector<std::vector<std::byte>>>& replays, ReplayDevice& device) {
  RestorePages p;
  p.pages.resize(m.regions.size());
  for (std::size_t i = 0; i < m.regions.size(); ++i)
    if (written[i]) p.pages[i] = written_ranges(capture_dir, m, i, replays);
  p.bytes.resize(m.regions.size());
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    p.bytes[i] = m.regions[i].size;
    if (p.pages[i].empty()) continue;
    p.bytes[i] = 0;
    for (const ByteRange& r : p.pages[i]) p.bytes[i] += r.size;
    device.set_restore_ranges(i, p.pages[i]);
  }
  return p;
}

// Timing, in the chosen cache state: an untimed launch (warm), the warm-up, then options.iterations timed launches,
// each prepared alike. Fills report's cache_preparation, warm-up, setup and iteration wall times and gpu_time.
void run_timed_launches(const ReplayRunnerOptions& o, const std::filesystem::path& capture_dir, const Manifest& m,
                        ReplayDevice& device, ReplayReport& report, const std::vector<bool>& written,
                        const std::vector<std::vector<ByteRange>>& written_pages, bool pristine,
                        std::chrono::steady_clock::time_point start) {
  const bool restore_each = o.recopy && report.restores.between_launches;
  const WarmStyle warm_style = o.knobs.warm;
  const bool cold_code = o.knobs.cold_evicts_code && device.can_flush_code();
  std::vector<RegionRange> read_set;
  const bool reads_in = warm_style != WarmStyle::BackToBack;
  if (o.cache == CacheState::Warm && reads_in) {
    // Up to three quarters of the cache: the rest takes what the kernel writes.
    const std::vector<std::vector<ByteRange>> nothing(m.regions.size());
    read_set = parameter_read_set(m, read_blob(capture_dir, m.arguments),
                                  warm_style == WarmStyle::Inputs ? written_pages : nothing, device.cache_bytes() / 4 * 3);
  }
  report.cache_preparation = cache_preparation_text(o.cache, warm_style, cold_code, restore_each, read_set);
  bool dirty = o.recopy && !pristine;  // memory differs from what the next launch must start from
  if (o.recopy && o.cache == CacheState::Warm) {
    if (dirty) device.restore(written);
    device.launch();  // code and constants resident; not timed
    dirty = restore_each;
  }
  auto prepare = [&] {  // before each timed launch; not timed
    if (o.cache == CacheState::Cold) {
      if (dirty) device.restore(written);
      device.flush_cache();
      if (cold_code) device.flush_code();
    } else if (reads_in) {
      device.flush_cache();
      if (dirty) device.restore(written);  // after the flush: resident, as the application's memset left it
      for (const RegionRange& r : read_set) device.touch(r.region, r.range.offset, r.range.size);
    } else if (dirty) {
      device.restore(written);
    }
    dirty = restore_each;
  };
  if (o.recopy && o.warmup_ms > 0) {  // --no-recopy: the launches would change the state the timed one starts from
    report.warmup_ms_requested = o.warmup_ms;
    const auto warmup_start = std::chrono::steady_clock::now();
    const double warmup_ns = o.warmup_ms * 1e6;
    do {
      prepare();
      device.launch();
      ++report.warmup_launches;
    } while (since_ns(warmup_start) < warmup_ns && report.warmup_launches < 100000);
    report.warmup_wall_ns = since_ns(warmup_start);
  }
  std::vector<double> samples;
  report.setup_wall_ns = since_ns(start);
  const auto loop_start = std::chrono::steady_clock::now();
  for (unsigned it = 0; it < o.iterations; ++it) {
    if (o.recopy) prepare();
    else if (o.cache == CacheState::Cold) device.flush_cache();
    samples.push_back(device.launch());
  }
  report.iterations_wall_ns = since_ns(loop_start);
  report.gpu_time = time_stats(samples);
}

}  // namespace

void run_full_vm(const ReplayRunnerOptions& o, const std::filesystem::path& capture_dir, const Manifest& m,
                 ReplayDevice& device, ReplayReport& report, std::chrono::steady_clock::time_point start) {
  report.cache = o.cache;
  const bool has_after = std::any_of(m.regions.begin(), m.regions.end(), [](const Region& g) { return bool(g.after); });
  std::vector<bool> all(m.regions.size()), written = written_regions(m);
  for (std::size_t i = 0; i < m.regions.size(); ++i) all[i] = bool(m.regions[i].before);
  bool pristine = true;  // the memory holds the captured before-state

  // Verification: the unchanged code from the captured state, several times; what varies between these
  // replays is the kernel's own nondeterminism.
  std::vector<std::vector<std::vector<std::byte>>> replays;
  if (o.recopy && has_after && o.verify_replays > 0) {
    for (unsigned r = 0; r < o.verify_replays; ++r) {
      if (!pristine) device.restore(all);
      device.launch();
      pristine = false;
      replays.push_back(read_results(m, device, written));
    }
    report.verification = verify_replays(capture_dir, m, replays);
    // A region where the replays differ from the after-snapshot, though it equals the before-snapshot, was
    // written by a replay: it is restored between launches as well.
    for (const RegionDifference& d : report.verification.differing)
      for (std::size_t i = 0; i < m.regions.size(); ++i)
        if (m.regions[i].id == d.id && m.regions[i].before) written[i] = true;
  }
  const RestorePages pages = restore_pages(capture_dir, m, written, replays, device);
  report.restores = restore_policy(o, m, device, written, pages.bytes, replays, report.verification);
  run_timed_launches(o, capture_dir, m, device, report, written, pages.pages, pristine, start);

  if (o.recopy && has_after && o.verify_replays == 0) {
    report.verification.status = "skipped";
    report.verification.reason = "no verification replays asked for (timing only)";
  } else if (o.recopy && !has_after) {
    report.verification = verify_replays(capture_dir, m, {});
  } else if (!o.recopy) {
    // Stateful: only a single launch started from the captured state.
    if (o.iterations == 1) {
      report.verification = verify_replays(capture_dir, m, {read_results(m, device, written)});
    } else {
      report.verification.status = "skipped";
      report.verification.reason =
          fmt::format("--no-recopy with {} iterations: the last one did not start from the captured state", o.iterations);
    }
  }
}

}  // namespace rpl::capture
