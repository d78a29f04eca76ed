#pragma once
// What both replay runners (collectors/nvidia/replay_runner, collectors/amd/replay_runner) share, vendor-neutral:
// their internal command line, the run with its result document and exit code, and the full-vm flow over a
// runner's device operations: N verification replays from the captured state, compared with each other and
// with the capture's after-snapshot (capture/replay_compare.hpp), then the timed launches in a cache state.
//   <runner> reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy]
//            [--code-object PATH] [--dump-dir DIR] [--cache warm|cold] [--verify-replays N]
//   <runner> full-vm --jobs FILE --status FILE [options as above, shared by every job]
// The second form (CUDA runner) replays several jobs in one process: the GPU context, CUPTI and the cache
// kernels are set up once, and each job reserves, maps, replays and releases its own capture's ranges.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "capture/replay_cache_state.hpp"
#include "capture/replay_report.hpp"
#include "capture/replay_settings.hpp"

namespace rpl::capture {

struct ReplayRunnerOptions {
  ReplayMode mode = ReplayMode::FullVm;
  std::string capture_dir;
  std::string result_file;  // where the replay document goes ("" = nowhere)
  unsigned iterations = 1;
  bool recopy = true;
  std::string code_object;  // "" = the captured code object
  std::string dump_dir;     // final memory of every region, raw, as r<ID>.bin
  CacheState cache = CacheState::Warm;  // capture/replay_settings.hpp
  unsigned verify_replays = 2;  // replays of the code from the captured state that verification compares
  // Untimed launches, each prepared as a timed one, until this many milliseconds have passed: a fresh process
  // finds the GPU idle, at lower clocks than a busy application runs at (Triton's do_bench warms up 25 ms).
  double warmup_ms = 25;
  ReplayKnobs knobs;  // the environment's, read once by parse_replay_runner_args
  // Batch form: jobs_file lists the jobs (JSON: {"jobs": [{"capture_dir", "code_object", "dump_dir",
  // "iterations", "result"}]}); status_file gets one JSON line per finished job ({"job": i, "exit": code}).
  std::string jobs_file;
  std::string status_file;
  bool in_batch = false;  // set for each job of a batch: a range that cannot be had fails the job, no restart
};

// The jobs of a batch, each the base options with its own capture, code object, dump folder, iterations and
// result file. Throws rpl::Error(InputInvalid) naming the file when it is not a valid jobs document.
std::vector<ReplayRunnerOptions> read_replay_jobs(const ReplayRunnerOptions& base);

// Whether a batch may go on after a job ended with this exit code: only when the job left the GPU context usable
// (success, a range that could not be had, a verification mismatch, a code object that does not load).
bool batch_continues_after(int exit_code);

// Runs every job of the batch in order through run_replay_runner, appending each job's exit code to
// options.status_file as it ends; stops after a job that batch_continues_after refuses. Returns 0, or the code of
// a failure of the batch itself (unreadable jobs file, status file not writable).
int run_replay_batch(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                     const std::function<void(const ReplayRunnerOptions&, ReplayReport&)>& replay);

// Parses the runner's arguments and the replay knobs of the environment; on a bad argument prints it and the
// usage as `runner`, on a bad knob the variable and its value, and exits 2.
ReplayRunnerOptions parse_replay_runner_args(int argc, char** argv, const char* runner);

// Runs `replay` (which fills the report as far as it gets and throws rpl::Error on failure), logs a failure on
// stderr as `runner`, writes the replay document to options.result_file once the kernel is known (the manifest
// was read), and returns the exit code: 0, or the error's.
int run_replay_runner(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                      const std::function<void(ReplayReport&)>& replay);

// What a runner does on its GPU, for run_full_vm. The memory holds the captured before-state when run_full_vm
// starts (and the runner keeps pristine copies of it when options.recopy).
class ReplayDevice {
 public:
  virtual ~ReplayDevice() = default;
  // Copies the pristine before-state back into every region i with regions[i] set.
  virtual void restore(const std::vector<bool>& regions) = 0;
  // One launch of the kernel, waited for; its GPU time in nanoseconds.
  virtual double launch() = 0;
  // Evicts the device's last-level cache (before a cold launch; not timed).
  virtual void flush_cache() = 0;
  // Restricts restore() of region `region` to these ranges (by default it restores the whole region).
  virtual void set_restore_ranges(std::size_t /*region*/, std::vector<ByteRange> /*ranges*/) {}
  // Reads `size` bytes at `offset` of region `region` into the last-level cache (warm launches; not timed).
  virtual void touch(std::size_t /*region*/, uint64_t /*offset*/, uint64_t /*size*/) {}
  // Evicts the kernel's code from the multiprocessors' instruction caches (cold launches unless
  // RPL_REPLAY_COLD=data; not timed).
  virtual void flush_code() {}
  virtual bool can_flush_code() const { return false; }
  // The last-level cache's size in bytes (0: unknown, and warm launches read nothing in).
  virtual uint64_t cache_bytes() { return 0; }
  // Whether restore() refills region `region` with one repeated word rather than copying a pristine image.
  virtual bool restores_by_fill(std::size_t /*region*/) const { return false; }
  // Copies `size` bytes at `offset` of region `region` (index into the manifest) into host memory.
  virtual void read_back(std::size_t region, uint64_t offset, std::byte* into, std::size_t size) = 0;
};

// Finds whether a region's bytes, seen in pieces, are one 32-bit word repeated (zeroed gradients, cleared
// counters): such a region is restored by a fill, as the application's own memset did, instead of a copy that
// reads as many bytes again and displaces the kernel's inputs from the cache.
class RepeatedWord {
 public:
  void add(const std::byte* data, std::size_t n);
  // The word, when every byte seen repeats the first four and their count is a non-zero multiple of 4.
  std::optional<uint32_t> word() const;

 private:
  std::byte pattern_[4]{};
  uint64_t seen_ = 0;
  bool repeated_ = true;
};

// The regions a replay must restore between launches: those with a before-snapshot whose after-snapshot is
// missing or has other contents (the kernel writes them).
std::vector<bool> written_regions(const Manifest& m);

// The full-vm flow: verification replays (options.verify_replays, each from the captured state, compared with
// each other and with the after-snapshots), then options.iterations timed launches in options.cache's state.
// Fills report's verification, gpu_time, setup and iteration wall times (setup counted from `start`).
void run_full_vm(const ReplayRunnerOptions& options, const std::filesystem::path& capture_dir, const Manifest& m,
                 ReplayDevice& device, ReplayReport& report, std::chrono::steady_clock::time_point start);

// The verdict on replays[r][i] (the r-th replay's bytes of region i; empty for regions without an
// after-snapshot, and for a non-empty region known to equal its after-snapshot) against the capture's
// after-snapshots. "skipped" when the capture has none.
Verification verify_replays(const std::filesystem::path& capture_dir, const Manifest& m,
                            const std::vector<std::vector<std::vector<std::byte>>>& replays);

}  // namespace rpl::capture
