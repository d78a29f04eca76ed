#pragma once
// rocBLAS's profile log: with ROCBLAS_LAYER=4 rocBLAS writes, when the process exits, one YAML line per function
// and set of performance-critical arguments it was called with, to ROCBLAS_LOG_PROFILE_PATH (rocBLAS's
// documented logging, "Profile logging"):
//   - { rocblas_function: "rocblas_sgemm", atomics_mode: atomics_allowed, transA: 'N', transB: 'T', M: 128, ...,
//       call_count: 10 }
// rocBLAS puts no ROCTx range around its calls, so this is how `--library-trace` counts them on AMD (no times).
// Unvalidated on AMD hardware: the format is taken from rocBLAS's documentation and published examples.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/library_call_counts.hpp"

namespace rpl::collectors {

// The log's name in a run's folder (rocprofv3_collector asks rocBLAS for it there).
inline constexpr const char* kRocblasProfileLog = "rocblas_profile.log";

// The lines naming a rocblas_function; other lines (YAML comments, blank) are skipped. A line with a
// rocblas_function but no integer call_count is bad input: rpl::Error(InputCorrupt) naming `path` and the line.
std::vector<LibraryCallCount> parse_rocblas_profile_log(std::string_view text, const std::string& path);

// The environment that asks rocBLAS for its profile log at `path`: ROCBLAS_LAYER=4 and ROCBLAS_LOG_PROFILE_PATH,
// or nothing when the user set ROCBLAS_LAYER (their logging is kept as they asked for it).
std::vector<std::pair<std::string, std::string>> rocblas_profile_environment(const std::string& path);

// The file's calls, or none when it does not exist (the application did not load rocBLAS).
std::vector<LibraryCallCount> read_rocblas_profile_log(const std::string& path);

}  // namespace rpl::collectors
