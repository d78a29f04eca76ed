#pragma once
// Small kernels the replay runner launches between timed launches to set the cache state (not timed): one reads
// a range into L2 (warm launches: the kernel's inputs resident, as a producer kernel would leave them), one
// runs a long stretch of code on every multiprocessor to evict the replayed kernel's code from the instruction
// caches (cold launches, unless RPL_REPLAY_COLD=data). Written in PTX and compiled by the driver when first used, so the runner
// needs no compiler and no kernels of its own in its binary.
#include <cuda.h>

#include <cstdint>
#include <string>

namespace rpl::cuda_capture {

class CacheKernels {
 public:
  explicit CacheKernels(CUdevice device) : device_(device) {}
  ~CacheKernels();
  // Whether each kernel compiled (the driver's PTX compiler may be missing); false with the reason.
  bool touch_ready(std::string& why);
  bool evict_ready(std::string& why);
  // Reads every 32-byte sector of [address, address + bytes) on `stream` (throws rpl::Error on failure).
  void touch(CUdeviceptr address, uint64_t bytes, CUstream stream);
  // Runs straight-line code larger than an SM's instruction caches on every SM, on `stream`.
  void evict_code(CUstream stream);

 private:
  void load_touch();
  void load_evict();

  CUdevice device_;
  int multiprocessors_ = 0;
  CUmodule touch_module_ = nullptr, evict_module_ = nullptr;
  CUfunction touch_ = nullptr, evict_ = nullptr;
  CUdeviceptr scratch_ = 0;  // the evict kernel's loads, and where a kernel would store (it never does)
};

}  // namespace rpl::cuda_capture
