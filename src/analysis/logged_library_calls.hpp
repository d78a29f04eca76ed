#pragma once
// Library calls from the libraries' own API logs (model/logged_library_calls.hpp: cuBLAS, cuBLASLt, cuDNN on
// NVIDIA) linked to the kernels they launched. A log records when a call started, in which process and (cuBLAS,
// cuDNN) thread, but not when it ended nor what it launched, so the link is made from the trace:
//
//   - candidates: kernels of the call's library family (kernel_origin: cuBLAS or CUTLASS kernels for cuBLAS and
//     cuBLASLt calls, cuDNN or CUTLASS kernels for cuDNN calls) whose launching API call ran on the same thread
//     (the log's thread id equals the trace's, or its low 32 bits do: cuDNN logs the OS thread id, which is what the
//     trace held on the H200 (the main thread's id was the pid); cuBLAS logs pthread_self, which matches no launch,
//     and cuBLASLt logs no thread: then any thread of the process) and that no earlier call took;
//   - window: the calls of one log, process and thread that may launch work (not set-up calls: create, destroy,
//     set, get, ...) are grouped by time stamp; a group's window runs from its time stamp to the next group's;
//   - a group of one call takes every candidate launch in its window (CallLink::TimeWindow); a group of k calls
//     sharing a time stamp (cuBLAS and cuBLASLt log whole seconds) takes its launches one per call in order when
//     there are exactly k, or m each when the k calls are identical (same function and arguments) and there are
//     k * m (a split-K GEMM launches its reduction too) (CallLink::Order); otherwise its calls stay unlinked
//     (CallLink::None: ambiguous).
//
// A linked call's start is the logged time, or for a log of whole seconds the first linked launch; its end is the
// end of the last linked launch call; an unlinked call's end is its start. Logs are linked in the order cuBLAS,
// cuDNN, cuBLASLt, so a cuBLASLt call that cuBLAS made for a logged cuBLAS call finds its kernels taken.
#include <cstddef>
#include <vector>

#include "analysis/library_calls.hpp"
#include "model/logged_library_calls.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct LoggedCallLinks {
  std::size_t calls = 0;
  std::size_t set_up = 0;         // calls that launch no work (never linked)
  std::size_t time_window = 0;    // linked alone in their window
  std::size_t order = 0;          // linked by order among calls sharing a time stamp
  std::size_t ambiguous = 0;      // sharing a time stamp with a launch count that is not theirs: not linked
  std::size_t no_kernels = 0;     // alone or in a group, but no candidate launch in the window
  std::size_t not_in_trace = 0;   // their process is not in the trace, or its clock does not match the log's
  std::size_t untimed = 0;        // the log gave them no time (older cuBLASLt lines): listed, never linked
  std::size_t linked_kernels = 0;
};

// The logged calls as LibraryCalls (by start, then process, thread), linked as above; `links` counts how.
std::vector<LibraryCall> logged_library_calls(const Trace& trace, const std::vector<LoggedLibraryCall>& logged,
                                              LoggedCallLinks* links = nullptr);

}  // namespace rpl::analysis
