#pragma once
// What both replay runners (collectors/nvidia/replay_runner, collectors/amd/replay_runner) share, vendor-neutral:
// their internal command line, the run with its result document and exit code, and the comparison of the
// replayed memory with the capture's after-snapshot.
//   <runner> reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy]
//            [--code-object PATH] [--dump-dir DIR]
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "capture/manifest.hpp"
#include "capture/replay_report.hpp"

namespace rpl::capture {

struct ReplayRunnerOptions {
  std::string mode;  // "reserve-check" or "full-vm"
  std::string capture_dir;
  std::string result_file;  // where the replay document goes ("" = nowhere)
  unsigned iterations = 1;
  bool recopy = true;
  std::string code_object;  // "" = the captured code object
  std::string dump_dir;     // final memory of every region, raw, as r<ID>.bin
};

// Parses the runner's arguments; on a bad one prints it and the usage as `runner` and exits 2.
ReplayRunnerOptions parse_replay_runner_args(int argc, char** argv, const char* runner);

// Runs `replay` (which fills the report as far as it gets and throws rpl::Error on failure), logs a failure on
// stderr as `runner`, writes the replay document to options.result_file once the kernel is known (the manifest
// was read), and returns the exit code: 0, or the error's.
int run_replay_runner(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                      const std::function<void(ReplayReport&)>& replay);

// Compares every region that has an after-snapshot with the replayed memory, which `read_back(region_index,
// offset, into, size)` copies from the device. "skipped" when the capture has no after-snapshot.
using ReadBack = std::function<void(std::size_t region, uint64_t offset, std::byte* into, std::size_t size)>;
Verification compare_with_after_snapshot(const std::filesystem::path& capture_dir, const Manifest& manifest,
                                         const ReadBack& read_back);

}  // namespace rpl::capture
