#pragma once
// The kernel side of the AMD replay: the code object loaded into an executable, the captured kernel found by
// its name, its arguments in a kernarg buffer, and timed dispatches on an AQL queue. UNVALIDATED ON AMD
// HARDWARE.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "collectors/amd/amd_launch_record.hpp"
#include "collectors/amd/replay_runner/replay_memory.hpp"

namespace rpl::hsa_replay {

class ReplayKernel {
 public:
  ReplayKernel(const HsaRuntime& rt, const Device& device) : rt_(rt), device_(device) {}
  ~ReplayKernel();
  ReplayKernel(const ReplayKernel&) = delete;
  ReplayKernel& operator=(const ReplayKernel&) = delete;

  // Loads `image` (`what` names it in errors) and finds the captured kernel by its symbol name. Checks that
  // another build (--code-object) takes the captured kernarg segment. Throws rpl::Error(InputInvalid).
  void load(const std::vector<std::byte>& image, const std::string& what,
            const collectors::amd::AmdReplayLaunch& launch);
  // Where the loader put a code-object variable of the captured size. Throws rpl::Error(InputInvalid).
  uint64_t variable_address(const std::string& name, uint64_t size, const std::string& what) const;

  // A kernarg buffer (host-visible kernarg pool) holding the captured argument bytes.
  void set_arguments(const std::vector<std::byte>& bytes);

  // One dispatch, waited for; returns its GPU time in nanoseconds (profiling timestamps).
  double dispatch(double timeout_s);

 private:
  static void on_queue_error(hsa_status_t status, hsa_queue_t* queue, void* data);
  void create_queue();

  const HsaRuntime& rt_;
  const Device& device_;
  std::string what_;
  hsa_code_object_reader_t reader_{};
  hsa_executable_t executable_{};
  uint64_t kernel_object_ = 0;
  uint32_t kernarg_size_ = 0;
  collectors::amd::DispatchGeometry geometry_;
  void* kernarg_ = nullptr;
  hsa_queue_t* queue_ = nullptr;
  hsa_signal_t done_{};
  std::atomic<hsa_status_t> queue_error_{HSA_STATUS_SUCCESS};
};

}  // namespace rpl::hsa_replay
