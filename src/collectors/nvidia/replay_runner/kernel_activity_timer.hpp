#pragma once
// The replayed kernel's GPU time as CUPTI's kernel activity records give it: the same source as the in-app
// durations our collector records, so replay and in-app times compare like for like. CUDA events around one
// launch add the front end's launch latency (a few microseconds: for a 3 us kernel, more than the kernel).
#include <cstdint>
#include <string>

namespace rpl::cuda_capture {

class KernelActivityTimer {
 public:
  // Enables CUPTI's concurrent-kernel activity for this process; false (with the reason) where CUPTI refuses,
  // e.g. another profiler holds it, or when not `wanted` (RPL_REPLAY_TIMER=events): the caller then keeps CUDA events.
  bool start(bool wanted, std::string& why_not);
  // Flushes the activity buffers and returns the duration (end - start, ns) of the last kernel completed since the
  // previous call, or -1 when none was recorded.
  int64_t take_last_kernel_ns();
  ~KernelActivityTimer();

 private:
  bool started_ = false;
};

}  // namespace rpl::cuda_capture
