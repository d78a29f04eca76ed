#pragma once
// cuBLAS, cuBLASLt and cuDNN calls from the libraries' own API logging (their documented environment variables),
// for `profile --library-trace` on NVIDIA: with PyTorch 2.11 / CUDA 13.0 on an H200 neither library put an NVTX
// range around its calls (bench/results/2026-11-29/cuda/library_trace_gpu/), so the logs are where the calls are.
//
//   cuBLAS    CUBLAS_LOGINFO_DBG=1, CUBLAS_LOGDEST_DBG=<file>; per call:
//               I! cuBLAS (v13.0) function cublasStatus_t cublasGemmEx(cublasHandle_t, ...) called:
//               i!  m: type=int; val=64                          (one line per argument)
//               i! Time: 2026-11-29T10:00:00 elapsed from start 0.016667 minutes or 1.000000 seconds
//               i!Process=4242; Thread=140234567890432; GPU=0; Handle=...; StreamId=...; MathMode=...
//   cuBLASLt  CUBLASLT_LOG_LEVEL=5 (API trace), CUBLASLT_LOG_FILE=<file with %i: one per process>; per line:
//               [2026-11-29 10:00:00][cublasLt][4242][Api][cublasLtMatmul] A=0x... Adesc=[type=R_16BF rows=64 ...] ...
//             (older versions write no time: [cublasLt][4242][Trace][cublasLtSSSMatmul] ...; such calls are untimed)
//   cuDNN 9   CUDNN_LOGLEVEL_DBG=3 (info: every API call), CUDNN_LOGDEST_DBG=<file>; per call:
//               I! CuDNN (v91900 ...) function cudnnBackendExecute() called:
//               i!     handle: type=cudnnHandle_t; streamId=...;
//               i! Time: 2026-11-29T10:00:00.123456 (0d+0h+0m+1s since start)
//               i! Process=4242; Thread=4243; GPU=0; Handle=...; StreamId=....
//
// The logs' times are wall-clock (local time; cuBLAS and cuBLASLt to the second, cuDNN to the microsecond); the
// collector records the wall clock, the trace's clock (CLOCK_BOOTTIME) and the UTC offset when it starts the
// application (clock.txt), which converts them. A variable the user set already is left as it is and that
// library's calls are not read (their log goes where they asked).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/logged_library_calls.hpp"

namespace rpl::collectors {

// The folder in a run's folder that holds the logs and clock.txt.
inline constexpr const char* kLibraryLogDir = "library_logs";

struct LibraryLogEnvironment {
  std::vector<std::pair<std::string, std::string>> env;  // to set for the profiled process
  std::vector<std::string> kept;  // "cuDNN (CUDNN_LOGLEVEL_DBG is set)": libraries whose logging the user set
};
// The variables that ask cuBLAS, cuBLASLt and cuDNN to log their API calls into `dir`.
LibraryLogEnvironment library_log_environment(const std::string& dir);

// The clocks at one instant: the wall clock, the trace's clock, the local time's offset from UTC.
struct LibraryLogClock {
  int64_t realtime_ns = 0, trace_clock_ns = 0, utc_offset_s = 0;
};
LibraryLogClock current_library_log_clock();
void write_library_log_clock(const std::string& dir, const LibraryLogClock& clock);  // dir/clock.txt

// Parsers of one log's text. Times are the log's wall-clock fields read as if they were UTC (to_trace_clock
// converts them). Lines of another form are skipped (other severities, hints, banners), and so is a call record
// without its time (cut off at the end, or interleaved with another thread's); a call line that cannot be read (a
// header without a function name, a bad time stamp, a non-numeric process or thread, a cuBLASLt line with fewer
// than five [fields]) is rpl::Error(InputCorrupt) naming `path` and the line.
std::vector<LoggedLibraryCall> parse_cublas_log(std::string_view text, const std::string& path);
std::vector<LoggedLibraryCall> parse_cublaslt_log(std::string_view text, const std::string& path);
std::vector<LoggedLibraryCall> parse_cudnn_log(std::string_view text, const std::string& path);

// `calls`' times from the log's local wall-clock to the trace's clock.
void to_trace_clock(std::vector<LoggedLibraryCall>& calls, const LibraryLogClock& clock);

// Every log in `dir` (cublas.log, cublaslt_<pid>.log, cudnn.log) parsed and converted with dir/clock.txt; none when
// `dir` does not exist. Throws rpl::Error for a bad log or a missing / bad clock.txt beside logs.
std::vector<LoggedLibraryCall> read_library_api_logs(const std::string& dir);

}  // namespace rpl::collectors
