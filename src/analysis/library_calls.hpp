#pragma once
// Calls into the GPU math and deep-learning libraries, as the trace holds them: the marker ranges the libraries
// themselves put around their API calls (ROCTx on AMD: hipBLASLt with HIPBLASLT_ENABLE_MARKER=1, MIOpen with
// MIOPEN_ENABLE_LOGGING_ROCTX=1; NVTX on NVIDIA: cuBLAS, cuDNN), recognised by the API's function-name prefix
// (hipblasLt..., miopen..., rocblas_..., cublas..., cublasLt..., cudnn...). Each call carries the GPU work
// launched inside it (analysis/trace_summaries: range_instance_work). A library that puts no marker around a
// call leaves nothing here: the trace never guesses calls from kernel names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

struct LibraryFunction {
  std::string library;   // "hipBLASLt", "MIOpen", "rocBLAS", "hipBLAS", "cuBLAS", "cuBLASLt", "cuDNN"
  std::string function;  // the API function, "hipblasLtMatmul"
};

// The library call a marker range's text names: the first word of it (letters, digits, '_') that starts with a
// library's API prefix; nullopt when none does ("forward pass", a user's own range).
std::optional<LibraryFunction> library_function(std::string_view range_name);

// How a call's GPU work was found: inside its marker range, or (a call from a library's API log, which has no end
// time: analysis/logged_library_calls) inside its time window on its thread, by order among calls that share a
// time stamp, or not at all.
enum class CallLink { MarkerRange, TimeWindow, Order, None };
std::string_view to_string(CallLink link);  // "marker_range", "time_window", "order", "none"

struct LibraryCall {
  LibraryFunction call;
  std::string range_name;  // the marker's whole text (empty for a logged call)
  Index process = kNoIndex;
  int64_t pid = 0;         // the process id where `process` is kNoIndex (a logged call of a process not traced)
  uint32_t thread = 0;
  TimeNs start = 0, end = 0;                  // host time between the range's push and pop (logged: see CallLink)
  std::size_t gpu_kernels = 0, gpu_copies = 0;  // the work launched inside it
  TimeNs gpu_busy_ns = 0;                     // the union of that work's intervals
  CallLink link = CallLink::MarkerRange;
  std::string arguments;   // a logged call's key arguments ("m=64 n=64 k=64 ..."); empty for a marker range
  TimeNs resolution = 0;   // of a logged call's time stamp (0 for a marker range)
};

// Every library call of `trace` (its marker ranges that name one), by start (then process, thread).
std::vector<LibraryCall> library_calls(const Trace& trace);

struct LibraryFunctionSummary {
  LibraryFunction call;
  std::size_t calls = 0;
  TimeNs total_ns = 0, min_ns = 0, max_ns = 0;  // host time
  std::size_t gpu_kernels = 0, gpu_copies = 0;
  TimeNs gpu_busy_ns = 0;
};

// The calls by (library, function), the longest total host time first (ties: library, then function).
std::vector<LibraryFunctionSummary> library_summary(const std::vector<LibraryCall>& calls);

// Kernels of a library that marks its calls (cuBLAS, cuDNN, hipBLASLt, MIOpen; the kernel's origin read from its
// name, model/kernel_origin) that ran although no call of that library was found: the library put no marker range
// around its calls in this run (cuBLAS and cuDNN emitted no NVTX range with PyTorch 2.11 / CUDA 13 on an H200), so
// the calls cannot be listed. cuBLAS's kernels count as found when cuBLAS or cuBLASLt calls were. Tensile's
// kernels are left out: rocBLAS marks no call anyway (its calls are counted from its profile log).
struct LibraryKernelsWithoutCalls {
  std::string library;         // the kernels' origin: "cuBLAS", "cuDNN", "hipBLASLt", "MIOpen"
  std::size_t dispatches = 0;  // of all its kernels in the trace
  std::size_t kernels = 0;     // distinct kernel names
  std::string example;         // the kernel with the most dispatches (ties: the first in the trace)
};

// Per library, in the order above; empty when every such library's calls were found or none of its kernels ran.
std::vector<LibraryKernelsWithoutCalls> library_kernels_without_calls(const Trace& trace,
                                                                      const std::vector<LibraryCall>& calls);

}  // namespace rpl::analysis
