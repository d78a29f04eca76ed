#pragma once
// `rocm-perf capture --all-kernels`: the index of a sweep (schemas/capture-index.schema.json), built from the
// capture library's log (capture/capture_sweep.hpp) once the application has ended.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "capture/capture_sweep.hpp"

namespace rpl::app {

struct SweepRun {
  std::vector<std::string> command;
  std::string kernel_regex;
  uint64_t dispatch = 1;
  uint64_t max_kernels = 0;
  std::string application;  // how the application ended ("exited with status 0", ...)
};

// The log's entries in order of first launch. Throws rpl::Error(InputInvalid) naming the file and line of a
// malformed entry; a missing log is an empty sweep.
std::vector<capture::SweepEntry> read_sweep_log(const std::filesystem::path& file);

nlohmann::json sweep_index(const std::vector<capture::SweepEntry>& entries, const SweepRun& run);

}  // namespace rpl::app
